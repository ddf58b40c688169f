// dynamic.test.mjs -- DynamicMethods whose FunctionIDs the runtime gives to
// new ones after collecting them (E2eTarget `dyncollect`): in the live feed
// each is a first (and only) compilation, "dynamic", never "2nd"; its detail
// strip says "compilation 1 of 1" with its own name. Screenshot:
// build/screenshots/dynamic-feed.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, openDashboard, waitFor, apiGet, screenshot, closeAll, E2E_DLL,
} from './helpers.mjs';

let srv, browser;
after(() => closeAll(browser, srv));

test('a reused dynamic FunctionID: each method its own first compilation in the feed', async () => {
  srv = await startServer({ dll: E2E_DLL, appArgs: ['dyncollect', '100', '10', '0'] });
  await waitFor('the app ended', async () => (await apiGet(srv, '/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
  const fns = (await apiGet(srv, '/api/sessions/1/functions?q=JitscopeDynFresh&limit=1000')).body.functions;
  const ids = new Set((await apiGet(srv, '/api/sessions/1/functions?q=JitscopeDynPool&limit=1000')).body.functions.map((f) => f.function_id));
  const reused = fns.find((f) => ids.has(f.function_id));
  assert.ok(reused, 'a fresh method took a pooled one\'s FunctionID');
  browser = await launchBrowser();
  const page = await openDashboard(browser, srv, { hash: '#/sessions/1/live', width: 1440, height: 900 });
  await page.fill('input.search', 'JitscopeDyn');
  await waitFor('the dynamic methods listed', async () => (await page.evaluate(() => window.__jitscope.stats().shown)) >= 200, { timeoutMs: 20000 });
  const pills = await page.evaluate(() => [...document.querySelectorAll('.vt-row')].map((r) => r.querySelector('.c-ver, [class*="c-comp"]')?.textContent || r.children[8].textContent));
  assert.ok(pills.length > 10, `${pills.length} rows drawn`);
  assert.deepEqual([...new Set(pills)], ['dynamic'], 'each a dynamic method\'s first compilation, none "2nd"');
  // the detail of the one whose ID was reused: its own name, compilation 1 of 1
  await page.fill('input.search', reused.name.replace('[dynamic] ', ''));
  const row = page.locator('.vt-row', { hasText: reused.name.replace('[dynamic] ', '') }).first();
  await row.waitFor({ timeout: 10000 });
  await row.click();
  await waitFor('its compilations', async () => /compilation\s*1 of 1/.test(await page.locator('.detail').textContent()));
  assert.match(await page.locator('.detail').textContent(), new RegExp(reused.name.replace(/[[\]()]/g, '\\$&')));
  await screenshot(page, 'dynamic-feed.png');
});
