// allocations.test.mjs -- the session's Allocations tab in real headless Chromium,
// against the real server and E2eTarget `allocs 300 wait`
// (tests/apps/E2eTarget/Allocs.cs: each "go" on its stdin allocates 300 MB, 70% as
// byte[] from Allocs.AllocArrays and 30% as AllocNode from Allocs.AllocNodes): off
// at first, and the tab says so; its switch turns sampling on; after a round the
// table lists byte[] first and AllocNode second by estimated bytes, and the flame
// graph of allocating stacks holds the bytes. Above them, the bytes allocated
// per second beside the GC pauses on one time axis: the tab reads the series
// once (?series=second, empty while sampling was off) and the seconds of each
// round then come only from the live stream (allocation_second events): the
// chart ends up with every second the server has, and a GC bar, without a
// second request for the series. Below them, the heap's generations after each
// GC (GET .../timeline's heap): the chart holds every entry the server has.
//   node --test tests/browser/allocations.test.mjs
// Screenshots: build/screenshots/allocations-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, waitFor, waitForOutput, screenshotCopy, unexpectedConsoleErrors, apiGet, E2E_DLL,
  openLiveSession, closeAll,
} from './helpers.mjs';

const rows = (page) => page.locator('.allocations-tab table tbody tr').evaluateAll((trs) =>
  trs.filter((tr) => !tr.querySelector('td.empty')).map((tr) => [...tr.children].map((td) => td.textContent.trim())));

describe('Allocations tab: top types and allocating stacks', { timeout: 240000 }, () => {
  let srv, browser, page;
  let seriesRequests = 0;

  before(async () => {
    srv = await startServer({ dll: E2E_DLL, appArgs: ['allocs', '300', 'wait'], stdin: true });
    await waitForOutput(srv, /^waiting$/m, 60000);
    await waitFor('the session live', async () => (await apiGet(srv, '/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/allocations', { width: 1440, height: 900 }));
    // counted from here on: the tab read the series (empty) as it opened
    page.on('request', (r) => { if (r.url().includes('series=second')) seriesRequests++; });
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('says sampling is off, and its switch turns it on', async () => {
    await page.locator('.allocations-tab .notice', { hasText: 'off for this session' }).waitFor();
    await page.locator('.alloc-toggle', { hasText: 'Turn on' }).click();
    await waitFor('on', async () => (await apiGet(srv, '/api/sessions/1/allocations')).body.enabled === true);
    await page.locator('.alloc-toggle', { hasText: 'Turn off' }).waitFor();
  });

  it('lists the types by estimated bytes and draws the allocating stacks', async () => {
    srv.send('go');
    await waitForOutput(srv, /^allocated arrays \d+ nodes \d+$/m);
    await waitFor('both types in the table', async () => {
      const all = await rows(page);
      return all.some((r) => r[0] === 'JitscopeE2e.AllocNode') && all.some((r) => r[0] === 'System.Byte[]');
    }, { timeoutMs: 30000 });
    const all = await rows(page);
    const heads = await page.locator('.allocations-tab thead th').evaluateAll((ths) => ths.map((th) => th.textContent.replace(/[▾▴]/g, '').trim()));
    assert.deepEqual(heads, ['Type', 'Bytes (est.)', 'Share', 'Objects (est.)', 'Samples']);
    assert.deepEqual(all.slice(0, 2).map((r) => r[0]), ['System.Byte[]', 'JitscopeE2e.AllocNode'], 'most bytes first');
    const total = await page.locator('.allocations-tab canvas.flame-canvas').evaluate((c) => Number(c.dataset.total || 0));
    assert.ok(total > 0, `the flame graph holds the estimated bytes: ${total}`);
    assert.deepEqual(unexpectedConsoleErrors(page), []);
    await screenshotCopy(page, 'allocations-tab.png');
  });

  it('draws bytes per second above the GC pauses, the seconds coming from the live stream', async () => {
    const canvas = page.locator('.allocations-tab canvas.alloc-rate-canvas');
    srv.send('go');
    await waitForOutput(srv, /^allocated arrays \d+ nodes \d+$[\s\S]*^allocated arrays \d+ nodes \d+$/m);
    const series = await waitFor('every second of the server on the chart, and a GC', async () => {
      const { body } = await apiGet(srv, '/api/sessions/1/allocations?series=second');
      const d = await canvas.evaluate((c) => ({ seconds: Number(c.dataset.seconds || 0), gcs: Number(c.dataset.gcs || 0) }));
      return body.per_second.length >= 2 && d.seconds === body.per_second.length && d.gcs > 0 && { body, d };
    }, { timeoutMs: 30000 });
    assert.equal(seriesRequests, 0, 'the series read once, when the tab opened with sampling off: every second since came from the stream');
    const boxes = await canvas.evaluate((c) => c.labelBoxes.map((b) => b.text));
    assert.ok(boxes.some((t) => /\/s$/.test(t)) && boxes.includes('GC pause') && boxes.includes('heap') &&
      ['gen 0', 'gen 1', 'gen 2', 'LOH', 'POH'].every((t) => boxes.includes(t)), `the lanes' labels: ${boxes.join(', ')}`);
    await waitFor('every heap statistic of the server on the chart', async () => {
      const { body } = await apiGet(srv, '/api/sessions/1/timeline');
      const n = await canvas.evaluate((c) => Number(c.dataset.heaps || 0));
      return body.heap.length > 0 && n === body.heap.length;
    }, { timeoutMs: 30000 });
    const overlaps = await canvas.evaluate((c) => {
      const b = c.labelBoxes, out = [];
      for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++)
        if (b[i].x0 < b[j].x1 && b[j].x0 < b[i].x1 && b[i].y0 < b[j].y1 && b[j].y0 < b[i].y1) out.push(`${b[i].text} / ${b[j].text}`);
      for (const x of b) if (x.x0 < 0 || x.x1 > c.clientWidth || x.y0 < 0 || x.y1 > c.clientHeight) out.push(`${x.text} outside`);
      return out;
    });
    assert.deepEqual(overlaps, [], 'no two labels overlap, each inside the canvas');
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.3);
    assert.deepEqual(unexpectedConsoleErrors(page), []);
    await screenshotCopy(page, 'allocations-rate.png');
    console.log(`seconds ${series.d.seconds}, GCs in the span ${series.d.gcs}`);
  });
});
