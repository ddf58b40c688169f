// startup.test.mjs -- `jitscope run` against the real runtime (issue: the agent
// inside a real .NET runtime). A test app calls uniquely named methods, names a
// thread and loads a second assembly; everything must arrive through the REST API.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BUILD, E2E_DLL, startServer, stopAll, waitFor, runSync, asanRuntime, functionsOf } from './lib.mjs';

after(stopAll);

const UNIQUE = [
  'JitscopeE2e.Probe.UniqueAlpha',
  'JitscopeE2e.Probe.UniqueGeneric<System.Int32>',
  'JitscopeE2e.Probe.UniqueGeneric<System.__Canon>',
  'JitscopeE2e.Outer+Inner.UniqueNested',
  'JitscopeE2e.Probe+<>c.<UniqueLambdaHost>b__',
  'JitscopeE2e.Box<System.Int64>.UniqueBoxGet',
  'JitscopePlugin.PluginEntry.UniquePluginMethod',
];

// Whole names, parameter lists included: overloads differ only there; generic
// parameters show the known type arguments; `out` is a by-ref in the signature.
const WITH_PARAMETERS = [
  'JitscopeE2e.Probe.UniqueAlpha()',
  'JitscopeE2e.Probe.UniqueGeneric<System.Int32>(int)',
  'JitscopeE2e.Outer+Inner.UniqueNested()',
  'JitscopeE2e.Box<System.Int64>.UniqueBoxGet()',
  'JitscopeE2e.Probe.Calc(int)',
  'JitscopeE2e.Probe.Calc(int, ref long)',
  'JitscopeE2e.Probe.Calc(string[], ref int)',
  'JitscopeE2e.Probe.Calc<System.Double>(List<double>, double[,])',
  'JitscopeE2e.Box<System.Int64>.UniqueBoxMix(long, Box<long>)',
  '[dynamic] JitscopeE2eDynamicAdd(long, int)',
];

// Runs E2eTarget under the agent and checks what a user would see. Returns the session.
async function runAndCheck(serverOpts = {}, agentArgs = []) {
  const srv = await startServer(['run', '--port', '0', ...agentArgs, '--', 'dotnet', E2E_DLL], serverOpts);
  try {
    const s = await waitFor('session to end', async () => {
      const r = await srv.api('/api/sessions/1');
      return r.body.state === 'exited' && r.body;
    }, { timeoutMs: 60000 });
    assert.equal(s.exit_code, 42, 'the app exit code is kept');
    assert.equal(s.drops.total, 0, 'no records dropped');
    for (const k of ['ring_full', 'too_large', 'no_server', 'slow_server', 'shutdown', 'name_failed', 'name_late'])
      assert.equal(s.drops[k], 0, `drops by cause are reported: ${k}`);
    assert.equal(s.link.seq_gaps, 0, 'no sequence gaps');
    assert.equal(s.runtime.type, 'CoreCLR');
    assert.match(s.runtime.version, /^\d+\.\d+\.\d+/);

    const fns = await functionsOf(srv, 1);
    for (const name of UNIQUE) {
      const hits = fns.filter((f) => f.name && f.name.startsWith(name));
      assert.equal(hits.length, 1, `${name} appears exactly once (got ${hits.length})`);
      const f = hits[0];
      assert.ok(f.il_size > 0, `${name} IL size ${f.il_size}`);
      assert.ok(f.native_size > 0, `${name} native size ${f.native_size}`);
      assert.ok(f.jit_ns > 1000 && f.jit_ns < 5e9, `${name} JIT time plausible: ${f.jit_ns} ns`);
      assert.ok(f.module, `${name} has a module`);
      assert.equal(f.catchup, false);
    }

    // The names come from the modules' images, never from the runtime's
    // importer: asking for one makes the runtime's own metadata reads in that
    // module slower for good (agent/mdread.h; about 7% of a JIT storm).
    assert.ok(s.agent_cost.metadata.direct_modules >= 3,
      `modules read directly: ${s.agent_cost.metadata.direct_modules}`);
    assert.equal(s.agent_cost.metadata.importer_opens, 0, 'the runtime was never asked for an importer');

    const names = new Set(fns.map((f) => f.name));
    for (const name of WITH_PARAMETERS)
      assert.ok(names.has(name), `${name} listed with its parameters`);
    const dyn = fns.find((f) => f.name === '[dynamic] JitscopeE2eDynamicAdd(long, int)');
    assert.equal(dyn.dynamic, true, 'the DynamicMethod is flagged dynamic');
    assert.equal(dyn.module, null, 'and has no module');
    assert.ok(fns.filter((f) => f.dynamic).every((f) => /^\[(dynamic|IL stub)\] \S.*\(.*\)$/.test(f.name)),
      `every dynamic method named: ${fns.filter((f) => f.dynamic).map((f) => f.name).join(' | ')}`);
    const query = async (q) => (await functionsOf(srv, 1, `&q=${encodeURIComponent(q)}`)).map((f) => f.name).sort();
    assert.deepEqual(await query('JitscopeE2e.Probe.Calc'), WITH_PARAMETERS.filter((n) => n.includes('.Calc')).sort(),
      'q= without parameters finds every overload');
    assert.deepEqual(await query('Probe.Calc(int'), ['JitscopeE2e.Probe.Calc(int)', 'JitscopeE2e.Probe.Calc(int, ref long)'],
      'q= with parameters narrows them');

    const mods = (await srv.api('/api/sessions/1/modules')).body.modules;
    const byAsm = (a) => mods.find((m) => m.assembly === a);
    for (const a of ['System.Private.CoreLib', 'E2eTarget', 'E2ePlugin']) {
      const m = byAsm(a);
      assert.ok(m, `module ${a} listed`);
      assert.ok(m.path && path.isAbsolute(m.path) && fs.existsSync(m.path), `${a} has a real path: ${m.path}`);
      assert.ok(m.path.endsWith(`${a}.dll`), `${a} path ends with the dll name: ${m.path}`);
    }
    assert.equal(fs.realpathSync(byAsm('E2eTarget').path), fs.realpathSync(E2E_DLL));

    const threads = (await srv.api('/api/sessions/1/threads')).body.threads;
    const named = threads.find((t) => t.name === 'e2e-named-thread');
    assert.ok(named, 'the named thread is listed with its name');
    assert.equal(named.alive, false, 'and it has ended');
    assert.ok(named.os_thread_id > 0, 'with its OS thread id');
    const events = (await srv.api('/api/sessions/1/events?limit=10000')).body.events;
    assert.ok(events.some((e) => e.type === 'thread_end' && e.thread_id === named.thread_id),
      'its end came from ThreadDestroyed, not from the process exit');
    assert.ok(events.some((e) => e.type === 'thread_name' && e.name === 'e2e-named-thread'));
    const seqs = events.map((e) => e.seq);
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1), 'event seqs are 1..N without gaps');
    return { srv, session: s };
  } finally {
    await srv.stop();
  }
}

