// slots.test.mjs -- no number of idle or keyless peers locks a real one out:
// hundreds of WebSocket clients that never subscribe (and raw connections to
// the stream port that never upgrade), hundreds of agent-socket peers that
// never say hello, and thousands of connections from two other addresses
// that never show the API key. Each time a real client, attach or keyed
// request is served promptly, and the idle peers are closed at their
// deadline. Limits in docs/API.md ("Limits").
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import WebSocket from '../node_modules/ws/index.js';
import { E2E_DLL, startServer, startTarget, stopAll, waitFor, attach, api, sleep } from './lib.mjs';
import { checkWsMessage } from './openapi.mjs';

after(stopAll);

const SUBSCRIBE_SECONDS = 5; // WS_SUBSCRIBE_SECONDS (server/ws.h)
const HELLO_MS = 2000; // LINK_HELLO_MS (server/link.c)

// Opens n connections with open(i) (a promise of a socket-like object), a few at a time.
async function openMany(n, open, parallel = 50) {
  const out = [];
  for (let i = 0; i < n; i += parallel) {
    out.push(...await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, (_, j) => open(i + j))));
  }
  return out;
}

// A TCP (or Unix socket) connection that says nothing; records when the server closed it.
function silent(options) {
  return new Promise((resolve) => {
    const c = { closedAt: null, openedAt: null };
    c.sock = net.createConnection(options);
    c.sock.on('close', () => { c.closedAt = performance.now(); });
    c.sock.on('error', () => {});
    c.sock.on('data', () => {});
    c.sock.once('connect', () => { c.openedAt = performance.now(); resolve(c); });
    c.sock.once('error', () => resolve(c));
  });
}

test('300 WebSocket clients that never subscribe and 200 that never upgrade: a real client subscribes at once, the idle ones are closed with 1008', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  const idle = [];
  const raw = [];
  try {
    await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 60000 });
    const port = (await srv.api('/api/config')).body.ws_port;
    raw.push(...await openMany(200, () => silent({ port, host: '127.0.0.1' })));
    idle.push(...await openMany(300, () => new Promise((resolve) => {
      const c = { closeCode: null, opened: false };
      c.ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
      c.ws.on('open', () => { c.opened = true; resolve(c); });
      c.ws.on('close', (code) => { c.closeCode = code; resolve(c); });
      c.ws.on('error', () => {});
      c.ws.on('unexpected-response', () => resolve(c));
    })));
    const opened = idle.filter((c) => c.opened).length;
    // a real client now: it opens, subscribes and is answered within the second
    const t0 = performance.now();
    const real = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
    const answer = await new Promise((resolve, reject) => {
      real.on('open', () => real.send(JSON.stringify({ subscribe: 1, after: 0 })));
      real.on('message', (d) => resolve(JSON.parse(d.toString())));
      real.on('unexpected-response', (_q, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
      real.on('error', reject);
    });
    const ms = performance.now() - t0;
    console.log(`${opened} of 300 idle clients opened, 200 raw connections held; a real client was answered in ${ms.toFixed(0)} ms`);
    checkWsMessage(answer);
    assert.ok(['events', 'session'].includes(answer.type), `the real client was served: ${JSON.stringify(answer).slice(0, 200)}`);
    assert.ok(ms < 3000, `promptly: ${ms} ms`);
    // the idle ones: each closed by its deadline, or as the oldest idle one when a newer came.
    // Those still open at the deadline get 1008 (the last batch opened is among them); one
    // replaced earlier gets 1008 too unless more than 64 were closing at once (then the oldest
    // closing one is cut: 1006)
    await waitFor('every idle WebSocket client closed', () => idle.every((c) => c.closeCode !== null), { timeoutMs: (SUBSCRIBE_SECONDS + 10) * 1000, everyMs: 100 });
    const codes = new Map();
    for (const c of idle) codes.set(c.closeCode, (codes.get(c.closeCode) || 0) + 1);
    console.log(`idle clients' close codes: ${JSON.stringify([...codes])}`);
    assert.ok(idle.every((c) => c.closeCode === 1008 || c.closeCode === 1006), 'closed by the server, none refused');
    assert.ok(idle.slice(-50).every((c) => c.closeCode === 1008), 'the newest idle clients got 1008 at their deadline');
    assert.ok((codes.get(1008) || 0) >= 63, 'so did every one open at the deadline');
    assert.match(srv.stderr, /closed \d+ WebSocket client\(s\) that subscribed to nothing within 5 s/);
    // the real client, subscribed, is still there after the idle ones' deadline
    assert.equal(real.readyState, WebSocket.OPEN, 'a subscribed client is not closed as idle');
    // raw connections that never upgraded: the header-table deadline (10 s) frees them
    await waitFor('raw connections closed', () => raw.every((c) => c.closedAt !== null), { timeoutMs: 20000, everyMs: 200 });
    real.close();
  } finally {
    idle.forEach((c) => c.ws.terminate());
    raw.forEach((c) => c.sock.destroy());
    await srv.stop();
  }
});

