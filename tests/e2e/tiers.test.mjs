// tiers.test.mjs -- every compilation's optimisation tier, checked against the
// JIT's own list (DOTNET_JitStdOutFile + DOTNET_JitDisasmSummary=1, see
// jit_oracle.mjs): every method the JIT lists appears in the session under the
// same declaring type, name and parameter count, dynamic methods included, and
// each compilation carries the JIT's tier. In startup mode for everything; after
// an attach, names for what catch-up found and names plus tiers for what was
// compiled once the agent was in. Then the per-session switch.
//
// One known difference is allowed and counted: the JIT instruments some Tier0
// code on its own (methods with loops, under tiered PGO) and prints
// "Instrumented Tier0", while the runtime's MethodLoad event, our source, says
// Tier0 for the same compilation (docs/API.md, Tiers).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E2E_DLL, startServer, startTarget, stopAll, waitFor, functionsOf, attach } from './lib.mjs';
import { readJitList, ourCompilations, matchTiers, matchIlSizes } from './jit_oracle.mjs';

after(stopAll);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-oracle-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const jitEnv = (file) => ({ DOTNET_JitStdOutFile: file, DOTNET_JitDisasmSummary: '1' });

test('startup: every compilation the JIT lists is in the session, by name, with the JIT\'s tier', async () => {
  const file = path.join(dir, 'startup.txt');
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'run'], { env: jitEnv(file) });
  const s = await waitFor('the app exited', async () => { const x = (await srv.api('/api/sessions/1')).body; return x.state === 'exited' && x; }, { timeoutMs: 60000 });
  assert.equal(s.exit_code, 42);
  assert.equal(s.tier_source.enabled, true);
  // on all along, until the runtime ended it as the process exited
  assert.ok(s.tier_source.ended_by_runtime_ms > s.created_ms, JSON.stringify(s.tier_source));
  const lines = readJitList(file);
  assert.ok(lines.length > 30, `${lines.length} JIT lines`);
  assert.ok(lines.some((l) => l.key.startsWith('(dynamic)|JitscopeE2eDynamicAdd|')), 'the JIT lists our dynamic method');
  const ours = await ourCompilations(srv, 1);
  const { missing, instrumentedAsTier0 } = matchTiers(lines, ours.live);
  assert.deepEqual(missing, [], 'every JIT compilation found with its tier');
  assert.equal(ours.count, lines.length, 'and no compilation the JIT did not list');
  const seen = new Set(lines.map((l) => l.tier));
  assert.ok(seen.has('Tier0') && seen.has('FullOpts'), `tiers seen: ${[...seen]}`);
  // the IL size of every method is the JIT's (the IL code's bytes, not its body's)
  const il = await matchIlSizes(srv, 1, lines);
  assert.ok(il.checked > 30, `${il.checked} IL sizes checked`);
  assert.deepEqual(il.wrong, [], 'every IL size is the JIT\'s');
  console.log(`oracle (startup): ${lines.length} compilations match; ${instrumentedAsTier0} Instrumented Tier0 reported as Tier0 by the runtime`);
  await srv.stop();
});

