// storage.test.mjs -- a session whose server was killed -9 while it was live,
// in the dashboard of the next server on the same data directory: listed as
// interrupted, its page says it comes from storage (read-only) with its
// functions, and Delete removes it. Screenshots: build/screenshots/stored-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, stopServer, launchBrowser, openDashboard, waitFor, apiGet, screenshot, storageCaughtUp, tempDataDir,
} from './helpers.mjs';

let recorder, srv, browser;
after(async () => {
  try { if (browser) await browser.close(); } finally { await stopServer(recorder); await stopServer(srv); }
});

// A server recording the demo app into dir, once its session is live with functions.
async function recording(dir) {
  const srv = await startServer({ args: ['--data', dir] });
  await waitFor('live, with functions', async () => {
    const r = await apiGet(srv, '/api/sessions/1');
    return r.body.state === 'live' && r.body.counters.functions > 20;
  }, { timeoutMs: 60000 });
  return srv;
}

test('an interrupted session from storage: listed, browsable, read-only, deletable', { timeout: 120000 }, async () => {
  const dir = tempDataDir();
  recorder = await recording(dir);
  const seen = (await apiGet(recorder, '/api/sessions/1')).body.counters.functions;
  await storageCaughtUp(recorder);
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

let recorder2, srv2;
after(async () => {
  try { if (recorder2) process.kill(-recorder2.proc.pid, 'SIGKILL'); } catch { /* gone */ }
  await stopServer(recorder2);
  await stopServer(srv2);
});

test('a live session taken back by the next server: its page says so, with the gap', { timeout: 120000 }, async () => {
  const dir = tempDataDir();
  recorder2 = await recording(dir);
  // what the last quarter second brought may be lost at a kill: wait for a commit
  const c0 = (await apiGet(recorder2, '/api/config')).body.storage.commits;
  await waitFor('a commit since', async () => (await apiGet(recorder2, '/api/config')).body.storage.commits > c0, { timeoutMs: 30000 });
  recorder2.proc.kill('SIGKILL'); // the server only: its app runs on, its agent waits
  await recorder2.exited;
  srv2 = await startServer({ serve: true, args: ['--data', dir] });
  let last;
  const back = await waitFor('the agent back', async () => {
    if (srv2.exit) throw new Error(srv2.stderr);
    const r = await apiGet(srv2, '/api/sessions/1');
    last = r.body;
    return r.body.state === 'live' && r.body.stored.resumes === 1 && r.body;
  }, { timeoutMs: 30000 }).catch((e) => { throw new Error(`${e.message}: ${JSON.stringify(last).slice(0, 300)}\n${srv2.stderr}`); });
  assert.ok(back.stored.last_gap_ms > 0, `the gap is known (${back.stored.last_gap_ms} ms)`);
  const b = browser || (browser = await launchBrowser());
  const page = await openDashboard(b, srv2, { hash: '#/sessions/1' });
  const mark = page.locator('.resumed-mark');
  await mark.waitFor({ timeout: 15000 });
  assert.match(await mark.textContent(), /taken back after a server restart: gap \d/);
  assert.ok(await page.locator('.stored-mark').isHidden(), 'live again, not a read-only stored session');
  assert.ok(await page.locator('.detach-btn').isVisible(), 'and it can be detached');
  await screenshot(page, 'stored-resumed.png');
  assert.deepEqual(page.consoleErrors, [], 'no console errors');
});
