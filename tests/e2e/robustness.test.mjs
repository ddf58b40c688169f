// robustness.test.mjs -- hostile input to the server: garbage on the agent
// socket, bad HTTP requests, foreign Host/Origin; and the server under valgrind.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { E2E_DLL, ROOT, startServer, stopAll, waitFor, functionsOf } from './lib.mjs';

const WIRE_VERSION = Number(/#define WIRE_VERSION (\d+)u/.exec(fs.readFileSync(path.join(ROOT, 'proto/wire.h'), 'utf8'))[1]);

after(stopAll);

function sendRaw(socketPath, bytes) {
  return new Promise((resolve, reject) => {
    const c = net.createConnection(socketPath, () => c.write(bytes));
    let got = Buffer.alloc(0);
    c.on('data', (d) => { got = Buffer.concat([got, d]); });
    c.on('error', reject);
    c.on('close', () => resolve(got));
    setTimeout(() => { c.destroy(); reject(new Error('server kept a garbage connection open')); }, 5000);
  });
}

function frame(type, payload, seq = 1) {
  const h = Buffer.alloc(24);
  h.writeUInt16LE(type, 0);
  h.writeUInt32LE(payload.length, 4);
  h.writeBigUInt64LE(BigInt(seq), 8);
  return Buffer.concat([h, payload]);
}

function hello(token) {
  const p = Buffer.alloc(88);
  p.write('JITSCOPE', 0, 'latin1');
  p.writeUInt32LE(WIRE_VERSION, 8);
  p.write(token, 48, 'latin1');
  return frame(1, p);
}

test('garbage on the agent socket drops that connection only', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  try {
    await waitFor('live session', async () => (await srv.api('/api/sessions/1')).body.state === 'live');
    assert.ok(srv.socket, 'server logged its agent socket path');
    const cases = [
      ['random bytes', Buffer.from('GET / HTTP/1.1\r\n\r\n'.repeat(10))],
      ['oversized frame', frame(3, Buffer.alloc(0)).fill(0xff, 4, 8)],
      ['record before hello', frame(3, Buffer.alloc(40))],
      ['hello with a token of no session', hello('0'.repeat(32))],
      ['hello with bad magic', frame(1, Buffer.alloc(88))],
      ['unknown record type', Buffer.concat([hello('1'.repeat(32)).subarray(0, 24), Buffer.alloc(88)]).fill(0x7f, 0, 2)],
    ];
    for (const [what, bytes] of cases) {
      await sendRaw(srv.socket, bytes);
      await waitFor(`log line for ${what}`, () => /agent connection \d+ closed: /.test(srv.stderr));
    }
    const reasons = srv.stderr.match(/closed: .*/g);
    assert.ok(reasons.length >= cases.length, `each garbage connection was closed with a reason: ${reasons.join(' | ')}`);
    // the real session is untouched and still streams
    const s = (await srv.api('/api/sessions/1')).body;
    assert.equal(s.state, 'live');
    assert.equal(s.link.connected, true);
    srv.proc.stdin.write('call 7\n');
    await waitFor('LateMethod07 after the garbage', async () =>
      (await functionsOf(srv, 1, '&q=LateMethod07')).length === 1);
    srv.proc.stdin.write('exit\n');
    await waitFor('exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  } finally {
    await srv.stop();
  }
});

test('impossible agent counters are refused and counted, the connection goes on, counters above 2^53 are served exactly', async () => {
  const agent = path.join(ROOT, 'tests/e2e/fake_counters_agent.mjs');
  const srv = await startServer(['run', '--port', '0', '--', process.execPath, agent]);
  try {
    const s = await waitFor('the last DROPS', async () => {
      const r = await srv.api('/api/sessions/1');
      return r.status === 200 && r.body.drops.produced !== 10 && r.body.drops.produced !== 0 && r.body;
    });
    assert.equal(s.refused.inconsistent, 3, `three impossible DROPS refused: ${JSON.stringify(s.refused)}`);
    assert.equal(s.link.records_refused, 3);
    assert.match(s.link.last_refused, /slow-server/);
    assert.equal(s.link.connected, true, 'the connection went on');
    // 2^56 - 2 and 2^56: above 2^53, served as their exact digits
    assert.equal(s.drops.ring_full, '72057594037927934');
    assert.equal(s.drops.produced, '72057594037927936');
    assert.equal(s.drops.total, '72057594037927936', 'ring_full + no_server, exact');
    assert.equal(s.drops.no_server, 2);
    assert.equal(s.agent_cost.jit_callbacks, '72057594037927936');
    assert.equal(s.agent_cost.buckets[0], '72057594037927936');
    const fns = await functionsOf(srv, 1);
    assert.deepEqual(fns.map((f) => f.name), ['Fake.AfterRefusals()'], 'the JIT after the refusals was taken');
    const metrics = await (await fetch(srv.url + '/metrics')).text();
    assert.match(metrics, /jitscope_session_records_refused_total\{[^}]*reason="inconsistent"\} 3\n/);
  } finally {
    await srv.stop();
  }
});

