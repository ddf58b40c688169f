// cpuprofile.test.mjs -- CPU profiles (issue 28) against a real .NET process
// (tests/apps/StackTarget: "spinner" hot in StackTarget.Spin.Outer -> Spin.Inner,
// "deep" blocked under 25 Deep.Recurse frames): the server samples the target's
// threads with perf events and names the frames itself; the runtime is never
// suspended. In startup mode (`jitscope run`) and after attach; detach in the
// middle; the profile read back after a restart; pprof read by `go tool pprof`;
// an ASP.NET Core service (tests/apps/WebTarget) under load; and a server that
// may not use perf_event_open (a seccomp filter, as in a container) falling
// back to wall clock with the reason.
//
// Deterministic under load: a profile runs until the spinner has had enough CPU
// time (read from /proc), not for a fixed wall time, and counts are judged
// against that CPU time (the sampler takes one sample per 1/999 s of the
// thread's CPU time, whatever else the machine does).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { ROOT, BUILD, WEB_DLL, startServer, stopAll, waitFor, attach, serveAttached, detachAndWait, agentTrace, fetchChecked, tempDataDir, asanRuntime, threadOf, cpuSeconds, processCpuSeconds } from './lib.mjs';
import { runStackTarget, startStackTarget } from './stacktarget.mjs';
import { checkResponse } from './openapi.mjs';

after(stopAll);

const require = createRequire(path.join(ROOT, 'tests/package.json'));
const Ajv = require('ajv');
const SPEEDSCOPE_SCHEMA = JSON.parse(fs.readFileSync(
  require.resolve('speedscope/dist/release/file-format-schema.json'), 'utf8'));

const NOPERF = path.join(BUILD, 'tests/noperf');
const INNER = 'StackTarget.Spin.Inner(ulong)';
const HZ = 999;
const isLabel = (name) => name.startsWith('[');
const isNative = (name) => !name.includes('('); // managed names carry their parameter list

const post = (srv, p, body) => srv.api(p, body === undefined ? { method: 'POST' } : {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});


// The server's open perf events and its CPU sampler threads.
function serverPerf(pid) {
  const fds = fs.readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try { return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === 'anon_inode:[perf_event]'; } catch { return false; }
  }).length;
  const threads = fs.readdirSync(`/proc/${pid}/task`).filter((t) => {
    try { return fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim() === 'jitscope-cpu'; } catch { return false; }
  }).length;
  return { fds, threads };
}

// Leaf-most frame of a folded line that names a method (not a label, not native code).
function leafManaged(line) {
  const frames = /^(.*) \d+$/.exec(line)[1].split(';');
  for (let i = frames.length - 1; i >= 0; i--) if (!isLabel(frames[i]) && !isNative(frames[i])) return frames[i];
  return null;
}

// Runs a CPU profile at 999 Hz until the spinner had at least `cpu` s of CPU
// time and `wall` ms passed; returns what a test checks.
async function profileSpinner(srv, id, pid, { cpu = 1.6, wall = 3000 } = {}) {
  const spinner = threadOf(pid, 'spinner');
  const cfg = (await srv.api('/api/config')).body.cpu_profiling;
  assert.equal(cfg.available, true, `CPU profiles are not possible on this machine: ${cfg.reason}`);
  const cpu0 = cpuSeconds(pid, spinner);
  const t0 = Date.now();
  const start = await post(srv, `/api/sessions/${id}/profile`, { hz: HZ, mode: 'cpu' });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  const st0 = start.body.profile;
  assert.equal(st0.mode, 'cpu');
  assert.equal(st0.fallback, null);
  assert.equal(st0.state, 'running');
  assert.equal(st0.requested_hz, HZ);
  assert.equal(st0.cpu.period_ns, Math.floor(1e9 / HZ));
  assert.equal((await post(srv, `/api/sessions/${id}/profile`, { hz: HZ, mode: 'cpu' })).status, 429,
    'a second profile while one runs');
  await waitFor(`${wall} ms and ${cpu} s of the spinner's CPU time`,
    () => Date.now() - t0 >= wall && cpuSeconds(pid, spinner) - cpu0 >= cpu, { timeoutMs: 120000, everyMs: 100 });
  const stop = await post(srv, `/api/sessions/${id}/profile/stop`);
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const spun = cpuSeconds(pid, spinner) - cpu0;
  // the sampler folds what it read before the stop within a batch (100 ms)
  const q = `/api/sessions/${id}/profile?format=json`;
  await waitFor('the sampler ended', () => serverPerf(srv.proc.pid).threads === 0, { timeoutMs: 10000 });
  const all = (await srv.api(q)).body;
  const st = all.profile;
  assert.equal(st.state, 'stopped');
  const sp = all.threads.find((t) => t.os_thread_id === spinner);
  const deep = all.threads.find((t) => t.name === 'deep');
  const folded = (await srv.api(`/api/sessions/${id}/profile?format=folded&thread=spinner`)).body;
  return { st, all, spinnerSamples: sp ? sp.samples : 0, deepSamples: deep ? deep.samples : 0,
    spun, folded, spinner };
}

