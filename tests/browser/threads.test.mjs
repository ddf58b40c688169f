// threads.test.mjs -- the dashboard shows each thread as itself when the runtime
// reuses ThreadIDs, in real headless Chromium against the real server with
// E2eTarget's "threads" mode (300 named short-lived threads with collections in
// between; a few dozen ThreadIDs for all of them) in startup mode: the Threads
// tab lists each thread the app started once, with its name and kernel id; the
// live feed names the thread that compiled each thread's own method; the Stacks
// tab names every thread walked, the runtime's own threads included.
//   node --test tests/browser/threads.test.mjs
// Screenshots: build/screenshots/threads-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, stopServer, launchBrowser, openDashboard, waitFor, waitForOutput, screenshot,
  unexpectedConsoleErrors, apiGet, E2E_DLL, pressTab,
} from './helpers.mjs';

const THREADS = 300;

describe('threads on reused ThreadIDs', { timeout: 240000 }, () => {
  let srv, browser, page, app;

  before(async () => {
    srv = await startServer({ dll: E2E_DLL, appArgs: ['threads', String(THREADS), '5'], stdin: true });
    await waitForOutput(srv, /^READY pid=\d+/m, 60000);
    browser = await launchBrowser();
    page = await openDashboard(browser, srv, { hash: '#/sessions/1', width: 1440, height: 900 });
    await page.locator('.s-head .badge-live').waitFor({ timeout: 30000 });
    srv.send('go');
    await waitForOutput(srv, /^churned \d+$/m, 120000);
    app = [...srv.stdout.matchAll(/^thread (\d+) (\S+) (\d+)$/gm)].map((m) => ({ i: Number(m[1]), name: m[2], tid: Number(m[3]) }));
    assert.equal(app.length, THREADS, 'the app printed every thread');
    // the app compiles ThreadChurn.Done after every thread's end: once the session has it, it has them
    await waitFor('the churn\'s last method', async () =>
      (await apiGet(srv, '/api/sessions/1/functions?q=JitscopeE2e.ThreadChurn.Done')).body.functions.length === 1, { timeoutMs: 60000 });
    const rows = (await apiGet(srv, '/api/sessions/1/threads')).body.threads;
    const ids = new Set(rows.filter((t) => app.some((a) => a.tid === t.os_thread_id)).map((t) => t.thread_id));
    assert.ok(ids.size < THREADS, `the runtime reused ThreadIDs (${ids.size} for ${THREADS} threads)`);
  });

  after(async () => {
    try { if (browser) await browser.close(); } finally { await stopServer(srv); }
  });

  it('the Threads tab lists each thread once, with its own name and kernel id', async () => {
    await pressTab(page, 5);
    const served = (await apiGet(srv, '/api/sessions/1/threads')).body.threads.length;
    await waitFor('every thread the server has in the table', async () =>
      (await page.locator('.table-wrap table.grid tbody tr').count()) === served, { timeoutMs: 20000 });
    const cells = await page.evaluate(() => [...document.querySelectorAll('.table-wrap table.grid tbody tr')]
      .map((tr) => [...tr.children].map((td) => td.textContent)));
    for (const a of app) {
      const mine = cells.filter((c) => c[1] === String(a.tid));
      assert.equal(mine.length, 1, `${a.name} (kernel id ${a.tid}): one row, not ${mine.length}`);
      assert.equal(mine[0][0], a.name, `the row of kernel id ${a.tid} is named ${a.name}`);
      assert.equal(cells.filter((c) => c[0] === a.name).length, 1, `one row named ${a.name}`);
    }
    const finalizer = cells.find((c) => c[0] === '.NET Finalizer');
    assert.ok(finalizer, 'the finalizer thread is named in startup mode');
    await screenshot(page, 'threads-reused-ids.png');
  });

  it('the feed names the thread that compiled each thread\'s own method', async () => {
    await pressTab(page, 1);
    for (const i of [0, 7, 151, 299]) {
      const method = `Combo2<JitscopeE2e.S${String(Math.floor(i / 30)).padStart(2, '0')},JitscopeE2e.S${String(i % 30).padStart(2, '0')}>`;
      await page.fill('input[type=search]', method);
      const thread = await waitFor(`the feed row of ${method}`, () => page.evaluate((m) => {
        const rows = [...document.querySelectorAll('.vt-row')].filter((r) => r.querySelector('.c-name').textContent.includes(m));
        return rows.length === 1 && rows[0].querySelector('.c-thread').textContent;
      }, method), { timeoutMs: 20000 });
      assert.equal(thread, app[i].name, `${method} was compiled on ${app[i].name}`);
    }
    await screenshot(page, 'threads-feed.png');
    await page.fill('input[type=search]', '');
  });

  it('the Stacks tab names every thread it walked', async () => {
    await page.evaluate(() => { location.hash = '#/sessions/1/stacks'; });
    const btn = page.locator('button.snap-btn');
    await waitFor('an enabled Snapshot now button', () => btn.isEnabled(), { timeoutMs: 30000 });
    await btn.click();
    await page.locator('.stacks-view .snap-info').getByText(/^Snapshot #1: \d+ threads/).waitFor({ timeout: 30000 });
    const rest = (await apiGet(srv, '/api/sessions/1/stacks/1')).body.snapshot;
    for (const t of rest.threads) {
      assert.ok(t.name, `the server names thread ${t.os_thread_id}`);
      const card = page.locator(`.stack-card[data-os="${t.os_thread_id}"]`);
      assert.equal(await card.getAttribute('data-thread'), t.name, `the card of ${t.os_thread_id} is named ${t.name}`);
    }
    assert.equal(await page.locator('.stack-card[data-thread="(unnamed)"]').count(), 0, 'no unnamed thread');
    await page.locator('.stack-card[data-thread=".NET Finalizer"]').waitFor();
    await screenshot(page, 'threads-stacks.png');
    assert.deepEqual(unexpectedConsoleErrors(page), [], 'no console errors');
  });
});
