// dashboard.test.mjs -- the browser dashboard against the real server and the
// Demo app, driven through Debian's Chromium (playwright-core).
//   node --test tests/browser/
// Screenshots land in build/screenshots/.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
  startServer, stopServer, launchBrowser, openDashboard, feedStats, visibleMethods,
  waitForRow, waitFor, screenshot, serverJitSeqs, unexpectedConsoleErrors, apiGet, sleep, pressTab, goto,
} from './helpers.mjs';

// Counts the page's animation frames and the live table's render passes while body(stats
// before) runs: both are read in the page at the start and at the end, so every frame in
// between ran the counter. Returns { frames, renders, before, after, sent: synthetic events sent }.
async function framesAndRenders(page, body) {
  const before = await page.evaluate(() => {
    const w = (window.__frameCount = { n: 0, on: true });
    const tick = () => { if (w.on) { w.n++; requestAnimationFrame(tick); } };
    requestAnimationFrame(tick);
    return { stats: window.__jitscope.stats(), sent: window.__stress ? window.__stress.sent : 0 };
  });
  await body(before.stats);
  const end = await page.evaluate(() => {
    window.__frameCount.on = false;
    return { frames: window.__frameCount.n, stats: window.__jitscope.stats(), sent: window.__stress ? window.__stress.sent : 0 };
  });
  return { frames: end.frames, renders: end.stats.renders - before.stats.renders, before: before.stats, after: end.stats, sent: end.sent - before.sent };
}