test('attach: catch-up names everything compiled before, live compilations carry the JIT\'s tier', async () => {
  const file = path.join(dir, 'attach.txt');
  const target = await startTarget(['serve'], { env: jitEnv(file) });
  const exited = new Promise((resolve) => target.proc.on('exit', resolve));
  const srv = await startServer(['serve', '--port', '0']);
  const r = await attach(srv, target.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  await waitFor('catch-up done, tiers on', async () => {
    const x = (await srv.api(`/api/sessions/${id}`)).body;
    return x.catchup.count >= 1 && x.tier_source.enabled === true;
  }, { timeoutMs: 30000 });
  for (const n of [3, 4]) { target.send(`call ${n}`); await target.waitLine(new RegExp(`^called ${n} `, 'm')); }
  await waitFor('LateMethod04 compiled and named', async () => {
    const f = (await functionsOf(srv, id, '&q=LateMethod04'))[0];
    return f && f.tiers.length === 1;
  }, { timeoutMs: 15000 });
  target.send('exit'); // the JIT's file is complete once the process has exited
  await exited;
  // and the session has all the agent sent once it says exited (its link closed after
  // the last record): the runtime's background tiering goes on compiling until the exit
  await waitFor('the session exited', async () => (await srv.api(`/api/sessions/${id}`)).body.state === 'exited', { timeoutMs: 30000 });
  const ours = await ourCompilations(srv, id);
  const lines = readJitList(file);
  // every live compilation (all are after the attach) is one the JIT lists, with its tier
  const { instrumentedAsTier0 } = matchTiers(lines, ours.live);
  const extra = [...ours.live].flatMap(([key, tiers]) => tiers.map((t) => `${key} ${t}`));
  assert.deepEqual(extra, [], 'no live compilation without a JIT line of the same tier');
  // and every method the JIT lists is named (catch-up or live); dynamic methods
  // compiled before an attach are not in the runtime's enumeration
  const liveKeys = new Set(lines.map((l) => l.key).filter((k) => ours.all.has(k)));
  const unnamed = lines.filter((l) => !liveKeys.has(l.key) && !l.key.startsWith('(dynamic)|')).map((l) => l.line);
  assert.deepEqual(unnamed, [], 'every method the JIT compiled is named');
  const late = lines.find((l) => l.key === 'Late|LateMethod04|0');
  assert.ok(late, 'the JIT lists LateMethod04');
  const f = (await functionsOf(srv, id, '&q=LateMethod04'))[0];
  assert.equal(f.tier, late.tier === 'Instrumented Tier0' ? 'Tier0' : late.tier, 'LateMethod04 has the JIT\'s tier');
  console.log(`oracle (attach): ${lines.length} JIT compilations named; ${ours.count} after the attach matched with tiers (${instrumentedAsTier0} Instrumented Tier0 as Tier0)`);
  await srv.stop();
});

test('the tier source can be switched off and on for one session', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('ready', () => /^READY$/m.test(srv.stdout), { timeoutMs: 60000 });
  const post = (body) => srv.api('/api/sessions/1/tiers', { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
  const source = async () => (await srv.api('/api/sessions/1')).body.tier_source;
  assert.equal((await source()).enabled, true, 'on by default');
  for (const bad of ['', '{}', '{"enabled": 1}', '{"enabled": true, "x": 1}', '[true]', '{"enabled":']) {
    const res = await post(bad);
    assert.equal(res.status, 400, `body ${bad}`);
    assert.match(res.body.error, /enabled/);
  }
  const call = async (n) => {
    srv.proc.stdin.write(`call ${n}\n`);
    const name = `LateMethod${String(n).padStart(2, '0')}`;
    // listed from its JIT start on; its compilation is there once the JIT finished
    return waitFor(name, async () => {
      const f = (await functionsOf(srv, 1, `&q=${name}()`))[0];
      return f && f.tiers.length === 1 && f;
    }, { timeoutMs: 15000 });
  };
  let res = await post({ enabled: false });
  assert.equal(res.status, 202);
  await waitFor('off', async () => (await source()).enabled === false);
  assert.equal((await call(5)).tier, 'unknown', 'no tier while off');
  res = await post({ enabled: true });
  assert.equal(res.status, 202);
  await waitFor('on again', async () => (await source()).enabled === true);
  const f = await call(6);
  assert.notEqual(f.tier, 'unknown', 'a tier once on again');
  assert.deepEqual(f.tiers.map((c) => c.tier), [f.tier]);
  const totals = (await srv.api('/api/sessions/1')).body.tiers;
  assert.ok(totals.unknown.compilations >= 1 && totals[f.tier].compilations >= 1, JSON.stringify(totals));
  srv.proc.stdin.write('exit\n');
  await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  assert.equal((await post({ enabled: true })).status, 409, 'no agent to tell once the app is gone');
  await srv.stop();
});

// The tier source stopped while a method compiles (switched off here; Shutdown,
// detach and a lost server do it too): the compilation's MethodLoad never comes,
// and its code is then asked of the runtime, so every compilation keeps its code
// version (without that a few of a storm's showed none, and a tier-up at an app's
// exit made "2 compilations, 1 version").
test('the tier source switched off and on during a JIT storm: every compilation keeps its code', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'jitstorm', '20000', 'rate', '5000', 'hold']);
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 60000 });
  const post = (enabled) => srv.api('/api/sessions/1/tiers', { method: 'POST', body: JSON.stringify({ enabled }) });
  let on = true, toggles = 0;
  while (!/^jitted$/m.test(srv.stdout)) { // about 4 s of storm
    on = !on;
    assert.equal((await post(on)).status, 202);
    toggles++;
  }
  await post(true);
  await waitFor('holding', () => /^holding$/m.test(srv.stdout), { timeoutMs: 30000 });
  const pid = (await srv.api('/api/sessions/1')).body.pid;
  process.kill(pid, 'SIGTERM'); // and then all the agent sent is in: the session says exited
  await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  const storm = [];
  for (let offset = 0; ; offset += 10000) {
    const page = (await srv.api(`/api/sessions/1/functions?q=JitscopeE2e.Storm&limit=10000&offset=${offset}`)).body.functions;
    storm.push(...page);
    if (page.length < 10000) break;
  }
  const unknown = storm.filter((f) => f.tiers.some((c) => c.tier === 'unknown')).length;
  const noCode = storm.filter((f) => f.jit_count >= 1 && f.versions === 0).map((f) => f.name);
  console.log(`tier source switched ${toggles} times during ${storm.length} storm compilations; ${unknown} without a tier, ${noCode.length} without code`);
  assert.ok(storm.length >= 20000, `the storm's methods: ${storm.length}`);
  assert.ok(toggles >= 4, `switched during the storm: ${toggles}`);
  assert.deepEqual(noCode.slice(0, 5), [], `every compilation has its code version (${noCode.length} without)`);
  await srv.stop();
});

