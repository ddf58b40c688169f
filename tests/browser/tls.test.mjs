// tls.test.mjs -- the dashboard over https:// with an API key, in Chromium:
// the page asks for the key, then the session's live stream connects with
// wss:// and ?key= (not ws://, which an https page may not open, and not
// without the key, which the upgrade refuses), and events arrive over it.
// The certificate is self-signed, made for the test (tests/e2e/tls.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, stopServer, launchBrowser, waitFor, screenshot } from './helpers.mjs';
import { makeCertificate } from '../e2e/tls.mjs';

const KEY = 'br0wser-k3y/with+odd=chars';
let srv, browser, tls;
after(async () => {
  try { if (browser) await browser.close(); } finally { if (srv) await stopServer(srv); if (tls) tls.remove(); }
});

test('https:// and an API key: the page asks for the key, the live stream runs over wss://', { timeout: 120000 }, async () => {
  tls = makeCertificate();
  srv = await startServer({ args: ['--tls-cert', tls.cert, '--tls-key', tls.key, '--api-key', KEY] });
  assert.match(srv.url, /^https:\/\//);
  browser = await launchBrowser();
  // the certificate is ours and self-signed: this context accepts it
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const errors = [];
  const sockets = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // a 401 is only wrong for a request that carried the key: one sent before
  // the key was given can be answered (and logged by Chromium) after it
  const keyed401 = [];
  page.on('response', async (r) => {
    if (r.status() === 401 && (await r.request().allHeaders()).authorization) keyed401.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await page.goto(`${srv.url}/#/sessions/1`);
  // no key yet: the API answers 401 and the page asks for it
  const dialog = page.getByRole('dialog', { name: 'API key required' });
  await dialog.waitFor({ timeout: 15000 });
  const before = errors.length; // Chromium logs each 401 it got before the key
  await dialog.locator('input').fill(KEY);
  await dialog.getByRole('button', { name: 'Use key' }).click();
  const conn = page.locator('#conn');
  await waitFor('the live stream', async () => /\bok\b/.test(await conn.getAttribute('class')) && conn.textContent(), { timeoutMs: 30000 });
  const mode = await conn.textContent();
  const wsPort = await page.evaluate(async (key) => (await (await fetch('/api/config', { headers: { Authorization: `Bearer ${key}` } })).json()).ws_port, KEY);
  assert.equal(mode, `live stream (WebSocket :${wsPort})`);
  const wss = sockets.filter((u) => u.startsWith('wss://'));
  console.log(`page ${srv.url}: stream ${mode}; sockets opened: ${sockets.map((u) => u.replace(/key=[^&]*/, 'key=...')).join(', ')}`);
  assert.ok(wss.length >= 1, 'the stream is wss://');
  assert.ok(sockets.every((u) => u.startsWith('wss://')), 'never ws:// from an https page');
  assert.equal(new URL(wss.at(-1)).searchParams.get('key'), KEY, 'the key went with the upgrade, intact');
  // events arrive: the feed fills from the stream
  await waitFor('feed rows', async () => (await page.locator('.feed .vt-row').count()) > 0, { timeoutMs: 30000 });
  await screenshot(page, 'session-https-wss.png');
  assert.deepEqual(keyed401, [], 'no request with the key was refused');
  assert.deepEqual(errors.slice(before).filter((e) => !/status of 401/.test(e)), [], 'no console errors once the key was given but the 401s of requests sent before it');
  assert.ok(errors.slice(0, before).every((e) => /401/.test(e)), `before the key only 401s: ${errors.slice(0, before).join(' | ')}`);
  await context.close();
});
