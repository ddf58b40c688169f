// gc.test.mjs -- the session's "GC & pauses" tab in real headless Chromium,
// against the real server and StackTarget ("gc" on its stdin runs a gen 0, a
// gen 1 and a gen 2 collection): the chart covers the whole session, every
// collection of /timeline is listed with its generation, reason and duration,
// the list sorts by duration, the chart zooms (wheel), pans (drag) and comes
// back to the whole session, a row zooms to its collection, the hover names
// the collection under the pointer. The live tab's small chart says what a
// second held in plain words and opens the tab. After a restart the stored
// session shows the same collections.
//   node --test tests/browser/gc.test.mjs
// Screenshots: build/screenshots/gc-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, stopServer, openDashboard, waitFor, waitForOutput, screenshot, unexpectedConsoleErrors,
  apiGet, tempDataDir, dashesWithoutReason, pressTab, openLiveSession, closeAll,
} from './helpers.mjs';
import { serveStackTarget } from '../e2e/stacktarget.mjs';

// "gen 2 + LOH" from a generations list, as the dashboard names a collection
const genText = (gens) => `gen ${Math.max(...gens.filter((g) => g <= 2))}${gens.includes(3) ? ' + LOH' : ''}${gens.includes(4) ? ' + POH' : ''}`;
const chartData = (page) => page.evaluate(() => ({ ...document.querySelector('canvas.gc-chart').dataset }));
const listRows = (page) => page.locator('.gc-table tbody tr').evaluateAll((trs) => trs.filter((tr) => !tr.querySelector('td.empty'))
  .map((tr) => [...tr.children].map((td) => td.textContent.trim())));
// the GC tab's model, for positions on its chart (never for driving it)
const gcTab = (page, fn, arg = null) => page.evaluate(`(${fn})(window.__jitscope.app.view.tabs.gc, ${JSON.stringify(arg)})`);

