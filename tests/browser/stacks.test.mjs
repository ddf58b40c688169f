// stacks.test.mjs -- the dashboard's Stacks and Profile tabs and the GC /
// suspension chart, in real headless Chromium, against the real server with
// StackTarget (threads with known stacks: "deep" 25 x Recurse, "spinner"
// Spin.Outer -> Spin.Inner, "sleeper"), and StackTarget's park mode (threads
// with identical stacks) for the merged view.
//   node --test tests/browser/stacks.test.mjs
// Screenshots: build/screenshots/stacks-*.png (and copies in /tmp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
  openDashboard, goto, waitFor, waitForOutput, unexpectedConsoleErrors, apiGet, fetchChecked,
  pressTab, sleep, openLiveSession, closeAll, screenshotCopy,
} from './helpers.mjs';
import { serveStackTarget } from '../e2e/stacktarget.mjs';

const DEPTH = 25; // StackTarget.Deep.Depth

// The view's objects, for reading its model (never for driving it).
const tab = (page, name, fn, arg = null) =>
  page.evaluate(`(${fn})(window.__jitscope.app.view.tabs[${JSON.stringify(name)}], ${JSON.stringify(arg)})`);

// Makes the page say it is hidden (or visible again), as a background browser tab does.
const setPageHidden = (page, hidden) => page.evaluate((hh) => {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hh ? 'hidden' : 'visible') });
  document.dispatchEvent(new Event('visibilitychange'));
}, hidden);

// Pixels of a canvas that are not its background, and of a given colour
// (from CSS pixel row fromY down: below a chart's title and legend).
function canvasPixels(page, selector, rgb, fromY = 0) {
  return page.evaluate(([sel, want, y0]) => {
    const c = document.querySelector(sel);
    const top = Math.round(y0 * (window.devicePixelRatio || 1));
    const d = c.getContext('2d').getImageData(0, top, c.width, c.height - top).data;
    let painted = 0, colour = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 24) painted++;
      if (want && Math.abs(d[i] - want[0]) < 10 && Math.abs(d[i + 1] - want[1]) < 10 && Math.abs(d[i + 2] - want[2]) < 10) colour++;
    }
    return { painted, colour, total: d.length / 4 };
  }, [selector, rgb || null, fromY]);
}

