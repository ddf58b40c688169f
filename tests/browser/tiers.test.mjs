// tiers.test.mjs -- JIT tiers on the dashboard, against the real server and the
// Demo app in headless Chromium: the live feed's Tier column (every row's tier
// is the server's), the detail strip's compilation history of a method that
// went from Tier0 to Tier1, and the "JIT by tier" totals of the By tier /
// module tab; and the reason of the tiers the runtime's shutdown leaves
// unknown. Screenshots: build/screenshots/tiers-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, stopServer, launchBrowser, openDashboard, feedStats, waitFor, screenshot,
  unexpectedConsoleErrors, apiGet, fetchChecked, pressTab, dashesWithoutReason, E2E_DLL,
} from './helpers.mjs';

// All `jit` events of session 1 up to seq upTo: seq -> tier.
async function serverTiers(srv, upTo) {
  const out = new Map();
  for (let after = 0; after < upTo;) {
    const res = await apiGet(srv, `/api/sessions/1/events?after=${after}&limit=10000`);
    if (!res.body.events.length) break;
    for (const e of res.body.events) if (e.type === 'jit' && e.seq <= upTo) out.set(e.seq, e.tier);
    after = res.body.next_after;
  }
  return out;
}

// Tier text and tooltip of the live table's rows in the DOM, top to bottom.
// With each row's Compilation cell (its text and tooltip).
function tierCells(page) {
  return page.evaluate(() => [...document.querySelectorAll('.vt-row')]
    .sort((a, b) => a._y - b._y)
    .map((r) => {
      const p = r.querySelector('.c-tier span'), c = r.querySelector('.c-ver span');
      return { name: r.querySelector('.c-name').textContent, text: p.textContent, title: p.title, cls: p.className, comp: c.textContent, compTitle: c.title };
    }));
}