// What every CPU profile of StackTarget must show (issue 28, item 6).
async function checkSpinnerProfile(srv, id, r) {
  const { st, spinnerSamples, deepSamples, spun, folded } = r;
  const expected = spun * HZ; // one sample per period of the spinner's CPU time
  assert.ok(spinnerSamples >= 1500,
    `spinner: ${spinnerSamples} samples (at least 1,500) for ${spun.toFixed(2)} s of CPU time`);
  assert.ok(spinnerSamples >= 0.85 * expected - 30 && spinnerSamples <= 1.1 * expected + 60,
    `spinner: ${spinnerSamples} samples for ${spun.toFixed(2)} s of CPU, about ${Math.round(expected)} expected`);
  assert.ok(deepSamples <= 3, `the blocked deep thread has almost no samples (${deepSamples})`);
  // the inner method is the leaf managed frame of most of the spinner's samples
  let inner = 0, total = 0;
  for (const line of folded.split('\n').filter(Boolean)) {
    const n = Number(/ (\d+)$/.exec(line)[1]);
    total += n;
    if (leafManaged(line) === INNER) inner += n;
    const frames = /^(.*) \d+$/.exec(line)[1].split(';');
    const outer = frames.indexOf('StackTarget.Spin.Outer()'), inn = frames.indexOf(INNER);
    if (outer >= 0 && inn >= 0) assert.ok(inn > outer, `root first: Outer before Inner: ${line}`);
  }
  assert.equal(total, spinnerSamples, 'folded counts add up to the spinner\'s samples');
  assert.ok(inner >= 0.8 * total, `Spin.Inner is the leaf managed frame in ${inner} of ${total} samples`);
  // the runtime was never suspended
  assert.equal(st.suspended_ns_total, 0);
  assert.equal(st.suspend_ns_max, 0);
  assert.equal(st.budget_pct, 0);
  const tl = (await srv.api(`/api/sessions/${id}/timeline`)).body;
  assert.equal(tl.suspensions.filter((s) => s.reason === 'profiler').length, 0,
    'no suspension by jitscope in the timeline');
  // the counters hold together
  const c = st.cpu;
  const kept = r.all.threads.reduce((n, t) => n + t.samples, 0);
  assert.ok(c.samples >= st.samples && c.complete + c.broken <= c.samples && c.missing <= c.samples,
    JSON.stringify(c));
  assert.ok(c.complete > 0 && c.threads_seen >= 3 && c.threads_failed === 0, JSON.stringify(c));
  assert.ok(c.lost <= 0.01 * c.samples, `at most 1% lost by the kernel (${c.lost} of ${c.samples})`);
  assert.equal(c.cpu_ns, kept * c.period_ns, 'cpu_ns: the kept samples times the period');
}

