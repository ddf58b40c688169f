// cpuprofile.test.mjs -- the Profile tab in CPU mode (issue 28), in real headless
// Chromium against the real server and StackTarget ("spinner" hot in
// Spin.Outer -> Spin.Inner, "deep" blocked): the mode is chosen on the page, the
// flame graph shows the spinner's stack with native frames, the status says it
// measures CPU time and that the runtime was never suspended, the thread filter
// and the pprof download work; on a server where perf_event_open is refused
// (build/tests/noperf: a seccomp filter) CPU mode is offered greyed out with the
// reason, and the page falls back to wall clock.
//   node --test tests/browser/cpuprofile.test.mjs
// Screenshots: build/screenshots/cpu-profile*.png (and copies in /tmp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  BUILD, stopServer, openDashboard, waitFor, unexpectedConsoleErrors, apiGet,
  openLiveSession, closeAll, screenshotCopy,
} from './helpers.mjs';
import { serveStackTarget } from '../e2e/stacktarget.mjs';

const NOPERF = path.join(BUILD, 'tests/noperf');

const tab = (page, fn, arg = null) =>
  page.evaluate(`(${fn})(window.__jitscope.app.view.tabs.profile, ${JSON.stringify(arg)})`);

describe('profile tab in CPU mode', { timeout: 240000 }, () => {
  let srv, browser, page;

  before(async () => {
    srv = await serveStackTarget();
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/profile', { width: 1440, height: 900 }));
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('CPU time chosen on the page: the spinner\'s stack with native frames, never suspended', async () => {
    const cpuOption = page.locator('select.mode-select option[value="cpu"]');
    await waitFor('CPU mode offered', async () => !(await cpuOption.isDisabled()), { timeoutMs: 30000 });
    await page.locator('select.mode-select').selectOption('cpu');
    await page.locator('input#p-hz-1').fill('999');
    await page.locator('.snap-info', { hasText: 'never suspended' }).waitFor();
    await page.locator('button.start-btn').click();
    await page.locator('.p-stats .badge-live').waitFor({ timeout: 20000 });
    assert.match(await page.locator('.p-stats .p-mode').textContent(), /^MeasuresCPU time threads on a CPU only$/);
    assert.match(await page.locator('.p-stats .p-never').textContent(), /^Runtime suspendednever/);
    assert.ok(await page.locator('select.mode-select').isDisabled(), 'the mode is fixed while it runs');
    const spin = await waitFor('Spin.Inner drawn, under Spin.Outer', () => tab(page, (t) => {
      const inner = t.flame.locate('StackTarget.Spin.Inner(ulong)');
      return inner && t.flame.locate('StackTarget.Spin.Outer()') && t.status && t.status.samples > 500 && inner;
    }), { timeoutMs: 60000 });
    assert.ok(spin.w > 100, `Spin.Inner is wide (${Math.round(spin.w)} px)`);
    const names = await tab(page, (t) => { const out = []; const walk = (n) => { out.push(n.name); (n.children || []).forEach(walk); }; walk(t.rawTree); return out; });
    assert.ok(names.some((n) => /^libcoreclr\.so/.test(n)), 'native frames of the runtime are in the graph');
    assert.match(await page.locator('.p-stats .p-whole').textContent(), /^Whole stacks\d+(\.\d)?%/);
    await screenshotCopy(page, 'cpu-profile.png');

    // the thread filter: the spinner only
    // the filter's value for a thread: its thread_key, else its ThreadID, else its OS id
    const spinner = await tab(page, (t) => {
      const x = t.threads.find((y) => y.name === 'spinner');
      return x && (x.thread_key != null ? `key:${x.thread_key}` : x.thread_id || String(x.os_thread_id));
    });
    assert.ok(spinner, 'the spinner is in the thread list');
    await page.locator('.toolbar.filters select').selectOption(spinner);
    await waitFor('the graph of the spinner only: every sample under Spin.Run or its lost frames', () => tab(page, (t, id) => {
      if (t.thread !== id || !t.flame.root || !t.rawTree) return false;
      const names = [];
      const walk = (n) => { names.push(n.name); (n.children || []).forEach(walk); };
      walk(t.rawTree);
      return t.flame.root.value > 0 && !names.some((n) => n.startsWith('StackTarget.Deep') || n.startsWith('StackTarget.Sleeper')) &&
        names.includes('StackTarget.Spin.Inner(ulong)');
    }, spinner));
    await screenshotCopy(page, 'cpu-profile-spinner.png');
    await page.locator('.toolbar.filters select').selectOption('');

    await page.locator('button.stop-btn').click();
    await page.locator('.p-stats .badge', { hasText: 'stopped' }).waitFor({ timeout: 20000 });
    const href = await page.locator('a.export-pprof').getAttribute('href');
    assert.equal(href, '/api/sessions/1/profile?format=pprof');
    assert.match(await page.locator('a.export-pprof').getAttribute('download'), /\.pb\.gz$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a.export-pprof').click()]);
    const bytes = fs.readFileSync(await download.path());
    assert.ok(bytes.length > 100 && bytes[0] === 0x1f && bytes[1] === 0x8b, 'a gzip file');
    const st = (await apiGet(srv, '/api/sessions/1/profile')).body.profile;
    assert.equal(st.mode, 'cpu');
    assert.equal(st.suspended_ns_total, 0);
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });

  it('where perf_event_open is refused: CPU mode greyed out with the reason, wall clock instead', async () => {
    const other = await serveStackTarget({ prefix: [NOPERF] });
    try {
      const p2 = await openDashboard(browser, other, { hash: '#/sessions/1/profile', width: 1440, height: 900 });
      await p2.locator('.s-head .badge-live').waitFor({ timeout: 30000 });
      const opt = p2.locator('select.mode-select option[value="cpu"]');
      await waitFor('CPU mode marked not available', async () => (await opt.textContent()) === 'CPU time (not available)', { timeoutMs: 30000 });
      assert.ok(await opt.isDisabled());
      assert.match(await opt.getAttribute('title'), /perf_event_open is not allowed here.*seccomp/);
      assert.match(await p2.locator('select.mode-select').getAttribute('title'), /not available here/);
      assert.equal(await p2.locator('select.mode-select').inputValue(), 'wall');
      await p2.locator('button.start-btn').click();
      await p2.locator('.p-stats .badge-live').waitFor({ timeout: 20000 });
      assert.match(await p2.locator('.p-stats .p-mode').textContent(), /wall clock/);
      await screenshotCopy(p2, 'cpu-profile-unavailable.png');
      await p2.locator('button.stop-btn').click();
      await p2.context().close();
    } finally {
      await stopServer(other);
    }
  });
});
