// budget.test.mjs -- the memory budget on the dashboard, in Chromium: a peer that
// read the Demo app's token from its environment floods its own session with
// 4 KB names under --max-memory 64M; that session's header says what it holds
// of its share and shows the refused records by kind, and the app's session
// shows its memory without any refusal. Screenshots: build/screenshots/budget-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { BUILD, startServer, stopServer, launchBrowser, openDashboard, waitFor, apiGet, screenshot } from './helpers.mjs';

let srv, browser, peer;
after(async () => {
  try {
    if (peer) peer.kill('SIGKILL');
    if (browser) await browser.close();
  } finally { if (srv) await stopServer(srv); }
});

test('a session over its memory share shows its refused records; the app beside it none', { timeout: 120000 }, async () => {
  srv = await startServer({ args: ['--max-memory', '64M'] });
  const app = await waitFor('live', async () => { const r = await apiGet(srv, '/api/sessions/1'); return r.body.state === 'live' && r.body; }, { timeoutMs: 60000 });
  const environ = fs.readFileSync(`/proc/${app.pid}/environ`, 'utf8').split('\0');
  const env = { ...process.env };
  for (const kv of environ) if (/^JITSCOPE_(TOKEN|SOCKET)=/.test(kv)) env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
  peer = spawn(path.join(BUILD, 'bench/replay'), ['--name-bytes', '4000', '--rate', '0', '--seconds', '600', '--functions', '1000000'], { env, stdio: 'ignore' });
  const hog = await waitFor('the peer refused at its share', async () => {
    const r = await apiGet(srv, '/api/sessions/2');
    return r.status === 200 && r.body.refused.memory > 0 && r.body;
  }, { timeoutMs: 60000 });

  browser = await launchBrowser();
  const page = await openDashboard(browser, srv, { hash: '#/sessions/2' });
  const stat = page.locator('.stat.refused-stat');
  await stat.waitFor({ timeout: 15000 });
  const text = await stat.textContent();
  assert.match(text, /Refused records/);
  assert.match(text, /over its memory share [\d,]+ \(functions [\d,]+/, `by kind: ${text}`);
  const memory = await page.locator('.s-head .memory-held').textContent();
  assert.match(memory, /^memory [\d.]+ [KMG]i?B \/ [\d.]+ [KMG]i?B$/, `held of its share: ${memory}`);
  assert.ok(hog.memory.held <= hog.memory.share);
  await screenshot(page, 'budget-peer.png');

  await page.evaluate(() => { location.hash = '#/sessions/1'; });
  await page.locator('.s-head .memory-held').waitFor({ timeout: 15000 });
  await page.locator('.s-head .badge-live').waitFor({ timeout: 15000 });
  assert.equal(await page.locator('.stat.refused-stat').count(), 0, 'the app refused nothing');
  await screenshot(page, 'budget-app.png');
  assert.deepEqual(page.consoleErrors, [], 'no console errors');
});