// go tool pprof reads the pprof export and names the hot method.
async function checkPprof(srv, id) {
  const url = `${srv.url}/api/sessions/${id}/profile?format=pprof`;
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  checkResponse({ method: 'GET', url, status: res.status, contentType: res.headers.get('content-type'), body: null, text: '' });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-disposition') || '', /attachment; filename="jitscope-session-\d+\.pb\.gz"/);
  assert.equal(bytes[0], 0x1f, 'gzip');
  assert.equal(bytes[1], 0x8b, 'gzip');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-pprof-')), 'cpu.pb.gz');
  fs.writeFileSync(file, bytes);
  const gocache = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-gocache-'));
  const top = spawnSync('go', ['tool', 'pprof', '-top', '-nodecount=5', file], {
    encoding: 'utf8', timeout: 120000, env: { ...process.env, GOCACHE: gocache, HOME: gocache, GOFLAGS: '-mod=mod' },
  });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  fs.rmSync(gocache, { recursive: true, force: true });
  assert.equal(top.status, 0, `go tool pprof: ${top.stderr}`);
  assert.match(top.stdout, /^Type: cpu$/m, top.stdout);
  const rows = top.stdout.split('\n').filter((l) => /^\s*[\d.]+m?s\s/.test(l));
  assert.ok(rows.length > 0 && rows[0].includes(INNER), `the hottest function (flat) is ${INNER}:\n${top.stdout}`);
}

// The views a .NET engineer reads a CPU profile of their code with (issue 34):
// jitscope's own threads marked and left out, native frames folded into the
// managed frames that called them (libc's start_thread named from Debian's
// libc6-dbg, found by build ID), bottom-up, and the callers and callees of
// Spin.Outer.
async function checkMyCode(srv, id, r) {
  const q = (args) => srv.api(`/api/sessions/${id}/profile?format=json&${args}`);
  const all = r.all;
  const own = all.threads.filter((t) => t.jitscope);
  assert.ok(own.every((t) => t.name.startsWith('jitscope-') && t.counted === false),
    `jitscope's threads are marked and not counted: ${JSON.stringify(own)}`);
  const counted = all.threads.filter((t) => t.counted).reduce((n, t) => n + t.samples, 0);
  assert.equal(all.tree.value, counted, 'the tree counts the app\'s threads only');
  assert.equal(all.view.jitscope_samples, own.reduce((n, t) => n + t.samples, 0));
  const withOwn = (await q('jitscope_threads=include')).body;
  assert.equal(withOwn.tree.value, counted + all.view.jitscope_samples, 'included when asked');

  const names = [];
  const walk = (n, f) => { f(n); for (const c of n.children) walk(c, f); };
  const folded = (await q('fold=native')).body;
  assert.equal(folded.view.fold, 'native');
  walk(folded.tree, (n) => names.push(n));
  assert.ok(!names.some((n) => n.kind === 'native'), 'no native frame left: all folded');
  const root = folded.tree.children.find((n) => n.name === '[native]');
  assert.ok(root && root.kind === 'label' && root.value === folded.tree.value,
    `every thread is entered from native code: [native] under the root (${JSON.stringify(folded.tree.children.map((n) => n.name))})`);
  assert.ok(root.folded.some((f) => f.name === 'start_thread' && f.module === 'libc.so.6'),
    `libc's start_thread is named (its debug file) and listed as folded into [native]: ${JSON.stringify(root.folded)}`);
  const inner = names.filter((n) => n.name === INNER);
  assert.ok(inner.length && inner.reduce((a, n) => a + n.value, 0) >= 0.8 * r.spinnerSamples,
    'Spin.Inner keeps the spinner\'s samples');

  const inverted = (await q('view=inverted&fold=native')).body;
  assert.equal(inverted.tree.children[0].name, INNER, 'bottom-up: Spin.Inner is where most samples end');

  const outer = 'StackTarget.Spin.Outer()';
  const sw = (await q(`view=sandwich&fold=native&focus=${encodeURIComponent(outer)}`)).body;
  assert.equal(sw.tree, undefined);
  assert.ok(sw.functions.some((f) => f.name === INNER && f.self > 0), 'the functions table has Spin.Inner');
  const callees = sw.callees.children[0], callers = sw.callers.children[0];
  assert.equal(callees.name, outer);
  assert.ok(callees.children.some((n) => n.name === INNER), `Outer calls Inner: ${JSON.stringify(callees.children.map((n) => n.name))}`);
  assert.equal(callers.value, sw.focus.samples, 'callers and callees hold the same samples');
  const callerNames = [];
  walk(callers, (n) => callerNames.push(n.name));
  assert.ok(callerNames.includes('System.Threading.Thread.StartCallback()'),
    `the thread start is among Outer's callers: ${callerNames.join(', ')}`);
  const bad = await srv.api(`/api/sessions/${id}/profile?format=folded&view=inverted`);
  assert.equal(bad.status, 400, 'inverted is a view of the JSON only');
}

