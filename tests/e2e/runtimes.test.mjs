// runtimes.test.mjs -- jitscope on the runtimes users have besides the SDK's own:
// .NET 8 (LTS) and .NET 9. The test apps are published self-contained for each
// (tests/apps/apps.mk, apps-runtimes: the runtime's files sit next to the app, no
// system install), so each test below runs a real .NET 8 or 9 runtime:
//   - startup (`jitscope run -- ./E2eTarget`): names, modules from the app's own
//     runtime directory, every compilation with the tier the JIT itself lists
//     (jit_oracle.mjs), and the runtime's version in the session;
//   - attach to a running self-contained app: listed with its version, catch-up,
//     live compilations with the JIT's tiers, a stack snapshot, detach without a trace;
//   - stacks: a snapshot of StackTarget's threads with known stacks, then a detach
//     of the `run` session.
// And a runtime jitscope does not support, .NET Core 3.1 (tests/apps/OldTarget): the
// agent declines it with a message that says why, the server refuses to attach
// (422) before the runtime loads anything, and the app runs on as without jitscope.
// The version the session must show is the one the publish put into the app's
// runtimeconfig.json (the SDK picks the runtime pack's version).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RUNTIME_APPS, OLD_RUNTIME_EXE, JITSCOPE, startServer, startTarget, stopAll, waitFor,
  functionsOf, agentLeft, agentTrace, attach, detachAndWait, runSync } from './lib.mjs';
import { readJitList, ourCompilations, matchTiers } from './jit_oracle.mjs';
import { runStackTarget } from './stacktarget.mjs';

after(stopAll);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-runtimes-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const jitEnv = (file) => ({ DOTNET_JitStdOutFile: file, DOTNET_JitDisasmSummary: '1' });

// The Microsoft.NETCore.App version a self-contained app carries ("8.0.31").
function bundledVersion(app, name) {
  const config = JSON.parse(fs.readFileSync(path.join(app.dir, `${name}.runtimeconfig.json`), 'utf8'));
  const fw = (config.runtimeOptions.includedFrameworks || []).find((f) => f.name === 'Microsoft.NETCore.App');
  assert.ok(fw, `${name} is self-contained (includedFrameworks names Microsoft.NETCore.App)`);
  return fw.version;
}

const NAMES = [
  'JitscopeE2e.Probe.UniqueAlpha()',
  'JitscopeE2e.Probe.UniqueGeneric<System.Int32>(int)',
  'JitscopeE2e.Outer+Inner.UniqueNested()',
  'JitscopeE2e.Box<System.Int64>.UniqueBoxGet()',
  'JitscopeE2e.Probe.Calc(int, ref long)',
  'JitscopeE2e.Probe.Calc<System.Double>(List<double>, double[,])',
  'JitscopePlugin.PluginEntry.UniquePluginMethod()',
  '[dynamic] JitscopeE2eDynamicAdd(long, int)',
];
const CAUGHT_UP = ['JitscopeE2e.Probe.UniqueAlpha()', 'JitscopeE2e.Probe.UniqueGeneric<System.Int32>(int)',
  'JitscopeE2e.Box<System.Int64>.UniqueBoxGet()', 'JitscopePlugin.PluginEntry.UniquePluginMethod()'];

const session = async (srv, id) => (await srv.api(`/api/sessions/${id}`)).body;

