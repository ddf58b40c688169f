// diagport_resume.test.mjs -- a runtime waiting in suspend mode on the
// diagnostic port is never left waiting by jitscope (issue 36, item 2): in
// every case the server acts on without giving it the agent (another profiler
// set to load: refused; the memory budget leaves no share; a runtime older
// than .NET 5; the agent's copy fails; the server is stopping) it is resumed,
// ResumeRuntime being the first command on it; and a server started while runtimes wait on its port
// (it was not running when they started, or was killed -9) resumes them as it
// starts. The tests check that each runtime is resumed (jitscope's record of
// it, from GET /api/diagnostic-port or its log while it stops) and runs to its
// end; how soon (the 100 ms) is measured by bench/portresume.mjs, as a time
// on a loaded machine is a benchmark's, not a test's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { startServer, startTarget, stopAll, waitFor } from './lib.mjs';
import { sharedDir, startContainer, stopContainers } from './containers.mjs';

const mounts = [];
after(async () => {
  await stopContainers();
  await stopAll();
  for (const m of mounts) spawnSync('umount', ['-l', m]);
});

// A suspend-mode E2eTarget in a container on dir's port: resolves with the
// container once it ran to its end.
async function waiter(dir, env = {}) {
  return startContainer(['run'], {
    ready: null, volumes: [`${dir}:${dir}`],
    env: { DOTNET_DiagnosticPorts: `${dir}/port.sock,suspend`, ...env },
  });
}

// The port's record of the one runtime with this outcome, once it was resumed
// (the outcome can be read before ResumeRuntime's answer is: seen at load 11).
async function record(srv, outcome) {
  return waitFor(`a runtime ${outcome}, resumed`, async () =>
    (await srv.api('/api/diagnostic-port')).body.runtimes.find((r) => r.outcome === outcome && r.resumed_ms !== null), { timeoutMs: 30000 });
}

function checkResumed(rec, t, what) {
  assert.ok(rec.resumed_ms !== null && rec.resumed_ms >= 0, `${what}: resumed (${rec.resumed_ms})`);
  t.diagnostic(`${what}: resumed ${rec.resumed_ms.toFixed(1)} ms after jitscope took its connection`);
}

async function ranToItsEnd(c) {
  const exit = await c.exited;
  assert.equal(exit.code, 42, `it ran to its end: ${c.err}`);
  assert.match(c.out, /^exit 42$/m);
}

test('refused: another profiler is set to load at its startup', { timeout: 120000 }, async (t) => {
  const dir = sharedDir();
  const srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock`]);
  const c = await waiter(dir, {
    CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: '{11111111-2222-3333-4444-555555555555}',
    CORECLR_PROFILER_PATH: '/nonexistent/profiler.so',
  });
  await ranToItsEnd(c);
  const rec = await record(srv, 'refused');
  assert.match(rec.reason, /another profiler is set to load at its startup \(CORECLR_ENABLE_PROFILING=1, CORECLR_PROFILER=\{11111111-2222-3333-4444-555555555555\}\)/);
  assert.equal(rec.session_id, null);
  checkResumed(rec, t, 'refused');
  assert.deepEqual((await srv.api('/api/sessions')).body.sessions, []);
  await srv.stop();
});

test('over budget: no share of the memory budget left for another session', { timeout: 180000 }, async (t) => {
  const dir = sharedDir();
  const srv = await startServer(['serve', '--port', '0', '--max-memory', '64M', '--diagnostic-port', `${dir}/port.sock`]);
  // three sessions connected: a fourth would get 64 MiB / 5, under the 16 MiB a session needs
  const env = { DOTNET_DiagnosticPorts: `${dir}/port.sock,nosuspend` };
  for (let i = 0; i < 3; i++) await startTarget(['serve'], { env });
  await waitFor('three live sessions', async () =>
    (await srv.api('/api/sessions')).body.sessions.filter((s) => s.state === 'live').length === 3, { timeoutMs: 60000 });
  const c = await waiter(dir);
  await ranToItsEnd(c);
  const rec = await record(srv, 'refused');
  assert.match(rec.reason, /memory budget \(--max-memory 64 MiB\) leaves no share of 16 MiB for another session/);
  checkResumed(rec, t, 'over budget');
  await srv.stop();
});

test('a runtime older than .NET 5 (a peer that answers as one): resumed, not taken', { timeout: 60000 }, async (t) => {
  // no runtime before .NET 5 connects to a port (they have none): a peer that
  // speaks the runtime's side of the protocol stands in for one, and measures
  // from its own connect() to ResumeRuntime's arrival
  const dir = sharedDir();
  const srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock`]);
  const cookie = crypto.randomBytes(16);
  const advertise = Buffer.concat([Buffer.from('ADVR_V1\0'), cookie, Buffer.from([0x39, 0x30, 0, 0, 0, 0, 0, 0, 0, 0])]);
  const utf16 = (s) => { const b = Buffer.from(s + '\0', 'utf16le'); const n = Buffer.alloc(4); n.writeUInt32LE(b.length / 2); return Buffer.concat([n, b]); };
  const reply = (id, payload) => {
    const h = Buffer.alloc(20);
    Buffer.from('DOTNET_IPC_V1\0').copy(h);
    h.writeUInt16LE(20 + payload.length, 14);
    h[16] = 0xff; h[17] = id;
    return Buffer.concat([h, payload]);
  };
  const info2 = Buffer.concat([Buffer.from([0x39, 0x30, 0, 0, 0, 0, 0, 0]), cookie, utf16('/app/Old'),
    utf16('Linux'), utf16('x64'), utf16('Old'), utf16('3.1.32')]);
  const commands = [];
  let resumedAfter = null;
  const t0 = performance.now();
  // one command per connection, as a runtime does; the connection after
  // ResumeRuntime is the one jitscope holds
  for (let n = 0; n < 4 && resumedAfter === null; n++) {
    const sock = net.connect(`${dir}/port.sock`);
    await new Promise((r) => sock.once('connect', r));
    sock.write(advertise);
    const header = await new Promise((resolve) => {
      let got = Buffer.alloc(0);
      sock.on('data', (d) => { got = Buffer.concat([got, d]); if (got.length >= 20) resolve(got); });
    });
    const cmd = `${header[16]}/${header[17]}`;
    commands.push(cmd);
    if (cmd === '4/1') resumedAfter = performance.now() - t0;
    sock.end(cmd === '4/4' ? reply(0, info2) : reply(0, Buffer.alloc(4)));
  }
  assert.deepEqual(commands, ['4/4', '4/1'], 'ProcessInfo2, then ResumeRuntime');
  const held = net.connect(`${dir}/port.sock`);
  held.write(advertise);
  assert.ok(resumedAfter !== null, 'resumed');
  t.diagnostic(`a runtime older than .NET 5: resumed ${resumedAfter.toFixed(1)} ms after its own connect()`);
  const rec = await record(srv, 'refused');
  assert.match(rec.reason, /its runtime \(3\.1\.32\) is older than \.NET 5/);
  checkResumed(rec, t, 'older than .NET 5');
  held.destroy();
  await srv.stop();
});

