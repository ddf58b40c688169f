// trees.test.mjs -- a run's child processes on the home page, in real headless
// Chromium: `jitscope run -- dotnet E2eTarget.dll parent` (the launched process
// starts one child .NET process). The child's session is listed under the
// run's row, collapsed, with a count; the toggle opens and closes it; the
// child's page leads back to its run. Screenshots: build/screenshots/tree-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, stopAll, E2E_DLL } from '../e2e/lib.mjs';
import { launchBrowser, openDashboard, waitFor, screenshot, unexpectedConsoleErrors } from './helpers.mjs';

let browser;
let childPid = 0;
after(async () => {
  if (browser) await browser.close();
  if (childPid) { try { process.kill(childPid, 'SIGKILL'); } catch { /* gone */ } }
  await stopAll();
});

test('a run\'s child process is listed under the run, collapsed, with a count', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'parent']);
  childPid = Number((await waitFor('the child started', async () => /^child (\d+)$/m.exec(srv.stdout), { timeoutMs: 60000 }))[1]);
  await waitFor('two live sessions', async () => {
    const l = (await srv.api('/api/sessions')).body.sessions;
    return l.length === 2 && l.every((s) => s.state === 'live');
  }, { timeoutMs: 60000 });
  browser = await launchBrowser();
  const page = await openDashboard(browser, srv);

  const toggle = page.locator('button.tree-toggle');
  await toggle.waitFor({ timeout: 15000 });
  assert.equal(await toggle.count(), 1, 'one run with children');
  assert.equal((await toggle.textContent()).trim(), '▸ 1 child');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.match(await toggle.getAttribute('title'), /1 child process of this run loaded the agent: 1 running, 0 ended/);
  const sessionRows = page.locator('.home .section').first().locator('tbody tr');
  assert.equal(await sessionRows.count(), 1, 'collapsed: only the run is listed');
  assert.match(await page.locator('.home .meta').first().textContent(), /2 sessions, 2 live \(1 in child processes, under their run\)/);
  await screenshot(page, 'tree-collapsed.png');

  await toggle.click();
  await waitFor('the child row', async () => (await sessionRows.count()) === 2);
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  const child = sessionRows.nth(1);
  assert.ok(await child.evaluate((tr) => tr.classList.contains('tree-child')), 'the second row is the child');
  assert.match(await child.textContent(), new RegExp(`#2.*${childPid}.*E2eTarget\\.dll sleep 300`));
  await screenshot(page, 'tree-expanded.png');

  // the child's page names its parent and links back to the run
  await child.locator('a.session-link').click();
  await page.waitForFunction(() => location.hash.startsWith('#/sessions/2'));
  await page.locator('#crumbs a', { hasText: 'run #1' }).waitFor({ timeout: 15000 });
  // the header is drawn on the next animation frame, the crumbs at once: wait for it
  const pidLine = page.locator('.s-title .pid', { hasText: /child of pid \d+ in run #1/ });
  await pidLine.waitFor({ timeout: 15000 });
  assert.match(await pidLine.textContent(), new RegExp(`pid ${childPid} · child of pid \\d+ in run #1 · session #2`));
  await screenshot(page, 'tree-child-session.png');
  await page.locator('#crumbs a', { hasText: 'run #1' }).click();
  await page.waitForFunction(() => location.hash.startsWith('#/sessions/1'));

  // back home, the run is still open as the user left it; it closes again
  await page.locator('#crumbs a', { hasText: 'Sessions' }).click();
  await page.locator('button.tree-toggle[aria-expanded="true"]').waitFor({ timeout: 15000 });
  assert.equal(await sessionRows.count(), 2);
  await toggle.click();
  await waitFor('collapsed again', async () => (await sessionRows.count()) === 1);
  assert.deepEqual(unexpectedConsoleErrors(page), []);
});
