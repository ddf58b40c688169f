// storage.test.mjs -- sessions kept in SQLite (--data DIR) across a kill -9 of
// the server: a real .NET app with stack snapshots and a sampling profile is
// recorded, the server is killed without warning once its writer has caught
// up, and a new server on the same directory serves the session as
// `interrupted`, read-only, with the same functions, modules, threads, stack
// snapshot, profile, timeline and events, over REST and the WebSocket replay;
// DELETE removes it for good. Then what cannot be used is refused with exit
// code 3 (a corrupt file, a directory another server holds, a compaction
// bound that is not a number), --data none
// writes nothing, and the default directory follows XDG_STATE_HOME.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from '../node_modules/ws/index.js';
import { JITSCOPE, agentBytesRead, startServer, stopAll, waitFor, runSync, storageCaughtUp, tempDataDir } from './lib.mjs';
import { runStackTarget } from './stacktarget.mjs';

after(stopAll);

const post = (srv, p, body) => srv.api(p, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
});
const byId = (a, b) => (a.function_id < b.function_id ? -1 : a.function_id > b.function_id ? 1 : 0);

// Everything a user can read of session 1.
async function snapshotOf(srv) {
  const get = async (p) => {
    const r = await srv.api(p);
    assert.equal(r.status, 200, `${p}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.body;
  };
  const functions = (await get('/api/sessions/1/functions?limit=10000')).functions.sort(byId);
  return {
    functions,
    modules: (await get('/api/sessions/1/modules')).modules,
    threads: (await get('/api/sessions/1/threads')).threads.map((t) => ({ id: t.thread_id, os: t.os_thread_id, name: t.name })),
    stacks: await get('/api/sessions/1/stacks'),
    snapshot: await get('/api/sessions/1/stacks/1'),
    profile: await get('/api/sessions/1/profile'),
    events: (await get('/api/sessions/1/events?limit=5000')).events,
  };
}

function replayOverWebSocket(port, id) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
    const events = [];
    const timer = setTimeout(() => { ws.close(); resolve(events); }, 3000);
    ws.on('open', () => ws.send(JSON.stringify({ subscribe: id, after: 0 })));
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      if (m.type === 'events') events.push(...m.events);
    });
    ws.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

test('a session recorded with --data survives kill -9 of the server, read-only and complete', async () => {
  const dir = tempDataDir();
  const { srv } = await runStackTarget({ args: ['--data', dir] });
  const appPid = (await srv.api('/api/sessions/1')).body.pid;

  assert.equal((await post(srv, '/api/sessions/1/stacks')).status, 201, 'a stack snapshot');
  assert.equal((await post(srv, '/api/sessions/1/profile', { hz: 99 })).status, 202, 'a profile starts');
  // a few samples: the agent keeps its suspensions within 2% of the time, so the rate it samples
  // at falls when a loaded machine stretches them (down to its 0.1 Hz floor: 3 samples in 30 s)
  await waitFor('profile samples', async () => (await srv.api('/api/sessions/1/profile')).body.profile?.samples >= 3, { timeoutMs: 60000 });
  assert.equal((await post(srv, '/api/sessions/1/profile/stop')).status, 200, 'and stops');
  // the agent's last samples and its STOPPED status arrive
  await waitFor('the profile stopped', async () => (await srv.api('/api/sessions/1/profile')).body.profile?.state === 'stopped');

  // the app holds still from here (its threads tier up and end on their own
  // otherwise), so what is read once the server has taken in all the agent
  // sent is all there is to store (a JIT just before the stop, still in the
  // socket, once made the stored session one function longer than this read)
  process.kill(appPid, 'SIGSTOP');
  await agentBytesRead(srv);
  // and folded it: two reads in a row agree
  let before = await snapshotOf(srv);
  await waitFor('the session still', async () => {
    const next = await snapshotOf(srv);
    const same = next.functions.length === before.functions.length && next.events.length === before.events.length;
    before = next;
    return same;
  });
  assert.ok(before.functions.length > 20, `functions recorded (${before.functions.length})`);
  assert.ok(before.snapshot.snapshot.threads.length > 2, 'the snapshot has threads');
  await storageCaughtUp(srv);

  srv.proc.kill('SIGKILL');
  await srv.exited;
  process.kill(appPid, 'SIGKILL'); // the app outlived its server (the agent keeps it running)

  const again = await startServer(['serve', '--port', '0', '--data', dir]);
  const list = (await again.api('/api/sessions')).body.sessions;
  assert.equal(list.length, 1, 'one past session listed');
  assert.equal(list[0].state, 'interrupted', 'its server died while it was live: interrupted');
  assert.equal(list[0].counters.functions, before.functions.length, 'the list entry counts every function');

  const after = await snapshotOf(again);
  assert.equal(after.functions.length, before.functions.length, 'every function is back');
  assert.deepEqual(after.functions, before.functions, 'with every field as it was served live');
  assert.deepEqual(after.modules, before.modules, 'modules');
  assert.deepEqual(after.threads, before.threads, 'threads (ids, OS ids, names)');
  assert.deepEqual(after.snapshot, before.snapshot, 'the stack snapshot, frame by frame');
  assert.deepEqual(after.stacks, before.stacks, 'the snapshot list');
  assert.deepEqual(after.profile.tree ?? after.profile, before.profile.tree ?? before.profile, 'the profile');
  assert.deepEqual(after.events, before.events, 'the event log');

  const detail = (await again.api('/api/sessions/1')).body;
  assert.equal(detail.stored.past, true, 'the detail says it was read from storage');
  assert.equal(detail.stored.load_error, null, 'and read without error');
  const detach = await post(again, '/api/sessions/1/detach');
  assert.ok(detach.status === 409 || detach.status === 410, `a past session refuses commands (${detach.status})`);
  assert.ok(detach.body.error, 'with a JSON error');

  const ws = await replayOverWebSocket((await again.api('/api/config')).body.ws_port, 1);
  assert.deepEqual(ws.map((e) => e.seq), before.events.map((e) => e.seq).slice(0, ws.length), 'the stream replays the stored events in order');
  assert.ok(ws.length >= Math.min(before.events.length, 1000), `the stream replays them (${ws.length})`);

  const del = await again.api('/api/sessions/1', { method: 'DELETE' });
  assert.equal(del.status, 200, `DELETE: ${JSON.stringify(del.body)}`);
  assert.equal((await again.api('/api/sessions/1')).status, 404, 'gone from the API');
  assert.equal((await again.api('/api/sessions/1', { method: 'DELETE' })).status, 404, 'a second DELETE: 404');
  await waitFor('the file forgets it', async () => (await again.api('/api/config')).body.storage.sessions_stored === 0, { timeoutMs: 30000 });
  await again.stop();
  const third = await startServer(['serve', '--port', '0', '--data', dir]);
  assert.deepEqual((await third.api('/api/sessions')).body.sessions, [], 'and from the file');
  await third.stop();
});

test('a live session cannot be deleted; a cross-site DELETE is refused', async () => {
  const { srv } = await runStackTarget();
  const live = await srv.api('/api/sessions/1', { method: 'DELETE' });
  assert.equal(live.status, 409, 'live: 409');
  assert.match(live.body.error, /live/);
  const cross = await srv.api('/api/sessions/1', { method: 'DELETE', headers: { Origin: 'http://evil.example' } });
  assert.equal(cross.status, 403, 'another origin: 403');
  assert.equal((await srv.api('/api/sessions/abc', { method: 'DELETE' })).status, 400, 'a bad id: 400');
  await srv.stop();
});

test('a data directory that cannot be used is a clear error with exit code 3', async () => {
  const corrupt = tempDataDir();
  fs.writeFileSync(path.join(corrupt, 'jitscope.db'), Buffer.alloc(16384, 0x5a));
  let r = runSync(JITSCOPE, ['serve', '--port', '0', '--data', corrupt], { timeout: 20000 });
  assert.equal(r.status, 3, `corrupt file: exit ${r.status} ${r.stderr}`);
  assert.match(r.stderr, /jitscope\.db.*(not a database|corrupt)/);

  const held = tempDataDir();
  const first = await startServer(['serve', '--port', '0', '--data', held]);
  r = runSync(JITSCOPE, ['serve', '--port', '0', '--data', held], { timeout: 20000 });
  assert.equal(r.status, 3, `second server on the same directory: exit ${r.status}`);
  assert.match(r.stderr, new RegExp(`another jitscope server \\(pid ${first.proc.pid}\\)`));
  await first.stop();

  // 509 bytes: room for the directory, not for "/jitscope.db" after it (never a truncated path)
  let deep = tempDataDir();
  while (deep.length < 505) deep = path.join(deep, 'd'.repeat(Math.min(99, 504 - deep.length)));
  assert.ok(deep.length >= 500 && deep.length < 512, `a ${deep.length}-byte path`);
  r = runSync(JITSCOPE, ['serve', '--port', '0', '--data', deep], { timeout: 20000 });
  assert.equal(r.status, 3, `a data path too long: exit ${r.status}`);
  assert.match(r.stderr, /path is longer than/);

  // the compaction bound (docs/STORAGE.md) is a number of bytes, or the server does not start
  for (const bad of ['64M', '-1', '']) {
    r = runSync(JITSCOPE, ['serve', '--port', '0', '--data', tempDataDir()],
      { timeout: 20000, env: { ...process.env, JITSCOPE_COMPACT_MIN: bad } });
    assert.equal(r.status, 3, `JITSCOPE_COMPACT_MIN=${bad}: exit ${r.status} ${r.stderr}`);
    assert.match(r.stderr, /JITSCOPE_COMPACT_MIN must be a number of bytes/);
  }

  // huge pages only when asked for (docs/STORAGE.md, "Huge pages"): 0 or 1, or the server does not start
  for (const bad of ['yes', '2']) {
    r = runSync(JITSCOPE, ['serve', '--port', '0', '--data', tempDataDir()],
      { timeout: 20000, env: { ...process.env, JITSCOPE_HUGEPAGES: bad } });
    assert.equal(r.status, 2, `JITSCOPE_HUGEPAGES=${bad}: exit ${r.status} ${r.stderr}`);
    assert.match(r.stderr, /JITSCOPE_HUGEPAGES must be 0 or 1, not '/);
  }

  for (const [args, msg] of [[['--keep', '0'], /--keep/], [['--keep', 'x'], /--keep/], [['--data', ''], /--data/],
    [['--rewrite-delay', '30'], /--rewrite-delay is no longer needed/]]) {
    r = runSync(JITSCOPE, ['serve', '--port', '0', ...args], { timeout: 20000 });
    assert.equal(r.status, 2, `${args.join(' ')}: usage error`);
    assert.match(r.stderr, msg);
  }
});

test('--data none writes nothing; the default directory follows XDG_STATE_HOME', async () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-xdg-'));
  try {
    const none = await startServer(['serve', '--port', '0', '--data', 'none'], { env: { XDG_STATE_HOME: state } });
    assert.equal((await none.api('/api/config')).body.storage.enabled, false, 'storage off');
    await none.stop();
    assert.deepEqual(fs.readdirSync(state), [], '--data none created nothing');
    for (const pid of ['0', '12x', '99999999999']) { // refused before any server or file is made
      const r = runSync(JITSCOPE, ['attach', pid, '--port', '0'], { env: { ...process.env, XDG_STATE_HOME: state }, timeout: 20000 });
      assert.equal(r.status, 2, `attach ${pid}: usage error`);
      assert.match(r.stderr, new RegExp(`'${pid}' is not a process id`));
    }
    // pid 1 is a process id: checked (not .NET, or not ours) before anything is made too
    const one = runSync(JITSCOPE, ['attach', '1', '--port', '0'], { env: { ...process.env, XDG_STATE_HOME: state }, timeout: 20000 });
    assert.equal(one.status, 1, one.stderr);
    assert.deepEqual(fs.readdirSync(state), [], 'a bad attach created nothing');

    // startServer would give it a directory of its own: spawn it by hand
    const { spawn } = await import('node:child_process');
    const proc = spawn(JITSCOPE, ['serve', '--port', '0'], { env: { ...process.env, XDG_STATE_HOME: state }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => { out += d; });
    await waitFor('the server URL', () => /dashboard at/.test(out), { timeoutMs: 30000 });
    const db = path.join(state, 'jitscope', 'jitscope.db');
    assert.ok(fs.existsSync(db), 'the default database is $XDG_STATE_HOME/jitscope/jitscope.db');
    assert.equal(fs.statSync(db).mode & 0o777, 0o600, 'private to its owner');
    assert.equal(fs.statSync(path.dirname(db)).mode & 0o777, 0o700, 'in a private directory');
    const port = Number(/127\.0\.0\.1:(\d+)\//.exec(out)[1]);
    const config = await (await fetch(`http://127.0.0.1:${port}/api/config`)).json();
    assert.equal(config.storage.enabled, true, 'storage on by default');
    assert.equal(config.storage.lost_bytes, 0, 'nothing lost');
    proc.kill('SIGTERM');
    await new Promise((resolve) => proc.on('exit', resolve));
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
});