// ---- tests ----

test('run: CPU profile at 999 Hz, spinner on top, deep idle, never suspended; exports', async () => {
  const { srv, pid } = await runStackTarget();
  for (const bad of [{ mode: 'gpu' }, { mode: 5 }, { hz: 999, mode: null }]) {
    const r = await post(srv, '/api/sessions/1/profile', bad);
    assert.equal(r.status, 400, `bad body ${JSON.stringify(bad)}: ${r.status}`);
    assert.match(r.body.error, /mode/);
  }
  const before = (await srv.api('/api/sessions/1/profile')).body.cpu_mode;
  assert.equal(before.available, true, JSON.stringify(before));
  const r = await profileSpinner(srv, 1, pid);
  await checkSpinnerProfile(srv, 1, r);
  assert.deepEqual(serverPerf(srv.proc.pid), { fds: 0, threads: 0 }, 'every perf event closed after the stop');

  // the thread filter by OS id and name, JSON tree sums, speedscope
  const byId = (await srv.api(`/api/sessions/1/profile?thread=${r.spinner}`)).body;
  assert.equal(byId.threads.length, 1);
  assert.equal(byId.threads[0].name, 'spinner');
  assert.equal(byId.tree.value, r.spinnerSamples);
  const res = await fetchChecked(`${srv.url}/api/sessions/1/profile?format=speedscope`);
  const file = JSON.parse(await res.text());
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(SPEEDSCOPE_SCHEMA);
  assert.ok(validate(file), `speedscope schema: ${ajv.errorsText(validate.errors)}`);
  assert.ok(file.profiles.some((p) => p.name.includes('spinner')));
  // native frames are named by their module: the runtime's thread start, libc
  assert.ok(r.folded.includes('libcoreclr.so'), r.folded.slice(0, 500));
  await checkPprof(srv, 1);
  await checkMyCode(srv, 1, r);

  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  for (const l of ['deep 325', 'spinner stopped', 'sleeper woke', 'bye']) assert.ok(srv.stdout.split('\n').includes(l), `app printed "${l}"`);
  await srv.stop();
});

test('attach: CPU profile of a running app names ReadyToRun framework code through the agent', async () => {
  const target = await startStackTarget();
  const { srv, id } = await serveAttached(target.pid);
  const r = await profileSpinner(srv, id, target.pid);
  await checkSpinnerProfile(srv, id, r);
  // Thread.StartCallback is ReadyToRun code in CoreLib: no JIT record gave its
  // range, the agent named it by address (GetFunctionFromIP)
  assert.ok(r.st.cpu.lookups >= 1, `code lookups: ${r.st.cpu.lookups}`);
  assert.match(r.folded, /System\.Threading\.Thread\.StartCallback\(\)/, r.folded.slice(0, 800));
  assert.equal(r.st.cpu.unresolved, 0, 'every managed frame named');
  await detachAndWait(srv, id);
  target.send('exit');
  await target.waitLine(/^bye$/m, 30000);
  assert.match(target.out, /^deep 325$/m);
  await srv.stop();
});