test('a client that unsubscribes gets the same few seconds to subscribe again', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  try {
    const port = (await srv.api('/api/config')).body.ws_port;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
    let closedAt = null, code = null;
    ws.on('close', (c) => { code = c; closedAt = performance.now(); });
    await new Promise((r) => ws.on('open', r));
    const opened = performance.now();
    ws.send(JSON.stringify({ unsubscribe: true }));
    await waitFor('closed', () => closedAt !== null, { timeoutMs: (SUBSCRIBE_SECONDS + 5) * 1000, everyMs: 50 });
    const s = (closedAt - opened) / 1000;
    console.log(`unsubscribed client closed with ${code} after ${s.toFixed(1)} s`);
    assert.equal(code, 1008);
    assert.ok(s >= SUBSCRIBE_SECONDS - 0.5 && s < SUBSCRIBE_SECONDS + 3, `closed at ${s} s`);
  } finally {
    await srv.stop();
  }
});

test('a subscriber whose session is deleted gets the same few seconds to subscribe to another', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL]);
  try {
    await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
    const port = (await srv.api('/api/config')).body.ws_port;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
    let closedAt = null, code = null;
    ws.on('close', (c) => { code = c; closedAt = performance.now(); });
    ws.on('message', () => {});
    await new Promise((r) => ws.on('open', r));
    ws.send(JSON.stringify({ subscribe: 1, after: 0 }));
    // subscribed for longer than the subscription window, then its session goes
    await sleep((SUBSCRIBE_SECONDS + 1) * 1000);
    assert.equal(closedAt, null, 'a subscriber is not closed');
    const deleted = performance.now();
    assert.equal((await srv.api('/api/sessions/1', { method: 'DELETE' })).status, 200);
    await waitFor('closed', () => closedAt !== null, { timeoutMs: (SUBSCRIBE_SECONDS + 5) * 1000, everyMs: 50 });
    const s = (closedAt - deleted) / 1000;
    console.log(`after its session was deleted the client was closed with ${code} ${s.toFixed(1)} s later`);
    assert.equal(code, 1008);
    assert.ok(s >= SUBSCRIBE_SECONDS - 0.5, `it had its ${SUBSCRIBE_SECONDS} s to subscribe again: ${s} s`);
  } finally {
    await srv.stop();
  }
});