test('bad HTTP requests get 4xx JSON errors, never a crash', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  try {
    const cases = [
      ['/api/nope', 404], ['/api/sessions/abc', 400], ['/api/sessions/0', 400],
      ['/api/sessions/99999999999999999999', 400], ['/api/sessions/7', 404],
      ['/api/sessions/1/functions', 404], ['/api/sessions?x=' + 'a'.repeat(3000), 200],
      ['/../../etc/passwd', 404], ['/%2e%2e/etc/passwd', 404], ['/.git/config', 404],
    ];
    for (const [p, status] of cases) {
      const r = await srv.api(p);
      assert.equal(r.status, status, `${p} -> ${r.status}`);
      if (status !== 200) assert.equal(typeof r.body.error, 'string', `${p} has a JSON error body`);
    }
    const post = await srv.api('/api/sessions', { method: 'POST' });
    assert.equal(post.status, 405);
    const big = await srv.api('/api/sessions', { method: 'POST', body: 'x'.repeat(100000) });
    assert.ok([405, 413].includes(big.status), `huge body refused: ${big.status}`);
    // DNS rebinding: a foreign Host is refused on every route
    const rebind = await fetchRaw(srv.port, 'GET /api/sessions HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n');
    assert.match(rebind, /^HTTP\/1\.1 403/);
    const noHost = await fetchRaw(srv.port, 'GET /api/sessions HTTP/1.0\r\n\r\n');
    assert.match(noHost, /^HTTP\/1\.[01] 403/);
    const cross = await fetchRaw(srv.port, `POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nOrigin: http://evil.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    assert.match(cross, /^HTTP\/1\.1 403/);
    const garbage = await fetchRaw(srv.port, '\x00\x01\x02 garbage garbage\r\n\r\n');
    assert.match(garbage, /^(HTTP\/1\.1 400|)$/m);
    const ok = await srv.api('/api/sessions');
    assert.equal(ok.status, 200, 'still serving');
  } finally {
    await srv.stop();
  }
});

test('numbers in paths and queries: one grammar, over real HTTP (no sign, no leading zero, no encoded digit or NUL)', async () => {
  const srv = await startServer(['serve', '--port', '0']);
  try {
    // session 1 does not exist: a number read as 1 answers 404, a refused one 400
    assert.equal((await srv.api('/api/sessions/1')).status, 404);
    for (const id of ['01', '%31', '1%00', '%2B1', '+1', '1%20']) {
      const r = await srv.api(`/api/sessions/${id}`);
      assert.equal(r.status, 400, `/api/sessions/${id} -> ${r.status}`);
      assert.match(r.body.error, /session id/);
    }
    assert.equal((await srv.api('/api/compare?a=1&b=2')).status, 404);
    for (const a of ['01', '%31', '1%00', '%2B1', '+1', '-0']) {
      const r = await srv.api(`/api/compare?a=${a}&b=2`);
      assert.equal(r.status, 400, `compare?a=${a} -> ${r.status}`);
    }
    // text is decoded as before: an encoded space or slash in a text parameter is fine
    assert.equal((await srv.api('/api/sessions?x=a%20b%2Fc')).status, 200);
  } finally {
    await srv.stop();
  }
});

test('a command line that is not UTF-8 still gives a readable session', async () => {
  // argv from Node is always UTF-8: let a shell append the raw bytes 0xFF 0xFE
  const srv = await startServer(['run', '--port', '0', '--', '/bin/sh', '-c', 'exit 3'], {
    prefix: ['bash', '-c', 'exec "$@" "$(printf \'x\\377\\376y\')"', 'bash'],
  });
  try {
    const s = await waitFor('exited', async () => { const r = await srv.api('/api/sessions/1'); return r.body.state === 'exited' && r.body; });
    assert.equal(s.exit_code, 3);
    assert.match(s.command_line, /exit 3 x\?+y$/);
    assert.equal((await srv.api('/api/sessions')).body.sessions.length, 1);
  } finally {
    await srv.stop();
  }
});

test('a non-loopback bind needs an API key, and the key is enforced', async () => {
  const refused = await startServer(['serve', '--port', '0', '--host', '0.0.0.0']).catch((e) => e);
  assert.ok(refused instanceof Error && /requires an API key/.test(refused.message));
  const srv = await startServer(['serve', '--port', '0', '--host', '127.0.0.1', '--api-key', 's3cret']);
  try {
    assert.equal((await srv.api('/api/sessions')).status, 401);
    const r = await srv.api('/api/sessions', { headers: { Authorization: 'Bearer s3cret' } });
    assert.equal(r.status, 200);
    assert.equal((await srv.api('/api/sessions', { headers: { Authorization: 'Bearer wrong!' } })).status, 401);
  } finally {
    await srv.stop();
  }
  // bound to every address: any Host name works, with the key
  const all = await startServer(['serve', '--port', '0', '--host', '0.0.0.0', '--api-key', 's3cret']);
  try {
    const viaName = await fetchRaw(all.port, 'GET /api/config HTTP/1.1\r\nHost: jitscope.example:80\r\nAuthorization: Bearer s3cret\r\nConnection: close\r\n\r\n');
    assert.match(viaName, /^HTTP\/1\.1 200/);
    const noKey = await fetchRaw(all.port, 'GET /api/config HTTP/1.1\r\nHost: jitscope.example:80\r\nConnection: close\r\n\r\n');
    assert.match(noKey, /^HTTP\/1\.1 401/);
  } finally {
    await all.stop();
  }
});

test('command line errors are clear and exit non-zero', async () => {
  const { runSync, JITSCOPE } = await import('./lib.mjs');
  const cases = [[[], 2, /usage/], [['bogus'], 2, /unknown command/], [['run'], 2, /give the program/],
    [['serve', '--port', 'x'], 2, /--port/], [['serve', '--port', '70000'], 2, /--port/],
    [['run', '--', '/nonexistent/app'], 127, /cannot start/], [['serve', '--nope'], 2, /unknown/]];
  for (const [args, code, msg] of cases) {
    const r = runSync(JITSCOPE, args, { timeout: 10000 });
    assert.equal(r.status, code, `jitscope ${args.join(' ')} -> ${r.status}: ${r.stderr}`);
    assert.match(r.stderr + r.stdout, msg);
  }
  // talking to a server needs no agent library on this machine
  const remote = runSync(JITSCOPE, ['detach', '1', '--server', 'http://127.0.0.1:1', '--agent', '/nonexistent.so']);
  assert.equal(remote.status, 1);
  assert.match(remote.stderr, /cannot reach/);
  const help = runSync(JITSCOPE, ['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /run \[OPTIONS\] -- PROGRAM/);
});

function fetchRaw(port, text) {
  return new Promise((resolve) => {
    const c = net.createConnection(port, '127.0.0.1', () => c.write(text, 'latin1'));
    let got = '';
    c.on('data', (d) => { got += d; });
    c.on('close', () => resolve(got));
    c.on('error', () => resolve(got));
    setTimeout(() => c.destroy(), 3000);
  });
}
