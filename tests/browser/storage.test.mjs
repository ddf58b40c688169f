// storage.test.mjs -- a session whose server was killed -9 while it was live,
// in the dashboard of the next server on the same data directory: listed as
// interrupted, its page says it comes from storage (read-only) with its
// functions, and Delete removes it. Screenshots: build/screenshots/stored-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, stopServer, launchBrowser, openDashboard, waitFor, apiGet, screenshot, tempDataDir } from './helpers.mjs';

let recorder, srv, browser;
after(async () => {
  try { if (browser) await browser.close(); } finally { await stopServer(recorder); await stopServer(srv); }
});

test('an interrupted session from storage: listed, browsable, read-only, deletable', { timeout: 120000 }, async () => {
  const dir = tempDataDir();
  recorder = await startServer({ args: ['--data', dir] });
  await waitFor('live, with functions', async () => {
    const r = await apiGet(recorder, '/api/sessions/1');
    return r.body.state === 'live' && r.body.counters.functions > 20;
  }, { timeoutMs: 60000 });
  const seen = (await apiGet(recorder, '/api/sessions/1')).body.counters.functions;
  const r0 = (await apiGet(recorder, '/api/config')).body.storage.rounds;
  await waitFor('the writer caught up', async () => {
    const st = (await apiGet(recorder, '/api/config')).body.storage;
    return st.rounds >= r0 + 2 && st.backlog_bytes === 0;
  }, { timeoutMs: 30000 });
  recorder.proc.kill('SIGKILL'); // the server only, without warning
  await recorder.exited;
  try { process.kill(-recorder.proc.pid, 'SIGKILL'); } catch { /* its app, in its process group */ }

  srv = await startServer({ serve: true, args: ['--data', dir] });
  browser = await launchBrowser();
  const page = await openDashboard(browser, srv, { hash: '#/' });
  const badge = page.locator('.badge-interrupted').first();
  await badge.waitFor({ timeout: 15000 });
  assert.equal(await badge.textContent(), 'interrupted');
  await screenshot(page, 'stored-home.png');

  await page.evaluate(() => { location.hash = '#/sessions/1'; });
  await page.getByText('The server recording this session stopped while it was live').waitFor({ timeout: 15000 });
  await page.locator('.stored-mark').waitFor({ timeout: 5000 });
  assert.ok(await page.locator('.detach-btn').isHidden(), 'no Detach on a past session');
  const functions = (await apiGet(srv, '/api/sessions/1')).body.counters.functions;
  assert.ok(functions >= seen, `every function seen before the kill is back (${functions} >= ${seen})`);
  const count = await page.locator('.s-stats .stat').first().locator('.v').textContent();
  assert.equal(Number(count.replace(/\D/g, '')), functions, `the header counts ${functions} functions`);
  await screenshot(page, 'stored-session.png');

  await page.locator('.delete-btn').click();
  await page.locator('dialog.confirm button.btn-danger').click();
  await waitFor('the page goes home', () => page.evaluate(() => location.hash === '#/' || location.hash === ''), { timeoutMs: 10000 });
  assert.equal((await apiGet(srv, '/api/sessions/1')).status, 404, 'the session is gone');
  await screenshot(page, 'stored-deleted.png');
  assert.deepEqual(page.consoleErrors, [], 'no console errors');
});
