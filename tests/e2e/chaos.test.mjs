// chaos.test.mjs -- jitscope's pieces killed or pulled away under real .NET
// processes: kill -9 of the server while the app JITs thousands of methods
// (startup and attach mode), kill -9 of the app mid-stream, and the agent
// socket's directory removed under a live session.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { E2E_DLL, startServer, startTarget, stopAll, waitFor, functionsOf, agentTrace, attach,
  detachAndWait, runSync, sleep } from './lib.mjs';
import { median } from '../../bench/stats.mjs';

after(stopAll);

const STORM = 27930; // every storm method E2eTarget has (Storm.Capacity)
const KILL_AFTER = 1000; // the server is killed once it has seen this many live JITs

const appLines = (out) => out.split('\n').filter((l) => l && !l.startsWith('jitscope: '));

// Polls a session's live JIT count every 5 ms until it reaches n; returns it.
async function compilationsReach(srv, id, n, ms = 60000) {
  return waitFor(`${n} live JITs in session ${id}`, async () => {
    const s = (await srv.api(`/api/sessions/${id}`)).body;
    return s.counters && s.counters.jit_compilations >= n && s.counters.jit_compilations;
  }, { timeoutMs: ms, everyMs: 5 });
}

// `jitscope run -- dotnet E2eTarget jitstorm 27930`, the server killed -9 after
// KILL_AFTER live JITs; resolves when the app closed its stdout (it exited).
async function profiledStormServerKilled() {
  const t0 = process.hrtime.bigint();
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'jitstorm', String(STORM)]);
  const closed = new Promise((resolve) => srv.proc.stdout.on('close', resolve));
  const seen = await compilationsReach(srv, 1, KILL_AFTER);
  const pid = (await srv.api('/api/sessions/1')).body.pid;
  const stormDoneAtKill = /^jitted$/m.test(srv.stdout);
  await srv.stop('SIGKILL');
  await closed; // the app holds the pipe the server handed it until it exits
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { srv, pid, seen, stormDoneAtKill, ms, cpu: Number(/process cpu (\d+) ms/.exec(srv.stderr)[1]) };
}

function plainStorm() {
  const t0 = process.hrtime.bigint();
  const r = runSync('dotnet', [E2E_DLL, 'jitstorm', String(STORM)]);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  assert.equal(r.status, 0, r.stderr);
  return { out: r.stdout, ms, cpu: Number(/process cpu (\d+) ms/.exec(r.stderr)[1]) };
}

test('run: server killed -9 mid-JIT-storm: identical output, app CPU and wall time within bounds of a plain run', { timeout: 300000 }, async () => {
  // 5 pairs, interleaved, so both sides see the same machine load
  const plain = [], profiled = [];
  for (let i = 0; i < 5; i++) {
    plain.push(plainStorm());
    const p = await profiledStormServerKilled();
    assert.ok(!p.stormDoneAtKill && p.seen < STORM, `pair ${i}: the server died mid-storm (after ${p.seen} JITs)`);
    assert.deepEqual(appLines(p.srv.stdout), appLines(plain[0].out), `pair ${i}: the app printed exactly what it prints alone`);
    assert.ok(!fs.existsSync(`/proc/${p.pid}`) || fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8').includes(') Z '),
      'the app has finished');
    profiled.push(p);
  }
  const pc = median(plain.map((x) => x.cpu)), qc = median(profiled.map((x) => x.cpu));
  const pw = median(plain.map((x) => x.ms)), qw = median(profiled.map((x) => x.ms));
  console.log(`storm of ${STORM}: plain cpu ${pc} ms wall ${pw.toFixed(0)} ms; server killed after ~${median(profiled.map((p) => p.seen))} JITs: ` +
    `cpu ${qc} ms (${(qc / pc).toFixed(2)}x) wall ${qw.toFixed(0)} ms (${(qw / pw).toFixed(2)}x)`);
  // The precise wall-time ratio (target 1.05x) is bench/chaos.mjs's job (docs/BENCHMARKS.md):
  // on this shared 2-core machine it moves by tens of percent from run to run. Measured here
  // and there: app CPU 1.1-1.4x, wall 1.2-1.5x (the agent's work while the server was there,
  // naming and tiers, and the server's own start). The bounds catch what a broken agent would
  // do: spin on its dead server (CPU: 2x is far above the noise of five medians) or stall the
  // app's threads waiting for it (wall: seconds, up to its 30 s give-up; 3x leaves 1.5-3 s here).
  assert.ok(qc <= pc * 2, `app CPU ${qc} ms with the server killed vs ${pc} ms plain`);
  assert.ok(qw <= pw * 3, `wall ${qw.toFixed(0)} ms with the server killed vs ${pw.toFixed(0)} ms plain`);
});

