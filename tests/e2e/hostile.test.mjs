// hostile.test.mjs -- the real server against slow and hostile clients: HTTP
// clients that trickle their headers, 1,000 idle connections, malformed, huge
// and truncated HTTP requests, bad WebSocket frames, WebSocket clients that
// stop reading during a 20,000 JIT events/s flood (build/bench/replay), and an
// agent-socket peer of another uid. Limits are in docs/API.md ("Limits").
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import WebSocket from '../node_modules/ws/index.js';
import { floodedServer, stalledClient } from './flood.mjs';
import { ROOT, startServer, stopAll, waitFor, sleep, fetchChecked, OpenApiViolation } from './lib.mjs';

after(stopAll);

const WIRE_VERSION = Number(/#define WIRE_VERSION (\d+)u/.exec(fs.readFileSync(path.join(ROOT, 'proto/wire.h'), 'utf8'))[1]);
const REQUEST_SECONDS = 10; // HTTP_REQUEST_SECONDS (server/http_deadline.h)
const STALL_SECONDS = 10; // WS_STALL_SECONDS (server/ws.h)
const CLOSE_GRACE_SECONDS = 30; // WS_CLOSE_GRACE_SECONDS (server/ws.h)
const LATE_READ_SECONDS = 25; // the late reader reads again this long after it stopped

function procStatus(pid) {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssKb: Number(/VmRSS:\s+(\d+)/.exec(s)[1]), threads: Number(/Threads:\s+(\d+)/.exec(s)[1]) };
}

// GET with a time limit; resolves { status, ms } (status 0: no answer).
async function timedGet(url, limitMs) {
  const t0 = performance.now();
  try {
    const r = await fetchChecked(url, { signal: AbortSignal.timeout(limitMs) });
    await r.text();
    return { status: r.status, ms: performance.now() - t0 };
  } catch (e) {
    if (e instanceof OpenApiViolation) throw e;
    return { status: 0, ms: performance.now() - t0, error: e.message };
  }
}

// A raw TCP client; records when the server closed it.
function rawClient(port) {
  return new Promise((resolve, reject) => {
    const c = { sock: net.createConnection(port, '127.0.0.1'), data: Buffer.alloc(0), closedAt: null };
    c.sock.on('data', (d) => { c.data = Buffer.concat([c.data, d]); });
    c.sock.on('close', () => { c.closedAt = performance.now(); });
    c.sock.on('error', () => {});
    c.sock.once('connect', () => { c.openedAt = performance.now(); resolve(c); });
    c.sock.once('error', reject);
  });
}