test('detach in the middle of a CPU profile: it stops, no perf event, thread or agent left', async () => {
  const target = await startStackTarget();
  const before = agentTrace(target.pid);
  const { srv, id } = await serveAttached(target.pid);
  const start = await post(srv, `/api/sessions/${id}/profile`, { hz: HZ, mode: 'cpu' });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  await waitFor('samples', async () => (await srv.api(`/api/sessions/${id}/profile`)).body.profile.samples >= 100, { timeoutMs: 60000 });
  assert.ok(serverPerf(srv.proc.pid).fds >= 3, 'one perf event per thread while it runs');
  await detachAndWait(srv, id);
  await waitFor('the sampler ended', () => serverPerf(srv.proc.pid).threads === 0, { timeoutMs: 10000 });
  assert.deepEqual(serverPerf(srv.proc.pid), { fds: 0, threads: 0 }, 'no perf event left in the server');
  const p = (await srv.api(`/api/sessions/${id}/profile`)).body.profile;
  assert.equal(p.state, 'stopped');
  assert.equal(p.mode, 'cpu');
  assert.ok(p.samples >= 100);
  const t = await waitFor('library unloaded', () => { const x = agentTrace(target.pid); return !x.mapped && x; }, { timeoutMs: 30000 });
  assert.equal(t.agentThreads, 0, 'no jitscope thread in the target');
  assert.deepEqual(t.fds.filter((f) => f.startsWith('socket:')).sort(),
    before.fds.filter((f) => f.startsWith('socket:')).sort(), 'no agent socket left open');
  target.send('tick');
  await target.waitLine(/^tock 1$/m);
  target.send('exit');
  await target.waitLine(/^bye$/m, 30000);
  assert.match(target.out, /^spinner stopped$/m);
  await srv.stop();
});

test('the app exits in the middle of a CPU profile: it stops, every perf event closed', async () => {
  const { srv } = await runStackTarget();
  const start = await post(srv, '/api/sessions/1/profile', { hz: HZ, mode: 'cpu' });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  await waitFor('samples', async () => (await srv.api('/api/sessions/1/profile')).body.profile.samples >= 100, { timeoutMs: 60000 });
  assert.equal(serverPerf(srv.proc.pid).threads, 1, 'one sampler thread while it runs');
  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  await waitFor('the sampler ended', () => serverPerf(srv.proc.pid).threads === 0, { timeoutMs: 10000 });
  assert.deepEqual(serverPerf(srv.proc.pid), { fds: 0, threads: 0 }, 'no perf event left in the server');
  const p = (await srv.api('/api/sessions/1/profile')).body.profile;
  assert.equal(p.state, 'stopped');
  assert.ok(p.stopped_ms >= p.started_ms && p.samples >= 100, JSON.stringify(p));
  assert.equal((await post(srv, '/api/sessions/1/profile', { hz: HZ, mode: 'cpu' })).status, 409, 'no live agent to sample');
  await srv.stop();
});

test('a stored CPU profile reads back the same after a restart', async () => {
  const data = tempDataDir();
  // every ended session compacted (a short one is not, by default: docs/STORAGE.md)
  const { srv, pid } = await runStackTarget({ args: ['--data', data], env: { JITSCOPE_COMPACT_MIN: '0' } });
  const r = await profileSpinner(srv, 1, pid, { cpu: 0.5, wall: 1000 });
  const folded = (await srv.api('/api/sessions/1/profile?format=folded')).body;
  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  // the ended session is compacted: a snapshot of its state, the profile's records kept beside it
  await waitFor('its snapshot committed', async () => (await srv.api('/api/config')).body.storage.snapshots >= 1, { timeoutMs: 60000, everyMs: 100 });
  await srv.stop();
  const again = await startServer(['serve', '--data', data, '--port', '0']);
  const back = (await again.api('/api/sessions/1/profile')).body;
  assert.equal(back.profile.mode, 'cpu');
  assert.equal(back.profile.state, 'stopped');
  assert.equal(back.profile.samples, r.st.samples);
  assert.deepEqual(back.profile.cpu, r.st.cpu, 'the counters as they were');
  assert.equal((await again.api('/api/sessions/1/profile?format=folded')).body, folded, 'the same stacks');
  assert.equal(back.cpu_mode.available, false, 'no live process to sample now');
  await again.stop();
});


