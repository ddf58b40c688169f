// flame.test.mjs -- the Profile tab's flame graph as a .NET engineer reads a
// CPU profile of their code (issue 34), in real headless Chromium against the
// real server and StackTarget ("spinner" hot in Spin.Outer -> Spin.Inner,
// "deep" blocked under 25 Deep.Recurse frames): a deep frame zoomed to is the
// top row, its ancestors thin rows above it, the breadcrumbs readable; the
// search never lights a marker ([kernel]); jitscope's own threads marked and
// left out of the totals; one switch folds the native frames into the managed
// ones that called them, the tooltip says what was folded; the inverted graph
// and the callers & callees of one method; a native frame's label keeps its
// library; the filters stay on one line; a CPU profile's chart has no
// suspension lane; the controls show the stored profile's mode and rate when
// the tab is opened again. Screenshots at 1,024, 1,440 and 1,920 px.
//   node --test tests/browser/flame.test.mjs
// Screenshots: build/screenshots/flame-*.png (and copies in /tmp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  waitFor, unexpectedConsoleErrors, openLiveSession, closeAll,
  screenshotCopy, goto,
} from './helpers.mjs';
import { serveStackTarget } from '../e2e/stacktarget.mjs';

const INNER = 'StackTarget.Spin.Inner(ulong)', OUTER = 'StackTarget.Spin.Outer()';

// The tab's model, read (never driven) from the page.
const tab = (page, fn, arg = null) =>
  page.evaluate(`(${fn})(window.__jitscope.app.view.tabs.profile, ${JSON.stringify(arg)})`);

// Every node of the graph's tree: {name, kind, value, self, folded, depth}.
const nodes = (page) => tab(page, (t) => {
  const out = [];
  const walk = (n, d) => { out.push({ name: n.name, kind: n.kind, value: n.value, self: n.self, folded: n.folded || null, depth: d }); for (const c of n.children || []) walk(c, d + 1); };
  if (t.flame.root) walk(t.flame.root, 0);
  return out;
});

// Zooms the shown graph to the heaviest frame named `name` (in one task of the page).
const zoomTo = (page, name) => tab(page, (t, want) => {
  let best = null;
  const walk = (n) => { if (n.name === want && (!best || n.value > best.value)) best = n; (n.children || []).forEach(walk); };
  walk(t.flame.root);
  if (best) t.graph.zoomTo(best);
  return !!best;
}, name);