test('run: methods, modules, named thread and exit code arrive through REST', async () => {
  const { srv } = await runAndCheck();
  assert.equal(srv.exit.code, 42, 'SIGTERM after the app ended: the server exits with the app\'s code');
});

test('the app prints exactly the same with and without the agent', async () => {
  const plain = runSync('dotnet', [E2E_DLL]);
  assert.equal(plain.status, 42);
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL]);
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
  await srv.stop();
  // the server's stdout is the app's stdout plus the server's own URL line
  const appOut = srv.stdout.split('\n').filter((l) => !l.startsWith('jitscope: ')).join('\n');
  assert.equal(appOut, plain.stdout);
  assert.ok(plain.stdout.includes('checksum'), 'the app printed its results');
});

// The agent reads names from the modules' images (agent/mdread.c); the
// runtime's own importer is the yardstick: every name of two workloads
// (generic, nested, overloaded and dynamic methods, class-typed parameters of
// DynamicMethods) must come out the same both ways. Two runs never compile
// quite the same methods: a lock's slow path runs only when the lock was
// contended, the runtime's background tiering recompiles when it gets round to
// it (a loaded machine: Monitor.Enter_Slowpath in one run only, or
// CastHelpers.IsInstanceOfClass). So a method is compared by what the names
// under test do not decide, its module and metadata token (a dynamic method,
// which has neither, by its name): every method both runs compiled must have
// the same name in both (for a generic method's token, the instantiations of
// both runs have one name in common). Without ReadyToRun code every method that
// runs is compiled, the framework's too: more names to compare.
test('names read from the images are the ones the runtime\'s importer gives', async () => {
  async function names(args, env) {
    const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, ...args], { env: { DOTNET_ReadyToRun: '0', ...env } });
    try {
      const s = await waitFor('session to end', async () => {
        const r = await srv.api('/api/sessions/1');
        return r.body.state === 'exited' && r.body;
      }, { timeoutMs: 60000 });
      const byMethod = new Map();
      for (const f of await functionsOf(srv, 1)) {
        const key = f.dynamic ? `dynamic|${f.name}` : `${f.module}|${f.token}`;
        if (!byMethod.has(key)) byMethod.set(key, new Set());
        byMethod.get(key).add(f.name);
      }
      return { metadata: s.agent_cost.metadata, byMethod };
    } finally {
      await srv.stop();
    }
  }
  for (const args of [['run'], ['dynstorm', '300']]) {
    const direct = await names(args, {});
    const importer = await names(args, { JITSCOPE_METADATA: 'importer' });
    const both = [...direct.byMethod.keys()].filter((k) => importer.byMethod.has(k));
    const differ = both.filter((k) => ![...direct.byMethod.get(k)].some((n) => importer.byMethod.get(k).has(n)))
      .map((k) => `${k}: ${[...direct.byMethod.get(k)].join(' | ')} vs ${[...importer.byMethod.get(k)].join(' | ')}`);
    assert.ok(both.length > 50, `${args[0]}: ${both.length} methods compiled in both runs`);
    assert.ok(both.length >= 0.9 * Math.min(direct.byMethod.size, importer.byMethod.size),
      `${args[0]}: most methods in both runs (${both.length} of ${direct.byMethod.size} and ${importer.byMethod.size})`);
    assert.deepEqual(differ, [], `${args[0]}: the same names both ways`);
    assert.equal(direct.metadata.importer_opens, 0, `${args[0]}: direct reading asked for no importer`);
    assert.ok(direct.metadata.direct_modules >= 2, `${args[0]}: modules read directly: ${direct.metadata.direct_modules}`);
    assert.equal(importer.metadata.direct_modules, 0, `${args[0]}: JITSCOPE_METADATA=importer reads no image`);
    assert.ok(importer.metadata.importer_opens > 0, `${args[0]}: and asks the importer`);
  }
});

