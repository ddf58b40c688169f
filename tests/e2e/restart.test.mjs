// restart.test.mjs -- storage as each session's log, across a kill -9 of the
// server (docs/STORAGE.md):
//   - a real app under `jitscope run`: the server is killed and another one
//     started on the same data directory within 2 s; the app's agent finds it
//     on the same socket path and the session is live again, the same id, with
//     the gap in its events, and a stack snapshot of it works;
//   - a replay of 400,000 JITs/s: killed after a few seconds, the next server
//     serves at least every function the first one held before two more rounds
//     of its storage writer ended (what it had taken to write), without a load
//     error (how much that is in time, half a second at 400,000 JITs/s on an idle
//     machine, is bench/storage.mjs's: docs/BENCHMARKS.md);
//   - a full disk (the server's file size limit, prlimit): writes fail and are
//     retried, nothing is lost, the error is cleared once there is room.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BUILD, DEMO_DLL, startServer, stopAll, waitFor, runSync, tempDataDir, storageCaughtUp } from './lib.mjs';

after(stopAll);

const REPLAY = path.join(BUILD, 'bench/replay');
const post = (srv, p, body) => srv.api(p, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
});

function killIfAlive(pid) {
  try { process.kill(pid, 'SIGKILL'); } catch { /* gone already */ }
}

