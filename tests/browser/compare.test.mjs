// compare.test.mjs -- the Compare view in real headless Chromium, against two real
// runs that JIT different methods (`jitscope run -- dotnet E2eTarget.dll pair`:
// sessions 2 "variant a" and 3 "variant b" under run 1). From the sessions list's
// "vs #2" link (the previous run of the same program) to #/compare/2/3: the
// methods only in B, only in A and in both (filter, deltas, tiers), the per-module
// table, the modules loaded in only one, a module filter, Swap, and the session
// page's Compare button. Screenshots: build/screenshots/compare-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, stopAll, E2E_DLL } from '../e2e/lib.mjs';
import { launchBrowser, openDashboard, waitFor, screenshot, unexpectedConsoleErrors } from './helpers.mjs';

let browser;
after(async () => {
  if (browser) await browser.close();
  await stopAll();
});

// The method names of the list's rows on the page.
const listNames = (page) => page.evaluate(() => [...document.querySelectorAll('.cmp-list tbody .mname')].map((e) => e.title));
const loaded = (page, key) => page.waitForFunction((k) => (document.querySelector('.cmp-list')?.dataset.loaded || '').startsWith(k), key, { timeout: 15000 });

test('compare two runs: methods only in one, side by side, per module', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'pair']);
  await waitFor('three ended sessions', async () => {
    const l = (await srv.api('/api/sessions')).body.sessions;
    return l.length === 3 && l.every((s) => s.state === 'exited');
  }, { timeoutMs: 90000 });
  const want = (await srv.api('/api/compare?a=2&b=3&section=summary')).body.summary;
  browser = await launchBrowser();
  const page = await openDashboard(browser, srv);

  // the sessions list: B's row links to the comparison with its previous run
  await page.locator('button.tree-toggle').click();
  const link = page.locator('a[data-compare="2-3"]');
  await link.waitFor({ timeout: 15000 });
  assert.equal((await link.textContent()).trim(), 'vs #2');
  await screenshot(page, 'compare-home.png');
  await link.click();
  await page.waitForFunction(() => location.hash === '#/compare/2/3');
  await loaded(page, 'b:0:');

  // header: both sessions and the counts
  assert.match(await page.locator('.cmp-side[data-side="a"]').textContent(), /#2.*variant a/);
  assert.match(await page.locator('.cmp-side[data-side="b"]').textContent(), /#3.*variant b/);
  assert.equal(await page.locator('#crumbs .cur').textContent(), 'Compare #2 ↔ #3');
  assert.match(await page.locator('#conn').textContent(), /both sessions ended/);
  const count = (key) => page.locator(`.cmp-tabs [data-list="${key}"] .count`).textContent();
  assert.equal(await count('b'), String(want.methods.only_b));
  assert.equal(await count('a'), String(want.methods.only_a));
  assert.equal(await count('both'), String(want.methods.both));

  // only in B (the list shown first): the plugin's method and B's own
  const onlyB = await listNames(page);
  for (const n of ['JitscopeE2e.Variant.OnlyInB(string)', 'JitscopeE2e.Program.CallPlugin()', 'JitscopePlugin.PluginEntry.UniquePluginMethod()'])
    assert.ok(onlyB.includes(n), `only in B: ${n}`);
  assert.ok(!onlyB.some((n) => /OnlyInA/.test(n)), 'nothing of A\'s in B\'s list');
  // its tier: B's own method, called once, stays Tier0 (the first row is whichever took the
  // longest to compile, a framework method the runtime's background tiering recompiled in B's
  // run but not in A's when a loaded machine delayed it: 'Tier1 instr')
  const onlyInB = page.locator('.cmp-list tbody tr', { has: page.locator('.mname[title="JitscopeE2e.Variant.OnlyInB(string)"]') });
  assert.equal(await onlyInB.locator('[data-tier]').first().textContent(), 'Tier0');
  await screenshot(page, 'compare-only-b.png');

  await page.locator('.cmp-tabs [data-list="a"]').click();
  await loaded(page, 'a:0:');
  const onlyA = await listNames(page);
  assert.ok(onlyA.includes('JitscopeE2e.Variant.OnlyInA()') && onlyA.includes('JitscopeE2e.Variant.OnlyInAHelper(long)'), `only in A: ${onlyA}`);

  // in both, filtered: JIT time of each side and the delta
  await page.locator('.cmp-tabs [data-list="both"]').click();
  await page.locator('.cmp-search').fill('Variant');
  await loaded(page, 'both:0:Variant:');
  assert.deepEqual((await listNames(page)).sort(), ['JitscopeE2e.Variant.Run(string)', 'JitscopeE2e.Variant.Shared(int)']);
  const row = page.locator('.cmp-list tbody tr', { hasText: 'Shared(int)' });
  // JIT A, JIT B, then the delta (any unit: a loaded machine may take milliseconds)
  assert.match(await row.textContent(), /[0-9.]+ (ns|µs|ms|s)[0-9.]+ (ns|µs|ms|s)([+−][0-9.]+ (ns|µs|ms|s)|0)1/);
  assert.equal(await row.locator('[data-tier="Tier0"]').count(), 2, 'a tier per side');
  assert.match(await page.locator('.cmp-pager').textContent(), /^1–2 of 2$/);
  await screenshot(page, 'compare-both.png');
  await page.locator('.cmp-search').fill('');
  await loaded(page, 'both:0::');

  // modules: side by side, and the ones loaded in only one
  const mods = page.locator('[data-section="modules"] tbody tr');
  await waitFor('the module table', async () => (await mods.count()) >= 5);
  assert.match(await mods.filter({ hasText: 'E2ePlugin' }).textContent(), /only B/);
  const only = page.locator('[data-section="only-modules"] tbody tr');
  assert.equal(await only.count(), 2);
  assert.match(await only.filter({ hasText: 'System.Collections.Specialized' }).textContent(), /only A.*System\.Collections\.Specialized\.dll/);
  assert.match(await only.filter({ hasText: 'E2ePlugin' }).textContent(), /only B.*E2ePlugin\.dll/);
  await page.locator('[data-section="modules"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'compare-modules.png');

  // a module row filters the method lists by it
  await page.locator('.cmp-tabs [data-list="b"]').click();
  await loaded(page, 'b:0::');
  await mods.filter({ hasText: 'E2ePlugin' }).click();
  await loaded(page, 'b:0::E2ePlugin:');
  assert.deepEqual(await listNames(page), ['JitscopePlugin.PluginEntry.UniquePluginMethod()']);
  assert.match(await page.locator('.cmp-chip').textContent(), /module: E2ePlugin/);

  // swap: B is now the first run
  await page.locator('button', { hasText: 'Swap' }).click();
  await page.waitForFunction(() => location.hash === '#/compare/3/2');
  // the view of 2/3 can still be on the page for a moment, its list loaded with
  // a key that also starts so: wait for the swapped pair's own count
  await waitFor('B\'s count once swapped', async () => {
    const shown = await count('b');
    if (shown !== String(want.methods.only_a)) throw new Error(`B's count shows "${shown}"`);
    return true;
  });
  await loaded(page, 'b:0:');

  // the session page's Compare button: this session against its previous run
  await page.evaluate(() => { location.hash = '#/sessions/3'; });
  await page.locator('.s-title .badge').waitFor({ timeout: 15000 });
  await screenshot(page, 'compare-session-button.png');
  await page.locator('.compare-btn').click();
  await page.waitForFunction(() => location.hash === '#/compare/2/3');
  await loaded(page, 'b:0:');

  // without sessions: the pickers and a suggestion
  await page.evaluate(() => { location.hash = '#/compare'; });
  await page.locator('.notice', { hasText: 'Pick two sessions' }).waitFor({ timeout: 15000 });
  await page.locator('.notice a', { hasText: 'Compare #3 with its previous run #2' }).waitFor({ timeout: 15000 });
  await page.locator('select[data-pick="a"]').selectOption('1');
  await page.locator('select[data-pick="b"]').selectOption('3');
  await page.waitForFunction(() => location.hash === '#/compare/1/3');
  await loaded(page, 'b:0:');
  await screenshot(page, 'compare-picked.png');
  assert.deepEqual(unexpectedConsoleErrors(page), []);
  await srv.stop();
});
