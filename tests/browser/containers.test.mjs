// containers.test.mjs -- the dashboard names the container a process runs in
// (issue 36, item 3), in real headless Chromium: the processes table tags a
// process in a container with its hostname before its command line (its id
// and pid inside in the tag's tooltip; a process beside the server has no
// tag), attach by clicking, and the session's header with the container. Screenshots at 1,024, 1,440 and 1,920 px:
// build/screenshots/containers-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startTarget, stopAll } from '../e2e/lib.mjs';
import { startContainer, stopContainers } from '../e2e/containers.mjs';
import { launchBrowser, openDashboard, screenshot, unexpectedConsoleErrors, dashesWithoutReason } from './helpers.mjs';

let browser;
after(async () => {
  if (browser) await browser.close();
  await stopContainers();
  await stopAll();
});

test('the processes table and the session header name the container; attach by clicking', { timeout: 180000 }, async () => {
  const c = await startContainer(['serve'], { hostname: 'shop-api-7c9d5' });
  const host = await startTarget();
  const srv = await startServer(['serve', '--port', '0']);
  browser = await launchBrowser();
  for (const width of [1024, 1440, 1920]) {
    const page = await openDashboard(browser, srv, { width, height: 900 });
    // its row (attached once the 1,440 px page clicked: Open session then)
    const tag = page.locator('.ctr-tag', { hasText: 'shop-api-7c9d5' });
    await tag.waitFor({ timeout: 20000 });
    assert.equal(await tag.getAttribute('title'), `container ${c.id.slice(0, 12)}, pid 1 inside\nid ${c.id}`);
    const row = page.locator('tr', { has: tag });
    assert.match(await row.textContent(), /shop-api-7c9d5\/usr\/share\/dotnet\/dotnet \/app\/E2eTarget\.dll serve/);
    const other = page.locator('tr', { has: page.locator(`button.attach-btn[data-pid="${host.pid}"]`) });
    await other.waitFor({ timeout: 20000 });
    assert.equal(await other.locator('.ctr-tag').count(), 0, 'a process beside the server has no tag');
    await screenshot(page, `containers-home-${width}.png`);
    if (width === 1440) {
      await row.locator('button.attach-btn').click();
      await page.waitForFunction(() => /^#\/sessions\/\d+/.test(location.hash), null, { timeout: 30000 });
      await page.locator('.s-head .badge-live').waitFor({ timeout: 20000 });
      await page.locator('.s-head', { hasText: `container shop-api-7c9d5 ${c.id.slice(0, 12)} (pid 1 inside)` })
        .waitFor({ timeout: 10000 });
      await screenshot(page, 'containers-session-1440.png');
      assert.deepEqual(await dashesWithoutReason(page), []);
    }
    assert.deepEqual(unexpectedConsoleErrors(page), []);
    await page.close();
  }
});
