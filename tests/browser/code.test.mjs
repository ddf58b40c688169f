// code.test.mjs -- the dashboard's Code and Start-up tabs in real headless
// Chromium, against the real server with E2eTarget's "code" mode (CodeHot
// tiers up from Tier0 to Tier1; Tier1 inlines CodeSmall and keeps calling
// CodeLeaf). From the live feed's detail strip to the Code tab: one column per
// version in compilation order, their sizes as the REST reply says, the diff
// of the first and last version with CodeSmall gone (inlined), IL offsets
// interleaved on request, and a click on a call target opening that method;
// the search box; the Start-up tab with CoreLib's ReadyToRun counts.
//   node --test tests/browser/code.test.mjs
// Screenshots: build/screenshots/code-*.png (and copies in /tmp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  startServer, goto, waitFor, waitForOutput, unexpectedConsoleErrors, apiGet, BUILD, waitForRow,
  openLiveSession, closeAll, screenshotCopy,
} from './helpers.mjs';

const E2E = path.join(BUILD, 'apps/E2eTarget/E2eTarget.dll');

describe('Code and Start-up tabs', { timeout: 240000 }, () => {
  let srv, browser, page, hot, leaf;

  before(async () => {
    srv = await startServer({ dll: E2E, appArgs: ['code'], stdin: true });
    await waitForOutput(srv, /^READY$/m, 60000);
    const fn = async (m) => (await apiGet(srv, `/api/sessions/1/functions?q=CodeWork.${m}`)).body.functions.find((f) => f.name.includes(`.${m}(`));
    await waitFor('CodeHot at Tier1', async () => {
      hot = await fn('CodeHot');
      leaf = await fn('CodeLeaf');
      return hot && leaf && hot.tiers.some((t) => t.tier === 'Tier1');
    }, { timeoutMs: 60000 });
    srv.send('stop');
    await waitForOutput(srv, /^stopped$/m, 30000);
    hot = await fn('CodeHot');
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/live', { width: 1440, height: 900 }));
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('opens a method from the live feed: one column per version, sizes as REST says, the diff shows the inlined call', async () => {
    await page.fill('input.search', 'CodeHot');
    await waitForRow(page, 'CodeHot');
    await page.locator('.vt-row .c-name', { hasText: 'CodeHot' }).first().click();
    await page.locator('.code-link').click();
    await page.waitForFunction(() => location.hash.includes('/code/0x'));
    await page.locator('.code-tab[data-state="done"]').waitFor({ timeout: 20000 });
    const rest = (await apiGet(srv, `/api/sessions/1/functions/${hot.function_id}/code?refresh=0`)).body;
    const cols = await page.locator('.code-col').evaluateAll((els) => els.map((e) => ({
      tier: e.dataset.tier, size: e.querySelector('.code-size b').textContent, rows: e.querySelectorAll('.code-row').length,
    })));
    assert.equal(cols.length, hot.tiers.length, 'a column per compilation');
    assert.deepEqual(cols.map((c) => c.tier), rest.versions.map((v) => v.tier));
    assert.deepEqual(cols.map((c) => Number(c.size.replace(/,/g, ''))), rest.versions.map((v) => v.code_size));
    assert.deepEqual(cols.map((c) => c.rows), rest.versions.map((v) => v.instructions.length));
    assert.equal(cols[0].tier, 'Tier0');
    assert.equal(cols.at(-1).tier, 'Tier1');
    const diff = await page.locator('.code-diff').textContent();
    assert.match(diff, /size [\d,]+ → [\d,]+ B/);
    assert.match(diff, /CodeSmall\(int\) \(inlined\)/, 'the call to CodeSmall is gone from Tier1: inlined');
    assert.ok(await page.locator('.code-col').last().locator('.code-inl').count() === 1, 'Tier1 lists what it inlined');
    // the IL size is the code's, as the feed and /functions say it; the tooltip tells the body's
    const il = page.locator('.code-summary span', { hasText: /^IL [\d,]+ B$/ });
    assert.equal(await il.textContent(), `IL ${hot.il_size.toLocaleString('en-US')} B`);
    assert.match(await il.getAttribute('title'), new RegExp(`^IL code: ${hot.il_size} bytes, as the JIT counts it \\(and the feed\\); the method body is ${rest.il.body_size} bytes with its ${rest.il.header_size}-byte header`));
    await screenshotCopy(page, 'code-columns.png');
    // IL offsets on request
    assert.equal(await page.locator('.code-ilrow').count(), 0);
    await page.locator('.code-il-toggle').check();
    await waitFor('IL rows', async () => (await page.locator('.code-ilrow').count()) > 5);
    assert.ok((await page.locator('.code-ilrow', { hasText: /^IL_00/ }).count()) > 0);
    await screenshotCopy(page, 'code-il.png');
  });

  // At 1,024 px three versions do not fit side by side with whole rows: the
  // columns keep the width their longest operand needs and scroll sideways
  // together; no operand or call target is cut.
  it('at 1,024 px no operand or call target is cut: the columns scroll sideways instead', async () => {
    for (const width of [1024, 1440, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate((fid) => { location.hash = `#/sessions/1/code/${fid}`; }, hot.function_id);
      await page.locator('.code-tab[data-state="done"]').waitFor({ timeout: 20000 });
      await page.locator('.code-col').nth(hot.tiers.length - 1).waitFor();
      const cut = await page.evaluate(() => [...document.querySelectorAll('.code-op')]
        .filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent));
      assert.deepEqual(cut, [], `${width} px: every operand whole`);
      const cols = await page.evaluate(() => { const c = document.querySelector('.code-columns'); return { scroll: c.scrollWidth, box: c.clientWidth }; });
      if (width === 1024) assert.ok(cols.scroll > cols.box, `1024 px: the columns scroll sideways (${JSON.stringify(cols)})`);
      await screenshotCopy(page, `code-${width}.png`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('a click on a call target opens that method', async () => {
    await page.locator('.code-col').last().locator('a.code-target', { hasText: 'CodeLeaf' }).first().click();
    await page.waitForFunction((fid) => location.hash.endsWith(`/code/${fid}`), leaf.function_id);
    await page.locator('.code-tab[data-state="done"]').waitFor({ timeout: 20000 });
    await waitFor('CodeLeaf shown', async () => (await page.locator('.code-title').textContent()).includes('CodeLeaf'));
    assert.ok(await page.locator('.code-col').count() >= 2);
  });

  it('the search box finds a method by name', async () => {
    await page.fill('.code-search', 'CodeWork.CodeHot');
    await page.locator('.code-result[data-fid]').first().click();
    await page.waitForFunction((fid) => location.hash.endsWith(`/code/${fid}`), hot.function_id);
    await waitFor('CodeHot shown', async () => (await page.locator('.code-title').textContent()).includes('CodeHot'));
  });

  // The module table counts two windows, and says which over its columns: the
  // window picked (JIT time, JITs, methods, of them JIT-compiled in a precompiled
  // module) and the whole session (what the ReadyToRun searches said).
  it('the Start-up tab lists JIT time by module, each column under the window it counts', async () => {
    await goto(page, '#/sessions/1/startup');
    await page.locator('.startup-tab[data-state="done"]').waitFor({ timeout: 20000 });
    const table = page.locator('.startup-tab .grid').first();
    const groups = await table.locator('thead tr.groups th').evaluateAll((ths) => ths.map((th) => [th.textContent, th.colSpan]));
    assert.deepEqual(groups, [['', 1], ['first 10 s', 4], ['whole session', 3]]);
    const heads = await table.locator('thead tr.cols th').evaluateAll((ths) => ths.map((th) => th.textContent.replace(/[▾▴]/g, '').trim()));
    assert.deepEqual(heads, ['Module', 'JIT time', 'JITs', 'Methods', 'JIT in R2R module', 'ReadyToRun', 'Ran R2R', 'R2R rejected']);
    for (const [windowS, label] of [[10, 'first 10 s'], [600, 'first 10 min']]) {
      if (windowS !== 10) {
        await page.locator('select.startup-window').selectOption(String(windowS));
        await waitFor(`the header says ${label}`, async () => (await table.locator('thead tr.groups th').nth(1).textContent()) === label);
      }
      const rest = (await apiGet(srv, `/api/sessions/1/startup?window_ms=${windowS * 1000}&limit=500`)).body;
      const corelib = rest.modules.find((m) => m.module === 'System.Private.CoreLib');
      assert.ok(corelib.ready_to_run_methods > 100);
      assert.ok(corelib.startup_jitted_in_precompiled <= corelib.startup_methods && corelib.startup_methods <= corelib.startup_compilations &&
        corelib.startup_jitted_in_precompiled <= corelib.jitted_in_precompiled, `one window per column group: ${JSON.stringify(corelib)}`);
      const cell = (row, name) => row[heads.indexOf(name)];
      const num = (text) => Number(text.replace(/,/g, ''));
      await waitFor(`CoreLib's row for ${label}`, async () => {
        const row = await table.locator('tr', { hasText: 'System.Private.CoreLib' }).locator('td').allTextContents();
        return num(cell(row, 'JITs')) === corelib.startup_compilations && num(cell(row, 'JIT in R2R module')) === corelib.startup_jitted_in_precompiled;
      });
      const row = await table.locator('tr', { hasText: 'System.Private.CoreLib' }).locator('td').allTextContents();
      assert.equal(cell(row, 'ReadyToRun'), 'yes', 'CoreLib is precompiled');
      assert.equal(num(cell(row, 'Ran R2R')), corelib.ready_to_run_methods);
      assert.equal(cell(row, 'JITs'), corelib.startup_compilations.toLocaleString('en-US'), 'with a thousands separator');
      assert.equal(await page.locator('.startup-tab h3').nth(1).textContent(), `Methods by JIT time in the ${label} — click one for its code`);
    }
    assert.ok((await page.locator('.startup-tab .grid').nth(1).locator('tbody tr').count()) > 3, 'methods by start-up JIT time');
    await screenshotCopy(page, 'code-startup.png');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