test('100 clients trickling their headers (and 100 trickling WebSocket upgrades): REST and the stream still answer, each is closed at the deadline', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  const slow = [];
  const slowWs = [];
  const timers = [];
  // one byte every 2 s: an idle timeout alone, restarted by each byte, would never fire
  const trickle = async (port, request, into) => {
    const c = await rawClient(port);
    let pos = 0;
    timers.push(setInterval(() => { if (c.closedAt === null && pos < request.length) c.sock.write(request[pos++]); }, 2000));
    c.sock.write(request[pos++]);
    into.push(c);
  };
  try {
    const wsPort = (await srv.api('/api/config')).body.ws_port;
    const request = `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nX-Slow: ${'a'.repeat(40)}\r\n\r\n`;
    const upgrade = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${wsPort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: jitscope\r\n\r\n';
    for (let i = 0; i < 100; i++) {
      await trickle(srv.port, request, slow);
      await trickle(wsPort, upgrade, slowWs);
    }
    const answers = [];
    const until = performance.now() + (REQUEST_SECONDS + 6) * 1000;
    while (performance.now() < until) {
      // 5 s: a normal request takes a few ms; the bound only has to tell
      // "answered" from "starved", on a 2-core machine shared with other work
      answers.push(await timedGet(`${srv.url}/api/sessions`, 5000));
      await sleep(500);
    }
    const worst = Math.max(...answers.map((a) => a.ms));
    console.log(`slow headers: ${answers.length} normal requests, worst ${worst.toFixed(1)} ms; ` +
      `slow clients closed: ${slow.filter((c) => c.closedAt !== null).length}/100`);
    assert.ok(answers.every((a) => a.status === 200), `every normal request answered: ${JSON.stringify(answers.filter((a) => a.status !== 200))}`);
    const lifetimes = slow.map((c) => (c.closedAt === null ? Infinity : (c.closedAt - c.openedAt) / 1000));
    console.log(`slow clients lived ${Math.min(...lifetimes).toFixed(1)}-${Math.max(...lifetimes).toFixed(1)} s`);
    assert.ok(lifetimes.every((s) => s < REQUEST_SECONDS + 6), `every slow client closed within ${REQUEST_SECONDS} s + 6 s slack: max ${Math.max(...lifetimes)}`);
    assert.ok(lifetimes.every((s) => s >= REQUEST_SECONDS - 1), `none closed long before its deadline: min ${Math.min(...lifetimes)}`);
    assert.match(srv.stderr, /closed \d+ HTTP connection\(s\) whose request was still incomplete 10 s after it began/);
    assert.ok(slow.every((c) => c.data.length === 0), 'no slow client got an answer');
    // the WebSocket port: libwebsockets' own handshake timeout (timeout_secs, not restarted by bytes)
    const wsLifetimes = slowWs.map((c) => (c.closedAt === null ? Infinity : (c.closedAt - c.openedAt) / 1000));
    console.log(`slow upgrades lived ${Math.min(...wsLifetimes).toFixed(1)}-${Math.max(...wsLifetimes).toFixed(1)} s`);
    assert.ok(wsLifetimes.every((x) => x < REQUEST_SECONDS + 6), 'every slow upgrade closed in time');
    const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/`, 'jitscope');
    await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
    ws.close();
  } finally {
    timers.forEach(clearInterval);
    slow.forEach((c) => c.sock.destroy());
    slowWs.forEach((c) => c.sock.destroy());
    await srv.stop();
  }
});

test('1,000 idle connections: requests still answered, memory and threads bounded', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  const idle = [];
  try {
    assert.equal((await timedGet(`${srv.url}/api/sessions`, 5000)).status, 200);
    const before = procStatus(srv.proc.pid);
    for (let i = 0; i < 1000; i++) idle.push(await rawClient(srv.port));
    await sleep(500); // let the server's workers accept them all
    const held = procStatus(srv.proc.pid);
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await timedGet(`${srv.url}/api/sessions`, 5000));
    // refused = closed well before the request deadline (opening 1,000 can take a while under load)
    const dropped = idle.filter((c) => c.closedAt !== null && c.closedAt - c.openedAt < (REQUEST_SECONDS - 1) * 1000).length;
    console.log(`1000 idle: RSS ${before.rssKb} -> ${held.rssKb} kB, threads ${before.threads} -> ${held.threads}, ` +
      `dropped by the server at once: ${dropped}, worst request ${Math.max(...answers.map((a) => a.ms)).toFixed(1)} ms`);
    assert.equal(dropped, 0, 'the server held every idle connection (capacity above 1,000)');
    assert.ok(answers.every((a) => a.status === 200), 'normal requests answered while 1,000 connections are held');
    assert.equal(held.threads, before.threads, 'no thread per connection');
    // 1,000 x the 32 KiB connection pool would be 32 MiB if every page were touched
    assert.ok(held.rssKb - before.rssKb < 32 * 1024, `RSS grew by ${held.rssKb - before.rssKb} kB`);
    // an idle connection sends no request either: the same deadline frees it
    await waitFor('idle connections closed at the request deadline',
      () => idle.every((c) => c.closedAt !== null), { timeoutMs: (REQUEST_SECONDS + 8) * 1000, everyMs: 200 });
    assert.equal((await timedGet(`${srv.url}/api/sessions`, 5000)).status, 200);
  } finally {
    idle.forEach((c) => c.sock.destroy());
    await srv.stop();
  }
});

// Sends raw bytes, then waits for the server to close (or `holdMs` to pass).
async function rawExchange(port, bytes, { end = false, holdMs = 8000 } = {}) {
  const c = await rawClient(port);
  c.sock.write(bytes);
  if (end) c.sock.end();
  await waitFor('server closes or answers', () => c.closedAt !== null || /\r\n\r\n/.test(c.data.toString('latin1')), { timeoutMs: holdMs }).catch(() => {});
  c.sock.destroy();
  return c.data.toString('latin1');
}

test('malformed, huge and truncated HTTP requests are refused cleanly', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  try {
    const host = `Host: 127.0.0.1:${srv.port}\r\n`;
    const cases = [
      ['huge header line', `GET /api/sessions HTTP/1.1\r\n${host}X-Big: ${'b'.repeat(200000)}\r\n\r\n`, /^HTTP\/1\.1 4(13|31) |^$/],
      ['10,000 headers', `GET /api/sessions HTTP/1.1\r\n${host}${'X-A: 1\r\n'.repeat(10000)}\r\n`, /^HTTP\/1\.1 4(13|31) |^$/],
      ['huge URL', `GET /api/sessions?q=${'u'.repeat(100000)} HTTP/1.1\r\n${host}\r\n`, /^HTTP\/1\.1 414 |^HTTP\/1\.1 4\d\d |^$/],
      ['bad request line', 'GARBAGE\r\n\r\n', /^HTTP\/1\.1 400 |^$/],
      ['bad version', `GET / HTTP/9.9\r\n${host}\r\n`, /^HTTP\/1\.1 (400|505) |^$/],
      ['control bytes in the URL', `GET /\x01\x02\x7f HTTP/1.1\r\n${host}\r\n`, /^HTTP\/1\.1 4\d\d |^$/],
      // libmicrohttpd ends the URL at a NUL: this is a request for "/", answered as one
      ['NUL byte in the URL', `GET /\x00/../../etc/passwd HTTP/1.1\r\n${host}\r\n`, /^HTTP\/1\.1 (200|4\d\d) |^$/],
      ['bad chunked body', `POST /api/sessions HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n0\r\n\r\n`, /^HTTP\/1\.1 4\d\d |^$/],
      ['negative length', `POST /api/sessions HTTP/1.1\r\n${host}Content-Length: -5\r\n\r\n`, /^HTTP\/1\.1 4\d\d |^$/],
      ['huge declared body', `POST /api/sessions HTTP/1.1\r\n${host}Content-Length: 99999999999\r\n\r\nabc`, /^HTTP\/1\.1 413 /],
      ['declared body over 4 KiB', `POST /api/sessions HTTP/1.1\r\n${host}Content-Length: 5000\r\n\r\nabc`, /^HTTP\/1\.1 413 /],
    ];
    for (const [what, bytes, expect] of cases) {
      const got = await rawExchange(srv.port, bytes);
      console.log(`http ${what}: ${got.split('\r\n')[0] || 'closed without an answer'}`);
      assert.match(got, expect, `${what}: ${JSON.stringify(got.slice(0, 80))}`);
      assert.equal((await timedGet(`${srv.url}/api/sessions`, 5000)).status, 200, `serving after: ${what}`);
    }
    // truncated: half the headers then the client goes away; half a body, same
    await rawExchange(srv.port, `GET /api/sessions HTTP/1.1\r\nHo`, { end: true, holdMs: 2000 });
    await rawExchange(srv.port, `POST /api/sessions HTTP/1.1\r\n${host}Content-Length: 1000\r\n\r\nabc`, { end: true, holdMs: 2000 });
    assert.equal((await timedGet(`${srv.url}/api/sessions`, 5000)).status, 200, 'serving after truncated requests');
    assert.equal(srv.exit, null, 'server alive');
  } finally {
    await srv.stop();
  }
  assert.equal(srv.exit.code, 0, `clean exit after the hostile requests: ${srv.stderr.slice(-500)}`);
});

// Sends bytes on the agent socket, optionally ends; resolves when the server closes it.
function agentSend(sock, bytes, end) {
  return new Promise((resolve) => {
    const c = net.createConnection(sock, () => { c.write(bytes); if (end) c.end(); });
    c.on('error', () => {});
    c.on('close', () => resolve(true));
    setTimeout(() => { c.destroy(); resolve(false); }, 8000);
  });
}

test('huge, truncated and random agent frames: that connection is closed with a reason, the server goes on', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  try {
    const header = (type, length) => { const h = Buffer.alloc(24); h.writeUInt16LE(type, 0); h.writeUInt32LE(length, 4); h.writeBigUInt64LE(1n, 8); return h; };
    const cases = [
      ['length 2^32-1', header(1, 0xffffffff), false, /closed: /],
      ['length one over the limit', header(1, 64 * 1024 + 1), false, /closed: /],
      ['half a hello, then EOF', Buffer.concat([header(1, 88), Buffer.from('JITSCOPE')]), true, /closed: closed before hello/],
      ['1 MiB of random bytes', crypto.randomBytes(1024 * 1024), false, /closed: /],
    ];
    for (const [what, bytes, end, reason] of cases) {
      const before = (srv.stderr.match(/agent connection \d+ closed: .*/g) || []).length;
      assert.ok(await agentSend(srv.socket, bytes, end), `${what}: connection closed`);
      await waitFor(`reason logged for ${what}`, () => (srv.stderr.match(/agent connection \d+ closed: .*/g) || []).length > before, { timeoutMs: 5000 });
      assert.match(srv.stderr.match(/agent connection \d+ closed: .*/g).at(-1), reason, what);
      assert.equal((await timedGet(`${srv.url}/api/sessions`, 5000)).status, 200, `serving after: ${what}`);
    }
    console.log(`agent frames: ${srv.stderr.match(/closed: .*/g).join(' | ')}`);
    assert.deepEqual((await srv.api('/api/sessions')).body.sessions, [], 'no session created');
  } finally {
    await srv.stop();
  }
  assert.equal(srv.exit.code, 0);
});

// A raw WebSocket connection: handshake by hand, then any bytes.
async function rawWs(port) {
  const c = await rawClient(port);
  const key = crypto.randomBytes(16).toString('base64');
  c.sock.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: jitscope\r\n\r\n`);
  await waitFor('101', () => /\r\n\r\n/.test(c.data.toString('latin1')), { timeoutMs: 5000 });
  assert.match(c.data.toString('latin1'), /^HTTP\/1\.1 101 /);
  c.data = c.data.subarray(c.data.indexOf('\r\n\r\n') + 4);
  return c;
}

function wsFrame(opcode, payload, { mask = true, fin = true, rsv = 0, length } = {}) {
  const len = length ?? payload.length;
  const head = [(fin ? 0x80 : 0) | rsv | opcode];
  let ext = Buffer.alloc(0);
  if (len < 126) head.push((mask ? 0x80 : 0) | len);
  else if (len < 65536) { head.push((mask ? 0x80 : 0) | 126); ext = Buffer.alloc(2); ext.writeUInt16BE(len); }
  else { head.push((mask ? 0x80 : 0) | 127); ext = Buffer.alloc(8); ext.writeBigUInt64BE(BigInt(len)); }
  const key = mask ? crypto.randomBytes(4) : Buffer.alloc(0);
  const body = Buffer.from(payload);
  if (mask) for (let i = 0; i < body.length; i++) body[i] ^= key[i % 4];
  return Buffer.concat([Buffer.from(head), ext, key, body]);
}

// The close code in the first close frame the server sent, if any.
function closeCode(data) {
  let off = 0;
  while (off + 2 <= data.length) {
    const op = data[off] & 0x0f;
    let len = data[off + 1] & 0x7f, p = off + 2;
    if (len === 126) { len = data.readUInt16BE(p); p += 2; } else if (len === 127) { len = Number(data.readBigUInt64BE(p)); p += 8; }
    if (op === 8) return len >= 2 ? data.readUInt16BE(p) : 1005;
    off = p + len;
  }
  return null;
}

test('bad WebSocket frames: the connection is closed, the server goes on', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  try {
    const port = (await srv.api('/api/config')).body.ws_port;
    const cases = [
      ['reserved opcode 3', wsFrame(3, 'x')],
      ['huge length (2^62)', wsFrame(1, 'abc', { length: 2 ** 62 })],
      ['length over the message limit', wsFrame(1, 'a'.repeat(70000))],
      ['RSV bits without an extension', wsFrame(1, '{}', { rsv: 0x40 })],
      ['binary frame', wsFrame(2, Buffer.alloc(10))],
      ['control frame with 126-byte payload', wsFrame(9, 'p'.repeat(126))],
      ['continuation without a start', wsFrame(0, 'x')],
    ];
    for (const [what, bytes] of cases) {
      const c = await rawWs(port);
      c.sock.write(bytes);
      await waitFor(`server closes after ${what}`, () => c.closedAt !== null, { timeoutMs: 10000 });
      const code = closeCode(c.data);
      console.log(`ws ${what}: closed with ${code ?? 'no close frame'}`);
      assert.ok(code === null || [1002, 1003, 1007, 1009].includes(code), `${what}: close code ${code}`);
    }
    // An unmasked client frame: RFC 6455 says close, but libwebsockets 4.1
    // (server side) takes it as if masked and gives us no way to see the mask
    // bit; the message is then handled like any other (docs/API.md, Limits).
    const u = await rawWs(port);
    u.sock.write(wsFrame(1, '{"subscribe":"x"}', { mask: false }));
    await waitFor('unmasked frame answered or closed', () => u.closedAt !== null || u.data.length > 0, { timeoutMs: 10000 });
    console.log(`ws unmasked client frame: ${u.closedAt !== null ? 'closed' : 'handled as a message: ' + JSON.stringify(u.data.subarray(2).toString())}`);
    u.sock.destroy();
    // truncated: a frame header promising 100 bytes, 10 sent, then silence; the
    // server must not stall on it (others are served) and frees it when the client goes
    const t = await rawWs(port);
    t.sock.write(wsFrame(1, 'a'.repeat(100)).subarray(0, 16));
    const ok = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
    const msg = await new Promise((resolve, reject) => {
      ok.on('open', () => ok.send('not json'));
      ok.on('message', (d) => resolve(JSON.parse(d.toString())));
      ok.on('error', reject);
    });
    assert.equal(msg.type, 'error', 'a normal client is answered while a frame is half sent');
    ok.close();
    t.sock.destroy();
    assert.equal((await timedGet(`${srv.url}/api/sessions`, 5000)).status, 200);
    assert.equal(srv.exit, null, 'server alive');
  } finally {
    await srv.stop();
  }
  assert.equal(srv.exit.code, 0);
});