// The runtime shuts EventPipe down first thing as a process begins to exit,
// before its ProcessExit handlers run: what is compiled from then on comes
// with no tier event. The agent notices (a session was disabled, then a
// compilation came without any event) and the session says when
// (tier_source.ended_by_runtime_ms), so the tier of those is unknown for a
// reason the dashboard can give.
test('compilations as the process exits: tier unknown, and the session says the runtime ended the tier source before them', async () => {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', E2E_DLL, 'atexit']);
  const s = await waitFor('the app exited', async () => { const x = (await srv.api('/api/sessions/1')).body; return x.state === 'exited' && x; }, { timeoutMs: 60000 });
  assert.match(srv.stdout, /^at exit 3352$/m);
  const fns = await functionsOf(srv, 1, '&q=JitscopeE2e.AtExit');
  const tierOf = (name) => fns.find((f) => f.name === `JitscopeE2e.AtExit.${name}`);
  assert.equal(tierOf('Before(int)').tier, 'Tier0', 'compiled in Main: its tier is known');
  const ended = s.tier_source.ended_by_runtime_ms;
  assert.ok(ended > tierOf('Before(int)').last_jit_ms, `the source ended after Main's compilations: ${JSON.stringify(s.tier_source)}`);
  assert.equal(s.tier_source.enabled, true, 'the agent had it on; the runtime ended it');
  for (const name of ['First(int)', 'Second(int)']) {
    const f = tierOf(name);
    assert.equal(f.tier, 'unknown', `${name}, compiled in the ProcessExit handler`);
    assert.ok(f.last_jit_ms >= ended, `${name} at ${f.last_jit_ms}, after the end at ${ended}`);
  }
  await srv.stop();
});

// Without the tier source the agent reads a method's IL size from its body
// (GetILFunctionBody): the code's bytes, as the JIT counts them, not the body's
// with its header.
test('tier source off: the IL sizes are still the JIT\'s', async () => {
  const file = path.join(dir, 'tiers-off.txt');
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', E2E_DLL, 'run'], { env: { ...jitEnv(file), JITSCOPE_TIERS: '0' } });
  const s = await waitFor('the app exited', async () => { const x = (await srv.api('/api/sessions/1')).body; return x.state === 'exited' && x; }, { timeoutMs: 60000 });
  assert.equal(s.tier_source.enabled, false);
  const il = await matchIlSizes(srv, 1, readJitList(file));
  assert.ok(il.checked > 30, `${il.checked} IL sizes checked`);
  assert.deepEqual(il.wrong, [], 'every IL size is the JIT\'s');
  await srv.stop();
});