test('ASP.NET Core under load: the handler on top, Kestrel and routing named, nothing suspended', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', WEB_DLL, '0']);
  const ready = await waitFor('WebTarget READY', () => /^READY pid=(\d+) url=(\S+)$/m.exec(srv.stdout), { timeoutMs: 60000 });
  const pid = Number(ready[1]), url = ready[2];
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
  // load: 4 clients in a loop until told to stop
  let running = true, requests = 0, failures = 0;
  const client = async () => {
    while (running) {
      try {
        const res = await fetch(`${url}/${requests % 5 === 4 ? 'items?n=200' : 'work?n=300'}`);
        await res.arrayBuffer();
        if (res.ok) requests++; else failures++;
      } catch { failures++; }
    }
  };
  const clients = [client(), client(), client(), client()];
  try {
    await waitFor('the service warmed up', () => requests >= 200, { timeoutMs: 60000 });
    const cpu0 = processCpuSeconds(pid), t0 = Date.now(), req0 = requests;
    const start = await post(srv, '/api/sessions/1/profile', { hz: HZ, mode: 'cpu' });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    await waitFor('3 s and 1.5 s of the service\'s CPU time', () => Date.now() - t0 >= 3000 && processCpuSeconds(pid) - cpu0 >= 1.5, { timeoutMs: 120000, everyMs: 100 });
    assert.equal((await post(srv, '/api/sessions/1/profile/stop')).status, 200);
    assert.ok(requests - req0 > 100, `requests served while profiling: ${requests - req0}`);
  } finally {
    running = false;
    await Promise.all(clients);
  }
  await waitFor('the sampler ended', () => serverPerf(srv.proc.pid).threads === 0, { timeoutMs: 10000 });
  const st = (await srv.api('/api/sessions/1/profile')).body.profile;
  const c = st.cpu;
  assert.equal(st.mode, 'cpu');
  assert.equal(st.suspended_ns_total, 0);
  assert.ok(st.samples >= 1000, `samples: ${st.samples}`);
  assert.ok(c.lookups >= 1 && c.unresolved <= 0.02 * st.samples,
    `ReadyToRun code named by the agent: ${c.lookups} lookups, ${c.unresolved} frames unnamed of ${st.samples} samples`);
  const folded = (await srv.api('/api/sessions/1/profile?format=folded')).body;
  const lines = folded.split('\n').filter(Boolean);
  let compute = 0, total = 0;
  for (const l of lines) {
    const n = Number(/ (\d+)$/.exec(l)[1]);
    total += n;
    if (leafManaged(l) === 'WebTarget.Work.Compute(int)') compute += n;
  }
  // the hottest method: the leaf managed frame of most samples that have one (the runtime's
  // native threads, the JIT's background compilations and the GC have none)
  const leaves = new Map();
  let managedTotal = 0;
  for (const l of lines) {
    const k = leafManaged(l);
    if (!k) continue;
    const n = Number(/ (\d+)$/.exec(l)[1]);
    managedTotal += n;
    leaves.set(k, (leaves.get(k) || 0) + n);
  }
  const ranked = [...leaves].sort((a, b) => b[1] - a[1]);
  assert.equal(ranked[0][0], 'WebTarget.Work.Compute(int)', `the hottest leaf method: ${JSON.stringify(ranked.slice(0, 5))}`);
  assert.ok(compute >= 0.3 * managedTotal, `Work.Compute is the leaf of ${compute} of the ${managedTotal} samples in managed code (${total} in all)`);
  assert.ok(lines.some((l) => l.includes('WebTarget.Work.Compute(int)') && /Microsoft\.AspNetCore\.[^;]*\(/.test(l)),
    'the handler runs under ASP.NET Core frames, named');
  assert.ok(lines.some((l) => l.includes('System.Text.Json.')), 'System.Text.Json\'s code (ReadyToRun) is named');
  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  assert.match(srv.stdout, /^served \d+$/m);
  assert.equal(failures, 0, 'no request failed');
  await srv.stop();
});

