// threads.test.mjs -- thread identity when the runtime reuses ThreadIDs. E2eTarget's
// "threads" mode starts 300 named threads, a few at a time, with collections in
// between, so that later threads get the ThreadIDs of earlier ones (the runtime's
// ThreadID is the address of its thread object, freed once the managed Thread was
// finalized). The app prints each thread's name and kernel thread id. Every thread
// it started must be exactly one row of the session's threads, with its own name
// and kernel id; the one method each thread JIT-compiled, and the thread events,
// must name that row (thread_key). In startup mode (`jitscope run`) and after
// attach, live and again after a server restart from storage (--data). In startup
// mode the runtime's own threads (".NET Finalizer", the tiered compilation worker)
// are named as after an attach, and a stack snapshot carries every thread's name.
// The startup-mode identity checks run on .NET 8 and 9 too (the self-contained apps of
// `make apps-runtimes`). Nothing waits a fixed time: every condition is waited for
// with a deadline.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { E2E_DLL, RUNTIME_APPS, startServer, startTarget, attach, detachAndWait, stopAll, waitFor, functionsOf, storageCaughtUp, tempDataDir } from './lib.mjs';

after(stopAll);

const THREADS = 300;
const BATCH = 5;
const READY = /^READY pid=(\d+)$/m;

// What the app printed: [{ i, name, tid }] for every thread it started.
function appThreads(out) {
  const list = [...out.matchAll(/^thread (\d+) (\S+) (\d+)$/gm)].map((m) => ({ i: Number(m[1]), name: m[2], tid: Number(m[3]) }));
  assert.equal(list.length, THREADS, `the app reported ${THREADS} threads`);
  assert.equal(new Set(list.map((t) => t.tid)).size, THREADS, 'with distinct kernel thread ids');
  return list;
}

