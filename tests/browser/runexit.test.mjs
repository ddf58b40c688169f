// runexit.test.mjs -- what the dashboard shows of a finished `run --exit`
// read back by a new server on the same data directory (issue 34, defect 1):
// every process of the run is "exited", none carries the amber
// "interrupted" badge or the "server stopped while it was live" banner. The
// run is E2eTarget `parentwait`, whose child ends milliseconds before the
// launched process, as vstest.console and testhost do before `dotnet test`
// (tests/e2e/trees.test.mjs runs the real `dotnet test`). At 1,024, 1,440 and
// 1,920 px, with each session's chart spanning its second-long run; screenshots: build/screenshots/runexit-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer as startRun, tempDataDir } from '../e2e/lib.mjs';
import {
  startServer, launchBrowser, openDashboard, apiGet, waitFor, screenshot, closeAll, E2E_DLL,
} from './helpers.mjs';

const WIDTHS = [1024, 1440, 1920];
let srv, browser, sessions;

before(async () => {
  const data = tempDataDir();
  const run = await startRun(['run', '--exit', '--port', '0', '--data', data, '--', 'dotnet', E2E_DLL, 'parentwait']);
  assert.deepEqual(await run.exited, { code: 0, signal: null }, run.stderr);
  assert.match(run.stdout, /^child exited 0$/m);
  srv = await startServer({ serve: true, args: ['--data', data] });
  sessions = (await apiGet(srv, '/api/sessions')).body.sessions;
  assert.equal(sessions.length, 2, 'the launched process and its child');
  browser = await launchBrowser();
});
after(() => closeAll(browser, srv));

for (const width of WIDTHS) {
  test(`${width} px: the run's sessions read back are exited, none interrupted, their charts span them`, async () => {
    const page = await openDashboard(browser, srv, { hash: '#/', width, height: 800 });
    try {
      // the child is listed under the run's launched process: open it
      await page.locator('button.tree-toggle', { hasText: '1 child' }).click({ timeout: 20000 });
      const badges = page.locator('.sessions-table .badge[data-state]');
      await badges.nth(sessions.length - 1).waitFor({ timeout: 20000 });
      const states = await badges.evaluateAll((els) => els.map((e) => e.dataset.state));
      assert.deepEqual(states, sessions.map(() => 'exited'), 'every session of the run ended');
      assert.doesNotMatch(await page.locator('main, body').first().textContent(), /interrupted/i);
      await screenshot(page, `runexit-home-${width}.png`);
      for (const s of sessions) {
        await page.evaluate((id) => { location.hash = `#/sessions/${id}/live`; }, s.id);
        await page.locator('.s-head .badge[data-state="exited"]').waitFor({ timeout: 20000 });
        await page.locator('.notice', { hasText: /Process exited/ }).waitFor({ timeout: 20000 });
        assert.doesNotMatch(await page.locator('body').textContent(), /stopped while it was live|Interrupted\./,
          `session ${s.id} (${s.program}, pid ${s.pid})`);
        // its chart spans the short run (seconds, the shortest span that holds it: 10 s
        // when idle, more when a loaded machine stretched the run; never the live
        // default of minutes) and shows its JITs
        await waitFor(`session ${s.id}'s JITs in its chart`, () => page.locator('canvas.rate-chart')
          .evaluate((c) => (c.labelBoxes || []).some((b) => /(^| )\d+ s: [1-9][\d,]* JITs/.test(b.text))));
      }
      await screenshot(page, `runexit-child-${width}.png`);
    } finally {
      await page.context().close();
    }
  });
}