test('a live session outlives a kill -9 of its server: the next server on the data directory takes it back', async () => {
  const dir = tempDataDir();
  const srv = await startServer(['run', '--port', '0', '--data', dir, '--', 'dotnet', DEMO_DLL]);
  const before = await waitFor('live, compiling', async () => {
    const s = (await srv.api('/api/sessions/1')).body;
    return s.state === 'live' && s.counters.functions > 50 && s;
  }, { timeoutMs: 60000 });
  const appPid = before.pid;
  try {
    // what storage has committed is what a kill -9 cannot take: wait until it holds every
    // function counted above (the app keeps compiling meanwhile; what comes in the last
    // moments before the kill is found again by the catch-up, except what the catch-up
    // cannot enumerate, such as the Demo's DynamicMethods: not part of the guarantee)
    await storageCaughtUp(srv);
    srv.proc.kill('SIGKILL');
    await srv.exited;
    const killedAt = Date.now();
    const again = await startServer(['serve', '--port', '0', '--data', dir]);
    assert.ok(Date.now() - killedAt < 2000, `restarted within 2 s (${Date.now() - killedAt} ms)`);
    assert.equal(again.socket, srv.socket, 'the same agent socket path for the same data directory');

    // what the old server had not written yet comes back with the agent's catch-up
    // after the resume: wait for it to end before counting (the session is live
    // again before that, with only what was on disk)
    const back = await waitFor('the agent back, the session live again, its catch-up done', async () => {
      const s = (await again.api('/api/sessions/1')).body;
      if (!(s.state === 'live' && s.stored.resumes === 1 && s.link.connected)) return false;
      const ev = (await again.api('/api/sessions/1/events?limit=10000')).body.events;
      const resumed = ev.find((e) => e.type === 'resumed');
      return resumed && ev.some((e) => e.type === 'catchup' && e.seq > resumed.seq) &&
        (await again.api('/api/sessions/1')).body;
    }, { timeoutMs: 30000 });
    assert.equal(back.id, 1, 'the same session');
    assert.equal(back.pid, appPid, 'of the same process');
    assert.equal(back.stored.past, false, 'live, not read-only');
    assert.ok(back.counters.functions >= before.counters.functions,
      `every function held before the kill is there (${back.counters.functions} >= ${before.counters.functions})`);
    assert.equal((await again.api('/api/sessions')).body.sessions.length, 1, 'one session, not a second one');

    const events = (await again.api('/api/sessions/1/events?limit=10000')).body.events;
    const resumed = events.filter((e) => e.type === 'resumed');
    assert.equal(resumed.length, 1, 'one resumed event');
    assert.ok(resumed[0].gap_ms > 0 && resumed[0].gap_ms < 30000, `with the gap (${resumed[0].gap_ms} ms)`);
    assert.ok(events.some((e) => e.type === 'catchup' && e.seq > resumed[0].seq), 'then a catch-up');

    const snap = await post(again, '/api/sessions/1/stacks');
    assert.equal(snap.status, 201, `a stack snapshot of it: ${JSON.stringify(snap.body).slice(0, 200)}`);
    assert.ok(snap.body.snapshot.threads.length >= 2, 'with its threads');
    await waitFor('it goes on compiling into the same session', async () =>
      (await again.api('/api/sessions/1')).body.counters.jit_compilations > back.counters.jit_compilations, { timeoutMs: 30000 });

    killIfAlive(appPid);
    await waitFor('exited', async () => (await again.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
    await again.stop();
  } finally {
    killIfAlive(appPid);
  }
});

test('a kill -9 at 400,000 JITs/s loses nothing its storage writer had taken', async () => {
  const dir = tempDataDir();
  const srv = await startServer(['run', '--port', '0', '--data', dir, '--', REPLAY,
    '--rate', '400000', '--seconds', '60', '--functions', '3000000']);
  let pid = 0;
  try {
    await waitFor('the replay going', async () => {
      const s = (await srv.api('/api/sessions/1')).body;
      pid = s.pid;
      return s.counters.functions > 100000;
    }, { timeoutMs: 30000, everyMs: 20 });
    // what the server held, then the writer's rounds: a round takes all that waits for it
    // when it starts, so once two more have ended (the one under way may have started
    // before the look), every frame behind what was held is committed
    const held = (await srv.api('/api/sessions/1')).body.counters.functions;
    const rounds = async () => (await srv.api('/api/config')).body.storage.rounds;
    const r0 = await rounds();
    await waitFor('two more writer rounds', async () => (await rounds()) >= r0 + 2, { timeoutMs: 30000, everyMs: 20 });
    const last = (await srv.api('/api/sessions/1')).body.counters.functions;
    srv.proc.kill('SIGKILL');
    await srv.exited;
    killIfAlive(pid);
    console.log(`held ${held} functions, then two writer rounds; ${last} at the last look before the kill`);
    assert.ok(last > held, 'the replay went on until the kill');

    const again = await startServer(['serve', '--port', '0', '--data', dir]);
    const s = (await again.api('/api/sessions/1')).body;
    console.log(`read back ${s.counters.functions} functions`);
    assert.equal(s.state, 'interrupted');
    assert.equal(s.stored.load_error, null, 'read without error');
    assert.ok(s.counters.functions >= held,
      `every function held before the writer's two rounds is served (${s.counters.functions} >= ${held})`);
    await again.stop();
  } finally {
    killIfAlive(pid);
  }
});

test('a full disk: writes are retried, nothing is lost, the error clears once there is room', async () => {
  const dir = tempDataDir();
  // its snapshot is waited for below: every ended session compacted, however short
  const srv = await startServer(['run', '--port', '0', '--data', dir, '--', REPLAY,
    '--rate', '20000', '--seconds', '60', '--functions', '400000'], { env: { JITSCOPE_COMPACT_MIN: '0' } });
  let pid = 0;
  try {
    await waitFor('the replay going', async () => {
      const s = (await srv.api('/api/sessions/1')).body;
      pid = s.pid;
      return s.counters.functions > 10000;
    }, { timeoutMs: 30000 });
    // no file of the server may grow any more
    let r = runSync('prlimit', ['--pid', String(srv.proc.pid), '--fsize=1:']);
    assert.equal(r.status, 0, r.stderr);
    const failing = await waitFor('writes failing', async () => {
      const st = (await srv.api('/api/config')).body.storage;
      return st.write_errors >= 2 && st.last_error && st;
    }, { timeoutMs: 30000 });
    assert.ok(failing.backlog_bytes > 0, 'what waits is kept');
    r = runSync('prlimit', ['--pid', String(srv.proc.pid), '--fsize=unlimited:']);
    assert.equal(r.status, 0, r.stderr);
    const healed = await waitFor('writes going in again', async () => {
      const st = (await srv.api('/api/config')).body.storage;
      return st.last_error === null && st.commits > failing.commits && st;
    }, { timeoutMs: 30000 });
    assert.ok(healed.last_error_ms > 0, 'when the error came is kept');
    assert.equal(healed.lost_bytes, 0, 'nothing was dropped: the journal held it meanwhile');
    killIfAlive(pid);
    await waitFor('ended, and written', async () => {
      const s = (await srv.api('/api/sessions/1')).body;
      const st = (await srv.api('/api/config')).body.storage;
      return s.state === 'exited' && st.backlog_bytes === 0 && st.snapshots >= 1;
    }, { timeoutMs: 60000 });
    const served = (await srv.api('/api/sessions/1')).body.counters.functions;
    await srv.stop();
    const again = await startServer(['serve', '--port', '0', '--data', dir]);
    const s = (await again.api('/api/sessions/1')).body;
    assert.equal(s.stored.load_error, null, 'read without error');
    assert.equal(s.counters.functions, served, `every function served live is back (${served})`);
    await again.stop();
  } finally {
    killIfAlive(pid);
  }
});