for (const app of Object.values(RUNTIME_APPS)) {
  const major = app.tfm.replace(/^net(\d+)\..*$/, '$1');

  test(`.NET ${major}: jitscope run of a self-contained app: names, modules, tiers as the JIT lists them, the runtime's version`, async () => {
    const version = bundledVersion(app, 'E2eTarget');
    assert.ok(version.startsWith(`${major}.`), `the app carries .NET ${major} (${version})`);
    const file = path.join(dir, `${app.tfm}-run.txt`);
    const srv = await startServer(['run', '--port', '0', '--', app.e2e, 'run'], { env: jitEnv(file) });
    const s = await waitFor('the app exited', async () => { const x = await session(srv, 1); return x.state === 'exited' && x; }, { timeoutMs: 60000 });
    assert.equal(s.exit_code, 42);
    assert.equal(s.runtime.type, 'CoreCLR');
    assert.equal(s.runtime.version, version, 'the session shows the runtime the app runs on');
    assert.equal(s.drops.total, 0, 'no records dropped');
    assert.equal(s.tier_source.enabled, true, `the tier source runs on .NET ${major}: ${JSON.stringify(s.tier_source)}`);

    const fns = await functionsOf(srv, 1);
    const names = new Set(fns.map((f) => f.name));
    for (const name of NAMES) assert.ok(names.has(name), `${name} listed`);
    const mods = (await srv.api('/api/sessions/1/modules')).body.modules;
    for (const a of ['System.Private.CoreLib', 'E2eTarget', 'E2ePlugin']) {
      const m = mods.find((x) => x.assembly === a);
      assert.ok(m && m.path, `module ${a} listed with a path`);
      assert.equal(path.dirname(fs.realpathSync(m.path)), fs.realpathSync(app.dir),
        `${a} comes from the app's own directory (self-contained): ${m.path}`);
    }
    const threads = (await srv.api('/api/sessions/1/threads')).body.threads;
    assert.ok(threads.some((t) => t.name === 'e2e-named-thread' && t.os_thread_id > 0), 'the named thread');

    const lines = readJitList(file);
    assert.ok(lines.length > 30, `${lines.length} JIT lines`);
    const ours = await ourCompilations(srv, 1);
    const { missing, instrumentedAsTier0 } = matchTiers(lines, ours.live);
    assert.deepEqual(missing, [], 'every compilation the JIT lists, with its tier');
    assert.equal(ours.count, lines.length, 'and no compilation the JIT did not list');
    console.log(`.NET ${version} run: ${lines.length} compilations match the JIT's list (${instrumentedAsTier0} Instrumented Tier0 as Tier0)`);
    await srv.stop();
  });

  test(`.NET ${major}: attach to a self-contained app: listed, caught up, live tiers, a snapshot, detach without a trace`, async () => {
    const version = bundledVersion(app, 'E2eTarget');
    const file = path.join(dir, `${app.tfm}-attach.txt`);
    const target = await startTarget(['serve'], { exe: app.e2e, env: jitEnv(file) });
    const exited = new Promise((resolve) => target.proc.on('exit', resolve));
    const before = agentTrace(target.pid);
    const srv = await startServer(['serve', '--port', '0']);
    const listed = (await srv.api('/api/processes')).body.processes.find((p) => p.pid === target.pid);
    assert.ok(listed, 'the self-contained app is offered for attach');
    assert.equal(listed.entry_assembly, 'E2eTarget');
    assert.equal(listed.runtime_version, version);

    const r = await attach(srv, target.pid);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const id = r.body.session.id;
    const s = await waitFor('catch-up done, tiers on', async () => {
      const x = await session(srv, id);
      return x.catchup.count >= 1 && x.tier_source.enabled === true && x;
    }, { timeoutMs: 30000 });
    assert.equal(s.mode, 'attach');
    assert.equal(s.runtime.version, version);
    const fns = await functionsOf(srv, id);
    for (const name of CAUGHT_UP) {
      const f = fns.filter((x) => x.name === name);
      assert.equal(f.length, 1, `${name} from catch-up`);
      assert.equal(f[0].catchup, true);
      assert.ok(f[0].native_size > 0 && f[0].il_size > 0, `${name} sizes`);
    }
    const during = agentTrace(target.pid);
    assert.ok(during.mapped && during.agentThreads === 1, 'the agent is loaded');

    target.send('call 4');
    await target.waitLine(/^called 4 /m);
    const late = await waitFor('LateMethod04 compiled, live', async () => {
      const f = (await functionsOf(srv, id, '&q=LateMethod04'))[0];
      return f && f.tiers.length === 1 && f;
    });
    assert.equal(late.catchup, false);
    assert.notEqual(late.tier, 'unknown', 'a live compilation has its tier');

    const snap = await srv.api(`/api/sessions/${id}/stacks`, { method: 'POST' });
    assert.equal(snap.status, 201, JSON.stringify(snap.body));
    assert.equal(snap.body.snapshot.hresult, 0);
    const main = snap.body.snapshot.threads.find((t) => t.os_thread_id === target.pid);
    assert.ok(main, 'the main thread is in the snapshot');
    assert.ok(main.frames.some((f) => f.name === 'JitscopeE2e.Program.Serve(string, int)'),
      `the main thread waits in Program.Serve: ${main.frames.map((f) => f.name).join(' <- ')}`);

    const d = await detachAndWait(srv, id);
    assert.ok(d.detach.duration_ms > 0, 'detach took its time');
    await agentLeft(target.pid, before);
    target.send('call 9');
    await target.waitLine(/^called 9 -?\d+$/m);
    target.send('exit');
    await exited;
    const jit = readJitList(file).find((l) => l.key === 'Late|LateMethod04|0');
    assert.ok(jit, 'the JIT lists LateMethod04');
    assert.equal(late.tier, jit.tier === 'Instrumented Tier0' ? 'Tier0' : jit.tier, 'LateMethod04 has the JIT\'s tier');
    await srv.stop();
  });

  test(`.NET ${major}: stacks of known threads, then detach of a run session`, async () => {
    const { srv, session: s } = await runStackTarget({ exe: app.stack, liveMs: 15000 });
    assert.equal(s.runtime.version, bundledVersion(app, 'StackTarget'));
    const r = await srv.api('/api/sessions/1/stacks', { method: 'POST' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const snap = r.body.snapshot;
    assert.equal(snap.hresult, 0);
    assert.equal(snap.complete, true);
    const deep = snap.threads.find((t) => t.name === 'deep');
    assert.ok(deep, `the "deep" thread (threads: ${snap.threads.map((t) => t.name).join(', ')})`);
    const names = deep.frames.map((f) => f.name);
    const idx = names.flatMap((n, i) => (n.startsWith('StackTarget.Deep.Recurse') ? [i] : []));
    assert.equal(idx.length, 25, `25 Recurse frames: ${names.join(' <- ')}`);
    assert.equal(idx[24] - idx[0], 24, 'in a row');
    assert.equal(names[idx[0] - 1], 'StackTarget.Deep.Park()');
    assert.equal(names[idx[24] + 1], 'StackTarget.Deep.Run()');
    const spinner = snap.threads.find((t) => t.name === 'spinner');
    const top = spinner && spinner.frames.find((f) => !f.native);
    assert.ok(top && /^StackTarget\.Spin\.(Inner|Outer)\(/.test(top.name), `spinner's top frame: ${top && top.name}`);

    await detachAndWait(srv, 1);
    await waitFor('unloaded', () => !agentTrace(s.pid).mapped);
    assert.equal(agentTrace(s.pid).agentThreads, 0);
    srv.proc.stdin.write('tick\n');
    await waitFor('tock', () => /^tock 1$/m.test(srv.stdout));
    srv.proc.stdin.write('exit\n');
    const end = await waitFor('exited', async () => { const x = await session(srv, 1); return x.exit_code !== null && x; }, { timeoutMs: 30000 });
    assert.equal(end.exit_code, 0);
    await srv.stop();
  });
}

const OLD_READY = /^READY pid=(\d+)$/m;
const DECLINED = /jitscope agent: this runtime says version 4\.0\.30319, as \.NET Core 3\.1 and older do; jitscope needs \.NET 5 or later; not profiling/;

test('.NET Core 3.1 (unsupported): jitscope run: the agent declines with a clear message, the app runs on as without it', async () => {
  const plain = runSync(OLD_RUNTIME_EXE, [], { input: 'work 10\nwork 20\nexit\n' });
  assert.equal(plain.status, 0, plain.stderr);
  const srv = await startServer(['run', '--port', '0', '--', OLD_RUNTIME_EXE]);
  await waitFor('READY', () => OLD_READY.test(srv.stdout), { timeoutMs: 60000 });
  const pid = Number(OLD_READY.exec(srv.stdout)[1]);
  assert.match(srv.stderr, DECLINED, 'the app\'s stderr says why it is not profiled');
  const trace = agentTrace(pid);
  assert.equal(trace.mapped, false, 'the runtime unloaded the agent');
  assert.equal(trace.agentThreads, 0, 'no agent thread');
  const s = await session(srv, 1);
  assert.equal(s.connected_ms, null, 'no agent connected');
  srv.proc.stdin.write('work 10\nwork 20\nexit\n');
  const end = await waitFor('exited', async () => { const x = await session(srv, 1); return x.state === 'exited' && x; }, { timeoutMs: 30000 });
  assert.equal(end.exit_code, 0);
  const lines = (text) => text.split('\n').filter((l) => !l.startsWith('jitscope: ') && !OLD_READY.test(l));
  assert.deepEqual(lines(srv.stdout), lines(plain.stdout), 'the app printed what it prints alone');
  await srv.stop();
});

test('.NET Core 3.1 (unsupported): listed with the reason; attach refused (422) before anything is loaded', async () => {
  const target = await startTarget([], { exe: OLD_RUNTIME_EXE, ready: OLD_READY });
  const srv = await startServer(['serve', '--port', '0']);
  const row = (await srv.api('/api/processes')).body.processes.find((p) => p.pid === target.pid);
  assert.ok(row, 'the process is listed');
  assert.match(row.error, /older than \.NET 5/, `its row says why: ${row.error}`);
  const r = await attach(srv, target.pid);
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.match(r.body.error, new RegExp(`process ${target.pid} runs a \\.NET runtime older than \\.NET 5, which jitscope needs`));
  assert.equal((await srv.api('/api/sessions')).body.sessions.length, 0, 'no session left behind');
  assert.equal(agentTrace(target.pid).mapped, false, 'the runtime was not asked to load the agent');
  const cli = runSync(JITSCOPE, ['attach', String(target.pid), '--server', srv.url]);
  assert.equal(cli.status, 1);
  assert.match(cli.stderr, /older than \.NET 5.*\(HTTP 422\)/);
  target.send('work 7');
  await target.waitLine(/^worked 7 21$/m);
  target.send('exit');
  await target.waitLine(/^bye$/m);
  await srv.stop();
});
