// killed.test.mjs -- a launched app killed by a signal: the session view's
// header and notice name the signal (SessionSummary exit_signal), in Chromium.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, stopServer, launchBrowser, openDashboard, waitFor, apiGet, screenshot } from './helpers.mjs';

let srv, browser;
after(async () => {
  try { if (browser) await browser.close(); } finally { if (srv) await stopServer(srv); }
});

test('an app killed -9 shows "SIGKILL" in the session header and notice', { timeout: 90000 }, async () => {
  srv = await startServer();
  const live = await waitFor('live', async () => { const r = await apiGet(srv, '/api/sessions/1'); return r.body.state === 'live' && r.body; }, { timeoutMs: 60000 });
  browser = await launchBrowser();
  const page = await openDashboard(browser, srv, { hash: '#/sessions/1' });
  await page.locator('.s-head .badge-live').waitFor({ timeout: 15000 });
  process.kill(live.pid, 'SIGKILL');
  const badge = page.locator('.s-head .badge-exited');
  await badge.waitFor({ timeout: 20000 });
  assert.match(await badge.textContent(), /SIGKILL/);
  await page.getByText('Process killed by signal 9 (SIGKILL), exit code 137.').waitFor({ timeout: 10000 });
  // the stream's state change carries no link details: they come with the summary fetched
  // next (a REST round trip, then a frame), which a loaded machine can take seconds for
  await page.locator('.s-head', { hasText: 'agent ○ not connected' }).waitFor({ timeout: 15000 });
  await screenshot(page, 'session-killed.png');
  assert.deepEqual(page.consoleErrors, [], 'no console errors');
});