test('300 agent-socket peers that never say hello: an attach works at once, the silent ones are closed within 2 s', async () => {
  const target = await startTarget();
  const srv = await startServer(['serve', '--port', '0']);
  const peers = [];
  try {
    peers.push(...await openMany(300, () => silent({ path: srv.socket })));
    const connected = peers.filter((c) => c.openedAt !== null).length;
    const t0 = performance.now();
    const r = await attach(srv, target.pid);
    const ms = performance.now() - t0;
    console.log(`${connected} of 300 silent agent-socket peers connected; attach answered ${r.status} in ${ms.toFixed(0)} ms`);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.ok(ms < 8000, `attach promptly: ${ms} ms`); // an attach alone takes 0.5-2 s here
    await waitFor('live', async () => (await srv.api(`/api/sessions/${r.body.session.id}`)).body.state === 'live');
    await waitFor('every silent peer closed', () => peers.every((c) => c.closedAt !== null), { timeoutMs: HELLO_MS + 5000, everyMs: 50 });
    const late = peers.filter((c) => c.openedAt !== null).map((c) => (c.closedAt - c.openedAt) / 1000);
    console.log(`silent peers lived ${Math.min(...late).toFixed(2)}-${Math.max(...late).toFixed(2)} s`);
    assert.ok(Math.max(...late) < HELLO_MS / 1000 + 3, `closed by the hello deadline: ${Math.max(...late)} s`);
    assert.match(srv.stderr, /closed \d+ agent connection\(s\) that sent no hello within 2000 ms/);
    // and the attached agent is one of the survivors: its session streams on
    target.send('call 3');
    await waitFor('LateMethod03 after the flood', async () => {
      const f = (await srv.api(`/api/sessions/${r.body.session.id}/functions?q=LateMethod03`)).body.functions;
      return f.length === 1;
    });
  } finally {
    peers.forEach((c) => c.sock.destroy());
    await srv.stop();
  }
});

test('--host 0.0.0.0 --api-key: 2,200 connections from two other addresses that show no key do not delay keyed requests; keyless ones get 401 at once', async () => {
  const key = 'slot-k3y';
  const srv = await startServer(['serve', '--port', '0', '--host', '0.0.0.0', '--api-key', key]);
  const held = [];
  try {
    const port = srv.port;
    // two addresses other than the keyed client's (every 127/8 address is this machine)
    for (const localAddress of ['127.0.0.2', '127.0.0.3']) {
      held.push(...await openMany(1100, () => silent({ port, host: '127.0.0.1', localAddress }), 100));
    }
    const connected = held.filter((c) => c.openedAt !== null).length;
    const keyed = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const r = await api(`${srv.url}/api/sessions`, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(8000) });
      keyed.push({ status: r.status, ms: performance.now() - t0 });
    }
    console.log(`${connected} keyless connections opened from 127.0.0.2/.3; keyed requests: ` +
      `${keyed.map((k) => `${k.status} in ${k.ms.toFixed(0)} ms`).join(', ')}`);
    assert.ok(keyed.every((k) => k.status === 200), 'keyed requests answered');
    // (the 10 s request deadline is what they waited for before)
    assert.ok(Math.max(...keyed.map((k) => k.ms)) < 4000, 'without waiting for the keyless ones to time out');
    assert.match(srv.stderr, /closed \d+ HTTP connection\(s\) that had not shown the API key/);
    // a keyless request is answered 401 as soon as its headers are in, even
    // when it announces a body it never sends, and its connection is closed
    for (const [what, head] of [
      ['GET', 'GET /api/sessions HTTP/1.1\r\n'],
      ['POST with a body still to come', 'POST /api/sessions/1/detach HTTP/1.1\r\nContent-Length: 100\r\n'],
    ]) {
      const c = await silent({ port, host: '127.0.0.1', localAddress: '127.0.0.4' });
      let data = '';
      c.sock.on('data', (d) => { data += d; });
      const t0 = performance.now();
      c.sock.write(`${head}Host: 127.0.0.1:${port}\r\n\r\n`);
      await waitFor(`${what}: answered and closed`, () => c.closedAt !== null, { timeoutMs: 5000, everyMs: 20 });
      const ms = c.closedAt - t0;
      console.log(`keyless ${what}: ${data.split('\r\n')[0]}, closed after ${ms.toFixed(0)} ms`);
      assert.match(data, /^HTTP\/1\.1 401 /, what);
      assert.match(data, /\r\nConnection: close\r\n/i, what);
      assert.ok(ms < 2000, `${what}: at once, not at the 10 s deadline (${ms} ms)`);
    }
  } finally {
    held.forEach((c) => c.sock.destroy());
    await srv.stop();
  }
});