test('attach: server killed -9 mid-storm: app output unchanged; a new server is refused clearly while the old agent is loaded, attaches once it left', { timeout: 180000 }, async () => {
  const commands = [`storm ${STORM}`, 'call 12', 'tick'];
  const plain = runSync('dotnet', [E2E_DLL, 'serve'], { input: commands.join('\n') + '\nexit\n' });
  assert.equal(plain.status, 0, plain.stderr);
  // the agent gives up on a dead server after JITSCOPE_GIVE_UP_MS (60 s by default; here 10 s)
  const target = await startTarget(['serve'], { env: { JITSCOPE_GIVE_UP_MS: '10000' } });
  const srv1 = await startServer(['serve', '--port', '0']);
  const r = await attach(srv1, target.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  await waitFor('catch-up', async () => (await srv1.api(`/api/sessions/${id}`)).body.catchup.count >= 1);
  target.send(commands[0]);
  const seen = await compilationsReach(srv1, id, KILL_AFTER);
  const stormDoneAtKill = /^stormed /m.test(target.out);
  await srv1.stop('SIGKILL');
  assert.ok(!stormDoneAtKill, `the server died mid-storm (after ${seen} JITs)`);

  // a second server at once (on another data directory): the old agent is still loaded
  const srv2 = await startServer(['serve', '--port', '0']);
  assert.ok(agentTrace(target.pid).mapped, 'the orphaned agent is still loaded');
  const refused = await attach(srv2, target.pid);
  const stillMapped = agentTrace(target.pid).mapped;
  assert.ok(stillMapped, 'still loaded when the runtime answered, so the answer is about it');
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  // the server answers itself: the runtime's own refusal (CORPROF_E_PROFILER_ALREADY_ACTIVE)
  // comes after it loaded the library again, which then stays mapped for good
  // (its server was killed: the refusal says so, agentpeer.c)
  assert.match(refused.body.error, /a jitscope agent whose server is gone is still active in process \d+; it detaches itself once it has had no server for 60 s/);
  assert.ok(!(await srv2.api('/api/sessions')).body.sessions.some((s) => s.state === 'live'), 'no live session from a refused attach');

  await target.waitLine(/^stormed /m, 120000);
  const t0 = Date.now();
  await waitFor('orphaned agent detached itself', () => !agentTrace(target.pid).mapped, { timeoutMs: 60000, everyMs: 100 });
  console.log(`orphaned agent left ${Date.now() - t0} ms after the storm ended`);
  const trace = agentTrace(target.pid);
  assert.equal(trace.agentThreads, 0, 'no agent thread left');

  const again = await attach(srv2, target.pid);
  assert.equal(again.status, 201, JSON.stringify(again.body));
  const id2 = again.body.session.id;
  const s = await waitFor('catch-up', async () => { const x = (await srv2.api(`/api/sessions/${id2}`)).body; return x.catchup.count >= 1 && x; });
  assert.ok(s.catchup.functions >= STORM, `the catch-up names the whole storm: ${s.catchup.functions}`);
  target.send(commands[1]);
  await waitFor('LateMethod12 live', async () => (await functionsOf(srv2, id2, '&q=LateMethod12')).some((f) => !f.catchup));
  target.send(commands[2]);
  await target.waitLine(/^tock 1$/m);
  await detachAndWait(srv2, id2);
  target.send('exit');
  await target.waitLine(/^bye$/m);
  assert.deepEqual(appLines(target.out), appLines(plain.stdout), 'the app printed exactly what it prints alone');
  await srv2.stop();
});

// Server fds that are not TCP sockets (HTTP connections of this test come and
// go with fetch's keep-alive): files, pipes, eventfds and Unix sockets, the
// agent links among them.
function serverFds(pid) {
  const unix = new Set(fs.readFileSync(`/proc/${pid}/net/unix`, 'utf8').split('\n').slice(1)
    .map((l) => l.trim().split(/\s+/)[6]).filter(Boolean));
  const out = [];
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let link;
    try { link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`); } catch { continue; }
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m && !unix.has(m[1])) continue; // TCP
    out.push(`${fd} ${m ? 'unix' : link}`);
  }
  return out.sort();
}

test('run: app killed -9 mid-stream: session exited with SIGKILL shown, the server leaks no fd', { timeout: 120000 }, async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('READY', () => /^READY$/m.test(srv.stdout), { timeoutMs: 60000 });
  const live = await waitFor('live', async () => { const s = (await srv.api('/api/sessions/1')).body; return s.state === 'live' && s; });
  const before = serverFds(srv.proc.pid);
  assert.ok(before.filter((f) => f.endsWith(' unix')).length >= 2, `the listening socket and the agent link: ${before.join(', ')}`);
  srv.proc.stdin.write(`storm ${STORM}\n`);
  const seen = await compilationsReach(srv, 1, KILL_AFTER);
  process.kill(live.pid, 'SIGKILL');
  const s = await waitFor('exited', async () => { const x = (await srv.api('/api/sessions/1')).body; return x.state === 'exited' && x; }, { timeoutMs: 30000 });
  assert.ok(!/^stormed /m.test(srv.stdout), `killed mid-storm (after ${seen} JITs)`);
  assert.equal(s.exit_code, 137);
  assert.equal(s.exit_signal, 9);
  assert.equal(s.exit_signal_name, 'SIGKILL');
  assert.equal(s.link.connected, false);
  assert.match(srv.stderr, new RegExp(`app \\(pid ${live.pid}\\) killed by signal 9 \\(SIGKILL\\), exit code 137`));
  // settled: every fd the session had is closed, and only those
  const after = await waitFor('the agent link closed', () => { const x = serverFds(srv.proc.pid); return x.length < before.length && x; }, { timeoutMs: 10000 });
  await sleep(1000); // a sweep or two (500 ms each) later: nothing else closes or opens
  const settled = serverFds(srv.proc.pid);
  assert.deepEqual(settled, after, 'stable once the session ended');
  const gone = before.filter((f) => !settled.includes(f));
  assert.deepEqual(gone.map((f) => f.split(' ')[1]), ['unix'], `exactly the agent link was closed: ${gone.join(', ')}`);
  assert.ok(settled.every((f) => before.includes(f)), `nothing new: ${settled.filter((f) => !before.includes(f)).join(', ')}`);
  const list = (await srv.api('/api/sessions')).body.sessions;
  assert.equal(list[0].exit_signal_name, 'SIGKILL', 'in the listing too');
  await srv.stop();
});

test('an exit by itself has no signal', async () => {
  const srv = await startServer(['run', '--port', '0', '--', '/bin/sh', '-c', 'exit 3']);
  const s = await waitFor('exited', async () => { const x = (await srv.api('/api/sessions/1')).body; return x.state === 'exited' && x; });
  assert.equal(s.exit_code, 3);
  assert.equal(s.exit_signal, null);
  assert.equal(s.exit_signal_name, null);
  await srv.stop();
});

test('the agent socket directory removed under a live session: it streams on, the server recreates the socket, new attaches work', { timeout: 120000 }, async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('READY', () => /^READY$/m.test(srv.stdout), { timeoutMs: 60000 });
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live');
  const dir = path.dirname(srv.socket);
  fs.rmSync(dir, { recursive: true });
  // the connected agent does not need the file
  srv.proc.stdin.write('call 7\n');
  await waitFor('LateMethod07 after the removal', async () => (await functionsOf(srv, 1, '&q=LateMethod07')).length === 1);
  // the socket there again, after rmSync returned: a sweep that ran during the
  // removal (a loaded machine makes it slow) recreated it only for rmSync to
  // take it away again, and the next sweep makes it once more
  const recreatedMsg = `agent socket ${srv.socket} was removed; recreated it`;
  const socketThere = () => { try { return fs.statSync(srv.socket).isSocket(); } catch { return false; } };
  await waitFor('recreated', () => srv.stderr.includes(recreatedMsg) && socketThere(), { timeoutMs: 10000 });
  const st = fs.statSync(dir);
  assert.equal(st.mode & 0o777, 0o700, 'private again');
  assert.ok(fs.statSync(srv.socket).isSocket());

  // a name that is no longer private is not used: the socket is not recreated there
  fs.chmodSync(dir, 0o755);
  fs.rmSync(srv.socket);
  await waitFor('refusal logged', () => srv.stderr.includes('is no longer a private directory of ours'), { timeoutMs: 10000 });
  assert.ok(!fs.existsSync(srv.socket), 'no socket in a directory others may enter');
  const recreations = srv.stderr.split(recreatedMsg).length - 1;
  fs.chmodSync(dir, 0o700);
  await waitFor('recreated once private again', () =>
    srv.stderr.split(recreatedMsg).length - 1 > recreations && socketThere(), { timeoutMs: 10000 });

  // a process attached after all this gets a session that streams
  const target = await startTarget();
  const r = await attach(srv, target.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  await waitFor('catch-up', async () => (await srv.api(`/api/sessions/${id}`)).body.catchup.count >= 1);
  target.send('call 9');
  await waitFor('LateMethod09 in the new session', async () => (await functionsOf(srv, id, '&q=LateMethod09')).length === 1);
  // and the first session still streams
  srv.proc.stdin.write('call 8\n');
  await waitFor('LateMethod08 in the first session', async () => (await functionsOf(srv, 1, '&q=LateMethod08')).length === 1);
  await detachAndWait(srv, id);
  target.send('exit');
  srv.proc.stdin.write('exit\n');
  await waitFor('exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  assert.equal(srv.exit, null, 'the server is still up');
  await srv.stop();
});