describe('GC & pauses: the whole session, live and stored', { timeout: 240000 }, () => {
  let srv, browser, page, rest;
  const data = tempDataDir();

  before(async () => {
    srv = await serveStackTarget({ args: ['--data', data] });
    for (let i = 1; i <= 3; i++) {
      srv.send('gc');
      await waitForOutput(srv, new RegExp(`^gc done ${i}$`, 'm'));
    }
    rest = await waitFor('nine collections in /timeline', async () => {
      const t = (await apiGet(srv, '/api/sessions/1/timeline')).body;
      return t.gcs.length >= 9 && t;
    }, { timeoutMs: 20000 });
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/gc', { width: 1440, height: 900 }));
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('covers the whole session and lists every collection with its generation, reason and duration', async () => {
    const n = rest.gcs.length;
    await waitFor(`${n} collections listed`, async () => (await listRows(page)).length === n);
    const summary = (await apiGet(srv, '/api/sessions/1')).body;
    const d = await chartData(page);
    assert.equal(d.zoomed, 'false');
    assert.equal(Number(d.gcs), n, 'the chart counts every collection');
    assert.ok(Number(d.from) <= (summary.connected_ms || summary.created_ms) + 1, `the chart starts with the session: ${d.from}`);
    assert.ok(Number(d.to) >= rest.gcs[n - 1].start_ms, 'and reaches the newest collection');
    const rows = await listRows(page);
    const heads = await page.locator('.gc-table thead th').evaluateAll((ths) => ths.map((th) => th.textContent.replace(/[▾▴]/g, '').trim()));
    assert.deepEqual(heads, ['#', 'Time', 'Since start', 'Generation', 'Reason', 'Duration', 'Runtime suspended']);
    rows.forEach((r, i) => {
      const g = rest.gcs[i];
      assert.equal(r[0], String(i + 1), 'numbered in order');
      assert.match(r[2], /^\d+\.\d{3} s$/, 'seconds since the session started');
      assert.equal(r[3], genText(g.generations), `generation of collection ${i + 1}`);
      assert.equal(r[4], g.reason);
      assert.match(r[5], /^[\d.]+ (ns|µs|ms)$/, 'its duration');
      assert.match(r[6], /^[\d.]+ (ns|µs|ms)$/, 'the suspension that went with it');
    });
    assert.ok(rows.some((r) => r[3] === 'gen 0') && rows.some((r) => r[3].startsWith('gen 2')), 'StackTarget collects gen 0, 1 and 2');
    assert.match(await page.locator('.gc-stats').textContent(), new RegExp(`Collections${n} gen 0: 3 · gen 1: 3 · gen 2: 3`));
    await screenshot(page, 'gc-session.png');

    // sorted by duration: longest first, then shortest first
    const byDuration = rest.gcs.map((g, i) => [g.duration_ns, i + 1]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map((x) => String(x[1]));
    await page.locator('.gc-table th', { hasText: 'Duration' }).click();
    await waitFor('longest first', async () => (await listRows(page)).map((r) => r[0]).join() === byDuration.join());
    await page.locator('.gc-table th', { hasText: 'Duration' }).click();
    await waitFor('shortest first', async () => (await listRows(page)).map((r) => r[0]).join() === [...byDuration].reverse().join());
    await page.locator('.gc-table th', { hasText: '#' }).click();
    assert.deepEqual(await dashesWithoutReason(page), []);
  });

  it('zooms with the wheel, pans by dragging, comes back to the whole session; a row zooms to its collection', async () => {
    const canvas = page.locator('canvas.gc-chart');
    const box = await canvas.boundingBox();
    const whole = await chartData(page);
    const wholeSpan = Number(whole.to) - Number(whole.from);
    // zoom in on the first collection's place
    const x0 = await gcTab(page, (t, ms) => t.chart.xAt(ms), rest.gcs[0].start_ms);
    await page.mouse.move(box.x + x0, box.y + 120);
    for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -400);
    const zoomed = await waitFor('zoomed in', async () => {
      const d = await chartData(page);
      return d.zoomed === 'true' && Number(d.to) - Number(d.from) < wholeSpan / 4 && d;
    });
    const from = Number(zoomed.from), to = Number(zoomed.to);
    assert.ok(from <= rest.gcs[0].start_ms && rest.gcs[0].start_ms <= to, 'the wheel zooms around the pointer');
    const inView = rest.gcs.filter((g) => g.start_ms <= to && g.start_ms + g.duration_ns / 1e6 >= from).length;
    await waitFor(`the list follows the view (${inView})`, async () => (await listRows(page)).length === inView);
    assert.match(await page.locator('.gc-range').textContent(), /^view: /);
    await screenshot(page, 'gc-zoomed.png');

    // drag to the left: the view moves later in time, its span unchanged
    await page.mouse.move(box.x + box.width / 2, box.y + 120);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 150, box.y + 120, { steps: 5 });
    await page.mouse.up();
    const panned = await waitFor('panned later', async () => { const d = await chartData(page); return Number(d.from) > from && d; });
    assert.ok(Math.abs((Number(panned.to) - Number(panned.from)) - (to - from)) < 1, 'panning keeps the span');

    await page.locator('button.gc-whole').click();
    await waitFor('the whole session again', async () => (await chartData(page)).zoomed === 'false');

    // a row: the chart zooms to its collection and the row is marked (the last of a "gc"
    // command's three, so no later bar lies on it)
    const k = rest.gcs.findIndex((g, i) => i > 0 && i < rest.gcs.length - 1 && rest.gcs[i + 1].start_ms - g.start_ms > 5);
    assert.ok(k > 0, 'three groups of collections');
    await page.locator('.gc-table tbody tr').filter({ has: page.locator('td:first-child', { hasText: new RegExp(`^${k + 1}$`) }) }).click();
    const at = await waitFor(`zoomed to collection ${k + 1}`, async () => {
      const d = await chartData(page);
      return d.zoomed === 'true' && Number(d.from) <= rest.gcs[k].start_ms && rest.gcs[k].start_ms <= Number(d.to) && d;
    });
    assert.ok(Number(at.to) - Number(at.from) <= Math.max(200, rest.gcs[k].duration_ns / 1e6 * 20) + 1);
    await waitFor('its row marked', async () => (await page.locator('.gc-table tbody tr.sel td').first().textContent()) === String(k + 1));

    // the hover names the collection under the pointer
    const gx = await gcTab(page, (t, ms) => t.chart.xAt(ms), rest.gcs[k].start_ms);
    await page.mouse.move(box.x + gx + 1, box.y + 80);
    const text = await waitFor('the hover text', async () => (await chartData(page)).readout);
    assert.match(text, new RegExp(`^GC #${k + 1} · ${genText(rest.gcs[k].generations).replace(/\+/g, '\\+')} · ${rest.gcs[k].reason} · [\\d.]+ (ns|µs|ms) · at \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\(\\+[\\d.]+ s\\) · runtime suspended [\\d.]+ (ns|µs|ms)$`));
    await screenshot(page, 'gc-row.png');
    await page.locator('button.gc-whole').click();
  });

  it('the live tab\'s small chart: plain hover words, and a click opens the whole session', async () => {
    await pressTab(page, 1);
    const canvas = page.locator('canvas.pause-chart');
    await waitFor('collections on the small chart', async () => Number(await canvas.getAttribute('data-gcs')) >= 9);
    const box = await canvas.boundingBox();
    // the window moves on every second: point at a second with collections until the text is drawn for it
    const text = await waitFor('the hover text of a second with collections', async () => {
      const x = await page.evaluate(() => {
        const pc = window.__jitscope.app.view.feed.pauseChart;
        return pc.binX([...pc.data.gcN].findIndex((v) => v > 0));
      });
      await page.mouse.move(box.x + x, box.y + 50);
      const t = await canvas.getAttribute('data-readout');
      return /collection/.test(t) && t;
    });
    assert.match(text, /^\d\d:\d\d:\d\d · \d+ collections? \(gen \d.*\) · suspended: [\d.]+ (ns|µs|ms) by the GC/);
    assert.doesNotMatch(text, /\bGCs? \d/, 'no bare "GC <number>"');
    await canvas.click();
    await page.waitForFunction(() => location.hash === '#/sessions/1/gc');
  });

  it('after a restart, the stored session shows the same collections over its whole span', async () => {
    srv.send('exit');
    await waitFor('the session exited', async () => (await apiGet(srv, '/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
    const live = (await apiGet(srv, '/api/sessions/1/timeline')).body;
    await page.context().close();
    await stopServer(srv);
    srv = await startServer({ serve: true, args: ['--data', data] });
    const stored = (await apiGet(srv, '/api/sessions/1/timeline')).body;
    assert.equal(stored.gcs.length, live.gcs.length, 'storage kept every collection');
    const summary = (await apiGet(srv, '/api/sessions/1')).body;
    page = await openDashboard(browser, srv, { hash: '#/sessions/1/gc', width: 1440, height: 900 });
    await waitFor(`${stored.gcs.length} collections listed`, async () => (await listRows(page)).length === stored.gcs.length, { timeoutMs: 20000 });
    const d = await chartData(page);
    assert.equal(Number(d.gcs), stored.gcs.length);
    assert.ok(Math.abs(Number(d.to) - summary.ended_ms) < 2, `the chart ends where the session ended: ${d.to} vs ${summary.ended_ms}`);
    await screenshot(page, 'gc-stored.png');
    assert.deepEqual(await dashesWithoutReason(page), []);
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
