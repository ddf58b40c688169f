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
  // every answer the page got, and whether its request carried the key: the dashboard polls
  // the session every second, also while it asks for the key, and a poll sent before the key
  // was given may be answered (401) after it (the console then has its "Failed to load
  // resource" line): what must hold is that no request made with the key is refused
  const answers = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('websocket', (ws) => sockets.push(ws.url()));
  page.on('response', (r) => answers.push({ url: r.url(), status: r.status(), keyed: r.request().headers().authorization === `Bearer ${KEY}` }));
  await page.goto(`${srv.url}/#/sessions/1`);
  // no key yet: the API answers 401 and the page asks for it
  const dialog = page.getByRole('dialog', { name: 'API key required' });
  await dialog.waitFor({ timeout: 15000 });
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
  const api = answers.filter((a) => new URL(a.url).pathname.startsWith('/api/'));
  const refused = api.filter((a) => a.status >= 400);
  assert.ok(api.some((a) => a.keyed && a.status === 200), 'the page asked with the key');
  assert.deepEqual(refused.filter((a) => a.keyed), [], 'no request made with the key was refused');
  assert.ok(refused.every((a) => a.status === 401), `without the key only 401s: ${JSON.stringify(refused)}`);
  // Chromium's console line for each 401 (its only console errors): one per refused request
  const isRefusal = (e) => /^Failed to load resource: the server responded with a status of 401\b/.test(e);
  assert.deepEqual(errors.filter((e) => !isRefusal(e)), [], 'no console errors but the refusals of requests without the key');
  assert.ok(errors.length >= 1 && errors.length <= refused.length, `${errors.length} refusals logged, ${refused.length} requests without the key refused`);
  await context.close();
});