test('the WebSocket upgrade checks the API key (one constant-time compare with HTTP)', async () => {
  const srv = await startServer(['serve', '--port', '0', '--api-key', 's3cret-key']);
  try {
    const port = (await srv.api('/api/config', { headers: { Authorization: 'Bearer s3cret-key' } })).body.ws_port;
    const open = (q) => new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/${q}`, 'jitscope');
      ws.on('open', () => { ws.close(); resolve('open'); });
      ws.on('unexpected-response', (_req, res) => resolve(`HTTP ${res.statusCode}`));
      ws.on('error', () => resolve('refused'));
    });
    for (const q of ['', '?key=', '?key=s3cret-kez', '?key=s3cret-key-and-more', '?k=s3cret-key', '?key=S3CRET-KEY']) {
      assert.notEqual(await open(q), 'open', `refused: ${q || 'no key'}`);
    }
    assert.equal(await open('?key=s3cret-key'), 'open');
    assert.equal(await open('?x=1&key=s3cret-key'), 'open', 'the key may be any argument');
  } finally {
    await srv.stop();
  }
});

test('WebSocket clients that stop reading during 20,000 JIT events/s: closed with 1008 (also one that reads again 25 s later), memory bounded, the others get every event or are told what they missed', async () => {
  // how late the other client's events come meanwhile is bench/wsstall.mjs's
  // (docs/BENCHMARKS.md); what the server promises is that it gets them all, in order
  const b = await floodedServer(60);
  try {
    await waitFor('the flood reaching the normal client', () => b.events > 20000, { timeoutMs: 30000 });
    const rssBefore = procStatus(b.srv.proc.pid).rssKb;
    const eventsBefore = (await b.srv.api('/api/sessions/1')).body.counters.events;
    // two clients that subscribe from the start and stop reading: one reads
    // again 25 s later (it gets the 1008 after the events it had not read),
    // the other never does (its connection is cut CLOSE_GRACE_SECONDS after the 1008)
    const stalled = await stalledClient(b);
    const never = await stalledClient(b);
    const pausedAt = performance.now();
    const receivedBefore = b.events;
    let rssMax = rssBefore;
    const logged = () => (b.srv.stderr.match(/WebSocket client stalled for 10 s, closing it \(1008\)/g) || []).length === 2;
    // their buffers fill within a second or two at this rate, then WS_STALL_SECONDS
    // without progress, then the server's 1 s tick: the wait allows for a loaded machine
    while (!logged() && performance.now() - pausedAt < (STALL_SECONDS + 15) * 1000) {
      rssMax = Math.max(rssMax, procStatus(b.srv.proc.pid).rssKb);
      await sleep(200);
    }
    const kickedAfter = (performance.now() - pausedAt) / 1000;
    const receivedWhileStalled = b.events - receivedBefore;
    // reads again 25 s after it stopped (or just after the close, on a machine so loaded that it came later)
    const resumeAt = pausedAt + Math.max(LATE_READ_SECONDS, kickedAfter + 1) * 1000;
    while (performance.now() < resumeAt) {
      rssMax = Math.max(rssMax, procStatus(b.srv.proc.pid).rssKb);
      await sleep(200);
    }
    const eventsDuring = (await b.srv.api('/api/sessions/1')).body.counters.events - eventsBefore;
    stalled.ws._socket.resume(); // reads what the kernel held, then the server's close
    await waitFor('the late reader sees the close', () => stalled.code !== null, { timeoutMs: 15000 });
    const lateCloseAfter = (performance.now() - pausedAt) / 1000;
    // the one that never reads: the server cuts it at the end of the close's grace
    const clients = async () => Number(/^jitscope_websocket_clients (\d+)$/m.exec((await b.srv.api('/metrics')).body)[1]);
    await waitFor('the never-reader cut', async () => await clients() === 1, { timeoutMs: (CLOSE_GRACE_SECONDS + 15) * 1000, everyMs: 250 });
    const cutAfter = (performance.now() - pausedAt) / 1000;
    console.log(`stalled readers: close logged ${kickedAfter.toFixed(1)} s after they stopped reading; the one reading ` +
      `again at ${LATE_READ_SECONDS} s got ${stalled.messages} messages, then close ${stalled.code} "${stalled.reason}" at ` +
      `${lateCloseAfter.toFixed(1)} s; the never-reader was cut at ${cutAfter.toFixed(1)} s; ` +
      `RSS ${rssBefore} -> max ${rssMax} kB while ${eventsDuring} events came in; the normal client got ` +
      `${receivedWhileStalled} events until the close, ${b.missed} skipped in ${b.lagged} lagged notices, ${b.gaps} gaps`);
    assert.ok(logged(), 'the server logged closing the stalled clients');
    assert.equal(stalled.code, 1008, 'the late reader gets the 1008, after what it had not read');
    assert.equal(stalled.reason, 'stalled: not reading');
    assert.ok(stalled.messages > 0, 'the events it had not read came first');
    // the grace is 30 s from the close; half of it allows for this process seeing the
    // close's log line late on a loaded machine, and still tells a grace from none
    assert.ok(cutAfter >= kickedAfter + CLOSE_GRACE_SECONDS / 2, `the never-reader kept its grace: cut at ${cutAfter} s`);
    // (how many depends on how fast this process reads on a loaded machine; a batch is 1,000)
    assert.ok(receivedWhileStalled >= 1000, `the normal client went on receiving while the others stalled: ${receivedWhileStalled}`);
    // every event in order, or announced as skipped: a client that falls WS_MAX_BACKLOG behind,
    // as on a loaded machine, is moved ahead with a lagged notice, never left with a silent gap
    assert.equal(b.gaps, 0, 'the other client got every event in order, or was told what it missed');
    // A stalled client costs its kernel buffer and one message (<1 MB); the
    // rest of the growth is the session's event log taking the flood in.
    assert.ok(rssMax - rssBefore < 64 * 1024, `server RSS grew ${rssMax - rssBefore} kB`);
    never.ws.terminate();
  } finally {
    b.ws.close();
    await b.srv.stop();
  }
});

test('a peer of another uid on the agent socket is refused', async (t) => {
  if (process.getuid() !== 0) {
    t.skip('needs root: it creates a user and connects as that user');
    return;
  }
  const user = 'jitscope-foreign';
  if (spawnSync('id', ['-u', user]).status !== 0) {
    const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', user], { encoding: 'utf8' });
    assert.equal(r.status, 0, `useradd: ${r.stderr}`);
  }
  const uid = Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
  const srv = await startServer(['serve', '--port', '0']);
  const dir = path.dirname(srv.socket);
  try {
    // only for this test: let the other user reach the socket (normally 0700/0600)
    fs.chmodSync(dir, 0o711);
    fs.chmodSync(srv.socket, 0o777);
    const connect = `const c = require('net').createConnection(process.argv[1], () => {
      const h = Buffer.alloc(112); h.writeUInt16LE(1, 0); h.writeUInt32LE(88, 4); h.writeBigUInt64LE(1n, 8);
      h.write('JITSCOPE', 24, 'latin1'); h.writeUInt32LE(Number(process.argv[2]), 32); h.write('f'.repeat(32), 72, 'latin1'); c.write(h); });
      c.on('error', (e) => { console.log('error ' + e.code); });
      c.on('close', () => { console.log('closed'); process.exit(0); });
      setTimeout(() => { console.log('still open'); process.exit(1); }, 5000);`;
    const foreign = spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--',
      process.execPath, '-e', connect, srv.socket, String(WIRE_VERSION)], { encoding: 'utf8', timeout: 15000 });
    assert.equal(foreign.status, 0, `the server closed the foreign peer: ${foreign.stdout} ${foreign.stderr}`);
    await waitFor('refusal logged', () => new RegExp(`refused agent connection from uid ${uid} \\(not ours\\)`).test(srv.stderr), { timeoutMs: 5000 });
    // control: our own uid gets past the uid check to the hello (bad token here)
    const own = spawnSync(process.execPath, ['-e', connect, srv.socket, String(WIRE_VERSION)], { encoding: 'utf8', timeout: 15000 });
    assert.equal(own.status, 0, own.stdout);
    await waitFor('own uid reached the hello check', () => /closed: hello names no session/.test(srv.stderr), { timeoutMs: 5000 });
    assert.equal(srv.stderr.match(/refused agent connection from uid/g).length, 1, 'only the foreign peer was refused for its uid');
    assert.deepEqual((await srv.api('/api/sessions')).body.sessions, [], 'no session created');
  } finally {
    await srv.stop();
  }
});