test('the agent\'s copy fails (the volume is full): resumed, said why; a later runtime once there is room is taken', { timeout: 120000 }, async (t) => {
  const dir = sharedDir();
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0755', 'jitscope-test', dir], { encoding: 'utf8' });
  assert.equal(m.status, 0, m.stderr);
  mounts.push(dir);
  const srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock`]);
  assert.match(srv.stderr, /diagnostic port: .* is full .* \(tried again for each runtime\)/);
  const c = await waiter(dir);
  await ranToItsEnd(c);
  const rec = await record(srv, 'refused');
  assert.match(rec.reason, /the agent cannot be placed beside the port: .* is full/);
  checkResumed(rec, t, 'copy failed');
  // room again: the next runtime is taken (the copy is tried for each)
  const grow = spawnSync('mount', ['-o', 'remount,size=8m', dir], { encoding: 'utf8' });
  assert.equal(grow.status, 0, grow.stderr);
  const next = await waiter(dir);
  await ranToItsEnd(next);
  await record(srv, 'startup');
  await srv.stop();
  spawnSync('umount', [dir]);
});

test('the server stopping: a runtime on its port then is resumed, not given the agent', { timeout: 120000 }, async (t) => {
  const dir = sharedDir();
  const srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock`]);
  // the server stands still while the runtime connects (its connection waits
  // in the backlog); it is told to stop and goes on: the stop comes first
  srv.proc.kill('SIGSTOP');
  const c = await waiter(dir);
  await waitFor('the runtime\'s connection in the backlog', () => {
    const ss = spawnSync('ss', ['-xlnH', 'src', `${dir}/port.sock`], { encoding: 'utf8' });
    return /^u_str\s+LISTEN\s+1\s/m.test(ss.stdout);
  }, { timeoutMs: 30000 });
  srv.proc.kill('SIGTERM');
  srv.proc.kill('SIGCONT');
  await srv.exited;
  await ranToItsEnd(c);
  const m = /runtime \d+: the jitscope server is stopping: it goes on without the agent[\s\S]*?runtime \d+ resumed ([\d.]+) ms after its first connection/.exec(srv.stderr);
  assert.ok(m, `the stopping server resumed it:\n${srv.stderr}`);
  t.diagnostic(`server stopping: resumed ${m[1]} ms after jitscope took its connection`);
  assert.ok(!fs.existsSync(`${dir}/port.sock`), 'the port is gone');
});

test('a server started while runtimes wait on its port resumes them: none was running, or it was killed -9', { timeout: 180000 }, async (t) => {
  const dir = sharedDir();
  // nothing listens: the runtime waits (its rule), trying every 500 ms at most
  const first = await waiter(dir);
  let srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock`]);
  assert.equal((await first.exited).code, 42, first.err);
  let rec = await record(srv, 'startup');
  checkResumed(rec, t, 'no server when it started');
  srv.proc.kill('SIGKILL');
  await srv.exited;
  assert.ok(fs.existsSync(`${dir}/port.sock`), 'a killed server leaves its socket');
  const second = await waiter(dir); // connection refused: it waits
  srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock`]);
  assert.equal((await second.exited).code, 42, second.err);
  rec = await record(srv, 'startup');
  checkResumed(rec, t, 'its server killed -9');
  await srv.stop();
});