describe('the flame graph of my code', { timeout: 300000 }, () => {
  let srv, browser, page;

  before(async () => {
    srv = await serveStackTarget({ appArgs: ['stacks', '900'] });
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/profile', { width: 1440, height: 900 }));
    const cpu = page.locator('select.mode-select option[value="cpu"]');
    await waitFor('CPU mode offered', async () => !(await cpu.isDisabled()), { timeoutMs: 30000 });
    await page.locator('select.mode-select').selectOption('cpu');
    await page.locator('input#p-hz-1').fill('999');
    await page.locator('button.start-btn').click();
    await page.locator('.p-stats .badge-live').waitFor({ timeout: 20000 });
    // enough of the spinner, and the agent's own thread has run (it answers the server)
    await waitFor('the spinner sampled, the agent\'s thread seen', () => tab(page, (t, inner) => t.status && t.status.samples > 1500
      && t.threads.some((x) => x.jitscope) && !!t.flame.locate(inner), INNER), { timeoutMs: 90000 });
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('a CPU profile\'s chart has no suspension lane; the filters stay on one line at 1,024 px', async () => {
    const labels = () => page.evaluate(() => (document.querySelector('canvas.sample-chart').labelBoxes || []).map((b) => b.text));
    await waitFor('the chart drawn', async () => (await labels()).includes('Thread samples / s'));
    assert.ok(!(await labels()).includes('runtime suspended per sample'), 'nothing is suspended: no such lane');
    await page.setViewportSize({ width: 1024, height: 800 });
    await waitFor('laid out at 1,024 px', () => page.evaluate(() => document.querySelector('.toolbar.filters').clientWidth < 1030));
    const box = (sel) => page.locator(sel).boundingBox();
    const [search, select, filters, view] = await Promise.all([box('.toolbar.filters .search'), box('.toolbar.filters select'), box('.toolbar.filters'), box('.toolbar.view-bar')]);
    assert.ok(Math.abs(search.y - select.y) <= 4, `the thread picker is on the search's line (${search.y}, ${select.y})`);
    assert.ok(filters.height <= 48 && view.height <= 48, `one line each (${filters.height}, ${view.height} px)`);
    const controls = await box('.toolbar.p-controls');
    assert.ok(controls.height <= 48, `the controls too (${controls.height} px)`);
    await screenshotCopy(page, 'flame-1024.png');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('jitscope\'s own threads are marked and left out of the totals, unless asked for', async () => {
    const r = await tab(page, (t) => ({ threads: t.threads, value: t.flame.root.value, opts: [...t.graph.threadSel.options].map((o) => o.textContent) }));
    const own = r.threads.filter((x) => x.jitscope);
    assert.ok(own.length && own.every((x) => x.name.startsWith('jitscope-') && !x.counted), JSON.stringify(own));
    assert.ok(r.opts.some((o) => /^jitscope · jitscope-agent \(\d+\) — [\d,]+ samples \(not counted\)$/.test(o)), r.opts.join('\n'));
    assert.match(r.opts[0], new RegExp(`^All threads \\(${r.threads.filter((x) => x.counted).length}\\)$`));
    assert.match(await page.locator('label:has(input.count-own) .share').textContent(), /^ [\d.<]+%$/);
    await page.locator('input.count-own').check();
    await waitFor('counted now', () => tab(page, (t) => t.graph.opts.own && t.threads.every((x) => x.counted)));
    await page.locator('input.count-own').uncheck();
    await waitFor('left out again', () => tab(page, (t) => !t.graph.opts.own && t.threads.some((x) => x.jitscope && !x.counted)));
  });

  it('the search never lights a marker: "kernel" finds no [kernel] frame', async () => {
    const names = (await nodes(page)).map((n) => n.name);
    assert.ok(names.includes('[kernel]'), 'the profile has time in the kernel');
    await page.locator('.toolbar.filters .search').fill('kernel');
    await waitFor('the search applied', () => tab(page, (t) => !t.graph.queryDirty && t.flame.query === 'kernel'));
    const hits = await tab(page, (t) => t.flame.match.list.map((n) => ({ name: n.name, kind: n.kind })));
    assert.deepEqual(hits.filter((n) => n.kind === 'label'), [], 'no marker among the matches');
    await page.locator('.toolbar.filters .search').fill('');
    await waitFor('search cleared', () => tab(page, (t) => !t.graph.queryDirty && t.flame.query === ''));
  });

  it('a deep frame zoomed to is the top row under thin ancestors; the breadcrumbs stay readable', async () => {
    const widths = [1024, 1440, 1920];
    for (const width of widths) {
      await page.setViewportSize({ width, height: 900 });
      assert.ok(await zoomTo(page, 'StackTarget.Deep.Recurse(int)') || await zoomTo(page, INNER), 'a frame to zoom to');
      const z = await waitFor('zoomed and drawn', () => tab(page, (t) => {
        const at = t.flame.canvas.dataset.zoom === t.flame.zoom.name && t.flame.locate(t.flame.zoom.name); // drawn zoomed
        return t.flame.zoom._d >= 5 && at && at.h === 18 && { depth: t.flame.zoom._d, y: at.y, band: t.flame.band, view: t.flame.scroller.clientHeight, name: t.flame.zoom.name };
      }));
      assert.ok(z.y < 120 && z.y < z.view / 2, `the zoomed frame (depth ${z.depth}) is drawn at the top, y ${z.y}, not below its ${z.depth} ancestors`);
      assert.ok(z.band <= 6 * 12 + 15, `its ancestors take at most 7 thin rows (${z.band} px)`);
      const crumbs = await page.evaluate(() => [...document.querySelectorAll('.flame-crumbs .crumb')].map((c) => ({ text: c.textContent, cut: c.scrollWidth > c.clientWidth + 1 })));
      assert.ok(crumbs.length <= 6, `the path is shortened: ${JSON.stringify(crumbs)}`);
      assert.deepEqual(crumbs.filter((c) => c.cut), [], `no breadcrumb is cut: ${JSON.stringify(crumbs)}`);
      assert.ok(crumbs.every((c) => c.text.length >= 3), JSON.stringify(crumbs));
      await screenshotCopy(page, `flame-zoom-${width}.png`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.locator('.flame-crumbs .crumb', { hasText: /^all$/ }).click();
  });

  it('one switch folds the native frames into the managed frames that called them; the tooltip says what was folded', async () => {
    const before = await nodes(page);
    assert.ok(before.some((n) => n.kind === 'native' && /^libcoreclr\.so/.test(n.name)), 'the runtime\'s native frames are in the graph');
    await page.locator('input.fold-native').check();
    const after = await waitFor('folded', async () => { const x = await nodes(page); return x.length && !x.some((n) => n.kind === 'native') && x; });
    const root = after.find((n) => n.depth === 1 && n.name === '[native]');
    assert.ok(root && root.folded.some((f) => f.name === 'start_thread'), `threads are entered from [native], which lists start_thread: ${JSON.stringify(root)}`);
    assert.ok(after.some((n) => n.name === INNER), 'the spinner\'s methods stay');
    // hover the [native] frame: its tooltip lists what was folded into it
    const at = await waitFor('[native] drawn', () => tab(page, (t) => t.flame.locate('[native]')));
    const box = await page.locator('canvas.flame-canvas:visible').boundingBox();
    await page.mouse.move(box.x + at.x, box.y + at.y);
    await page.locator('.flame-tip:visible .tt-fold-head').waitFor();
    assert.match(await page.locator('.flame-tip:visible').textContent(), /native frames folded into it \(samples\):.*start_thread/);
    await screenshotCopy(page, 'flame-folded.png');
    await page.mouse.move(box.x + 5, box.y + box.height - 5);
    assert.match(await page.locator('a.export-folded').getAttribute('href'), /fold=native/, 'the exports are folded too');
  });

  it('the inverted graph starts where the samples ended: Spin.Inner', async () => {
    await page.locator('button.view-inverted').click();
    await waitFor('inverted', () => tab(page, (t) => t.graph.opts.view === 'inverted' && t.flame.inverted && t.flame.root
      && t.flame.root.children.slice().sort((a, b) => b.value - a.value)[0].name === 'StackTarget.Spin.Inner(ulong)'));
    await waitFor('drawn', () => tab(page, (t) => !!t.flame.locate('StackTarget.Spin.Inner(ulong)')));
    await screenshotCopy(page, 'flame-inverted.png');
  });

  it('the callers and callees of Spin.Outer, and a table of the frames', async () => {
    await page.locator('button.view-tree').click();
    await waitFor('the flame graph again', () => tab(page, (t, outer) => t.graph.opts.view === 'tree' && !!t.flame.locate(outer), OUTER));
    assert.ok(await zoomTo(page, OUTER));
    await page.locator('.flame-crumbs .sandwich-btn').click();
    const sw = await waitFor('callers and callees', () => tab(page, (t) => {
      const g = t.graph;
      return g.opts.view === 'sandwich' && g.callees.root && g.callees.root.name === 'StackTarget.Spin.Outer()' && g.callers.root
        && { callees: g.callees.root.children.map((n) => n.name), callers: g.callers.root.children.map((n) => n.name), rows: Number(g.table.dataset.rows) };
    }));
    assert.ok(sw.callees.includes(INNER), `Outer calls Inner: ${sw.callees}`);
    assert.ok(sw.rows >= 3, `the table lists the frames (${sw.rows})`);
    await waitFor('both graphs drawn', () => tab(page, (t) => !!t.graph.callees.locate('Spin.Inner') && !!t.graph.callers.locate('Spin.Outer')));
    for (const width of [1024, 1920, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await waitFor('laid out', () => page.evaluate((w) => document.querySelector('.sandwich').clientWidth <= w, width));
      await screenshotCopy(page, `flame-sandwich-${width}.png`);
    }
    // a row of the table picks another frame
    await page.locator('.fn-row', { hasText: 'Spin.Inner(ulong)' }).first().click();
    await waitFor('Spin.Inner\'s callers', () => tab(page, (t) => t.graph.callers.root && t.graph.callers.root.name === 'StackTarget.Spin.Inner(ulong)'
      && t.graph.callers.root.children.some((n) => n.name === 'StackTarget.Spin.Outer()')));
    await page.locator('button.view-tree').click();
  });

  it('a native frame\'s label keeps its library; a method\'s keeps its type', async () => {
    const labels = await page.evaluate(async () => {
      const m = await import('/js/framenames.js');
      return {
        native: m.frameLabels({ name: 'libcoreclr.so+0x3f96a0', module: 'libcoreclr.so', kind: 'native' }),
        method: m.frameLabels({ name: 'System.Collections.Generic.List<int>.AddWithResize(int)', module: 'System.Private.CoreLib', kind: 'method' }),
      };
    });
    assert.deepEqual(labels.native, ['libcoreclr.so+0x3f96a0'], 'one label, cut at its end: the library stays');
    assert.deepEqual(labels.method.slice(1), ['List<int>.AddWithResize(int)', 'List<int>.AddWithResize(…)', 'List<int>.AddWithResize']);
  });

  it('opened again, the tab shows the stored profile\'s mode and rate', async () => {
    await page.locator('button.stop-btn').click();
    await page.locator('.p-stats .badge', { hasText: 'stopped' }).waitFor({ timeout: 20000 });
    await goto(page, '#/');
    await page.waitForFunction(() => !document.querySelector('.profile-view'));
    await goto(page, '#/sessions/1/profile');
    await page.locator('.p-stats .p-mode', { hasText: 'CPU time' }).waitFor({ timeout: 20000 });
    await waitFor('CPU time at 999 Hz in the controls', async () => (await page.locator('select.mode-select').inputValue()) === 'cpu'
      && (await page.locator('input#p-hz-1').inputValue()) === '999');
    await screenshotCopy(page, 'flame-revisit.png');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