test('perf_event_open refused (seccomp): the reason, and a wall-clock profile instead', async () => {
  assert.ok(fs.existsSync(NOPERF), `${NOPERF} (make build/tests/noperf)`);
  const { srv } = await runStackTarget({ prefix: [NOPERF] });
  const cfg = (await srv.api('/api/config')).body.cpu_profiling;
  assert.equal(cfg.available, false);
  assert.match(cfg.reason, /perf_event_open is not allowed here/, cfg.reason);
  const probe = (await srv.api('/api/sessions/1/profile')).body.cpu_mode;
  assert.equal(probe.available, false);
  assert.match(probe.reason, /seccomp/);
  const start = await post(srv, '/api/sessions/1/profile', { hz: 49, mode: 'cpu' });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  assert.equal(start.body.profile.mode, 'wall');
  assert.match(start.body.profile.fallback, /^CPU mode is not available: perf_event_open is not allowed here.*Sampling wall clock instead\.$/);
  assert.equal(start.body.profile.cpu, null);
  const p = await waitFor('wall-clock samples', async () => {
    const x = (await srv.api('/api/sessions/1/profile')).body.profile;
    return x.samples >= 5 && x;
  }, { timeoutMs: 60000 });
  assert.ok(p.suspended_ns_total > 0, 'a wall-clock profile suspends');
  assert.match(p.fallback, /seccomp/, 'the reason stays with the profile');
  assert.equal((await post(srv, '/api/sessions/1/profile/stop')).status, 200);
  assert.equal(serverPerf(srv.proc.pid).fds, 0);
  await srv.stop();
});

test('agent and server built with -fsanitize=address,undefined: a CPU profile with code lookups, its exports, a detach', async () => {
  const asan = asanRuntime();
  assert.ok(asan, 'gcc ships libasan.so');
  const agent = path.join(BUILD, 'asan/libjitscope_agent.so');
  assert.ok(fs.existsSync(agent), 'make asan built the sanitizer agent');
  const env = {
    LD_PRELOAD: asan,
    // CoreCLR itself is not ASan-clean for leaks at exit and probes memory on purpose
    ASAN_OPTIONS: 'detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:abort_on_error=1',
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  };
  const target = await startStackTarget({ env });
  const srv = await startServer(['serve', '--port', '0', '--agent', agent], { bin: path.join(BUILD, 'asan/jitscope'), env });
  const a = await attach(srv, target.pid);
  assert.equal(a.status, 201, JSON.stringify(a.body));
  const id = a.body.session.id;
  await waitFor('catch-up', async () => (await srv.api(`/api/sessions/${id}`)).body.catchup.count >= 1, { timeoutMs: 60000 });
  const r = await profileSpinner(srv, id, target.pid, { cpu: 0.5, wall: 1000 });
  assert.ok(r.spinnerSamples > 0 && r.st.cpu.lookups >= 1, JSON.stringify(r.st.cpu));
  for (const f of ['folded', 'speedscope', 'json&thread=spinner']) {
    assert.equal((await srv.api(`/api/sessions/${id}/profile?format=${f}`)).status, 200, f);
  }
  const pprof = await fetch(`${srv.url}/api/sessions/${id}/profile?format=pprof`);
  assert.equal(pprof.status, 200);
  await pprof.arrayBuffer();
  await detachAndWait(srv, id);
  target.send('exit');
  await target.waitLine(/^bye$/m, 30000);
  await srv.stop();
  assert.doesNotMatch(srv.stderr + target.err, /runtime error:|AddressSanitizer/, 'no sanitizer report');
});
