// stream.test.mjs -- the WebSocket live stream: order and completeness for a
// normal client while another one stalls, resume from a sequence number,
// Origin/Host checks, hostile messages. Every message a client here receives is
// checked against the OpenAPI document's x-jitscope-websocket (openapi.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import WebSocket from '../node_modules/ws/index.js';
import { E2E_DLL, startServer, stopAll, waitFor, sleep } from './lib.mjs';
import { checkWsMessage } from './openapi.mjs';

after(stopAll);

async function wsPort(srv) { return (await srv.api('/api/config')).body.ws_port; }

function connect(port, { origin, host, path = '/' } = {}) {
  const headers = {};
  if (host) headers.Host = host;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, 'jitscope', { origin, headers });
    const c = { ws, messages: [], events: [], closed: null };
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      checkWsMessage(m); // an undocumented message throws: the test fails
      c.messages.push(m);
      if (m.type === 'events') c.events.push(...m.events);
    });
    ws.on('close', (code) => { c.closed = code; });
    ws.on('open', () => resolve(c));
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.on('error', reject);
  });
}

function rssKb(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}

test('a subscriber gets every event of a session once, in order, right after it happens', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live');
  const port = await wsPort(srv);
  const normal = await connect(port);
  normal.ws.send(JSON.stringify({ subscribe: 1, after: 0 }));
  await waitFor('first events', () => normal.events.length > 0);
  const rssBefore = rssKb(srv.proc.pid);
  for (const n of [1, 2, 3]) srv.proc.stdin.write(`call ${n}\n`);
  await waitFor('live methods streamed', () =>
    [1, 2, 3].every((n) => normal.events.some((e) => e.name === `JitscopeE2e.Late.LateMethod0${n}()`)));
  srv.proc.stdin.write('exit\n');
  await waitFor('exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  const t0 = Date.now();
  const last = (await srv.api('/api/sessions/1')).body.counters.events;
  await waitFor('normal client caught up', () => normal.events.length && normal.events.at(-1).seq === last, { timeoutMs: 5000 });
  const seqs = normal.events.map((e) => e.seq);
  assert.deepEqual(seqs, Array.from({ length: last }, (_, i) => i + 1), 'every event, once, in order');
  console.log(`normal client complete ${Date.now() - t0} ms after the session ended (${last} events)`);
  assert.ok(rssKb(srv.proc.pid) - rssBefore < 64 * 1024, 'server memory stays bounded');
  await srv.stop();
});

test('burst with a stalled client: it is disconnected or told it lagged; others unaffected', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'jitstorm', '20000', 'hold']);
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live');
  const port = await wsPort(srv);
  const stalled = await connect(port);
  stalled.ws.send(JSON.stringify({ subscribe: 1, after: 0 }));
  await waitFor('stalled got something', () => stalled.messages.length > 0);
  stalled.ws._socket.pause();
  const normal = await connect(port);
  normal.ws.send(JSON.stringify({ subscribe: 1, after: 0 }));
  await waitFor('storm done', () => /^jitted$/m.test(srv.stdout), { timeoutMs: 60000 });
  const rssMid = rssKb(srv.proc.pid);
  const last = await waitFor('events settle', async () => {
    const a = (await srv.api('/api/sessions/1')).body.counters.events;
    await sleep(300);
    const b = (await srv.api('/api/sessions/1')).body.counters.events;
    return a === b && a;
  });
  assert.ok(last > 20000, `a real burst: ${last} events`);
  await waitFor('normal client has all', () => normal.events.length && normal.events.at(-1).seq === last, { timeoutMs: 10000 });
  const seqs = normal.events.map((e) => e.seq);
  assert.ok(seqs.every((s, i) => s === i + 1), 'normal client: every event in order while the other stalls');
  // the stalled client is cut off after WS_STALL_SECONDS without progress
  await sleep(12000);
  stalled.ws._socket.resume();
  await waitFor('stalled client told or dropped', () =>
    stalled.closed !== null || stalled.messages.some((m) => m.type === 'lagged'), { timeoutMs: 10000 });
  console.log(`stalled client: closed=${stalled.closed} lagged=${stalled.messages.some((m) => m.type === 'lagged')} got ${stalled.events.length} of ${last}`);
  assert.ok(stalled.events.length < last, 'the stalled client did not get everything (it was really stalled)');
  assert.ok(rssKb(srv.proc.pid) - rssMid < 64 * 1024, 'server memory bounded while a client stalls');
  srv.proc.stdin.write('exit\n');
  await srv.stop();
});

test('resume from a sequence number, and hostile messages', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL]);
  await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  const port = await wsPort(srv);
  const c = await connect(port);
  c.ws.send(JSON.stringify({ subscribe: 1, after: 10 }));
  await waitFor('events', () => c.events.length > 0);
  assert.equal(c.events[0].seq, 11, 'resumes right after the given seq');
  await waitFor('session summary', () => c.messages.some((m) => m.type === 'session' && m.session.state === 'exited'));
  for (const bad of ['not json', '[]', '{"subscribe": "x"}', '{"subscribe": 99}', '{"subscribe": 1, "after": -5}']) {
    const n = c.messages.filter((m) => m.type === 'error').length;
    c.ws.send(bad);
    await waitFor(`error for ${bad}`, () => c.messages.filter((m) => m.type === 'error').length === n + 1);
  }
  c.ws.send('x'.repeat(10000));
  await waitFor('oversized message closes', () => c.closed !== null);
  assert.equal(c.closed, 1009);
  await srv.stop();
});

test('WebSocket upgrade checks Origin and Host', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  const port = await wsPort(srv);
  await assert.rejects(connect(port, { origin: 'http://evil.example' }), /HTTP 403|unexpected|socket hang up/i);
  await assert.rejects(connect(port, { host: `evil.example:${port}` }), /HTTP 403|unexpected|socket hang up/i);
  const ok = await connect(port, { origin: `http://127.0.0.1:${srv.port}` });
  ok.ws.close();
  const ok2 = await connect(port, { origin: `http://localhost:${srv.port}` });
  ok2.ws.close();
  await assert.rejects(connect(port, { origin: `http://127.0.0.1:${port + 7}` }), /HTTP 403|unexpected|socket hang up/i);
  await srv.stop();
});