const getOk = async (srv, p) => {
  const r = await srv.api(p);
  assert.equal(r.status, 200, `${p}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  return r.body;
};

// Storm.Combo2<S<a>,S<b>> is thread a*30+b's own method (ThreadChurn.cs).
function churnIndexOf(name) {
  const m = /\.Combo2<[^,>]*S(\d\d),[^>]*S(\d\d)>/.exec(name || '');
  return m ? Number(m[1]) * 30 + Number(m[2]) : -1;
}

// Waits until the session has everything of the churn: the app compiles
// ThreadChurn.Done on its main thread after every thread's end, and the agent
// sends records in that order.
async function settled(srv, id) {
  await waitFor('the churn\'s last method (after every thread\'s end)',
    async () => (await functionsOf(srv, id, '&q=JitscopeE2e.ThreadChurn.Done')).length === 1, { timeoutMs: 60000 });
}

// Every check of thread identity, against one session as served now.
async function checkIdentity(srv, id, app, what) {
  const threads = (await getOk(srv, `/api/sessions/${id}/threads`)).threads;
  const rows = [];
  for (const a of app) {
    const mine = threads.filter((t) => t.os_thread_id === a.tid);
    assert.equal(mine.length, 1, `${what}: ${a.name} (kernel id ${a.tid}) is one row, not ${mine.length}: ${JSON.stringify(mine)}`);
    assert.equal(mine[0].name, a.name, `${what}: the row of kernel id ${a.tid} has its own name`);
    assert.equal(threads.filter((t) => t.name === a.name).length, 1, `${what}: one row named ${a.name}`);
    assert.ok(!mine[0].alive && mine[0].ended_ms >= mine[0].created_ms, `${what}: ${a.name} ended after it began`);
    rows.push(mine[0]);
  }
  const ids = new Set(rows.map((t) => t.thread_id));
  assert.ok(ids.size < THREADS, `${what}: the runtime reused ThreadIDs (${ids.size} distinct for ${THREADS} threads), or this test shows nothing`);
  console.log(`${what}: ${THREADS} threads on ${ids.size} ThreadIDs, ${threads.length} rows in all`);
  const byKey = new Map(threads.map((t) => [t.thread_key, t]));
  assert.equal(byKey.size, threads.length, `${what}: every row has its own thread_key`);
  threads.forEach((t, i) => assert.equal(t.thread_key, i, `${what}: thread_key is the row's position`));
  for (const t of rows) assert.equal(t.name_source, 'runtime', `${what}: ${t.name} is the name Thread.Name gave`);

  // each thread's own method names its row
  const functions = await functionsOf(srv, id, '&q=Combo2');
  let checked = 0;
  for (const f of functions) {
    const i = churnIndexOf(f.name);
    if (i < 0) continue;
    const row = byKey.get(f.thread_key);
    assert.ok(row, `${what}: ${f.name} has the thread_key of a row (${f.thread_key})`);
    assert.equal(row.name, app[i].name, `${what}: ${f.name} was compiled on ${app[i].name}`);
    assert.equal(row.thread_id, f.thread_id, `${what}: ${f.name}: thread_id is its row's`);
    checked++;
  }
  assert.equal(checked, THREADS, `${what}: every thread's method found`);

  // the thread events name their rows
  const events = (await getOk(srv, `/api/sessions/${id}/events?limit=10000`)).events
    .filter((e) => e.type.startsWith('thread_'));
  const tids = new Set(app.map((a) => a.tid));
  let mineEvents = 0;
  for (const e of events) {
    const row = byKey.get(e.thread_key);
    assert.ok(row, `${what}: ${e.type} ${e.thread_id} names a row`);
    assert.equal(row.thread_id, e.thread_id, `${what}: ${e.type}: the row has its ThreadID`);
    if (e.os_thread_id) assert.equal(row.os_thread_id, e.os_thread_id, `${what}: ${e.type}: the row has its OS id`);
    if (tids.has(row.os_thread_id)) mineEvents++;
  }
  assert.ok(mineEvents >= 2 * THREADS, `${what}: each app thread's start and end are logged (${mineEvents})`);
  return threads;
}

const post = (srv, p) => srv.api(p, { method: 'POST' });

// Stops the server once its writer has written everything, starts another on
// the same directory and returns it.
async function restart(srv, dir) {
  await storageCaughtUp(srv);
  await srv.stop();
  return startServer(['serve', '--port', '0', '--data', dir]);
}

test('run: 300 threads on reused ThreadIDs are 300 rows with their own names, kernel ids and methods, live and from storage', { timeout: 300000 }, async () => {
  const dir = tempDataDir();
  const srv = await startServer(['run', '--port', '0', '--data', dir, '--', 'dotnet', E2E_DLL, 'threads', String(THREADS), String(BATCH)]);
  await waitFor('E2eTarget READY', () => READY.test(srv.stdout), { timeoutMs: 60000 });
  await waitFor('live session', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
  srv.proc.stdin.write('go\n');
  await waitFor('the churn', () => /^churned \d+$/m.test(srv.stdout), { timeoutMs: 120000 });
  const app = appThreads(srv.stdout);
  await settled(srv, 1);
  const live = await checkIdentity(srv, 1, app, 'run, live');

  // the runtime's own threads are named (by the OS's name) as after an attach
  const finalizer = live.filter((t) => t.name === '.NET Finalizer');
  assert.equal(finalizer.length, 1, `the finalizer thread is named: ${JSON.stringify(live.filter((t) => !t.name || t.name_source === 'os'))}`);
  assert.equal(finalizer[0].name_source, 'os', 'by the OS');
  // methods called often enough are compiled again, optimised, by the runtime's
  // tiered compilation worker (the churn calls the same code 300 times)
  const tierUp = await waitFor('a tier-up by the tiered compilation worker', async () => {
    const fns = (await functionsOf(srv, 1)).filter((f) => /Tier1/.test(f.tier) && f.thread_key != null);
    const rows = (await getOk(srv, '/api/sessions/1/threads')).threads;
    const f = fns.find((x) => /^\.NET Tiered/.test(rows[x.thread_key].name || ''));
    return f && { f, row: rows[f.thread_key] };
  }, { timeoutMs: 60000 });
  assert.equal(tierUp.row.name_source, 'os', `${tierUp.f.name} was compiled at ${tierUp.f.tier} on "${tierUp.row.name}"`);

  // a snapshot names every thread it walked, and its rows
  const r = await post(srv, '/api/sessions/1/stacks');
  assert.equal(r.status, 201, `POST stacks: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  const snap = r.body.snapshot;
  const rows = (await getOk(srv, '/api/sessions/1/threads')).threads;
  assert.ok(snap.threads.length >= 2, `threads walked: ${snap.threads.length}`);
  for (const t of snap.threads) {
    assert.ok(t.name, `snapshot thread ${t.thread_id} (os ${t.os_thread_id}) has a name: ${JSON.stringify(snap.threads.map((x) => [x.os_thread_id, x.name]))}`);
    assert.equal(rows[t.thread_key].os_thread_id, t.os_thread_id, `snapshot thread ${t.name}: its thread_key is its row`);
    assert.equal(rows[t.thread_key].name, t.name, `snapshot thread ${t.name}: the row's name`);
  }
  assert.ok(snap.threads.some((t) => t.name === '.NET Finalizer'), 'the finalizer is in the snapshot, named');

  srv.proc.stdin.write('exit\n');
  await waitFor('session exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  const before = (await getOk(srv, '/api/sessions/1/threads')).threads;
  const again = await restart(srv, dir);
  const stored = await checkIdentity(again, 1, app, 'run, from storage');
  assert.deepEqual(stored.map((t) => [t.thread_key, t.thread_id, t.os_thread_id, t.name, t.name_source]),
    before.map((t) => [t.thread_key, t.thread_id, t.os_thread_id, t.name, t.name_source]), 'the same rows as live');
  const storedSnap = (await getOk(again, `/api/sessions/1/stacks/${snap.id}`)).snapshot;
  assert.deepEqual(storedSnap.threads.map((t) => [t.thread_key, t.name]), snap.threads.map((t) => [t.thread_key, t.name]),
    'the stored snapshot names the same rows');
});

test('attach: 300 threads on reused ThreadIDs are 300 rows with their own names, kernel ids and methods, live and from storage', { timeout: 300000 }, async () => {
  const dir = tempDataDir();
  const app = await startTarget(['threads', String(THREADS), String(BATCH)], { ready: READY });
  const srv = await startServer(['serve', '--port', '0', '--data', dir]);
  const a = await attach(srv, app.pid);
  assert.equal(a.status, 201, `attach: ${a.status} ${JSON.stringify(a.body)}`);
  const id = a.body.session.id;
  await waitFor('catch-up done', async () => (await srv.api(`/api/sessions/${id}`)).body.catchup?.count >= 1, { timeoutMs: 30000 });
  const caught = (await getOk(srv, `/api/sessions/${id}/threads`)).threads;
  assert.ok(caught.some((t) => t.name === '.NET Finalizer' && t.catchup), 'catch-up names the runtime\'s threads');

  app.send('go');
  await app.waitLine(/^churned \d+$/m, 120000);
  const threads = appThreads(app.out);
  await settled(srv, id);
  await checkIdentity(srv, id, threads, 'attach, live');

  await detachAndWait(srv, id);
  const before = (await getOk(srv, `/api/sessions/${id}/threads`)).threads;
  const again = await restart(srv, dir);
  const stored = await checkIdentity(again, id, threads, 'attach, from storage');
  assert.deepEqual(stored.map((t) => [t.thread_key, t.thread_id, t.os_thread_id, t.name, t.name_source]),
    before.map((t) => [t.thread_key, t.thread_id, t.os_thread_id, t.name, t.name_source]), 'the same rows as live');
  app.send('exit');
});

for (const app of Object.values(RUNTIME_APPS)) {
  const major = app.tfm.replace(/^net(\d+)\..*$/, '$1');
  test(`.NET ${major}, run: 300 threads on reused ThreadIDs are 300 rows with their own names, kernel ids and methods, live and from storage`, { timeout: 300000 }, async () => {
    const dir = tempDataDir();
    const srv = await startServer(['run', '--port', '0', '--data', dir, '--', app.e2e, 'threads', String(THREADS), String(BATCH)]);
    await waitFor('E2eTarget READY', () => READY.test(srv.stdout), { timeoutMs: 60000 });
    await waitFor('live session', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
    assert.match((await srv.api('/api/sessions/1')).body.runtime.version, new RegExp(`^${major}\\.`), `the app runs on .NET ${major}`);
    srv.proc.stdin.write('go\n');
    await waitFor('the churn', () => /^churned \d+$/m.test(srv.stdout), { timeoutMs: 120000 });
    const threads = appThreads(srv.stdout);
    await settled(srv, 1);
    const live = await checkIdentity(srv, 1, threads, `.NET ${major}, live`);
    assert.ok(live.some((t) => t.name === '.NET Finalizer' && t.name_source === 'os'), 'the finalizer is named');
    srv.proc.stdin.write('exit\n');
    await waitFor('session exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
    const before = (await getOk(srv, '/api/sessions/1/threads')).threads;
    const again = await restart(srv, dir);
    const stored = await checkIdentity(again, 1, threads, `.NET ${major}, from storage`);
    assert.deepEqual(stored.map((t) => [t.thread_key, t.thread_id, t.os_thread_id, t.name]),
      before.map((t) => [t.thread_key, t.thread_id, t.os_thread_id, t.name]), 'the same rows as live');
  });
}