test('agent and server built with -fsanitize=address,undefined pass the same end-to-end check', async () => {
  const asan = asanRuntime();
  assert.ok(asan, 'gcc ships libasan.so');
  const agent = path.join(BUILD, 'asan/libjitscope_agent.so');
  assert.ok(fs.existsSync(agent), 'make asan built the sanitizer agent');
  const { srv } = await runAndCheck({
    bin: path.join(BUILD, 'asan/jitscope'),
    env: {
      LD_PRELOAD: asan,
      // CoreCLR itself is not ASan-clean for leaks at exit and probes memory on purpose
      ASAN_OPTIONS: 'detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:abort_on_error=1',
      UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
    },
  }, ['--agent', agent]);
  assert.doesNotMatch(srv.stderr, /runtime error:|AddressSanitizer/, 'no sanitizer report');
});

test('tier-up re-JITs are counted as new code versions, each with its own native size', async () => {
  const { DEMO_DLL } = await import('./lib.mjs');
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', DEMO_DLL]);
  try {
    // the demo's hot methods tier up once they have run a while, which takes longer the
    // less CPU the app gets: wait for 20 of them, then end the app (SIGTERM: the runtime's
    // Shutdown, with the tier source stopped, maybe in the middle of a tier-up) and look
    // once the session has all its agent sent
    const pid = (await srv.api('/api/sessions/1')).body.pid;
    await waitFor('20 methods compiled twice', async () => (await functionsOf(srv, 1)).filter((f) => f.jit_count >= 2).length >= 20, { timeoutMs: 120000, everyMs: 500 });
    process.kill(pid, 'SIGTERM');
    await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
    const fns = await functionsOf(srv, 1);
    const rejitted = fns.filter((f) => f.jit_count >= 2);
    assert.ok(rejitted.length >= 20, `the demo's hot methods tier up (${rejitted.length} compiled twice or more)`);
    for (const f of rejitted)
      assert.ok(f.versions >= f.jit_count, `${f.name}: ${f.jit_count} compilations, ${f.versions} versions`);
    const events = (await srv.api('/api/sessions/1/events?limit=10000')).body.events.filter((e) => e.type === 'jit');
    const sizes = new Map();
    for (const e of events) sizes.set(e.function_id, [...(sizes.get(e.function_id) || []), e.native_size]);
    const differing = [...sizes.values()].filter((v) => v.length >= 2 && new Set(v).size > 1);
    assert.ok(differing.length > 0, 'a re-JIT reports the size of its own code, not the previous version\'s');
  } finally {
    await srv.stop();
  }
});