describe('stacks, profile and GC timeline', { timeout: 240000 }, () => {
  let srv, browser, page;
  const t0 = Date.now();

  before(async () => {
    srv = await serveStackTarget();
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/stacks', { width: 1280, height: 800 }));
  });

  after(async () => {
    await closeAll(browser, srv);
    console.log(`stacks: browser tests took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });

  it('Snapshot now shows every thread, the deep thread with its 25 Recurse frames', async () => {
    const btn = page.locator('button.snap-btn');
    await waitFor('an enabled Snapshot now button', () => btn.isEnabled(), { timeoutMs: 30000 });
    await btn.click();
    const info = page.locator('.stacks-view .snap-info');
    await info.getByText(/^Snapshot #1: \d+ threads, runtime suspended for [\d.]+ (ns|µs|ms|s)/).waitFor({ timeout: 30000 });
    const deep = page.locator('.stack-card[data-thread="deep"]');
    await deep.waitFor();
    assert.equal(await deep.locator('li.frame', { hasText: 'StackTarget.Deep.Recurse' }).count(), DEPTH);
    assert.equal(await deep.locator('li.frame').first().locator('.f-i').textContent(), '0', 'leaf first, numbered from 0');
    const spinner = page.locator('.stack-card[data-thread="spinner"]');
    const spinFrames = await spinner.locator('li.frame .f-name').allTextContents();
    const outer = spinFrames.indexOf('StackTarget.Spin.Outer()');
    assert.ok(outer > 0, spinFrames.join(' | '));
    assert.ok(spinFrames.slice(0, outer).some((f) => f.startsWith('StackTarget.Spin.Inner(ulong)')) || spinFrames[0].startsWith('StackTarget.Spin.Outer()'),
      `Spin.Inner (or Outer itself) at the leaf end: ${spinFrames.join(' | ')}`);
    await page.locator('.stack-card[data-thread="sleeper"]').waitFor();
    // every thread of the server's snapshot is on the page, failed walks included, with their HRESULT
    const rest = (await apiGet(srv, '/api/sessions/1/stacks/1')).body.snapshot;
    assert.equal(await page.locator('.stack-list .stack-card').count(), rest.threads.length);
    // every thread is named, the runtime's own too (their OS names, in startup mode as after attach)
    for (const t of rest.threads) {
      assert.ok(t.name, `thread ${t.os_thread_id} has a name`);
      assert.equal(await page.locator(`.stack-card[data-os="${t.os_thread_id}"]`).getAttribute('data-thread'), t.name);
    }
    for (const t of rest.threads.filter((x) => x.hresult && !x.native_only)) {
      const card = page.locator(`.stack-card[data-os="${t.os_thread_id}"]`);
      assert.match(await card.locator('.pill-err').textContent(), /walk failed: .*0x[0-9A-F]{8}/);
    }
    // a thread in native code only (the runtime's finalizer waiting: E_FAIL, no frame) is no
    // failure: said calmly, without the red badge, and not counted as a failed walk
    const native = rest.threads.filter((x) => x.native_only);
    assert.ok(native.some((x) => x.name === '.NET Finalizer'), `the finalizer waits in native code: ${JSON.stringify(native)}`);
    for (const t of native) {
      const card = page.locator(`.stack-card[data-os="${t.os_thread_id}"]`);
      assert.equal(await card.locator('.pill-err').count(), 0, `${t.name}: no red badge`);
      assert.equal(await card.locator('.pill-native').textContent(), 'in native code');
      assert.match(await card.locator('.native-note').textContent(), /^No managed frame: the thread was in native code/);
      assert.doesNotMatch(await card.getAttribute('class'), /failed/);
    }
    assert.match(await page.locator('.snap-summary .pill-native').textContent(), /^\d+ in native code$/);
    assert.equal(await page.locator('.snap-summary .pill-err').count(), rest.threads.filter((x) => x.hresult && !x.native_only).length ? 1 : 0);
    for (const t of rest.threads.filter((x) => x.frames.some((f) => f.native))) {
      assert.ok(await page.locator(`.stack-card[data-os="${t.os_thread_id}"] li.frame.native`).count() > 0, 'native frames shown as [native]');
    }
    // the snapshot list has it; the tab counts it
    await page.locator('.snap-item[data-id="1"]').waitFor();
    assert.match(await page.locator('.tab[data-tab="stacks"] .count').textContent(), /^1$/);
    await screenshotCopy(page, 'stacks-threads.png');
  });

  it('a thread collapses and expands; the search filters threads and highlights frames', async () => {
    const deep = page.locator('.stack-card[data-thread="deep"]');
    await deep.locator('button.th-head').click();
    await waitFor('deep collapsed', async () => (await deep.getAttribute('class')).includes('open') === false);
    assert.equal(await deep.locator('li.frame').count(), 0);
    assert.match(await deep.locator('.th-leaf').textContent(), /^at /, 'a collapsed thread shows its leaf frame');
    await deep.locator('button.th-head').click();
    await waitFor('deep expanded', async () => (await deep.locator('li.frame').count()) > DEPTH);

    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Find frames by method or module substring');
    await page.keyboard.type('deep.recurse');
    const list = page.locator('.stack-list');
    // the list is drawn at most once per frame while the keys arrive: a look can
    // catch it drawn for the first letters only (a shorter text matches more
    // frames: once 27 against 25), so wait for the whole text's result
    await waitFor('the whole search applied: 1 thread, DEPTH frames', async () => {
      const threads = await list.getAttribute('data-threads'), frames = await list.getAttribute('data-match-frames');
      if (threads !== '1' || frames !== String(DEPTH)) throw new Error(`${threads} thread(s), ${frames} frames`);
      return true;
    });
    assert.equal(await page.locator('.stack-card[data-thread="deep"] li.frame.hit').count(), DEPTH);
    assert.ok(await page.locator('.stack-card[data-thread="deep"] li.frame.hit mark').count() >= DEPTH);
    assert.match(await page.locator('.stack-list .list-meta').textContent(), /^1 of \d+ threads match · 25 frames$/);
    await screenshotCopy(page, 'stacks-search.png');
    await page.keyboard.press('Escape');
    await waitFor('search cleared', async () => Number(await list.getAttribute('data-threads')) > 1);
  });

  it('the plain-text link gives the snapshot as text', async () => {
    const href = await page.locator('a.text-link').getAttribute('href');
    assert.equal(href, '/api/sessions/1/stacks/1?format=text');
    const res = await fetchChecked(srv.url + href);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/plain/);
    const text = await res.text();
    assert.match(text, /Thread 0x[0-9a-f]+ \(os \d+\) "deep"/);
    assert.equal((text.match(/StackTarget\.Deep\.Recurse/g) || []).length, DEPTH);
  });

  it('s takes another snapshot; the list keeps both, newest first', async () => {
    await page.locator('.stack-list').click({ position: { x: 5, y: 5 } }); // focus out of inputs
    await page.keyboard.press('s');
    // the stream may list #2 before the POST's answer selects it: wait for the selection itself
    await page.locator('.snap-item.sel[data-id="2"]').waitFor({ timeout: 30000 });
    const ids = await page.locator('.snap-item').evaluateAll((els) => els.map((e) => e.dataset.id));
    assert.deepEqual(ids, ['2', '1']);
    assert.equal(await page.locator('.snap-item.sel').getAttribute('data-id'), '2');
    await page.locator('.snap-item[data-id="1"]').click();
    await waitFor('snapshot 1 shown', async () => /Snapshot #1/.test(await page.locator('.snap-summary').textContent()));
  });

  it('profile: start, the flame graph is drawn and grows, the spinner\'s frames are found, zoom in and out', async () => {
    await pressTab(page, 7);
    await page.waitForFunction(() => location.hash === '#/sessions/1/profile');
    assert.equal(await page.locator('input#p-hz-1').inputValue(), '49', 'default rate');
    assert.equal(await page.locator('label[for="p-hz-1"]').count(), 1, 'the rate input has a label');
    await page.locator('button.start-btn').click();
    await page.locator('.p-stats .badge-live').waitFor({ timeout: 20000 });
    const canvas = page.locator('canvas.flame-canvas');
    await waitFor('the flame graph drawn with the spinner', async () => {
      const drawn = Number(await canvas.getAttribute('data-drawn'));
      const spin = await tab(page, 'profile', (t) => t.flame.locate('StackTarget.Spin.Outer()'));
      return drawn > 10 && spin && drawn;
    }, { timeoutMs: 30000 });
    const px = await canvasPixels(page, 'canvas.flame-canvas');
    assert.ok(px.painted > px.total * 0.05, `flame graph pixels: ${JSON.stringify(px)}`);
    const total1 = Number(await canvas.getAttribute('data-total'));
    await waitFor('the graph to grow while sampling', async () => Number(await canvas.getAttribute('data-total')) > total1, { timeoutMs: 20000 });
    // while the page is hidden nothing is fetched; once visible again the graph is refreshed
    const fetches = [];
    const onRequest = (r) => { if (/\/api\/sessions\/1\/(profile\?format=json|timeline)/.test(r.url())) fetches.push(Date.now()); };
    page.on('request', onRequest);
    const setHidden = (hidden) => setPageHidden(page, hidden);
    try {
      await setHidden(true);
      // a request under way when the page went hidden may still be followed by its queued
      // repeat (however long its answer takes): count from when none is under way
      await waitFor('no profile or timeline request under way', () => page.evaluate(() => {
        const v = window.__jitscope.app.view, p = v.tabs.profile;
        return !p.req.tree.busy && !p.req.info.busy && !v.timeline.busy;
      }), { timeoutMs: 20000 });
      const hiddenAt = Date.now();
      await waitFor('2.5 s hidden', async () => Date.now() > hiddenAt + 2500, { timeoutMs: 10000 });
      assert.deepEqual(fetches.filter((t) => t > hiddenAt), [], 'no profile or timeline request while hidden');
      const shownAt = Date.now(); // the refresh starts inside setHidden(false)
      await setHidden(false);
      await waitFor('a refresh once visible', () => fetches.some((t) => t >= shownAt), { timeoutMs: 5000 });

    } finally {
      page.off('request', onRequest);
      await setHidden(false);
    }

    // status: requested and effective rate, samples, suspended time
    const stats = await page.locator('.p-stats').textContent();
    assert.match(stats, /Rate[\d.]+ Hz/);
    assert.match(stats, /Samples[\d,]+/);
    assert.match(stats, /Runtime suspended[\d.]+ (ns|µs|ms|s)/);
    await screenshotCopy(page, 'stacks-profile.png');

    // search: highlighted frames and the share of samples
    await page.keyboard.press('/');
    await page.keyboard.type('Spin.');
    const info = page.locator('.match-info');
    // the query is applied in the next frame, so a look can catch the result for the first
    // letters only ("s" matches most frames: 80% of the samples, against 16%): wait for the whole text
    await waitFor('the whole search applied', () => tab(page, 'profile', (t) => !t.graph.queryDirty && t.flame.query === 'spin.'));
    await waitFor('matches', async () => Number(await info.getAttribute('data-nodes')) >= 2);
    assert.match(await info.textContent(), /^\d+ frames match · [\d.]+% of samples$/);
    const pct = Number(await info.getAttribute('data-pct'));
    assert.ok(pct > 0 && pct < 1, `share ${pct}`);
    await waitFor('highlighted frames drawn', async () => Number(await canvas.getAttribute('data-matches')) >= 2);
    // the spinner sits in Spin.Outer's loop, mostly inside Spin.Inner: both show up as samples accumulate
    await waitFor('Spin.Outer and Spin.Inner highlighted', () => tab(page, 'profile', (t) => {
      const out = new Set();
      for (const row of t.flame.rows) for (const r of row.items) if (r.node._m) out.add(r.node.name);
      return out.has('StackTarget.Spin.Outer()') && out.has('StackTarget.Spin.Inner(ulong)');
    }), { timeoutMs: 30000 });
    await screenshotCopy(page, 'stacks-profile-search.png');

    // click Spin.Outer: it fills the width, Inner below it in proportion to its samples; the path shows it
    const box = await canvas.boundingBox();
    const at = await tab(page, 'profile', (t) => t.flame.locate('StackTarget.Spin.Outer()'));
    await page.mouse.move(box.x + at.x, box.y + at.y);
    await page.locator('.flame-tip').getByText('StackTarget.Spin.Outer()').waitFor();
    assert.match(await page.locator('.flame-tip').textContent(), /StackTarget.*samples [\d,]+ · [\d.<]+% of all/);
    // the click where Spin.Outer is drawn now: the tree is refetched every second and a newer
    // one can be drawn between a look from here and a click from here (it once landed beside
    // it), so the frame is found and clicked in one task of the page, before any draw
    await page.evaluate((name) => {
      const flame = window.__jitscope.app.view.tabs.profile.flame;
      const where = flame.locate(name), rect = flame.canvas.getBoundingClientRect();
      flame.canvas.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: rect.left + where.x, clientY: rect.top + where.y }));
    }, 'StackTarget.Spin.Outer()');
    await waitFor('zoomed to Spin.Outer', async () => (await canvas.getAttribute('data-zoom')) === 'StackTarget.Spin.Outer()');
    // widths and samples of the frames the last frame drew: a newer tree (refetched every
    // second) can be in the model already, with other samples, until the next frame draws it
    const z = await waitFor('Spin.Inner drawn under the zoomed frame', () => tab(page, 'profile', (t) => {
      const drawn = t.flame.rows.flatMap((row) => row.items);
      const outer = drawn.filter((r) => r.node.name === 'StackTarget.Spin.Outer()').sort((a, b) => b.w - a.w)[0];
      const inner = outer && drawn.find((r) => r.node._p === outer.node && r.node.name === 'StackTarget.Spin.Inner(ulong)');
      return inner && { outer: outer.w, inner: inner.w, share: inner.node.value / outer.node.value };
    }));
    assert.ok(Math.abs(z.outer - box.width) <= 2, `the zoomed frame spans the graph: ${z.outer} of ${box.width}`);
    assert.ok(Math.abs(z.inner - z.share * box.width) <= 2, `Inner's width follows its samples: ${JSON.stringify(z)}`);
    assert.equal(await page.locator('.flame-crumbs .crumb.cur').textContent(), 'Spin.Outer()', 'the type and method (no namespace)');
    await screenshotCopy(page, 'stacks-profile-zoom.png');
    await page.locator('.flame-crumbs .crumb', { hasText: /^all$/ }).click();
    await waitFor('zoomed out', async () => (await canvas.getAttribute('data-zoom')) === 'all');
  });

  it('profile: thread filter, time range from the samples chart, suspension per sample', async () => {
    // the spinner only
    // the filter names the thread by its thread_key: a ThreadID may be several threads
    const spinnerId = await tab(page, 'profile', (t) => { const x = t.threads.find((y) => y.name === 'spinner'); return x && `key:${x.thread_key}`; });
    assert.ok(spinnerId, 'the profile lists the spinner thread');
    await page.selectOption('select[aria-label="Thread filter"]', spinnerId);
    await waitFor('only the spinner\'s stacks', () => tab(page, 'profile', (t) => t.flame.root && t.flame.root.value > 0
      && !t.flame.locate('StackTarget.Deep.Recurse') && !!t.flame.locate('StackTarget.Spin.Outer()')));
    await page.selectOption('select[aria-label="Thread filter"]', '');
    await waitFor('every thread again', () => tab(page, 'profile', (t) => !!t.flame.locate('StackTarget.Deep.Recurse')));

    // jitscope's own suspensions, one per sample, on the chart's lower lane
    await waitFor('suspensions per sample', () => tab(page, 'profile', (t) => t.chart.data && t.chart.data.susp.length > 3), { timeoutMs: 20000 });
    // drag across a second that has samples, well inside the profile: a time range, sent as
    // from_ms / to_ms; the graph is then the server's answer for that range. The drag
    // starts and ends a second outside that second (the axis grows while we move).
    const chart = page.locator('canvas.sample-chart');
    const cb = await chart.boundingBox();
    const sec = await waitFor('a past second with samples', () => tab(page, 'profile', (t) => {
      const d = t.chart.data;
      const inside = d.bins.filter((b) => b.samples > 0 && b.t_ms - 1500 >= d.startMs && b.t_ms + 4000 < d.endMs);
      const best = inside.sort((a, b) => b.samples - a.samples)[0];
      return best && { x0: t.chart.xAt(best.t_ms - 1000), x1: t.chart.xAt(best.t_ms + 2000), t: best.t_ms };
    }), { timeoutMs: 30000 });
    await page.mouse.move(cb.x + sec.x0, cb.y + cb.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(cb.x + sec.x1, cb.y + cb.height * 0.5, { steps: 6 });
    await page.mouse.up();
    const range = await tab(page, 'profile', (t) => t.range);
    assert.ok(range && range.from <= sec.t && range.to >= sec.t + 1000, `${JSON.stringify(range)} covers ${sec.t}`);
    await page.locator('.range-info').getByText(/\d\d:\d\d:\d\d – \d\d:\d\d:\d\d/).waitFor();
    const want = (await apiGet(srv, `/api/sessions/1/profile?format=json&from_ms=${range.from}&to_ms=${range.to}`)).body.tree.value;
    assert.ok(want > 0, 'the server has samples in that range');
    await waitFor('the ranged graph', () => tab(page, 'profile', (t, w) => t.flame.root && t.flame.root.value === w, want));
    assert.match(await page.locator('a.export-folded').getAttribute('href'), /from_ms=\d+&to_ms=\d+/);
    await screenshotCopy(page, 'stacks-profile-range.png');
    await page.locator('button', { hasText: 'Clear range' }).click();
    await waitFor('range cleared', () => tab(page, 'profile', (t) => t.range === null));
  });

  it('profile: search while zoomed counts and jumps to the matches; threads outside managed code and idle waits can be hidden; it says it measures wall clock', async () => {
    const canvas = page.locator('canvas.flame-canvas');
    const info = page.locator('.match-info');
    // what the profile measures: the profile has no mode field yet, so wall clock
    assert.match(await page.locator('.p-stats .p-mode').textContent(), /^Measureswall clock every thread, running or waiting$/);
    assert.match(await page.locator('.p-stats .p-mode').getAttribute('title'), /whether it runs or waits/);

    // zoomed to Spin.Outer, a search for the deep thread's frames: none is under it
    const box = await canvas.boundingBox();
    const at = await waitFor('Spin.Outer drawn', () => tab(page, 'profile', (t) => t.flame.locate('StackTarget.Spin.Outer()')));
    await page.mouse.click(box.x + at.x, box.y + at.y);
    await waitFor('zoomed to Spin.Outer', async () => (await canvas.getAttribute('data-zoom')) === 'StackTarget.Spin.Outer()');
    await page.keyboard.press('/');
    await page.keyboard.type('Deep.Recurse');
    await waitFor('the whole search applied', () => tab(page, 'profile', (t) => !t.graph.queryDirty && t.flame.query === 'deep.recurse'));
    await waitFor('matches counted, none under the zoomed frame', async () => Number(await info.getAttribute('data-nodes')) >= DEPTH
      && (await info.getAttribute('data-zoom-nodes')) === '0');
    assert.match(await info.textContent(), /^\d+ frames match · [\d.]+% of samples · none under Spin\.Outer\(\): › or Enter jumps to them$/);
    assert.equal(await canvas.getAttribute('data-matches'), '0', 'nothing to highlight under Spin.Outer');
    // Enter zooms to the heaviest match: drawn and highlighted
    await page.keyboard.press('Enter');
    await waitFor('zoomed to a match', async () => (await canvas.getAttribute('data-zoom')) === 'StackTarget.Deep.Recurse(int)');
    await waitFor('highlighted matches drawn', async () => Number(await canvas.getAttribute('data-matches')) > 0);
    // the zoomed frame by its type, name and parameters (overloads differ by them)
    assert.match(await info.textContent(), /^match 1 of \d+ · \d+ frames match · [\d.]+% of samples · \d+ under Deep\.Recurse\(int\) \(100\.0% of its samples\)$/);
    assert.equal(await page.locator('.flame-crumbs .crumb.cur').textContent(), 'Deep.Recurse(int)');
    // the arrows step through them
    await page.locator('button.match-next').click();
    await waitFor('the second match', async () => (await info.getAttribute('data-at')) === '1');
    await page.locator('button.match-prev').click();
    await waitFor('the first again', async () => (await info.getAttribute('data-at')) === '0');
    await screenshotCopy(page, 'stacks-profile-jump.png');
    await page.keyboard.press('Escape');
    await page.locator('.flame-crumbs .crumb', { hasText: /^all$/ }).click();
    await waitFor('search cleared, zoomed out', async () => (await canvas.getAttribute('data-zoom')) === 'all' && !(await info.textContent()));

    // the server leaves out what the toggles hide, and counts both kinds either way
    const shape = () => tab(page, 'profile', (t) => {
      const names = new Set();
      let nativeOnly = 0;
      const stack = t.flame.root ? [t.flame.root] : [];
      while (stack.length) { const n = stack.pop(); names.add(n.name); stack.push(...n.children); }
      for (const c of t.flame.root ? t.flame.root.children : []) if (c.name === '[native]') nativeOnly += c.self;
      return { names: [...names], value: t.flame.root ? t.flame.root.value : 0, nativeOnly,
        counted: t.graph.counted, ...t.graph.kinds, opts: { ...t.graph.opts } };
    });
    const all = await waitFor('threads in native code only and idle waits in the profile', async () => { const x = await shape(); return x.unmanaged > 0 && x.idle > 0 && x.nativeOnly > 0 && x; });
    assert.equal(all.value, all.counted, 'nothing hidden yet');
    assert.match(await page.locator('label:has(input.hide-unmanaged) .share').textContent(), /^ [\d.<]+%$/);

    await page.locator('input.hide-unmanaged').check();
    const managed = await waitFor('no thread in native code only', async () => { const x = await shape(); return x.opts.hideUnmanaged && x.value === x.counted && x.nativeOnly === 0 && x; });
    assert.ok(managed.unmanaged > 0, 'still counted while hidden');
    await page.locator('input.hide-idle').check();
    const working = await waitFor('no waiting thread', async () => {
      const x = await shape();
      return x.opts.hideIdle && !x.names.includes('StackTarget.Deep.Recurse(int)') && !x.names.includes('StackTarget.Sleeper.Run()') && x;
    });
    assert.ok(working.names.includes('StackTarget.Spin.Inner(ulong)'), 'the spinner works: it stays');
    assert.ok(working.names.includes('StackTarget.Program.ReadUntilExit(Action<string>)'), 'a blocking read of stdin is I/O, not an idle wait: it stays');
    await waitFor('the graph drawn without them', () => tab(page, 'profile', (t) => !t.flame.locate('StackTarget.Deep.Recurse') && !!t.flame.locate('StackTarget.Spin.Outer()')));
    assert.match(await page.locator('a.export-folded').getAttribute('href'), /hide=unmanaged%2Cidle/, 'the exports leave them out too');
    await screenshotCopy(page, 'stacks-profile-hidden.png');
    await page.locator('input.hide-unmanaged').uncheck();
    await page.locator('input.hide-idle').uncheck();
    await waitFor('everything back', async () => { const x = await shape(); return !x.opts.hideIdle && x.nativeOnly > 0 && x.names.includes('StackTarget.Deep.Recurse(int)'); });

    // a profile that says it measures CPU time is labelled so (no server sends one yet: the answer is rewritten)
    const other = await openDashboard(browser, srv, { hash: '#/sessions/1/profile', width: 1280, height: 800 });
    try {
      await other.route(/\/api\/sessions\/1\/profile\?format=json/, async (route) => {
        const res = await route.fetch();
        const body = await res.json();
        if (body.profile) body.profile.mode = 'cpu';
        await route.fulfill({ response: res, json: body });
      });
      await other.locator('.p-stats .p-mode', { hasText: 'CPU time' }).waitFor({ timeout: 20000 });
    } finally {
      // the page polls the profile: an answer may still be in the handler;
      // let it finish before the context (and the answer with it) goes
      await other.unrouteAll({ behavior: 'wait' });
      await other.context().close();
    }
  });

  it('profile: speedscope and folded downloads, stop', async () => {
    const href = await page.locator('a.export-speedscope').getAttribute('href');
    assert.equal(href, '/api/sessions/1/profile?format=speedscope');
    assert.match(await page.locator('a.export-speedscope').getAttribute('download'), /\.speedscope\.json$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a.export-speedscope').click()]);
    const file = await download.path();
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(doc.$schema, 'https://www.speedscope.app/file-format-schema.json');
    assert.ok(Array.isArray(doc.profiles) && doc.profiles.length > 0 && doc.shared.frames.length > 0);
    assert.ok(doc.shared.frames.some((f) => f.name === 'StackTarget.Spin.Inner(ulong)' || f.name.includes('Spin.Inner')));
    const folded = await (await fetchChecked(srv.url + await page.locator('a.export-folded').getAttribute('href'))).text();
    assert.match(folded, /StackTarget\.Spin\.Outer\(\);StackTarget\.Spin\.Inner\(ulong\) \d+/);

    await page.locator('button.stop-btn').click();
    await page.locator('.p-stats .badge', { hasText: 'stopped' }).waitFor({ timeout: 20000 });
    assert.ok(await page.locator('button.stop-btn').isDisabled());
    // the stream or the summary poll can say "stopped" before the Stop request's own answer
    // arrives, and Start stays disabled until then
    await waitFor('Start enabled', () => page.locator('button.start-btn').isEnabled(), { timeoutMs: 15000 });
    assert.ok(await page.locator('button.start-btn').isEnabled(), 'a new profile may be started');
    const status = (await apiGet(srv, '/api/sessions/1/profile')).body.profile;
    assert.equal(status.state, 'stopped');

    // a repeat queued behind a request under way is held while the page is hidden, and goes
    // once the page is visible and the tab shown. The page is hidden before the two fetches:
    // a fetch of its own still under way (the stop's status arriving by the stream or the
    // summary poll on a loaded machine) can then not take the queued repeat with it.
    const profileJson = /\/api\/sessions\/1\/profile\?format=json/;
    const requests = [];
    const onProfileRequest = (r) => { if (profileJson.test(r.url())) requests.push(Date.now()); };
    let release = () => {};
    const gate = new Promise((r) => { release = r; });
    const hold = async (route) => { await gate; await route.continue(); };
    page.on('request', onProfileRequest);
    await page.route(profileJson, hold);
    try {
      await setPageHidden(page, true);
      await tab(page, 'profile', (t) => { t.fetch('tree'); t.fetch('tree'); });
      assert.ok(await tab(page, 'profile', (t) => t.req.tree.busy && t.req.tree.again), 'a request under way, a repeat queued behind it');
      release();
      await waitFor('the held answer in', () => tab(page, 'profile', (t) => !t.req.tree.busy), { timeoutMs: 10000 });
      const answered = requests.length;
      await sleep(500); // the repeat would start at once
      assert.equal(requests.length, answered, 'no repeat while hidden');
      await pressTab(page, 1); // the page comes back on another tab: still nothing
      await setPageHidden(page, false);
      await sleep(500);
      assert.equal(requests.length, answered, 'no repeat for a tab not shown');
      const shownAt = Date.now();
      await pressTab(page, 7);
      await waitFor('the repeat once the tab is shown', () => requests.some((t) => t >= shownAt), { timeoutMs: 5000 });
      assert.equal(await tab(page, 'profile', (t) => t.req.tree.again), false, 'nothing left queued');
    } finally {
      release();
      await setPageHidden(page, false);
      page.off('request', onProfileRequest);
      await page.unroute(profileJson, hold);
    }
  });

  it('the GC chart next to the JIT-rate chart shows the app\'s collections and jitscope\'s own suspensions', async () => {
    srv.send('gc');
    await waitForOutput(srv, /^gc done 1$/m);
    assert.equal((await fetchChecked(`${srv.url}/api/sessions/1/stacks`, { method: 'POST' })).status, 201, 'one more snapshot: a suspension by jitscope now');
    await pressTab(page, 1);
    const chart = page.locator('canvas.pause-chart');
    await waitFor('three collections on the chart', async () => Number(await chart.getAttribute('data-gcs')) >= 3, { timeoutMs: 20000 });
    await waitFor('jitscope\'s suspensions on it', async () => Number(await chart.getAttribute('data-jitscope')) > 0, { timeoutMs: 20000 });
    // below the title and legend (which use the same colours): markers and bars
    const markers = await canvasPixels(page, 'canvas.pause-chart', [0x5f, 0xe0, 0xc8], 18);
    const mine = await canvasPixels(page, 'canvas.pause-chart', [0xb4, 0x8c, 0xf2], 18);
    assert.ok(markers.colour >= 10, `GC markers drawn: ${markers.colour} px`);
    assert.ok(mine.colour >= 2, `jitscope suspensions drawn in their own colour: ${mine.colour} px`);
    const rest = (await apiGet(srv, '/api/sessions/1/timeline')).body;
    assert.ok(rest.gcs.length >= 3 && rest.suspensions.some((s) => s.by_jitscope), 'the server agrees');
    await screenshotCopy(page, 'stacks-live-gc.png');
  });

  it('narrow window: each new view still fits', async () => {
    const narrow = await openDashboard(browser, srv, { hash: '#/sessions/1/stacks', width: 760, height: 900 });
    try {
      await narrow.locator('.stack-card[data-thread="deep"]').waitFor({ timeout: 20000 });
      // the header comes with the session summary, which may arrive after the stacks
      await narrow.locator('.s-head .badge-live').waitFor({ timeout: 20000 });
      const overflow = () => narrow.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(await overflow(), 0, 'no horizontal overflow (stacks)');
      await screenshotCopy(narrow, 'stacks-narrow.png');
      await goto(narrow, '#/sessions/1/profile');
      await waitFor('flame drawn', async () => Number(await narrow.locator('canvas.flame-canvas').getAttribute('data-drawn')) > 10, { timeoutMs: 20000 });
      assert.equal(await overflow(), 0, 'no horizontal overflow (profile)');
      await screenshotCopy(narrow, 'stacks-profile-narrow.png');
      await goto(narrow, '#/sessions/1/live');
      await waitFor('GC chart drawn', async () => Number(await narrow.locator('canvas.pause-chart').getAttribute('data-gcs')) >= 3, { timeoutMs: 20000 });
      await screenshotCopy(narrow, 'stacks-live-narrow.png');
      assert.deepEqual(unexpectedConsoleErrors(narrow), []);
    } finally {
      await narrow.context().close();
    }
  });

  it('when the app has exited, Snapshot now and Start are disabled and say why', async () => {
    srv.send('exit');
    await pressTab(page, 6);
    await page.locator('.s-head .badge-exited').waitFor({ timeout: 30000 });
    const btn = page.locator('button.snap-btn');
    await waitFor('disabled', () => btn.isDisabled());
    assert.match(await page.locator('.stacks-view .snap-info').textContent(), /No live agent: the session is exited/);
    assert.match(await btn.getAttribute('title'), /No live agent/);
    assert.ok(await page.locator('.snap-item').count() >= 2, 'earlier snapshots stay browsable');
    await pressTab(page, 7);
    assert.ok(await page.locator('button.start-btn').isDisabled());
    assert.match(await page.locator('.profile-view .snap-info').textContent(), /No live agent/);
    assert.ok(Number(await page.locator('canvas.flame-canvas').getAttribute('data-drawn')) > 10, 'the last profile stays browsable');
    await screenshotCopy(page, 'stacks-exited.png');
  });

  it('logs no console errors', () => {
    const bad = unexpectedConsoleErrors(page);
    assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
  });
});

describe('merged stacks', { timeout: 120000 }, () => {
  const PARKED = 6;
  let srv, browser, page;

  before(async () => {
    srv = await serveStackTarget({ appArgs: ['park', String(PARKED)], ready: new RegExp(`^READY pid=\\d+ threads=${PARKED}$`, 'm') });
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/stacks', { width: 1280, height: 800 }));
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('groups the parked threads\' identical stacks with their count', async () => {
    const btn = page.locator('button.snap-btn');
    await waitFor('an enabled Snapshot now button', () => btn.isEnabled(), { timeoutMs: 30000 });
    await btn.click();
    await page.locator('.stack-card[data-thread="park-0"]').waitFor({ timeout: 30000 });
    await page.locator('button.seg', { hasText: 'Merged' }).click();
    const group = page.locator('.stack-card[data-count]', { has: page.locator('.chip', { hasText: 'park-0' }) });
    await group.waitFor();
    assert.equal(await group.getAttribute('data-count'), String(PARKED));
    assert.match(await group.locator('.count-badge').textContent(), new RegExp(`^×${PARKED}$`));
    assert.equal(await group.locator('.chip').count(), PARKED);
    assert.ok(await group.locator('li.frame', { hasText: 'StackTarget.Park.Level3' }).count() === 1);
    // the counts add up to the snapshot's threads, biggest group first
    const counts = (await page.locator('.stack-card[data-count]').evaluateAll((els) => els.map((e) => Number(e.dataset.count))));
    const rest = (await apiGet(srv, '/api/sessions/1/stacks/1')).body.snapshot;
    assert.equal(counts.reduce((a, b) => a + b, 0), rest.threads.length);
    assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
    assert.match(await page.locator('.stack-list .list-meta').textContent(), new RegExp(`^${counts.length} distinct stacks for ${rest.threads.length} threads$`));
    await screenshotCopy(page, 'stacks-merged.png');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