describe('JIT tiers on the dashboard', { timeout: 180000 }, () => {
  let srv, browser, page, fn;

  before(async () => {
    srv = await startServer();
    browser = await launchBrowser();
    page = await openDashboard(browser, srv, { hash: '#/sessions/1' });
  });

  after(async () => {
    try { if (browser) await browser.close(); } finally { await stopServer(srv); }
  });

  it('the Tier column shows each JIT\'s tier, the server\'s for every row', async () => {
    await page.locator('.vt-head div[title^="optimisation tier"]').waitFor();
    // the Demo's first methods are compiled at Tier0
    // (the cells the wait saw: the live table recycles its rows as events arrive,
    // so a second look may no longer hold that row)
    const cells = await waitFor('a Tier0 row in the table', async () => {
      const now = await tierCells(page);
      return now.some((c) => c.text === 'Tier0') && now;
    });
    const t0 = cells.find((c) => c.text === 'Tier0');
    assert.match(t0.title, /^Tier0: /);
    assert.match(t0.cls, /\btier-t0\b/);
    await screenshot(page, 'tiers-feed.png');
    // every row of the page has the tier the server gave its event
    const { lastSeq, rows } = await page.evaluate(() => {
      const v = window.__jitscope.app.view, b = v.feed.buf;
      const out = [];
      for (let r = b.first; r < b.total; r++) { const x = b.row(r); out.push([x.seq, x.tier]); }
      return { lastSeq: v.stream.lastSeq, rows: out };
    });
    const server = await serverTiers(srv, lastSeq);
    const mine = rows.filter(([seq]) => seq <= lastSeq);
    assert.ok(mine.length > 0);
    for (const [seq, tier] of mine) assert.equal(tier, server.get(seq), `tier of event ${seq}`);
    const seen = new Set(mine.map(([, t]) => t));
    assert.ok(seen.has('Tier0'), [...seen].join(', '));
    // a run session's agent reports every tier, unless one was lost (agent/tiers.h: slot collisions)
    const src = (await apiGet(srv, '/api/sessions/1')).body.tier_source;
    assert.equal(src.enabled, true);
    if (!src.lost) assert.ok(!seen.has('unknown'), 'no unknown tier while none was lost');
  });

  it('a method that tiered up: Tier0 and Tier1 rows, and its compilations in the detail strip', async () => {
    // Hot methods of the Demo's steady loop are recompiled at Tier1 within seconds;
    // take one whose last compilation is Tier1 (nothing follows that).
    fn = await waitFor('a function compiled at Tier0, then Tier1 last', async () => {
      const r = await apiGet(srv, '/api/sessions/1/functions?q=JitscopeDemo.&limit=10000');
      return r.body.functions.find((f) => f.tiers.length >= 2 && f.tiers[0].tier === 'Tier0' && f.tier === 'Tier1'
        && !f.tiers_unkept && f.name.length < 100);
    }, { timeoutMs: 90000, everyMs: 500 });
    // the page has every event of this short session: filter the feed to the method
    await page.fill('input[type=search]', fn.name);
    const rows = await waitFor(`${fn.tiers.length} rows of ${fn.name}`, async () => {
      const c = await tierCells(page);
      return c.length === fn.tiers.length && c.every((x) => x.name === fn.name) && c;
    }, { timeoutMs: 20000 });
    const short = { Tier0: 'Tier0', 'Instrumented Tier0': 'Tier0 instr', 'Instrumented Tier1': 'Tier1 instr', Tier1: 'Tier1', 'Tier1-OSR': 'OSR', FullOpts: 'FullOpts', MinOpts: 'MinOpts' };
    assert.deepEqual(rows.map((c) => c.text), fn.tiers.map((c) => short[c.tier]), 'one row per compilation, in order, with its tier');
    assert.match(rows[rows.length - 1].cls, /\btier-t1\b/);
    // one word for it: the Compilation column numbers a method's compilations
    assert.equal(await page.locator('.vt-head div[title^="which compilation"]').textContent(), 'Compilation');
    const nth = ['1st', '2nd', '3rd', '4th', '5th', '6th', '7th', '8th', '9th', '10th', '11th', '12th', '13th', '14th', '15th', '16th'];
    assert.deepEqual(rows.map((c) => c.comp), fn.tiers.map((_, i) => nth[i]));
    assert.match(rows[0].compTitle, /^the first compilation of this method in this session$/);
    rows.slice(1).forEach((c, i) => assert.match(c.compTitle, new RegExp(`^compilation ${i + 2} of this method in this session: it was compiled again \\(tier-up, OSR\\)$`)));
    // Click where the Tier1 row is. Row elements are pooled and re-bound (new thread names
    // redraw every row), so an element may show another row by the time a locator clicks
    // it; the rows' places do not change while the filtered view keeps its 3 rows.
    const at = await page.evaluate(() => {
      const row = [...document.querySelectorAll('.vt-row')].find((r) => r.querySelector('.c-tier span').textContent === 'Tier1');
      const b = row.getBoundingClientRect();
      return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
    });
    await page.mouse.click(at.x, at.y);
    const comps = page.locator('.detail .comps[data-state="done"]');
    await comps.waitFor({ timeout: 15000 });
    const steps = await comps.locator('.comp').evaluateAll((els) => els.map((e) => ({
      tier: e.dataset.tier, cur: e.classList.contains('cur'), text: e.textContent })));
    assert.deepEqual(steps.map((s) => s.tier), fn.tiers.map((c) => c.tier), 'the server\'s compilations, in order');
    assert.deepEqual(steps.map((s) => s.cur), fn.tiers.map((_, i) => i === fn.tiers.length - 1), 'the clicked (Tier1) compilation is outlined');
    const base = await page.evaluate(() => window.__jitscope.app.view.summary.created_ms);
    fn.tiers.forEach((c, i) => {
      assert.ok(steps[i].text.includes(`+${((c.time_ms - base) / 1000).toFixed(3)} s`), steps[i].text);
      assert.ok(steps[i].text.includes(`${c.native_size} B`), steps[i].text);
    });
    assert.match(await comps.locator('.comps-k').textContent(), new RegExp(`^compilations \\(${fn.tiers.length}\\)$`));
    assert.equal(await comps.locator('.comp-arrow').count(), fn.tiers.length - 1);
    assert.equal(await page.locator('.detail .kv [data-tier]').getAttribute('data-tier'), 'Tier1');
    // the detail strip: "compilation N of N" once the server's list is in, and the code versions
    assert.equal(await page.locator('.detail .comp-of').textContent(), `compilation ${fn.tiers.length} of ${fn.tiers.length}`);
    assert.match(await page.locator('.detail .code-versions').textContent(), /^code versions \d+$/);
    assert.match(await page.locator('.detail .code-versions').getAttribute('title'), /^native code versions the runtime has for this method now/);
    assert.doesNotMatch(await page.locator('.detail').textContent(), /re-JIT|first time/, 'none of the old words');
    assert.deepEqual(await dashesWithoutReason(page), []);
    await screenshot(page, 'tiers-detail.png');
    await page.keyboard.press('Escape');
  });

  it('By tier / module: compilations and JIT time per tier, as the session summary says', async () => {
    // the per-module totals come from the server in one request, not by paging every function in
    const paged = [];
    const onRequest = (r) => { if (/\/functions\?/.test(r.url())) paged.push(r.url()); };
    page.on('request', onRequest);
    await page.locator('.vt-scroll').focus();
    await pressTab(page, 3);
    await page.locator('.tier-table tbody tr [data-tier="Tier1"]').waitFor({ timeout: 15000 });
    const order = ['Tier0', 'Instrumented Tier0', 'Instrumented Tier1', 'Tier1', 'Tier1-OSR', 'FullOpts', 'MinOpts', 'unknown'];
    const read = () => page.evaluate(() => {
      const cells = (sel) => [...document.querySelectorAll(sel)].map((tr) => [...tr.children].map((td) => td.textContent));
      return { rows: cells('.tier-table tbody tr'), foot: cells('.tier-table tfoot tr')[0], tiers: window.__jitscope.app.view.summary.tiers };
    });
    // the table follows the polled session summary: read both in one go
    const expectTable = ({ rows, foot }, tiers) => {
      const want = Object.keys(tiers).sort((a, b) => order.indexOf(a) - order.indexOf(b));
      assert.deepEqual(rows.map((r) => r[0]), want, 'one row per tier seen, in pipeline order');
      let sum = 0;
      for (const r of rows) {
        assert.equal(r[1], tiers[r[0]].compilations.toLocaleString('en-US'), `${r[0]} compilations`);
        sum += tiers[r[0]].compilations;
      }
      assert.equal(foot[1], sum.toLocaleString('en-US'), 'the footer adds the tiers up');
      return sum;
    };
    const live = await read();
    expectTable(live, live.tiers);
    assert.ok('Tier0' in live.tiers && 'Tier1' in live.tiers, Object.keys(live.tiers).join(', '));
    await page.getByRole('cell', { name: 'System.Linq', exact: true }).waitFor();
    page.off('request', onRequest);
    assert.deepEqual(paged, [], 'no functions page was fetched for the module totals');
    const totals = (await apiGet(srv, '/api/sessions/1/modules/totals')).body;
    const linq = totals.modules.find((m) => m.module === 'System.Linq');
    assert.ok(linq && linq.methods > 0, JSON.stringify(linq));
    assert.equal(totals.modules.reduce((a, m) => a + m.methods, 0), totals.functions, 'the rows add up to the functions');
    await screenshot(page, 'tiers-totals.png');
    assert.equal(await page.locator('.tab-page th', { hasText: 'Recompiled' }).count(), 1, 'methods compiled again: "Recompiled"');
    assert.deepEqual(await dashesWithoutReason(page), []);
    // the per-session switch: off, the server says so and the button offers on; then on again
    const sw = page.locator('button.tier-switch');
    assert.equal(await sw.textContent(), 'Turn tiers off');
    await sw.click();
    await waitFor('the agent turned tiers off', async () => (await apiGet(srv, '/api/sessions/1')).body.tier_source.enabled === false);
    await waitFor('the button offers on', async () => (await sw.textContent()) === 'Turn tiers on' && !(await sw.isDisabled()));
    assert.match(await page.locator('.tier-note').textContent(), /tier source is off/);
    await sw.click();
    await waitFor('the agent turned tiers on', async () => (await apiGet(srv, '/api/sessions/1')).body.tier_source.enabled === true);
    await waitFor('the button offers off', async () => (await sw.textContent()) === 'Turn tiers off');
    // once the agent is gone nothing changes: the table is the server's, and adds up to its compilations
    const res = await fetchChecked(`${srv.url}/api/sessions/1/detach`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 202);
    const done = await waitFor('the session detached', async () => { const r = await apiGet(srv, '/api/sessions/1'); return r.body.state === 'detached' && r.body; });
    const final = await waitFor('the page showing the final totals', async () => {
      const x = await read();
      return x.foot && x.foot[1] === done.counters.jit_compilations.toLocaleString('en-US') && x;
    });
    assert.equal(expectTable(final, done.tiers), done.counters.jit_compilations);
  });

  it('logs no console errors', async () => {
    assert.ok((await feedStats(page)).total > 0);
    const bad = unexpectedConsoleErrors(page);
    assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
  });
});

