// floor.test.mjs -- a floor session (JITSCOPE_NULL=1: a null agent, the
// baseline of docs/BENCHMARKS.md) says so in the session header, in a word,
// so that its empty tables read as what they are. Screenshot:
// build/screenshots/floor-header.png.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, stopServer, launchBrowser, openDashboard, waitFor, screenshot, apiGet, unexpectedConsoleErrors } from './helpers.mjs';

describe('a floor session on the dashboard', { timeout: 120000 }, () => {
  let srv, browser, page;

  before(async () => {
    srv = await startServer({ env: { JITSCOPE_NULL: '1' } });
    browser = await launchBrowser();
    page = await openDashboard(browser, srv, { hash: '#/sessions/1' });
  });

  after(async () => {
    try { if (browser) await browser.close(); } finally { await stopServer(srv); }
  });

  it('the header says "floor (null agent)", with what that means in its tooltip', async () => {
    const s = await waitFor('the agent said hello', async () => {
      const x = (await apiGet(srv, '/api/sessions/1')).body;
      return x.link.connections >= 1 && x;
    });
    assert.equal(s.agent.floor, true);
    const mark = page.locator('.floor-mark');
    await mark.waitFor();
    assert.equal((await mark.textContent()).trim(), 'floor (null agent)');
    assert.match(await mark.getAttribute('title'), /JITSCOPE_NULL=1.*same events.*tier source/);
    await waitFor('the live feed says why it is empty', async () =>
      /floor \(null agent, JITSCOPE_NULL=1\): it records no JIT events/.test(await page.locator('body').textContent()));
    await screenshot(page, 'floor-header.png');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
