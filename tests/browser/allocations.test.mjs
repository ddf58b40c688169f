// allocations.test.mjs -- the session's Allocations tab in real headless Chromium,
// against the real server and E2eTarget `allocs 300 wait`
// (tests/apps/E2eTarget/Allocs.cs: each "go" on its stdin allocates 300 MB, 70% as
// byte[] from Allocs.AllocArrays and 30% as AllocNode from Allocs.AllocNodes): off
// at first, and the tab says so; its switch turns sampling on; after a round the
// table lists byte[] first and AllocNode second by estimated bytes, and the flame
// graph of allocating stacks holds the bytes.
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

  before(async () => {
    srv = await startServer({ dll: E2E_DLL, appArgs: ['allocs', '300', 'wait'], stdin: true });
    await waitForOutput(srv, /^waiting$/m, 60000);
    await waitFor('the session live', async () => (await apiGet(srv, '/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/allocations', { width: 1440, height: 900 }));
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
});