describe('dashboard', { timeout: 120000 }, () => {
  let srv, browser, page;
  const pendingRoutes = []; // every route of docs/API.md exists: no 404 is expected
  const t0 = Date.now();

  before(async () => {
    srv = await startServer();
    browser = await launchBrowser();
    page = await openDashboard(browser, srv);
  });

  after(async () => {
    try { if (browser) await browser.close(); } finally { await stopServer(srv); }
    console.log(`dashboard: browser tests took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });

  it('home lists the run session with its state', async () => {
    await page.waitForSelector('a.session-link', { timeout: 15000 });
    const row = page.locator('tr', { has: page.locator('a.session-link', { hasText: '#1' }) });
    await row.locator('.badge-live').waitFor({ timeout: 15000 });
    assert.match(await row.textContent(), /Demo\.dll/);
    await page.waitForSelector('.attach-btn, a.btn[href^="#/sessions/"]', { timeout: 10000 });
    await screenshot(page, 'home.png');
  });

  it('session view streams the Demo app\'s JITs into the live table', async () => {
    await page.click('a.session-link:text("#1")');
    await page.waitForFunction(() => location.hash === '#/sessions/1');
    await waitForRow(page, 'JitscopeDemo.');
    const s = await waitFor('every buffered row shown', async () => { const x = await feedStats(page); return x.total > 0 && x.shown === x.inBuffer && x; });
    assert.ok(s.following, 'follows the newest rows by default');
    assert.ok(s.domRows < 200, `virtualised: ${s.domRows} row elements for ${s.shown} rows`);
    // method names with < > are shown as text
    await waitForRow(page, '<JitscopeDemo.');
    // while the table follows the newest JIT its rows move up between Playwright's look at a
    // row and its click, so the click can land on no row at all: stop following first, with an
    // upward scroll as a user reading would (clicking a row stops following anyway)
    await page.locator('.vt-scroll').hover();
    await page.mouse.wheel(0, -60);
    await waitFor('the table no longer following', async () => !(await feedStats(page)).following);
    await page.locator('.vt-row').first().click();
    await page.locator('.detail .name').waitFor();
    await waitFor('more rows', async () => (await feedStats(page)).total > s.total);
    // the agent's own cost per JIT callback, next to its drops
    const cost = await page.locator('.stat:has(.k:text("Agent cost per JIT")) .v').textContent({ timeout: 15000 });
    assert.match(cost, /^\d+(\.\d+)? (ns|µs) p50 · p99 \d+(\.\d+)? (ns|µs|ms)$/, `agent cost shown: ${cost}`);
    // and how it read metadata, as the session says (agent/mdread.c)
    const costTip = await page.locator('.stat:has(.k:text("Agent cost per JIT"))').getAttribute('title');
    const meta = (await apiGet(srv, '/api/sessions/1')).body.agent_cost.metadata;
    assert.ok(meta.direct_modules > 0, `modules read directly: ${meta.direct_modules}`);
    assert.match(costTip, /method names read from \d+ modules' images, [\d,]+ requests for the runtime's metadata importer/, costTip);
    await screenshot(page, 'session-live.png');
  });

  it('rate chart draws compilations per second', async () => {
    const bars = await waitFor('bars on the rate chart', () => page.evaluate(() => {
      const c = document.querySelector('canvas.rate-chart');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0; // bar colour #3f82dc
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0x3f) < 12 && Math.abs(d[i + 1] - 0x82) < 12 && Math.abs(d[i + 2] - 0xdc) < 12) n++;
      return n > 50 && n;
    }), { timeoutMs: 5000 });
    assert.ok(bars > 50, `bar pixels on the chart: ${bars}`);
  });

  it('Export saves the session\'s lists as CSV and JSON files', async () => {
    await page.click('button.export-btn');
    await page.locator('.export-panel').waitFor();
    await screenshot(page, 'export-menu.png');
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="functions.csv"]')]);
    assert.equal(csv.suggestedFilename(), 'jitscope-session-1-functions.csv');
    const text = fs.readFileSync(await csv.path(), 'utf8');
    assert.match(text, /^function_id,name,/);
    assert.ok(text.split('\r\n').length > 10, 'rows follow the header');
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="modules.json"]')]);
    assert.equal(json.suggestedFilename(), 'jitscope-session-1-modules.json');
    assert.ok(JSON.parse(fs.readFileSync(await json.path(), 'utf8')).modules.length > 3);
    await page.locator('.export-status').filter({ hasText: 'saved jitscope-session-1-modules.json' }).waitFor();
    await page.click('button.export-btn'); // closes the menu
    await page.locator('.export-panel').waitFor({ state: 'hidden' });
  });

  it('filter by method substring keeps only matching rows (case-insensitive)', async () => {
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement.type), 'search');
    await page.keyboard.type('jitscopedemo.kernel');
    await waitFor('filtered rows', async () => { const s = await feedStats(page); return s.filtered && s.shown > 0 && s; });
    const s = await feedStats(page);
    assert.ok(s.shown < s.inBuffer, `filter narrows: ${s.shown} of ${s.inBuffer}`);
    // the model filters at once, the table on its next animation frame: wait for the drawn rows
    const match = (list) => list.length > 0 && list.every((n) => n.toLowerCase().includes('jitscopedemo.kernel'));
    const names = await waitFor('filtered rows drawn', async () => { const v = await visibleMethods(page); return match(v) && v; }, { timeoutMs: 5000 })
      .catch(async () => visibleMethods(page));
    assert.ok(names.length > 0);
    for (const n of names) assert.ok(n.toLowerCase().includes('jitscopedemo.kernel'), n);
    await screenshot(page, 'session-filtered.png');
    // module filter: only module "Demo"
    await page.keyboard.press('Escape'); // clears the search
    // the flag below is the text filter's until the next frame applies the cleared search:
    // without this wait the module check could pass on the text filter's (Demo) rows
    await waitFor('search cleared', async () => !(await feedStats(page)).filtered);
    await page.selectOption('select[aria-label="Module filter"]', 'Demo');
    await waitFor('module-filtered rows', async () => (await feedStats(page)).filtered);
    // the flag flips at once, the table on the next animation frame: wait for that render
    const readModules = () => page.evaluate(() => [...document.querySelectorAll('.vt-row .c-module')].map((c) => c.textContent));
    const mods = await waitFor('filtered table rendered', async () => { const m = await readModules(); return m.length > 0 && m.every((x) => x === 'Demo') && m; }, { timeoutMs: 5000 })
      .catch(async () => readModules());
    assert.ok(mods.length > 0 && mods.every((m) => m === 'Demo'), mods.join(','));
    await page.selectOption('select[aria-label="Module filter"]', '');
    await waitFor('unfiltered', async () => { const x = await feedStats(page); return !x.filtered && x.shown === x.inBuffer; });
  });

  it('pause keeps receiving (N new grows), resume appends without loss', async () => {
    await page.locator('.vt-scroll').focus();
    await page.keyboard.press(' ');
    const p0 = await feedStats(page);
    assert.ok(p0.paused);
    await waitFor('N new to grow', async () => (await feedStats(page)).newCount >= 5, { timeoutMs: 15000 });
    const p1 = await feedStats(page);
    assert.equal(p1.shown, p0.shown, 'table frozen while paused');
    assert.match(await page.locator('.new-badge').textContent(), /^\d[\d,]* new$/);
    await screenshot(page, 'session-paused.png');
    await page.click('button.pause-btn');
    const r = await waitFor('resume', async () => { const x = await feedStats(page); return !x.paused && x.shown >= p1.shown + p1.newCount && x; });
    assert.equal(r.newCount, 0);
    // exactly once: every jit event the server has up to our last seq is in the page, once
    const { lastSeq, seqs } = await page.evaluate(() => {
      const v = window.__jitscope.app.view, b = v.feed.buf;
      const out = [];
      for (let i = b.first; i < b.total; i++) out.push(b.seq[i % b.cap]);
      return { lastSeq: v.stream.lastSeq, seqs: out };
    });
    const server = await serverJitSeqs(srv, 1, lastSeq);
    const mine = seqs.filter((q) => q <= lastSeq);
    assert.equal(new Set(mine).size, mine.length, 'no duplicates');
    assert.deepEqual(mine, server, 'page has exactly the server\'s jit events, in order');
  });

  it('does not render while the tab is hidden, catches up when visible', async () => {
    const setHidden = (hidden) => page.evaluate((h) => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
    await setHidden(true);
    await sleep(100);
    const a = await feedStats(page);
    await waitFor('events while hidden', async () => (await feedStats(page)).total > a.total + 20, { timeoutMs: 10000 });
    const b = await feedStats(page);
    assert.equal(b.renders, a.renders, 'no render pass while hidden');
    await setHidden(false);
    // the stream goes on, so the buffer may be a frame ahead of the table: what must
    // hold is that everything buffered while hidden is shown after one render
    await waitFor('catch-up render', async () => { const x = await feedStats(page); return x.renders > b.renders && x.shown >= b.inBuffer; });
  });

  it('renders the live table at most once per animation frame while events stream', async () => {
    // how long a frame takes is a benchmark's (bench/dashboard.mjs, docs/BENCHMARKS.md); what
    // the page promises is its work per frame: one render pass, however many events came
    const w = await framesAndRenders(page, async (s0) => {
      await waitFor('50 more events streamed', async () => (await feedStats(page)).total >= s0.total + 50, { timeoutMs: 30000 });
    });
    assert.ok(w.renders >= 1, `the table was drawn while events came: ${JSON.stringify(w)}`);
    assert.ok(w.renders <= w.frames, `at most one render per frame: ${JSON.stringify(w)}`);
    assert.ok(w.after.domRows < 200, `still virtualised: ${w.after.domRows} row elements`);
  });

  it('modules and threads tabs', async () => {
    await pressTab(page, 4);
    await page.getByRole('cell', { name: 'System.Private.CoreLib', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'DemoPlugin', exact: true }).first().waitFor();
    await screenshot(page, 'modules.png');
    await pressTab(page, 5);
    await page.getByRole('cell', { name: 'demo-worker-1', exact: true }).waitFor();
    await screenshot(page, 'threads.png');
    await pressTab(page, 3);
    await page.getByRole('cell', { name: 'System.Linq', exact: true }).waitFor();
    await screenshot(page, 'by-module.png');
    await pressTab(page, 2);
    await page.locator('.tab-page tbody tr td.mono').first().waitFor();
    await screenshot(page, 'slowest.png');
  });

  it('shortcut help opens with ? and closes with Esc', async () => {
    await pressTab(page, 1);
    await page.keyboard.press('?');
    await page.locator('dialog.help').waitFor();
    await screenshot(page, 'help.png');
    await page.keyboard.press('Escape');
    await page.locator('dialog.help').waitFor({ state: 'detached' });
  });

  it('detach by click (with confirmation) reports the duration', async () => {
    const sum = await apiGet(srv, '/api/sessions/1');
    assert.equal(sum.body.state, 'live');
    const rowsBefore = (await feedStats(page)).total;
    await page.click('button.detach-btn');
    await page.locator('dialog.confirm').waitFor();
    await page.locator('dialog.confirm button.btn-danger').click();
    await page.getByText(/Detached in [\d.]+ (ms|s)\./).or(page.getByText(/Detach is not available|Detach refused|Cannot detach/)).waitFor({ timeout: 15000 });
    const text = await page.locator('.s-msg').textContent();
    assert.match(text, /Detached in/);
    await page.locator('.s-head .badge-detached').waitFor();
    assert.ok(await page.locator('button.detach-btn').isHidden(), 'no Detach button once detached');
    assert.ok((await feedStats(page)).total >= rowsBefore, 'data stays browsable');
    await screenshot(page, 'session-detached.png');
  });

  it('attach again by click from the processes table', async () => {
    const sum = await apiGet(srv, '/api/sessions/1');
    assert.equal(sum.body.state, 'detached', 'the Demo process was detached by the previous step');
    await page.keyboard.press('g');
    const btn = page.locator(`button.attach-btn[data-pid="${sum.body.pid}"]`);
    await btn.waitFor({ timeout: 15000 });
    await btn.click();
    await page.waitForFunction(() => /^#\/sessions\/[2-9]/.test(location.hash), null, { timeout: 30000 });
    await page.locator('.s-head .badge-live').waitFor({ timeout: 15000 });
    await waitFor('attach-session rows', async () => (await feedStats(page)).total > 0, { timeoutMs: 15000 });
    await screenshot(page, 'session-attached.png');
  });

  it('falls back to REST polling when the WebSocket cannot connect', async () => {
    const p2 = await openDashboard(browser, srv, { hash: '#/', blockWebSocket: true });
    try {
      // the notice is a toast that goes after 5 s, maybe before all events are in:
      // record the toasts from before the session page opens, then look for it
      await p2.evaluate(() => {
        window.__toastTexts = [];
        new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes) window.__toastTexts.push(n.textContent); })
          .observe(document.getElementById('toasts'), { childList: true });
      });
      await goto(p2, '#/sessions/1');
      const want = (await serverJitSeqs(srv, 1)).length;
      await waitFor('all of session 1 through REST', async () => (await feedStats(p2)).total === want, { timeoutMs: 15000 });
      await waitFor('the REST polling notice', () => p2.evaluate(() => window.__toastTexts.some((t) => /Live stream cannot connect; using REST polling/.test(t))));
      assert.match(await p2.locator('#conn').textContent(), /REST polling/);
      const bad = unexpectedConsoleErrors(p2, pendingRoutes);
      assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
    } finally {
      await p2.context().close();
    }
  });

  // A flood of 5,000 JIT events/s fed through the page's own ingest path
  // (the Demo app JITs a few hundred methods/s): frames must stay smooth.
  it('keeps up with a synthetic flood of JIT events: one render per frame, input handled, the newest row drawn', async () => {
    await pressTab(page, 1);
    await page.keyboard.press('f');
    await waitFor('following the newest rows', async () => (await feedStats(page)).following);
    // only the flood from here on: the app's own events would push its last rows out of view
    await page.evaluate(() => window.__jitscope.app.view.stream.stop());
    // 100 events every 20 ms (5,000/s, more per frame than the table has rows) through the
    // page's own ingest path, until the test stops it; window.__stress.sent counts them
    await page.evaluate(() => {
      const v = window.__jitscope.app.view;
      const st = (window.__stress = { sent: 0, seq: 1e9, timer: 0 });
      st.timer = setInterval(() => {
        const evs = [];
        for (let i = 0; i < 100; i++, st.seq++) {
          const seq = st.seq;
          evs.push({ seq, type: 'jit', time_ms: Date.now(), name: `Stress.Synthetic<T${seq % 97}>.Method${seq % 4000}`, module: 'Stress',
            jit_ns: 20000 + (seq % 200) * 1000, il_size: 40, native_size: 120, versions: 1, thread_id: '0x1', function_id: `0xs${seq % 6000}` });
        }
        v.onEvents(evs);
        st.sent += evs.length;
      }, 20);
    });
    const sent = () => page.evaluate(() => window.__stress.sent);
    const w = await framesAndRenders(page, async () => {
      // the keyboard is served while the flood goes on: Space pauses, the flood piles up as
      // "N new" while the table stands still, Space again resumes and the table takes it all in
      const at = await sent();
      await waitFor('the flood under way', async () => (await sent()) >= at + 1000, { timeoutMs: 30000 });
      await page.locator('.vt-scroll').focus();
      await page.keyboard.press(' ');
      const p = await waitFor('paused during the flood', async () => { const x = await feedStats(page); return x.paused && x; });
      const n = await sent();
      await waitFor('the flood piling up while paused', async () => (await sent()) >= n + 1000 && (await feedStats(page)).newCount >= 1000, { timeoutMs: 30000 });
      assert.equal((await feedStats(page)).shown, p.shown, 'the table stands still while paused');
      await page.keyboard.press(' ');
      await waitFor('resumed during the flood', async () => { const x = await feedStats(page); return !x.paused && x.shown >= p.shown + 1000; });
      await page.evaluate(() => clearInterval(window.__stress.timer));
    });
    const lastSeq = await page.evaluate(() => window.__stress.seq - 1);
    assert.ok(w.renders <= w.frames, `at most one render per frame under the flood: ${JSON.stringify(w)}`);
    assert.ok(w.renders >= 2, `the table was drawn during the flood: ${JSON.stringify(w)}`);
    assert.equal(w.after.total - w.before.total, w.sent, `every event of the flood taken in: ${JSON.stringify(w)}`);
    assert.ok(w.after.domRows < 200, `still virtualised: ${w.after.domRows} row elements`);
    assert.ok(w.after.inBuffer <= 200000, `the client buffer is bounded: ${w.after.inBuffer}`);
    // once the flood stops, the table (still following) draws its newest row
    await waitFor(`the newest event (seq ${lastSeq}) drawn`, () => page.evaluate((seq) => {
      const f = window.__jitscope.app.view.feed;
      return f.vt.follow && [...document.querySelectorAll('.vt-row .c-seq')].some((c) => Number(c.textContent) === seq);
    }, lastSeq));
  });

  it('holds 200,000 rows, reports what the bounded buffer dropped, filters them fast', async () => {
    const t = await page.evaluate(() => {
      const v = window.__jitscope.app.view;
      const t0 = performance.now();
      let seq = 2e9;
      for (let k = 0; k < 25; k++) {
        const evs = [];
        for (let i = 0; i < 10000; i++, seq++) {
          evs.push({ seq, type: 'jit', time_ms: Date.now(), name: `Bulk.Type${seq % 1000}<System.Int32>.Method${seq % 50000}`, module: `Bulk${seq % 7}`,
            jit_ns: 30000, il_size: 12, native_size: 48, versions: 1, thread_id: '0x2', function_id: `0xb${seq % 90000}` });
        }
        v.onEvents(evs);
      }
      return performance.now() - t0;
    });
    const s = await waitFor('250,000 rows ingested', async () => { const x = await feedStats(page); return x.inBuffer === 200000 && x.shown === 200000 && x; });
    assert.ok(s.dropped >= 50000, JSON.stringify(s));
    assert.match(await page.locator('.toolbar .info').textContent(), /200,000 JITs in buffer · [\d,]+ dropped from the client buffer/);
    const tf = Date.now();
    await page.fill('input[type=search]', 'method4999');
    // the model filters first and the rows are drawn in the next frame: wait for both
    let seen = [];
    const f = await waitFor('filter over 200,000 rows, drawn', async () => {
      const x = await feedStats(page);
      if (!x.filtered || !x.shown) return false;
      seen = await visibleMethods(page);
      return seen.length > 0 && seen.every((n) => n.toLowerCase().includes('method4999')) && x;
    });
    const filterMs = Date.now() - tf;
    assert.ok(seen.length > 0 && seen.length <= f.shown, `${seen.length} rows drawn of ${f.shown}`);
    console.log(`dashboard: 250,000 events ingested in ${t.toFixed(0)} ms; filter over 200,000 rows -> ${f.shown} rows in ${filterMs} ms (incl. round trip)`);
    await page.keyboard.press('Escape');
    // scroll to the very top: the oldest row still in the buffer is shown
    await page.evaluate(() => { document.querySelector('.vt-scroll').scrollTop = 0; });
    await waitFor('top row', async () => !(await feedStats(page)).following);
    // render now and compare in the same task: events keep evicting the oldest rows
    const top = await page.evaluate(() => {
      const f = window.__jitscope.app.view.feed, b = f.buf;
      f.render();
      const rows = [...document.querySelectorAll('.vt-row')].sort((x, y) => x._y - y._y);
      return { want: b.seq[f.view.at(0) % b.cap], got: Number(rows[0].querySelector('.c-seq').textContent),
        scrollTop: f.vt.scroller.scrollTop, height: f.vt.sizer.offsetHeight };
    });
    assert.equal(top.scrollTop, 0);
    assert.equal(top.got, top.want, 'the oldest row in the buffer is the first row of the table');
    assert.equal(top.height, 200000 * 22, 'fixed row height: the scroll area is rows × 22 px');
  });

  it('logs no console errors', () => {
    const bad = unexpectedConsoleErrors(page, pendingRoutes);
    assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
  });
});
