// dynamic_methods.test.mjs -- thousands of DynamicMethods put on the stack and collected
// (E2eTarget `dyncollect`) while the agent, built with -fsanitize=address,undefined, walks
// stacks as often as it is asked to (a profile at 1000 Hz and snapshots back to back), in
// attach mode (the first 2,000 methods were compiled before the attach: the agent never saw
// them compiled) and in startup mode.
//
// A collected dynamic method's name and signature are freed and its FunctionID goes to the
// next one, so the agent names a dynamic method only in its JIT callbacks and never asks the
// runtime about one it meets anywhere else (docs/RUNTIME.md, "Dynamic methods"). What this
// checks end to end: the app ends normally with its own output and no sanitizer report;
// every frame of every stack is named or counted (name_late, name_failed); the methods
// compiled after the agent arrived are named from their JIT; and the runtime fact the
// agent's design leans on: CoreCLR's stack walks leave dynamic methods out, so the frame
// under DynCollect.Work is the C# method that called the dynamic one.
// Every wait is for a condition (enough stacks seen in Work, a line of output), never a
// fixed time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BUILD, E2E_DLL, asanRuntime, attach, functionsOf, startServer, startTarget, stopAll, waitFor } from './lib.mjs';

after(stopAll);

const METHODS = 2000; // per phase; the pool and each fresh round collect this many
const BATCH = 10;     // methods collected together (two blocking GCs per batch)
const SPIN_US = 300;  // each call spins this long in DynCollect.Work
const WORK_STACKS = 40; // stacks caught in Work before the storm is told to stop,
const FRESH_STACKS = 20; // of them at least this many in the fresh rounds (reused FunctionIDs)
const ASAN_AGENT = path.join(BUILD, 'asan/libjitscope_agent.so');
const ARGS = ['dyncollect', String(METHODS), String(BATCH), String(SPIN_US), 'hold'];
const WORK = 'JitscopeE2e.DynCollect.Work(int)';
const CALLERS = /^JitscopeE2e\.DynCollect\.Call(Pool|Fresh)\(/;
const SANITIZER = /runtime error:|AddressSanitizer|LeakSanitizer/;

function asanEnv() {
  const asan = asanRuntime();
  assert.ok(asan, 'gcc ships libasan.so');
  assert.ok(fs.existsSync(ASAN_AGENT), 'make asan built the sanitizer agent');
  return {
    LD_PRELOAD: asan,
    // CoreCLR is not ASan-clean for leaks at exit and probes memory on purpose
    ASAN_OPTIONS: 'detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:abort_on_error=1',
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  };
}

const post = (srv, p, body) => srv.api(p, body === undefined ? { method: 'POST' } : {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
});

// Starts the profile at 1000 Hz, lets the app go, and takes snapshots back to back until
// WORK_STACKS thread stacks were caught inside DynCollect.Work, FRESH_STACKS of them in the
// fresh rounds (the pool's phase has a fixed length, so how many land there is left to
// chance); then the app is told to stop and the profile is stopped once the app says it is
// done. Returns every stack seen, each as leaf-first frames {id, name}.
async function sampleStorm(srv, id, send, output) {
  const started = await post(srv, `/api/sessions/${id}/profile`, { hz: 1000 });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  send('go');
  const stacks = [];
  let inWork = 0, inFresh = 0, snapshots = 0;
  // the app collects until told to stop: no deadline needed here
  while (inWork < WORK_STACKS || inFresh < FRESH_STACKS) {
    assert.doesNotMatch(output(), /^dyncollect done$/m, 'the app went on until told to stop');
    const r = await post(srv, `/api/sessions/${id}/stacks`);
    assert.equal(r.status, 201, `POST stacks: ${r.status} ${JSON.stringify(r.body)}`);
    snapshots++;
    for (const t of r.body.snapshot.threads) {
      const frames = t.frames.filter((f) => !f.native).map((f) => ({ id: f.function_id, name: f.name }));
      stacks.push(frames);
      const at = frames.findIndex((f) => f.name === WORK);
      if (at >= 0) inWork++;
      if (at >= 0 && /^JitscopeE2e\.DynCollect\.CallFresh\(/.test(frames[at + 1]?.name ?? '')) inFresh++;
    }
  }
  send('stop');
  await waitFor('the app\'s "dyncollect done"', () => /^dyncollect done$/m.test(output()), { timeoutMs: 300000 });
  const stopped = await post(srv, `/api/sessions/${id}/profile/stop`);
  assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
  const folded = (await srv.api(`/api/sessions/${id}/profile?format=folded`)).body;
  assert.equal(typeof folded, 'string');
  for (const line of folded.split('\n').filter(Boolean)) {
    const m = /^(.*) (\d+)$/.exec(line);
    assert.ok(m, `folded line: ${line}`);
    // root first in folded: turned leaf first like the snapshots; native runs left out
    stacks.push(m[1].split(';').filter((n) => n !== '[native]').reverse().map((n) => ({ id: /^0x[0-9a-f]+$/.test(n) ? n : null, name: n })));
  }
  console.log(`snapshots ${snapshots}, thread stacks in Work ${inWork} (fresh rounds ${inFresh}), profile ${JSON.stringify(stopped.body.profile)}`);
  return stacks;
}

// The checks both modes share, once the app is done.
async function checkSession(srv, id, stacks, { poolSeen }) {
  // the runtime's walks leave dynamic methods out: under Work is the C# caller
  const inWork = stacks.filter((s) => s.some((f) => f.name === WORK));
  assert.ok(inWork.length >= WORK_STACKS, `stacks in Work: ${inWork.length}`);
  for (const s of inWork) {
    const at = s.findIndex((f) => f.name === WORK);
    assert.match(s[at + 1]?.name ?? '(none)', CALLERS,
      `the frame under Work is DynCollect.CallPool/CallFresh, no dynamic method between: ${s.map((f) => f.name).join(' <- ')}`);
  }
  // every frame named, or counted as a name the agent did not read
  const unnamed = new Set(stacks.flat().filter((f) => /^0x[0-9a-f]+$/.test(f.name)).map((f) => f.name));
  const session = (await srv.api(`/api/sessions/${id}`)).body;
  const drops = session.drops;
  console.log(`drops ${JSON.stringify(drops)}; frames without a name: ${unnamed.size}`);
  assert.equal(typeof drops.name_late, 'number');
  assert.equal(drops.name_failed, 0, 'no name the runtime could not give');
  assert.ok(unnamed.size <= drops.name_late,
    `each FunctionID shown without a name is counted (${unnamed.size} shown, name_late ${drops.name_late}): ${[...unnamed].slice(0, 5).join(', ')}`);
  // dynamic methods are named from their JIT callbacks
  const dynamic = (await functionsOf(srv, id)).filter((f) => f.dynamic).map((f) => f.name);
  assert.ok(dynamic.some((n) => /^\[dynamic\] JitscopeDynFresh\d+\(int\)$/.test(n)),
    `methods compiled after the agent arrived are named at their JIT: ${dynamic.slice(0, 5).join(', ')}`);
  const pool = dynamic.filter((n) => n.includes('JitscopeDynPool'));
  if (poolSeen) assert.ok(pool.length > 0, 'startup: the pool was compiled with the agent there, and named');
  else assert.deepEqual(pool, [], 'attach: the pool was compiled before the attach and never met since (neither the JIT enumeration nor a stack lists a dynamic method)');
}

function checkAppOutput(out) {
  assert.match(out, new RegExp(`^dyncollect pool ${METHODS} \\d+$`, 'm'));
  const fresh = [...out.matchAll(/^dyncollect fresh (\d+) (\d+)$/gm)];
  assert.ok(fresh.length >= 1, 'at least one round of fresh methods');
  assert.ok(fresh.every((m) => m[1] === String(METHODS) && m[2] === fresh[0][2]), 'every round computes the same');
  console.log(`DynamicMethods collected: ${METHODS * (1 + fresh.length)} (the pool and ${fresh.length} fresh rounds)`);
  assert.match(out, /^dyncollect alive 0$/m, 'every collected DynamicMethod died');
  assert.match(out, /^dyncollect done$/m);
  assert.match(out, /^bye$/m);
}

test('attach: 2,000 dynamic methods compiled before the attach and thousands after, collected while stacks are sampled at full rate; sanitizer agent: no report, every frame named or counted', { timeout: 600000 }, async () => {
  const target = await startTarget(ARGS, { env: asanEnv() });
  const srv = await startServer(['serve', '--port', '0', '--agent', ASAN_AGENT]);
  const r = await attach(srv, target.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  await waitFor('catch-up', async () => (await srv.api(`/api/sessions/${id}`)).body.catchup.count >= 1, { timeoutMs: 30000 });
  const stacks = await sampleStorm(srv, id, (line) => target.send(line), () => target.out);
  await checkSession(srv, id, stacks, { poolSeen: false });
  target.send('exit');
  await waitFor('the app exits', () => target.proc.exitCode !== null || target.proc.signalCode !== null, { timeoutMs: 60000 });
  assert.equal(target.proc.exitCode, 0, `exit ${target.proc.exitCode} ${target.proc.signalCode}; stderr: ${target.err.slice(-3000)}`);
  assert.doesNotMatch(target.err, SANITIZER, 'no sanitizer report');
  checkAppOutput(target.out);
  await srv.stop();
});

test('startup: the same under `jitscope run` with the sanitizer agent and server: no report, every frame named or counted', { timeout: 600000 }, async () => {
  const srv = await startServer(['run', '--port', '0', '--agent', ASAN_AGENT, '--', 'dotnet', E2E_DLL, ...ARGS],
    { bin: path.join(BUILD, 'asan/jitscope'), env: asanEnv() });
  await waitFor('READY', () => /^READY$/m.test(srv.stdout), { timeoutMs: 120000 });
  await waitFor('live session', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
  const stacks = await sampleStorm(srv, 1, (line) => srv.proc.stdin.write(line + '\n'), () => srv.stdout);
  await checkSession(srv, 1, stacks, { poolSeen: true });
  srv.proc.stdin.write('exit\n');
  const s = await waitFor('exited', async () => {
    const b = (await srv.api('/api/sessions/1')).body;
    return b.state === 'exited' && b;
  }, { timeoutMs: 60000 });
  assert.equal(s.exit_code, 0, `exit code ${s.exit_code}, signal ${s.exit_signal}; stderr: ${srv.stderr.slice(-3000)}`);
  assert.doesNotMatch(srv.stderr, SANITIZER, 'no sanitizer report (agent in the app, and the server)');
  checkAppOutput(srv.stdout);
  await srv.stop();
});

// A dynamic method has one body (no tiering for them), so when the runtime
// collects one and gives its FunctionID to a new DynamicMethod, the new one is
// another method: a function of its own (function_key), never "compiled again".
test('a collected dynamic method\'s FunctionID given to a new one: two functions, each compiled once, each JIT event naming its own', async () => {
  const n = 200;
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', E2E_DLL, 'dyncollect', String(n), String(BATCH), '0']);
  await waitFor('the app exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 120000 });
  assert.match(srv.stdout, /^dyncollect done$/m);
  const fns = await functionsOf(srv, 1, '&q=JitscopeDyn');
  assert.equal(fns.length, 2 * n, 'the pool and the fresh methods: each a function');
  assert.deepEqual([...new Set(fns.map((f) => f.jit_count))], [1], 'each compiled once');
  assert.equal(new Set(fns.map((f) => f.name)).size, 2 * n, 'each with its own name');
  assert.equal(new Set(fns.map((f) => f.function_key)).size, 2 * n, 'and its own function_key');
  const byId = new Map();
  for (const f of fns) byId.set(f.function_id, [...(byId.get(f.function_id) || []), f]);
  const shared = [...byId.values()].filter((list) => list.length > 1);
  assert.ok(shared.length > 0, 'the runtime reused FunctionIDs of collected methods');
  for (const list of shared) {
    const newest = list.reduce((a, b) => (b.function_key > a.function_key ? b : a));
    assert.equal((await srv.api(`/api/sessions/1/functions/${list[0].function_id}`)).body.function.name, newest.name, 'the ID alone finds the newest');
    for (const f of list) {
      const one = (await srv.api(`/api/sessions/1/functions/${f.function_id}?key=${f.function_key}`)).body.function;
      assert.equal(one.name, f.name, `key ${f.function_key} finds its own`);
    }
  }
  const other = fns.find((f) => f.function_id !== fns[0].function_id);
  assert.equal((await srv.api(`/api/sessions/1/functions/${fns[0].function_id}?key=${other.function_key}`)).status, 404,
    'the key of a function with another FunctionID is not found');
  const events = (await srv.api('/api/sessions/1/events?limit=10000')).body.events.filter((e) => e.type === 'jit' && /JitscopeDyn/.test(e.name));
  assert.equal(events.length, 2 * n);
  const keyOf = new Map(fns.map((f) => [f.name, f.function_key]));
  for (const e of events) assert.equal(e.function_key, keyOf.get(e.name), `${e.name}: its event names it`);
  const dyn = (await srv.api('/api/sessions/1/modules/totals')).body.modules.find((m) => m.module === null);
  assert.equal(dyn.rejit, 0, `no dynamic method counts as recompiled: ${JSON.stringify(dyn)}`);
  await srv.stop();
});
