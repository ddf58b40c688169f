// agent_link.test.mjs -- the agent inside a real runtime when the server is
// absent, goes away, or comes back. The "server" here is a socket this test
// owns (it reads the agent's frames as docs/PROTOCOL.md describes); the app is
// real. The app must run on unaffected; the agent must reconnect with back-off,
// say hello again, and send a catch-up before anything else it knows.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BUILD, E2E_DLL, runSync, startTarget, waitFor, stopAll } from './lib.mjs';

after(stopAll);

const TOKEN = 'ab'.repeat(16);
const CLSID = '{B8E5C1D2-7A43-4C6E-9F10-5A3B2D1C0E7F}';

function agentEnv(socketPath) {
  return {
    ...process.env, CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: CLSID,
    CORECLR_PROFILER_PATH: path.join(BUILD, 'libjitscope_agent.so'),
    JITSCOPE_SOCKET: socketPath, JITSCOPE_TOKEN: TOKEN,
  };
}

// Parses frames from one agent connection.
function frames(conn) {
  const got = [];
  let buf = Buffer.alloc(0);
  conn.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 24 && buf.length >= 24 + buf.readUInt32LE(4)) {
      const len = buf.readUInt32LE(4);
      got.push({ type: buf.readUInt16LE(0), flags: buf.readUInt16LE(2), seq: Number(buf.readBigUInt64LE(8)), payload: buf.subarray(24, 24 + len) });
      buf = buf.subarray(24 + len);
    }
  });
  return got;
}

function functionName(f) { const n = f.payload.readUInt16LE(24); return f.payload.subarray(26, 26 + n).toString(); }

test('no server at all: the app runs and prints exactly the same', async () => {
  const plain = runSync('dotnet', [E2E_DLL]);
  const t0 = Date.now();
  const withAgent = runSync('dotnet', [E2E_DLL], { env: agentEnv(path.join(os.tmpdir(), 'jitscope-nobody-listens.sock')) });
  assert.equal(withAgent.status, 42);
  assert.equal(withAgent.stdout, plain.stdout);
  assert.ok(Date.now() - t0 < 10000, 'no waiting for a server');
});

test('server goes away and comes back: reconnect with hello, catch-up first, then live', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-link-'));
  const sock = path.join(dir, 's');
  const conns = [];
  let server = net.createServer((c) => conns.push({ c, frames: frames(c) }));
  await new Promise((r) => server.listen(sock, r));
  const app = await startTarget(['serve'], { env: agentEnv(sock) });
  try {
    await waitFor('first connection', () => conns.length === 1 && conns[0].frames.length > 5);
    const first = conns[0].frames;
    assert.equal(first[0].type, 1, 'hello first');
    assert.equal(first[0].payload.subarray(48, 80).toString(), TOKEN);
    assert.ok(!first.some((f) => f.type === 13), 'no catch-up on the very first connection (nothing was missed)');

    // the server goes away; the app keeps working meanwhile
    conns[0].c.destroy();
    await new Promise((r) => server.close(r));
    app.send('call 21');
    await app.waitLine(/^called 21 /m);

    // the server comes back on the same path: the agent finds it by itself
    server = net.createServer((c) => conns.push({ c, frames: frames(c) }));
    await new Promise((r) => server.listen(sock, r));
    await waitFor('reconnected', () => conns.length === 2, { timeoutMs: 10000 });
    const second = conns[1].frames;
    await waitFor('catch-up complete', () => second.some((f) => f.type === 14), { timeoutMs: 10000 });
    assert.equal(second[0].type, 1, 'hello again');
    assert.equal(second[0].seq, 1, 'sequence numbers restart per connection');
    assert.equal(second[1].type, 23, 'then the tier-source status');
    // switched off while there was no server (records were discarded anyway), on again now
    assert.equal(second[1].payload.readUInt32LE(0), 1, 'the tier source is on again after the reconnect');
    assert.equal(second[2].type, 13, 'then the catch-up, before anything else');
    const end = second.findIndex((f) => f.type === 14);
    const caught = second.slice(2, end);
    assert.ok(caught.every((f) => f.flags & 1), 'catch-up records are flagged');
    const names = caught.filter((f) => f.type === 4).map(functionName);
    assert.ok(names.includes('JitscopeE2e.Late.LateMethod21()'), 'the method JITed while disconnected is caught up');
    assert.ok(names.includes('JitscopeE2e.Probe.UniqueAlpha()'));
    assert.ok(caught.some((f) => f.type === 5), 'modules caught up');
    // live again after the catch-up
    app.send('call 22');
    await waitFor('live record after reconnect', () =>
      second.slice(end).some((f) => f.type === 4 && functionName(f) === 'JitscopeE2e.Late.LateMethod22()'));
    // without a server the agent asked for no callbacks at all (the app ran as
    // without it): not hidden, the catch-up says for how long
    const quietMs = second[end].payload.readUInt32LE(12);
    assert.ok(quietMs > 0, `the catch-up reports the time without callbacks (${quietMs} ms)`);
    await waitFor('drops record', () => second.some((f) => f.type === 12), { timeoutMs: 3000 });
    const seqs = second.map((f) => f.seq);
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1), 'no gaps on the new connection');
  } finally {
    app.send('exit');
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a server that closes every connection at once gets back-off, not a spin', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-reject-'));
  const sock = path.join(dir, 's');
  let accepted = 0;
  const server = net.createServer((c) => { accepted++; c.destroy(); }); // e.g. "bad token"
  await new Promise((r) => server.listen(sock, r));
  const app = await startTarget(['serve'], { env: agentEnv(sock) });
  try {
    const before = accepted;
    await new Promise((r) => setTimeout(r, 4000));
    const in4s = accepted - before;
    console.log(`connections in 4 s against a rejecting server: ${in4s}`);
    assert.ok(in4s >= 1 && in4s <= 8, `back-off between attempts (${in4s} in 4 s)`);
    app.send('call 23');
    await app.waitLine(/^called 23 /m);
  } finally {
    app.send('exit');
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
