// exceptions.test.mjs -- the session's Exceptions tab in real headless Chromium,
// against the real server and E2eTarget `throws wait` (tests/apps/E2eTarget/Throws.cs:
// each "go" on its stdin throws 100 InvalidOperationExceptions, 37 ArgumentExceptions and
// 5 FormatExceptions, rethrown once, from known methods): the table lists each throw
// site with its exact count, where it was caught and a sparkline; live rounds update it;
// a click on a site shows its newest sampled exceptions with their stacks, the throwing
// method first; the switch turns the records off and says so.
//   node --test tests/browser/exceptions.test.mjs
// Screenshots: build/screenshots/exceptions-*.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  startServer, waitFor, waitForOutput, screenshotCopy, unexpectedConsoleErrors, apiGet, E2E_DLL, ROOT,
  openLiveSession, closeAll,
} from './helpers.mjs';

const T = 'JitscopeE2e.Throws.';
// the line of Throws.cs that throws the InvalidOperationExceptions (from the app's PDB)
const THROW_INVALID_LINE = fs.readFileSync(path.join(ROOT, 'tests/apps/E2eTarget/Throws.cs'), 'utf8')
  .split('\n').findIndex((l) => l.includes('static void ThrowInvalid(') && l.includes('=> throw new')) + 1;
const rows = (page) => page.locator('.exceptions-tab table tbody tr').evaluateAll((trs) =>
  trs.filter((tr) => !tr.querySelector('td.empty')).map((tr) => [...tr.children].map((td) => td.textContent.trim())));
const ourRow = (all, type) => all.find((r) => r[0] === type && r[1].startsWith(T));

describe('Exceptions tab: throw sites, live, with stacks', { timeout: 240000 }, () => {
  let srv, browser, page;

  before(async () => {
    srv = await startServer({ dll: E2E_DLL, appArgs: ['throws', 'wait'], stdin: true });
    await waitForOutput(srv, /^waiting$/m, 60000);
    // the agent starts its EventPipe sessions again once connected (before its hello):
    // exceptions thrown before that are not seen (docs/RUNTIME.md, "Quiet means quiet")
    await waitFor('the session live', async () => (await apiGet(srv, '/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
    srv.send('go');
    await waitForOutput(srv, /^thrown 142$/m);
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/exceptions', { width: 1440, height: 900 }));
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('lists each throw site with its exact count, where it was caught, and a sparkline', async () => {
    await waitFor('the three sites', async () => ourRow(await rows(page), 'System.FormatException'));
    const all = await rows(page);
    const heads = await page.locator('.exceptions-tab thead th').evaluateAll((ths) => ths.map((th) => th.textContent.replace(/[▾▴]/g, '').trim()));
    assert.deepEqual(heads, ['Type', 'Thrown in', 'Count', '/s', 'Last 60 s', 'Caught in', 'Unhandled', 'Message']);
    const ioe = ourRow(all, 'System.InvalidOperationException');
    assert.equal(ioe[1], `${T}ThrowInvalid() line ${THROW_INVALID_LINE} IL_0016`, 'the throw\'s source line and IL offset');
    assert.equal(ioe[2], '100');
    assert.equal(ioe[5], `${T}CatchInvalid() ×100`);
    assert.equal(ioe[7], 'invalid 0');
    const fmt = ourRow(all, 'System.FormatException');
    assert.equal(fmt[5], `${T}Middle() ×5, ${T}Outer() ×5`);
    const spark = await page.locator('.exceptions-tab canvas.exc-spark').count();
    assert.ok(spark >= 3, 'a sparkline per site');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
    await screenshotCopy(page, 'exceptions-table.png');
  });

  it('follows live rounds', async () => {
    srv.send('go');
    await waitForOutput(srv, /^thrown 142$[^]*^thrown 142$/m);
    await waitFor('the table to count two rounds', async () => {
      const r = ourRow(await rows(page), 'System.ArgumentException');
      return r && r[2] === '74';
    });
  });

  it('shows a site\'s newest exceptions with their stacks, the throwing method first', async () => {
    await page.locator('.exceptions-tab table tbody tr', { hasText: 'System.FormatException' }).first().click();
    await page.locator('.exc-recent').first().waitFor();
    const recent = await page.locator('.exc-recent').evaluateAll((els) => els.map((el) => ({
      outcome: el.querySelector('.exc-outcome').textContent,
      stack: [...el.querySelectorAll('.exc-stack li')].map((li) => li.textContent),
    })));
    // the sampled ones (agent/exccount.h): the site's first 8, then one a second (the
    // other two of the second round are only counted, unless a second went by)
    assert.ok(recent.length >= 8 && recent.length <= 10, `the first 8 of the 10, or more: ${recent.length}`);
    assert.ok(recent.every((r) => r.outcome === 'caught'));
    const sampled = recent.filter((r) => r.stack.length);
    assert.equal(sampled.length, recent.length, 'each one sent carries its stack');
    for (const r of sampled)
      assert.deepEqual(r.stack.slice(0, 3), [`${T}ThrowFormat()`, `${T}Middle()`, `${T}Outer()`]);
    await screenshotCopy(page, 'exceptions-detail.png');
  });

  it('turns the records off and says so', async () => {
    await page.locator('.exc-toggle').click();
    await page.locator('.exceptions-tab .notice', { hasText: 'off for this session' }).waitFor();
    assert.equal((await apiGet(srv, '/api/sessions/1/exceptions')).body.enabled, false);
    await page.locator('.exc-toggle', { hasText: 'Turn on' }).click();
    await waitFor('on again', async () => (await apiGet(srv, '/api/sessions/1/exceptions')).body.enabled === true);
  });
});
