// layout.test.mjs -- the dashboard at 1,024, 1,440 and 1,920 px wide, in real
// headless Chromium: the home page (an ended run with its child process, a
// live run of the same program with its "vs #N" link, the .NET processes) and
// the live run's Live, GC & pauses and Profile tabs (it JITs 20,000 methods at
// 2,000 a second first: the charts' numbers are as long as a real app's). At each width the page is checked by its boxes:
// nothing overflows the page or a table sideways, no column header is cut, the
// pieces of a toolbar or header row do not overlap, and the text drawn on each
// chart's canvas (the boxes the charts record, chart.js label()) neither
// overlaps nor leaves its canvas; the table tabs (Slowest, By tier / module,
// Modules, Threads) too. On every page, every dash shown as a value has a
// tooltip saying why it is empty. Screenshots: build/screenshots/layout-*.png.
//   node --test tests/browser/layout.test.mjs
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { E2E_DLL } from '../e2e/lib.mjs';
import {
  startServer, stopServer, launchBrowser, openDashboard, goto, waitFor, waitForOutput, screenshot,
  unexpectedConsoleErrors, apiGet, tempDataDir, dashesWithoutReason,
} from './helpers.mjs';

const WIDTHS = [1024, 1440, 1920];

// What is wrong with the page's layout, as a list of sentences (empty: nothing).
// rows: selectors of containers whose visible children must not overlap;
// canvases: selectors of charts whose label boxes are checked.
function layoutProblems(page, { rows = [], canvases = [] } = {}) {
  return page.evaluate(({ rowSels, canvasSels }) => {
    const out = [];
    const name = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`
      + (el.textContent ? ` "${el.textContent.trim().slice(0, 30)}"` : '');
    const shown = (el) => {
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none' && cs.position !== 'absolute';
    };
    const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) out.push(`the page is ${doc.scrollWidth - doc.clientWidth} px wider than the window`);
    for (const wrap of document.querySelectorAll('.table-wrap')) {
      if (!shown(wrap)) continue;
      if (wrap.scrollWidth > wrap.clientWidth + 1) out.push(`a table scrolls sideways (${wrap.scrollWidth} > ${wrap.clientWidth} px): ${name(wrap.querySelector('thead tr'))}`);
      const box = wrap.getBoundingClientRect();
      for (const th of wrap.querySelectorAll('thead th')) {
        const r = th.getBoundingClientRect();
        if (r.right > box.right + 1 || r.left < box.left - 1) out.push(`column ${name(th)} is outside its table`);
        if (th.scrollWidth > th.clientWidth + 1) out.push(`column header ${name(th)} is cut (${th.scrollWidth} > ${th.clientWidth} px)`);
      }
    }
    for (const cell of document.querySelectorAll('.vt-head > div')) {
      if (shown(cell) && cell.scrollWidth > cell.clientWidth + 1) out.push(`live table header ${name(cell)} is cut`);
    }
    for (const sel of rowSels) {
      for (const box of document.querySelectorAll(sel)) {
        if (!shown(box)) continue;
        if (box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== 'visible') out.push(`${name(box)} scrolls sideways`);
        const kids = [...box.children].filter(shown);
        for (let i = 0; i < kids.length; i++) {
          for (let j = i + 1; j < kids.length; j++) {
            if (meet(kids[i].getBoundingClientRect(), kids[j].getBoundingClientRect())) out.push(`${name(kids[i])} overlaps ${name(kids[j])} in ${sel}`);
          }
        }
        const b = box.getBoundingClientRect();
        for (const k of kids) {
          const r = k.getBoundingClientRect();
          if (r.right > b.right + 1 || r.left < b.left - 1) out.push(`${name(k)} sticks out of ${sel}`);
        }
      }
    }
    for (const sel of canvasSels) {
      const cv = document.querySelector(sel);
      if (!cv) { out.push(`no ${sel}`); continue; }
      const boxes = cv.labelBoxes || [];
      if (!boxes.length) out.push(`${sel} recorded no text`);
      const W = cv.clientWidth, H = cv.clientHeight;
      for (const a of boxes) if (a.x0 < -0.5 || a.x1 > W + 0.5 || a.y0 < -0.5 || a.y1 > H + 0.5) out.push(`${sel}: "${a.text}" leaves the canvas (${a.x0.toFixed(0)}..${a.x1.toFixed(0)} of ${W})`);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i], b = boxes[j];
          if (a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5) out.push(`${sel}: "${a.text}" overlaps "${b.text}"`);
        }
      }
    }
    return out;
  }, { rowSels: rows, canvasSels: canvases });
}

describe('layout at 1,024, 1,440 and 1,920 px', { timeout: 240000 }, () => {
  let srv, browser;
  const data = tempDataDir();

  before(async () => {
    // an earlier run of the same command, ended: the newer run gets a "vs #1" link
    const first = await startServer({ dll: E2E_DLL, appArgs: ['parent'], args: ['--data', data], stdin: true });
    try {
      await waitForOutput(first, /^child \d+$/m, 60000);
      await waitFor('the run and its child live', async () => {
        const l = (await apiGet(first, '/api/sessions')).body.sessions;
        return l.length === 2 && l.every((s) => s.state === 'live');
      }, { timeoutMs: 60000 });
      first.send('exit');
      await waitFor('the run exited', async () => (await apiGet(first, '/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
    } finally {
      await stopServer(first);
    }
    srv = await startServer({ dll: E2E_DLL, appArgs: ['jitstorm', '20000', 'rate', '2000', 'hold'], args: ['--data', data], stdin: true });
    await waitForOutput(srv, /^jitted$/m, 90000);
    await waitFor('three sessions, the new run live', async () => {
      const l = (await apiGet(srv, '/api/sessions')).body.sessions;
      return l.length === 3 && l.find((s) => s.id === 3).state === 'live';
    }, { timeoutMs: 60000 });
    browser = await launchBrowser();
  });

  after(async () => {
    try { if (browser) await browser.close(); } finally { await stopServer(srv); }
  });

  for (const width of WIDTHS) {
    it(`${width} px: home, and a session's Live, GC & pauses and Profile tabs`, async () => {
      const page = await openDashboard(browser, srv, { width, height: 900 });
      try {
        // home: both runs (the newer with its comparison link), their children shown, the processes
        await page.locator('a.cmp-link[data-compare$="-3"]').waitFor({ timeout: 20000 });
        const closed = page.locator('button.tree-toggle[aria-expanded="false"]');
        await waitFor('the ended run with its toggle', async () => (await page.locator('button.tree-toggle').count()) === 1);
        while (await closed.count()) await closed.first().click();
        await waitFor('3 session rows', async () => (await page.locator('.home .section').first().locator('tbody tr').count()) === 3);
        await page.locator('.home .section').nth(1).locator('tbody tr td.num').first().waitFor({ timeout: 20000 });
        await screenshot(page, `layout-home-${width}.png`);
        // the last two columns of every session row are on screen
        const cells = await page.evaluate(() => {
          const wrap = document.querySelector('.home .table-wrap').getBoundingClientRect();
          return [...document.querySelector('.home .section').querySelectorAll('tbody tr')].map((tr) => {
            const tds = [...tr.children];
            return tds.slice(-2).map((td) => { const r = td.getBoundingClientRect(); return r.left >= wrap.left - 1 && r.right <= wrap.right + 1 && r.width > 20; });
          });
        });
        assert.equal(cells.length, 3);
        assert.ok(cells.every(([dur, cmp]) => dur && cmp), `Duration and Compare visible in every row: ${JSON.stringify(cells)}`);
        assert.deepEqual(await layoutProblems(page, { rows: ['#topbar', '.section-head'] }), [], `home at ${width} px`);
        assert.deepEqual(await dashesWithoutReason(page), [], 'every dash on the home page says why');

        // a session: header, tabs, toolbar, both charts, the live table
        await goto(page, '#/sessions/3/live');
        await page.locator('.s-head .badge-live').waitFor({ timeout: 20000 });
        await waitFor('both charts drawn', () => page.evaluate(() => ['canvas.rate-chart', 'canvas.pause-chart']
          .every((s) => (document.querySelector(s).labelBoxes || []).length > 4)));
        await waitFor('JIT rows', async () => (await page.locator('.vt-row').count()) > 5);
        await screenshot(page, `layout-live-${width}.png`);
        const sessionRows = ['#topbar', '.s-title', '.s-sub', '.s-stats', '.tabs', '.feed > .toolbar', '.chart-row'];
        assert.deepEqual(await layoutProblems(page, { rows: sessionRows, canvases: ['canvas.rate-chart', 'canvas.pause-chart'] }), [], `live tab at ${width} px`);
        assert.deepEqual(await dashesWithoutReason(page), [], 'every dash on the live tab says why');

        // the table tabs: no table wider than the window, every dash explained
        for (const [tab, ready] of [['slowest', '.tab-page tbody tr td.num'], ['bymodule', '.tier-table tbody tr [data-tier]'],
          ['modules', '.tab-page tbody tr td.mono'], ['threads', '.tab-page tbody tr td.num']]) {
          await goto(page, `#/sessions/3/${tab}`);
          await page.locator(ready).first().waitFor({ timeout: 20000 });
          assert.deepEqual(await layoutProblems(page, { rows: ['.section-head'] }), [], `${tab} tab at ${width} px`);
          assert.deepEqual(await dashesWithoutReason(page), [], `every dash on the ${tab} tab says why`);
        }
        await screenshot(page, `layout-threads-${width}.png`);

        await goto(page, '#/sessions/3/gc');
        await waitFor('the GC chart drawn', () => page.evaluate(() => (document.querySelector('canvas.gc-chart').labelBoxes || []).length > 6));
        await screenshot(page, `layout-gc-${width}.png`);
        assert.deepEqual(await layoutProblems(page, { rows: ['.s-title', '.tabs', '.gc-toolbar', '.gc-stats'], canvases: ['canvas.gc-chart'] }), [], `GC tab at ${width} px`);
        assert.deepEqual(await dashesWithoutReason(page), [], 'every dash on the GC tab says why');

        await goto(page, '#/sessions/3/profile');
        await page.locator('.p-stats .p-mode').waitFor({ timeout: 20000 });
        await screenshot(page, `layout-profile-${width}.png`);
        assert.deepEqual(await layoutProblems(page, { rows: ['.s-title', '.tabs', '.profile-view > .toolbar', '.toolbar.filters', '.p-stats'], canvases: ['canvas.sample-chart'] }), [], `profile tab at ${width} px`);
        assert.deepEqual(await dashesWithoutReason(page), [], 'every dash on the profile tab says why');
        assert.deepEqual(unexpectedConsoleErrors(page), []);
      } finally {
        await page.context().close();
      }
    });
  }
});