// The runtime stops its events (the tier source) first thing as a process
// exits: what is compiled from then on (E2eTarget `atexit`: a ProcessExit
// handler's methods) has no tier, and the dashboard says why, in the row's
// tooltip and the By tier note, calmly: it is how every process ends.
describe('tiers unknown at process exit', { timeout: 120000 }, () => {
  let srv, browser, page;
  before(async () => {
    srv = await startServer({ dll: E2E_DLL, appArgs: ['atexit'] });
    await waitFor('the app ended', async () => (await apiGet(srv, '/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
    browser = await launchBrowser();
    page = await openDashboard(browser, srv, { hash: '#/sessions/1/live', width: 1440, height: 900 });
  });
  after(async () => {
    if (browser) await browser.close();
    await stopServer(srv);
  });

  it('says why the last compilations have no tier', async () => {
    await page.fill('input.search', 'AtExit');
    await waitFor('the AtExit methods listed', async () => (await tierCells(page)).length >= 4);
    const rows = await page.evaluate(() => [...document.querySelectorAll('.vt-row')].map((r) => ({
      name: r.querySelector('.c-name').textContent, tier: r.querySelector('.c-tier span').textContent, tip: r.querySelector('.c-tier span').title })));
    const first = rows.find((r) => r.name.includes('AtExit.First('));
    assert.equal(first.tier, 'unknown');
    assert.match(first.tip, /^tier unknown: compiled while the process was exiting; the runtime stops its events/);
    const before = rows.find((r) => r.name.includes('AtExit.Before('));
    assert.equal(before.tier, 'Tier0', 'compiled in Main: its tier is known');
    await screenshot(page, 'tiers-at-exit.png');
    await page.evaluate(() => { location.hash = '#/sessions/1/bymodule'; });
    const note = page.locator('.tier-note .notice');
    await note.waitFor({ timeout: 10000 });
    assert.match(await note.textContent(), /The runtime stopped its tier events at .*, as the process began to exit/);
    assert.equal(await note.evaluate((n) => n.classList.contains('warn')), false, 'said, not warned');
  });
});
