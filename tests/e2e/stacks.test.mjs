// stacks.test.mjs -- stack snapshots, the sampling profiler and the GC/suspension
// timeline against a real .NET process (tests/apps/StackTarget), in startup mode
// (`jitscope run`) and after attach. The app has threads with known stacks:
// "deep" parked under exactly 25 StackTarget.Deep.Recurse frames, "spinner" hot in
// StackTarget.Spin.Outer -> Spin.Inner, "sleeper" in Thread.Sleep.
// No fixed sleeps for conditions (everything is waited for with a deadline) and no
// assertion on how fast the machine is: a second `make test` may run alongside.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, STACK_DLL, startServer, stopAll, waitFor, runSync, agentTrace,
  agentLeft, serveAttached, detachAndWait, fetchChecked } from './lib.mjs';
import { STACK_READY, runStackTarget, startStackTarget } from './stacktarget.mjs';

after(stopAll);

const require = createRequire(path.join(ROOT, 'tests/package.json'));
const Ajv = require('ajv');
const SPEEDSCOPE_SCHEMA = JSON.parse(fs.readFileSync(
  require.resolve('speedscope/dist/release/file-format-schema.json'), 'utf8'));

const DEPTH = 25;
const RECURSE = 'StackTarget.Deep.Recurse';
const SPIN_TOP = ['StackTarget.Spin.Inner(ulong)', 'StackTarget.Spin.Outer()'];
const isSpinTop = (name) => SPIN_TOP.some((s) => name.startsWith(s));

// ---- helpers ----

