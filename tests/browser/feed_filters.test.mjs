// feed_filters.test.mjs -- the live feed's filters (issue 34): whose code ("My
// code", "Not my code", dynamic methods), tier and recompiled methods, each the
// same set of methods as the functions API's filter of the same meaning
// (origin, tier, recompiled), alone and together; and the module filter's
// "(no module: dynamic methods)", which used to have the value of "All modules"
// and filter nothing (item 7). On a real session: the Demo app under `jitscope
// run --exit` until its own code reached Tier1 (tests/e2e/demo_run.mjs), read
// back by `jitscope serve`. Screenshots at
// 1,024, 1,440 and 1,920 px: build/screenshots/feed-filters-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  apiGet, closeAll, ensureBuilt, feedStats, launchBrowser, openDashboard, screenshot,
  serverJitSeqs, startServer, tempDataDir, unexpectedConsoleErrors, waitFor,
} from './helpers.mjs';
import { recordDemo } from '../e2e/demo_run.mjs';

// The function ids of the rows the feed shows now, once it has drawn its filter.
async function shownFunctions(page) {
  await page.waitForFunction(() => !window.__jitscope.app.view.feed.filterDirty);
  return page.evaluate(() => {
    const f = window.__jitscope.app.view.feed;
    const ids = new Set();
    for (let i = 0; i < f.view.length(); i++) ids.add(f.buf.row(f.view.at(i)).function_id);
    return [...ids].sort();
  });
}

describe('the live feed\'s filters', { timeout: 240000 }, () => {
  let srv, browser, page;

  // The function ids the API's filter gives, every page of them (a Demo that ran
  // long on a loaded machine has more than one page of framework methods), of
  // those with a JIT event: a method whose JIT started but did not finish (the
  // app was stopped meanwhile) is listed, with jit_count 0, and the feed has no
  // row of it.
  async function apiFunctions(query) {
    const ids = [];
    for (let offset = 0, total = 1; offset < total; offset += 10000) {
      const r = await apiGet(srv, `/api/sessions/1/functions?limit=10000&offset=${offset}&${query}`);
      assert.equal(r.status, 200);
      total = r.body.total;
      ids.push(...r.body.functions.filter((f) => f.jit_count > 0 || f.catchup).map((f) => f.function_id));
    }
    return ids.sort();
  }

  async function setFilters({ code = '', tier = 'All tiers', recompiled = false, module = 'All modules' }) {
    await page.selectOption('.toolbar select.code-filter', code);
    await page.selectOption('.toolbar select.tier-filter', { label: tier });
    await page.selectOption('.toolbar select[aria-label="Module filter"]', { label: module });
    await page.setChecked('.toolbar input.recompiled-filter', recompiled);
    await page.waitForFunction(() => !window.__jitscope.app.view.feed.filterDirty); // drawn
  }

  before(async () => {
    ensureBuilt();
    const data = tempDataDir();
    await recordDemo(data);
    srv = await startServer({ serve: true, args: ['--data', data] });
    browser = await launchBrowser();
    page = await openDashboard(browser, srv, { hash: '#/sessions/1', width: 1440, height: 900 });
    const jits = (await serverJitSeqs(srv, 1)).length;
    assert.ok(jits > 1000, `${jits} JITs`);
    await waitFor('every JIT in the feed', async () => (await feedStats(page)).total === jits, { timeoutMs: 60000 });
  });

  after(() => closeAll(browser, srv));

  it('whose code: the same methods as origin= of the API', async () => {
    const cases = [
      ['mine', 'origin=app'],
      ['others', 'origin=package,framework,sdk,in_memory,dynamic,unknown'],
      ['dynamic', 'origin=dynamic'],
    ];
    for (const [code, query] of cases) {
      await setFilters({ code });
      const shown = await shownFunctions(page);
      assert.ok(shown.length > 0, `${code}: some rows`);
      assert.deepEqual(shown, await apiFunctions(query), `${code} is ${query}`);
    }
    await setFilters({ code: 'mine' });
    const names = await page.evaluate(() => {
      const f = window.__jitscope.app.view.feed;
      return Array.from({ length: f.view.length() }, (_, i) => f.buf.row(f.view.at(i)).name);
    });
    assert.ok(names.includes('JitscopeDemo.Program.Main(string[])'));
    assert.ok(names.every((n) => !n.startsWith('System.')), 'no framework method is my code');
  });

  it('tier and recompiled: the same methods as tier= and recompiled= of the API, also together', async () => {
    // the select shows the Tier column's short names
    for (const [tier, name] of [['Tier0', 'Tier0'], ['Tier1', 'Tier1'], ['Tier0 instr', 'Instrumented Tier0'], ['FullOpts', 'FullOpts']]) {
      await setFilters({ tier });
      assert.deepEqual(await shownFunctions(page), await apiFunctions(`tier=${encodeURIComponent(name)}`), name);
    }
    await setFilters({ recompiled: true });
    const recompiled = await shownFunctions(page);
    assert.ok(recompiled.length > 0, 'the Demo tiers methods up');
    assert.deepEqual(recompiled, await apiFunctions('recompiled=true'));
    // every compilation of a recompiled method is shown, its first (Tier0) too
    const rows = await page.evaluate(() => window.__jitscope.app.view.feed.view.length());
    const recompiledFns = await apiGet(srv, '/api/sessions/1/functions?recompiled=true&limit=10000');
    assert.ok(recompiledFns.body.total <= 10000, 'one page of recompiled methods');
    const jits = recompiledFns.body.functions.reduce((n, f) => n + f.jit_count, 0);
    assert.equal(rows, jits, 'one row per compilation of those methods');
    await setFilters({ code: 'mine', tier: 'Tier1', recompiled: true });
    const together = await shownFunctions(page);
    assert.ok(together.length > 0);
    assert.deepEqual(together, await apiFunctions('origin=app&tier=Tier1&recompiled=true'));
    for (const w of [1024, 1440, 1920]) {
      await page.setViewportSize({ width: w, height: 900 });
      await page.waitForFunction(() => document.querySelector('.vt-row'));
      await screenshot(page, `feed-filters-${w}.png`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('"(no module: dynamic methods)" shows the dynamic methods only, not every module', async () => {
    await setFilters({ module: '(no module: dynamic methods)' });
    const st = await feedStats(page);
    assert.ok(st.filtered, 'a filter is on');
    assert.ok(st.shown > 0 && st.shown < st.total, `${st.shown} of ${st.total} rows`);
    const dyn = await page.evaluate(() => {
      const f = window.__jitscope.app.view.feed;
      const rows = Array.from({ length: f.view.length() }, (_, i) => f.buf.row(f.view.at(i)));
      return { all: rows.every((r) => r.dynamic && r.module === ''), n: rows.length };
    });
    assert.ok(dyn.all, 'every row shown is a dynamic method');
    assert.deepEqual(await shownFunctions(page), await apiFunctions('origin=dynamic'));
    await screenshot(page, 'feed-filters-dynamic-module.png');
    await setFilters({});
    const all = await feedStats(page);
    assert.equal(all.shown, all.total, 'All modules, all code, all tiers: every row');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