const post = (srv, p, body) => srv.api(p, body === undefined ? { method: 'POST' } : {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

async function takeSnapshot(srv, id) {
  const r = await post(srv, `/api/sessions/${id}/stacks`);
  assert.equal(r.status, 201, `POST stacks: ${r.status} ${JSON.stringify(r.body)}`);
  assert.ok(r.body.snapshot && Array.isArray(r.body.snapshot.threads), JSON.stringify(r.body).slice(0, 500));
  return r.body.snapshot;
}

const byName = (snap, name) => {
  const ts = snap.threads.filter((t) => t.name === name);
  assert.equal(ts.length, 1, `exactly one thread named "${name}" in the snapshot (names: ${snap.threads.map((t) => t.name).join(', ')})`);
  return ts[0];
};

const E_FAIL = -2147467259; // 0x80004005, as the JSON's signed hresult
const showFrames = (t) => t.frames.map((f) => f.name).join(' <- ');

// The leaf-most managed frame of a leaf-first frame list.
const topManaged = (frames) => frames.find((f) => !f.native);

// Positions of the Recurse frames in a list of names (any order); checks there are
// exactly DEPTH of them and that they are consecutive. Returns [first, last].
function recurseRun(names, what) {
  const idx = names.flatMap((n, i) => (n.startsWith(RECURSE) ? [i] : []));
  assert.equal(idx.length, DEPTH, `${what}: ${DEPTH} Recurse frames (got ${idx.length}): ${names.join(' | ')}`);
  assert.equal(idx[DEPTH - 1] - idx[0], DEPTH - 1, `${what}: the Recurse frames are consecutive: ${names.join(' | ')}`);
  return [idx[0], idx[DEPTH - 1]];
}

// Everything a snapshot of StackTarget's known threads must show; `pid` for /proc checks.
function checkKnownStacks(snap, pid) {
  assert.equal(snap.hresult, 0, `snapshot hresult ${snap.hresult}`);
  assert.ok(snap.suspend_ns > 0, `suspend_ns ${snap.suspend_ns}`);
  assert.ok(snap.walk_ns > 0, `walk_ns ${snap.walk_ns}`);
  assert.equal(snap.complete, true, 'no thread record lost');
  assert.ok(Number.isInteger(snap.id) && snap.id >= 1);
  assert.ok(snap.time_ms > 1.6e12, `time_ms ${snap.time_ms}`);
  assert.ok(snap.threads.length >= 4 && snap.threads_total >= snap.threads.length,
    `threads ${snap.threads.length} of ${snap.threads_total}`);
  for (const t of snap.threads) {
    assert.ok('hresult' in t && Number.isInteger(t.hresult), `thread ${t.thread_id} has an hresult: ${JSON.stringify(t).slice(0, 300)}`);
    assert.match(t.thread_id, /^0x[0-9a-f]+$/);
    assert.ok(Array.isArray(t.frames));
    if (t.hresult !== 0) assert.equal(t.frames.length, 0, 'a failed walk has no frames');
    // E_FAIL without a frame: the runtime found no managed frame, the thread is in native code
    assert.equal(t.native_only, t.frames.length === 0 && !t.truncated && (t.hresult === 0 || t.hresult === E_FAIL),
      `native_only says whether the thread was in native code only: ${JSON.stringify(t).slice(0, 300)}`);
    for (const f of t.frames) {
      assert.match(f.ip, /^0x[0-9a-f]+$/, `frame ip ${f.ip}`);
      if (f.native) {
        assert.equal(f.function_id, null);
        assert.equal(f.name, '[native]');
      } else {
        assert.match(f.function_id || '', /^0x[0-9a-f]+$/, `managed frame has a FunctionID: ${JSON.stringify(f)}`);
        assert.ok(f.name && !/unknown/i.test(f.name), `managed frame has a real name: ${JSON.stringify(f)}`);
      }
    }
  }
  // the runtime's finalizer waits in native code: no failure (or, running finalizers, walked)
  const finalizer = snap.threads.find((t) => t.name === '.NET Finalizer');
  assert.ok(finalizer && (finalizer.native_only ? finalizer.hresult === E_FAIL : finalizer.hresult === 0),
    `the finalizer: in native code (E_FAIL, native_only) or walked: ${JSON.stringify(finalizer)}`);
  for (const name of ['deep', 'spinner', 'sleeper']) {
    const t = byName(snap, name);
    assert.equal(t.hresult, 0, `${name} walked`);
    assert.equal(t.truncated, false);
    assert.ok(t.os_thread_id > 0, `${name} has its OS thread id`);
    assert.equal(fs.readFileSync(`/proc/${pid}/task/${t.os_thread_id}/comm`, 'utf8').trim(), name,
      `os_thread_id ${t.os_thread_id} is the OS thread named ${name}`);
  }

  // deep: leaf first: ...System.Threading wait... <- Deep.Park <- Recurse x25 <- Deep.Run <- ...Thread.StartCallback
  const deep = byName(snap, 'deep');
  const names = deep.frames.map((f) => f.name);
  const [first, last] = recurseRun(names, 'deep thread');
  assert.equal(names[first - 1], 'StackTarget.Deep.Park()', `leaf side of the recursion: ${showFrames(deep)}`);
  assert.equal(names[last + 1], 'StackTarget.Deep.Run()', `root side of the recursion: ${showFrames(deep)}`);
  for (const f of deep.frames.slice(first, last + 1)) {
    assert.equal(f.native, false);
    assert.equal(f.module, 'StackTarget');
  }
  // framework code (ReadyToRun in System.Private.CoreLib) on both sides has real names
  assert.ok(names.slice(0, first - 1).some((n) => n.startsWith('System.Threading.')),
    `the wait above Deep.Park is named (System.Threading.*): ${showFrames(deep)}`);
  assert.ok(names.slice(last + 2).some((n) => n.startsWith('System.Threading.')),
    `the thread start below Deep.Run is named (System.Threading.*): ${showFrames(deep)}`);
  const deepIds = new Set(deep.frames.slice(first, last + 1).map((f) => f.function_id));
  assert.equal(deepIds.size, 1, 'all Recurse frames are the same function');

  const spinner = byName(snap, 'spinner');
  const top = topManaged(spinner.frames);
  assert.ok(top && isSpinTop(top.name), `spinner's top managed frame is Spin.Inner/Outer: ${showFrames(spinner)}`);
  assert.ok(spinner.frames.some((f) => f.name === 'StackTarget.Spin.Run()'), showFrames(spinner));

  const sleeper = byName(snap, 'sleeper');
  const sn = sleeper.frames.map((f) => f.name);
  const run = sn.indexOf('StackTarget.Sleeper.Run()');
  assert.ok(run > 0, `sleeper: Sleeper.Run with frames above it: ${showFrames(sleeper)}`);
  assert.ok(sn.slice(0, run).some((n) => n.startsWith('System.Threading.Thread.Sleep')),
    `sleeper: Thread.Sleep above Sleeper.Run: ${showFrames(sleeper)}`);
}

// Text format, listing and GET of one snapshot agree with the snapshot the POST returned.
async function checkSnapshotViews(srv, id, snap) {
  const one = await srv.api(`/api/sessions/${id}/stacks/${snap.id}`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.snapshot, snap, 'GET stacks/{n} returns what POST returned');

  const res = await fetchChecked(`${srv.url}/api/sessions/${id}/stacks/${snap.id}?format=text`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/plain/);
  const text = await res.text();
  const lines = text.split('\n');
  const headers = lines.flatMap((l, i) => {
    const m = /^Thread (0x[0-9a-f]+) \(os (\d+)\)(?: "(.*)")?\s*$/.exec(l);
    return m ? [{ i, thread_id: m[1], os: Number(m[2]), name: m[3] }] : [];
  });
  assert.equal(headers.length, snap.threads.length, `one block per thread:\n${text.slice(0, 2000)}`);
  for (const t of snap.threads) {
    const h = headers.find((x) => x.thread_id === t.thread_id);
    assert.ok(h, `block for ${t.thread_id}`);
    assert.equal(h.os, t.os_thread_id);
    if (t.name) assert.equal(h.name, t.name);
    const end = headers.find((x) => x.i > h.i)?.i ?? lines.length;
    const body = lines.slice(h.i + 1, end).filter((l) => l.trim() !== '');
    assert.ok(body.every((l) => /^\s+\S/.test(l)), `frames are indented: ${body.slice(0, 3).join(' | ')}`);
    if (t.frames.length > 0) assert.equal(body.length, t.frames.length, `one line per frame for ${t.name || t.thread_id}`);
    if (t.name === 'deep') {
      recurseRun(body.map((l) => l.trim()), 'text block of "deep"');
      assert.ok(body.some((l) => l.trim().startsWith('StackTarget.Deep.Park()')));
    }
  }

  const list = await srv.api(`/api/sessions/${id}/stacks`);
  assert.equal(list.status, 200);
  const entry = list.body.snapshots.find((s) => s.id === snap.id);
  assert.ok(entry, `GET stacks lists snapshot ${snap.id}: ${JSON.stringify(list.body).slice(0, 300)}`);
  assert.equal(entry.threads, snap.threads.length);
  assert.equal(entry.frames, snap.threads.reduce((n, t) => n + t.frames.length, 0));
  assert.equal(entry.suspend_ns, snap.suspend_ns);
  assert.equal(entry.time_ms, snap.time_ms);
}

// Sum of `self` over the nodes of a profile tree whose top managed frame satisfies pred
// (a [native] node counts for its managed parent).
function selfByTop(node, parentManaged = null, acc = { total: 0, hit: 0 }) {
  const managed = node.name === '[native]' ? parentManaged : node.name;
  if (node.self > 0) {
    acc.total += node.self;
    if (managed && isSpinTop(managed)) acc.hit += node.self;
  }
  for (const c of node.children) selfByTop(c, managed, acc);
  return acc;
}

function checkTreeSums(node) {
  const kids = node.children.reduce((n, c) => n + c.value, 0);
  assert.equal(node.value, node.self + kids, `node ${node.name}: value = self + children`);
  node.children.forEach(checkTreeSums);
}

async function timeline(srv, id, q = '') {
  const r = await srv.api(`/api/sessions/${id}/timeline${q}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

// ---- tests ----

test('run: a snapshot shows "deep" under 25 Recurse frames, real names, text format, listing', async () => {
  const { srv } = await runStackTarget();
  const pid = (await srv.api('/api/sessions/1')).body.pid;
  const snap = await takeSnapshot(srv, 1);
  checkKnownStacks(snap, pid);
  await checkSnapshotViews(srv, 1, snap);
  const again = await takeSnapshot(srv, 1);
  assert.ok(again.id > snap.id, 'snapshot ids increase');
  checkKnownStacks(again, pid);
  const list = (await srv.api('/api/sessions/1/stacks')).body.snapshots.map((s) => s.id);
  assert.deepEqual(list.slice(-2), [snap.id, again.id], 'newest last');
  const events = (await srv.api('/api/sessions/1/events?limit=10000')).body.events.filter((e) => e.type === 'stack_snapshot');
  assert.deepEqual(events.map((e) => e.snapshot_id), [snap.id, again.id], 'one stack_snapshot event per snapshot');
  assert.equal(events[0].threads, snap.threads.length);
  assert.equal(events[0].suspend_ns, snap.suspend_ns);
  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  const out = srv.stdout.split('\n');
  for (const l of ['deep 325', 'spinner stopped', 'sleeper woke', 'bye']) assert.ok(out.includes(l), `app printed "${l}"`);
  assert.equal((await srv.api('/api/sessions/1')).body.exit_code, 0);
  await srv.stop();
});

test('attach: the same snapshot checks, and GCs after attach reach the timeline', async () => {
  const target = await startStackTarget();
  const { srv, id } = await serveAttached(target.pid);
  const snap = await takeSnapshot(srv, id);
  checkKnownStacks(snap, target.pid);
  await checkSnapshotViews(srv, id, snap);

  target.send('gc');
  await target.waitLine(/^gc done 1$/m, 30000);
  const tl = await waitFor('induced GCs after attach', async () => {
    const t = await timeline(srv, id);
    return t.gcs.filter((g) => g.reason === 'induced').length >= 3 && t;
  }, { timeoutMs: 30000 });
  const induced = tl.gcs.filter((g) => g.reason === 'induced');
  assert.ok(induced.some((g) => g.generations.includes(2)), JSON.stringify(induced));
  assert.ok(tl.suspensions.some((s) => s.reason === 'profiler' && s.by_jitscope === true), 'our snapshot is a suspension');
  await detachAndWait(srv, id);
  target.send('exit');
  await target.waitLine(/^bye$/m, 30000);
  assert.match(target.out, /^deep 325$/m);
  await srv.stop();
});

test('profile at 99 Hz: spinner on top, tree sums, folded root first, speedscope valid against its schema', async () => {
  const { srv } = await runStackTarget();
  const bad = [{ hz: 0 }, { hz: 1001 }, { hz: 'fast' }, '{not json'];
  for (const b of bad) {
    const r = await post(srv, '/api/sessions/1/profile', b);
    assert.equal(r.status, 400, `bad body ${JSON.stringify(b)}: ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(typeof r.body.error, 'string');
  }
  const t0 = Date.now();
  const start = await post(srv, '/api/sessions/1/profile', { hz: 99 });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  assert.equal(start.body.profile.requested_hz, 99);
  assert.equal(start.body.profile.budget_pct, 2);
  const busy = await post(srv, '/api/sessions/1/profile', { hz: 99 });
  assert.equal(busy.status, 429, 'a second profile while one runs');

  // at least ~2 s of sampling and enough spinner samples to judge
  const q = '/api/sessions/1/profile?format=json&thread=spinner';
  await waitFor('2 s and 20 spinner samples', async () => {
    const p = (await srv.api(q)).body;
    return Date.now() - t0 >= 2000 && p.threads?.[0]?.samples >= 20;
  }, { timeoutMs: 60000, everyMs: 200 });
  const stop = await post(srv, '/api/sessions/1/profile/stop');
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const st = stop.body.profile;
  assert.equal(st.state, 'stopped');
  assert.equal((await post(srv, '/api/sessions/1/profile/stop')).status, 409, 'nothing to stop');
  // samples taken before the agent saw the stop may still arrive; its STOPPED record comes after them
  await waitFor('the agent\'s stop', async () => (await srv.api('/api/sessions/1/events?limit=10000')).body.events
    .some((e) => e.type === 'profile' && e.change === 'stopped' && e.requested_hz === 99), { timeoutMs: 30000, everyMs: 100 });
  assert.ok(st.samples > 0 && st.thread_samples >= st.samples, JSON.stringify(st));
  assert.ok(st.effective_hz > 0 && st.effective_hz <= 99, `effective ${st.effective_hz} Hz`);
  assert.ok(st.suspended_ns_total > 0 && st.suspend_ns_p50 > 0 && st.suspend_ns_max >= st.suspend_ns_p50, JSON.stringify(st));
  assert.ok(st.stopped_ms > st.started_ms, JSON.stringify(st));

  // JSON, spinner only
  const pj = (await srv.api(q)).body;
  assert.equal(pj.threads.length, 1, JSON.stringify(pj.threads));
  assert.equal(pj.threads[0].name, 'spinner');
  const spinSamples = pj.threads[0].samples;
  assert.equal(pj.tree.name, 'all');
  assert.equal(pj.tree.value, spinSamples, 'root value = the spinner\'s samples');
  checkTreeSums(pj.tree);
  const tops = selfByTop(pj.tree);
  assert.equal(tops.total, spinSamples, 'every sample ends somewhere');
  assert.ok(tops.hit >= 0.9 * tops.total, `Spin.Inner/Outer on top in ${tops.hit} of ${tops.total} spinner samples`);
  assert.ok(Array.isArray(pj.timeline) && pj.timeline.reduce((n, x) => n + x.samples, 0) === spinSamples,
    'the per-second timeline adds up to the samples');

  // folded, spinner only: root first, "frames count"
  const folded = (await srv.api('/api/sessions/1/profile?format=folded&thread=spinner')).body;
  assert.equal(typeof folded, 'string');
  let sum = 0, unwalked = 0;
  for (const line of folded.split('\n').filter(Boolean)) {
    const m = /^(\S.*) (\d+)$/.exec(line);
    assert.ok(m, `folded line "frames count": ${line}`);
    sum += Number(m[2]);
    const frames = m[1].split(';');
    assert.ok(frames.every((f) => f.length > 0), line);
    // a sample whose walk found no frame is shown as such, never as a guess
    // (seen once in a loaded run: the thread stopped where the runtime cannot
    // walk from); it stays rare: counted below
    if (m[1] === '[unknown]') { unwalked += Number(m[2]); continue; }
    const run = frames.indexOf('StackTarget.Spin.Run()'), outer = frames.indexOf('StackTarget.Spin.Outer()');
    const inner = frames.indexOf('StackTarget.Spin.Inner(ulong)');
    assert.ok(run >= 0 && outer > run, `root first: Spin.Run before Spin.Outer: ${line}`);
    if (inner >= 0) assert.ok(inner > outer, `root first: Spin.Outer before Spin.Inner: ${line}`);
  }
  assert.equal(sum, spinSamples, 'folded counts add up to the spinner\'s samples');
  assert.ok(unwalked <= Math.max(1, 0.02 * spinSamples), `${unwalked} of ${spinSamples} spinner samples without a frame`);

  // folded, all threads: the deep thread, root first
  const all = (await srv.api('/api/sessions/1/profile?format=folded')).body;
  const deepLines = all.split('\n').filter((l) => l.includes(RECURSE));
  assert.ok(deepLines.length >= 1, 'the deep thread was sampled');
  for (const l of deepLines) {
    const frames = /^(.*) \d+$/.exec(l)[1].split(';');
    const [first, last] = recurseRun(frames, 'folded deep stack');
    assert.equal(frames[first - 1], 'StackTarget.Deep.Run()', `root first: ${l}`);
    assert.equal(frames[last + 1], 'StackTarget.Deep.Park()', `root first: ${l}`);
  }

  // speedscope
  const res = await fetchChecked(`${srv.url}/api/sessions/1/profile?format=speedscope`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-disposition') || '', /attachment/);
  const file = JSON.parse(await res.text());
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(SPEEDSCOPE_SCHEMA);
  assert.ok(validate(file), `speedscope schema: ${ajv.errorsText(validate.errors)}`);
  const frames = file.shared.frames;
  assert.ok(file.profiles.length >= 3, `one profile per thread (${file.profiles.length})`);
  for (const p of file.profiles) {
    assert.equal(p.type, 'sampled');
    assert.equal(p.samples.length, p.weights.length, p.name);
    assert.ok(p.weights.every((w) => w > 0), `${p.name}: positive weights`);
    assert.ok(p.endValue >= p.startValue, p.name);
    for (const s of p.samples) assert.ok(s.every((i) => Number.isInteger(i) && i >= 0 && i < frames.length), `${p.name}: frame index in range`);
  }
  const sp = file.profiles.filter((p) => p.name.includes('spinner'));
  assert.equal(sp.length, 1, `a profile for the spinner: ${file.profiles.map((p) => p.name).join(', ')}`);
  let hit = 0, total = 0;
  sp[0].samples.forEach((s, k) => {
    const names = s.map((i) => frames[i].name).filter((n) => n !== '[native]');
    total += sp[0].weights[k];
    if (isSpinTop(names[names.length - 1])) hit += sp[0].weights[k]; // root first: the leaf is last
  });
  assert.ok(total > 0 && hit >= 0.9 * total, `speedscope: Spin.Inner/Outer is the leaf in ${hit} of ${total}`);
  const dp = file.profiles.filter((p) => p.name.includes('deep'));
  assert.equal(dp.length, 1);
  const dnames = dp[0].samples[0].map((i) => frames[i].name);
  const [df] = recurseRun(dnames, 'speedscope deep stack');
  assert.equal(dnames[df - 1], 'StackTarget.Deep.Run()', 'speedscope stacks are root first');

  // our samples are suspensions in the timeline
  const tl = await timeline(srv, 1);
  const ours = tl.suspensions.filter((s) => s.reason === 'profiler' && s.by_jitscope && !s.aborted);
  assert.ok(ours.length >= st.samples, `${ours.length} profiler suspensions for ${st.samples} samples`);

  // the 2% budget: 1000 Hz would keep this app suspended far more than 2% of the time (each
  // suspension and walk of its threads costs well over the 20 us that 2% of 1 ms allows), so
  // the agent lowers the rate and says so, while it samples on
  const fast = await post(srv, '/api/sessions/1/profile', { hz: 1000 });
  assert.equal(fast.status, 202, 'a new profile after the stop');
  const lowered = await waitFor('the rate lowered by the budget', async () => {
    const p = (await srv.api('/api/sessions/1/profile')).body.profile;
    return p.samples >= 10 && p.effective_hz < 1000 && p;
  }, { timeoutMs: 60000, everyMs: 100 });
  assert.equal(lowered.requested_hz, 1000);
  assert.equal(lowered.state, 'running');
  assert.ok(lowered.effective_hz > 0);
  // the agent reports rate changes at most twice a second, so the event may come a little later
  const rateEvent = await waitFor('a profile event with the lowered rate', async () => {
    const ev = (await srv.api('/api/sessions/1/events?limit=10000')).body.events;
    return ev.find((e) => e.type === 'profile' && e.change === 'rate' && e.requested_hz === 1000 && e.effective_hz < 1000);
  }, { timeoutMs: 30000, everyMs: 100 });
  assert.equal(rateEvent.state, 'running');
  assert.equal((await post(srv, '/api/sessions/1/profile/stop')).status, 200);
  await srv.stop();
});

test('timeline: induced GCs with their generations, and our snapshots as profiler suspensions', async () => {
  const { srv } = await runStackTarget();
  const snaps = [await takeSnapshot(srv, 1), await takeSnapshot(srv, 1)];
  // a clear gap between the snapshots and the GCs, to split the timeline by time
  const mid = Date.now() + 100;
  await waitFor('the gap', () => Date.now() > mid + 100, { timeoutMs: 5000, everyMs: 20 });
  srv.proc.stdin.write('gc\n');
  await waitFor('gc done', () => /^gc done 1$/m.test(srv.stdout), { timeoutMs: 30000 });
  const tl = await waitFor('three induced GCs', async () => {
    const t = await timeline(srv, 1);
    return t.gcs.filter((g) => g.reason === 'induced').length >= 3 && t;
  }, { timeoutMs: 30000 });
  const induced = tl.gcs.filter((g) => g.reason === 'induced');
  assert.equal(induced.length, 3, JSON.stringify(tl.gcs));
  induced.sort((a, b) => a.start_ms - b.start_ms);
  assert.deepEqual(induced[0].generations, [0], 'GC.Collect(0)');
  assert.deepEqual(induced[1].generations, [0, 1], 'GC.Collect(1)');
  assert.ok([0, 1, 2].every((g) => induced[2].generations.includes(g)), `GC.Collect(2): ${induced[2].generations}`);
  for (const g of induced) {
    assert.ok(g.duration_ns > 0 && g.complete === true, JSON.stringify(g));
    assert.ok(g.start_ms > mid, 'the GCs came after the gap');
  }
  const gcSusp = tl.suspensions.filter((s) => s.reason === 'gc');
  assert.ok(gcSusp.length >= 3, `a suspension per GC: ${JSON.stringify(tl.suspensions)}`);
  assert.ok(gcSusp.every((s) => s.by_jitscope === false && s.duration_ns > 0));
  const ours = tl.suspensions.filter((s) => s.reason === 'profiler' && !s.aborted);
  assert.equal(ours.length, snaps.length, `one profiler suspension per snapshot: ${JSON.stringify(tl.suspensions)}`);
  assert.ok(ours.every((s) => s.by_jitscope === true && s.duration_ns > 0));
  assert.ok(ours.every((s) => s.start_ms < mid), 'our suspensions came before the gap');
  assert.deepEqual(tl.evicted, { gcs: 0, suspensions: 0, heap: 0 });

  // time filters split at the gap
  const before = await timeline(srv, 1, `?to_ms=${mid}`);
  assert.equal(before.gcs.filter((g) => g.reason === 'induced').length, 0);
  assert.equal(before.suspensions.filter((s) => s.reason === 'profiler').length, snaps.length);
  const afterGap = await timeline(srv, 1, `?from_ms=${mid}`);
  assert.equal(afterGap.gcs.filter((g) => g.reason === 'induced').length, 3);
  assert.equal(afterGap.suspensions.filter((s) => s.reason === 'profiler').length, 0);
  await srv.stop();
});

test('1000 snapshots in a row during churn (JIT, GCs, threads): all 201, the app prints what it prints alone', { timeout: 600000 }, async () => {
  const plain = runSync('dotnet', [STACK_DLL, 'churn'], { input: 'finish\n', timeout: 120000 });
  assert.equal(plain.status, 0, plain.stderr);
  const strip = (out) => out.split('\n').filter((l) => !STACK_READY.test(l) && !l.startsWith('jitscope: ')).join('\n');
  const expected = strip(plain.stdout);
  assert.match(expected, /^churn phase-a methods 8400 checksum [0-9a-f]{16}$/m);
  assert.match(expected, /^churn phase-b value [0-9a-f]{16} consistent$/m);

  const { srv } = await runStackTarget({ appArgs: ['churn'] });
  const pid = (await srv.api('/api/sessions/1')).body.pid;
  const N = 1000;
  const failures = [];
  let lastId = 0, deepOk = 0, complete = 0;
  const t0 = Date.now();
  for (let i = 0; i < N; i++) {
    // a hang shows up as a failure, not as a stuck test
    const r = await srv.api('/api/sessions/1/stacks', { method: 'POST', signal: AbortSignal.timeout(30000) });
    if (r.status !== 201) { failures.push(`#${i}: ${r.status} ${JSON.stringify(r.body)}`); continue; }
    const s = r.body.snapshot;
    assert.ok(s.id > lastId, 'ids increase');
    lastId = s.id;
    if (s.complete) complete++;
    const deep = s.threads.find((t) => t.name === 'deep');
    if (s.hresult === 0 && deep && deep.frames.filter((f) => f.name.startsWith(RECURSE)).length === DEPTH) deepOk++;
    else if (failures.length < 5) failures.push(`#${i}: hresult ${s.hresult}, deep: ${deep ? showFrames(deep) : 'missing'}`);
  }
  console.log(`1000 snapshots during churn in ${Date.now() - t0} ms`);
  assert.deepEqual(failures, [], 'every snapshot answered 201 with the deep thread intact');
  assert.equal(deepOk, N);
  assert.equal(complete, N, 'no snapshot lost thread records');
  const s = (await srv.api('/api/sessions/1')).body;
  assert.equal(s.state, 'live', 'the app is still running');
  assert.ok(fs.existsSync(`/proc/${pid}`));
  const list = (await srv.api('/api/sessions/1/stacks')).body.snapshots;
  assert.equal(list.length, 64, 'the newest 64 are kept');
  assert.equal(list[list.length - 1].id, lastId);
  const tl = await timeline(srv, 1);
  assert.ok(tl.gcs.filter((g) => g.reason === 'induced').length > 0, 'the churn GCs are in the timeline');
  assert.deepEqual(tl.evicted, { gcs: 0, suspensions: 0, heap: 0 });
  assert.equal(tl.suspensions.filter((x) => x.reason === 'profiler' && !x.aborted).length, N,
    'one profiler suspension per snapshot');

  srv.proc.stdin.write('finish\n');
  const end = await waitFor('app exit', async () => {
    const b = (await srv.api('/api/sessions/1')).body;
    return b.state === 'exited' && b;
  }, { timeoutMs: 120000 });
  assert.equal(end.exit_code, 0);
  assert.equal(strip(srv.stdout), expected, 'same output as without jitscope');
  // every collection suspends the runtime (a background GC even twice); read once the app is
  // gone, so no collection is between its end and its resume
  const last = await timeline(srv, 1);
  const gcSusp = last.suspensions.filter((x) => x.reason === 'gc' || x.reason === 'gc_prep').length;
  assert.ok(gcSusp >= last.gcs.length, `${gcSusp} GC suspensions for ${last.gcs.length} GCs`);
  assert.equal(last.suspensions.filter((x) => x.reason === 'profiler' && !x.aborted).length, N);
  await srv.stop();
});

test('detach while sampling at 199 Hz: detached, no library, no thread, no socket left', async () => {
  const target = await startStackTarget();
  const before = agentTrace(target.pid);
  const { srv, id } = await serveAttached(target.pid);
  const start = await post(srv, `/api/sessions/${id}/profile`, { hz: 199 });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  // sampling under way: the agent's 2% budget lowers 199 Hz as far as each suspension costs, and a
  // loaded machine stretches them (down to the 0.1 Hz floor: 2 samples within 20 s)
  await waitFor('sampling', async () => (await srv.api(`/api/sessions/${id}/profile`)).body.profile.samples >= 2, { timeoutMs: 60000 });
  assert.equal((await srv.api(`/api/sessions/${id}/profile`)).body.profile.state, 'running');

  const s = await detachAndWait(srv, id);
  assert.equal(s.state, 'detached');
  await agentLeft(target.pid, before, 30000);
  const p = await srv.api(`/api/sessions/${id}/profile`);
  assert.equal(p.status, 200, 'the profile stays readable');
  assert.equal(p.body.profile.state, 'stopped');
  assert.ok(p.body.profile.samples >= 2);
  for (const [route, body] of [['stacks', undefined], ['profile', { hz: 49 }]]) {
    const x = await post(srv, `/api/sessions/${id}/${route}`, body);
    assert.equal(x.status, 409, `${route} on a detached session: ${x.status}`);
    assert.equal(typeof x.body.error, 'string');
  }
  // the app runs on and its threads come back intact
  target.send('tick');
  await target.waitLine(/^tock 1$/m);
  target.send('exit');
  await target.waitLine(/^bye$/m, 30000);
  assert.match(target.out, /^deep 325$/m);
  assert.match(target.out, /^sleeper woke$/m);
  await srv.stop();
});

test('stacks and profile of an exited session: 409 with a JSON error', async () => {
  const { srv } = await runStackTarget();
  srv.proc.stdin.write('exit\n');
  await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  for (const [route, body] of [['stacks', undefined], ['profile', { hz: 49 }], ['profile/stop', undefined]]) {
    const r = await post(srv, `/api/sessions/1/${route}`, body);
    assert.equal(r.status, 409, `${route}: ${r.status} ${JSON.stringify(r.body)}`);
    assert.match(r.headers.get('content-type') || '', /application\/json/);
    assert.ok(typeof r.body.error === 'string' && r.body.error.length > 0, JSON.stringify(r.body));
  }
  await srv.stop();
});

test('timeline: suspension records that interleave (a GC\'s resume after our start, and ours after a GC\'s start) pair by reason', async () => {
  const agent = path.join(ROOT, 'tests/e2e/fake_timeline_agent.mjs');
  const srv = await startServer(['run', '--port', '0', '--', process.execPath, agent]);
  const tl = await waitFor('the closing GC', async () => {
    const t = await timeline(srv, 1);
    return t.gcs.some((g) => g.reason === 'induced') && t;
  }, { timeoutMs: 30000 });
  const got = tl.suspensions.map((x) => ({ reason: x.reason, by_jitscope: x.by_jitscope, aborted: x.aborted,
    duration_ms: Math.round(x.duration_ns / 1e5) / 10 }));
  assert.deepEqual(got, [
    { reason: 'gc', by_jitscope: false, aborted: false, duration_ms: 4 },
    { reason: 'profiler', by_jitscope: true, aborted: false, duration_ms: 4 },
    { reason: 'profiler', by_jitscope: true, aborted: false, duration_ms: 4 },
    { reason: 'gc', by_jitscope: false, aborted: false, duration_ms: 4 },
  ], `suspensions as the agent reported them: ${JSON.stringify(tl.suspensions)}`);
  const starts = tl.suspensions.map((x) => x.start_ms - tl.suspensions[0].start_ms);
  assert.deepEqual(starts.map((x) => Math.round(x)), [0, 3, 10, 13], 'each keeps its own start');
  assert.deepEqual(tl.gcs.map((g) => [g.generations, g.reason, Math.round(g.duration_ns / 1e5) / 10]), [[[0], 'induced', 1]]);
  await srv.stop();
});
