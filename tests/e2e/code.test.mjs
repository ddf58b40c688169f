// code.test.mjs -- the code the JIT produced (GET .../functions/{fid}/code),
// checked against the JIT's own listing (DOTNET_JitDisasm + DOTNET_JitStdOutFile,
// jit_oracle.mjs): for every compilation of the methods listed, jitscope's
// version has exactly the JIT's "Total bytes of code", the same number of
// instructions (loop-alignment padding and nops left out on both sides: the
// JIT shows padding as one "align" line) and the same call targets, by name
// for managed methods and by count for the runtime's helpers. In startup mode
// (in compilation order, with the compilation's tier) and after an attach for
// code compiled before it. Then: the IL offsets and the JIT-like text listing,
// inlining per compilation and per callee, the start-up view with its
// ReadyToRun counts, code read while live served by a stopped session and by a
// restarted server on the same data directory, and what is refused.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E2E_DLL, startServer, startTarget, stopAll, waitFor, functionsOf, serveAttached, tempDataDir } from './lib.mjs';
import { readJitListings, keyOfName } from './jit_oracle.mjs';

after(stopAll);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-code-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const jitEnv = (file) => ({ DOTNET_JitDisasm: 'CodeHot CodeLeaf', DOTNET_JitStdOutFile: file });
const METHODS = ['CodeHot', 'CodeLeaf'];

// What one of our versions holds, in the oracle's terms.
function ours(version) {
  const insns = version.instructions.filter((i) => i.mnemonic !== 'nop' && !i.mnemonic.startsWith('.'));
  const calls = insns.filter((i) => i.mnemonic === 'call');
  // through a register: no target, or one named from the IL (calls.test.mjs checks those names)
  const viaRegister = (i) => !i.target || (i.target.named_from === 'il' && i.target.address === null);
  return {
    bytes: version.code_size,
    instructions: insns.length,
    calls: calls.filter((i) => i.target && i.target.kind === 'method' && !viaRegister(i)).map((i) => keyOfName(i.target.name)),
    helpers: calls.filter((i) => i.target && (i.target.kind === 'native' || i.target.kind === 'unknown')).length,
    viaRegister: calls.filter(viaRegister).length,
  };
}

// Compares our versions of one method with the JIT's listings of it, in order.
function compare(name, versions, listings, { tiers }) {
  assert.equal(versions.length, listings.length, `${name}: ${versions.length} versions, the JIT listed ${listings.length}`);
  versions.forEach((v, i) => {
    const l = listings[i], o = ours(v);
    const what = `${name} compilation ${i + 1} (${l.tier})`;
    assert.equal(o.bytes, l.bytes, `${what}: total bytes of code`);
    assert.equal(o.instructions, l.instructions, `${what}: instructions`);
    assert.deepEqual([...o.calls].sort(), [...l.calls].sort(), `${what}: calls by name`);
    assert.equal(o.helpers, l.helpers, `${what}: runtime helper calls`);
    assert.equal(o.viaRegister, l.viaRegister, `${what}: calls through a register`);
    assert.equal(v.code_read, v.code_size, `${what}: every byte read`);
    if (tiers) {
      assert.equal(v.compilation, i + 1, `${what}: its compilation`);
      assert.equal(v.tier, l.tier === 'Instrumented Tier0' ? v.tier : l.tier, `${what}: tier`);
      assert.ok(v.jit_ms > 0 && v.compiled_ms > 0, `${what}: JIT time and when`);
    }
  });
}

async function fid(srv, id, method) {
  const f = (await functionsOf(srv, id, `&q=CodeWork.${method}`)).find((x) => x.name.includes(`.${method}(`));
  assert.ok(f, `${method} is listed`);
  return f;
}

async function code(srv, id, functionId, query = '') {
  const r = await srv.api(`/api/sessions/${id}/functions/${functionId}/code${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

test('startup: every compilation has the JIT\'s bytes, instructions and call targets', async () => {
  const file = path.join(dir, 'startup.txt');
  const data = tempDataDir();
  let srv = await startServer(['run', '--port', '0', '--data', data, '--', 'dotnet', E2E_DLL, 'code'], { env: jitEnv(file) });
  srv.proc.stdin.write(''); // the app reads our stdin (run passes it on)
  await waitFor('CodeHot and CodeLeaf at Tier1', async () => {
    const fs2 = await Promise.all(METHODS.map((m) => fid(srv, 1, m).catch(() => null)));
    return fs2.every((f) => f && f.tiers.some((t) => t.tier === 'Tier1'));
  }, { timeoutMs: 60000 });
  srv.proc.stdin.write('stop\n');
  await waitFor('the app stopped calling', () => /^stopped$/m.test(srv.stdout), { timeoutMs: 30000 });
  const read = {};
  for (const m of METHODS) {
    const f = await fid(srv, 1, m);
    const c = await code(srv, 1, f.function_id);
    assert.equal(c.status, 'ok');
    assert.equal(c.complete, true);
    assert.equal(c.versions.length, f.tiers.length, `${m}: one version per compilation jitscope saw`);
    // the IL size the code view gives is the one the feed and /functions give (the code's bytes)
    assert.equal(c.il.size, f.il_size, `${m}: IL size ${c.il.size} in the code view, ${f.il_size} in /functions`);
    assert.equal(c.il.bytes.length, 2 * c.il.size, `${m}: the IL code's bytes`);
    assert.ok([1, 12].includes(c.il.header_size) && c.il.body_size >= c.il.header_size + c.il.size, JSON.stringify({ ...c.il, bytes: undefined }));
    read[m] = { f, c };
  }
  // IL offsets from the map, on instructions; the text listing
  const hot = read.CodeHot.c;
  const tier1 = hot.versions.find((v) => v.tier === 'Tier1');
  assert.ok(tier1.il_map_entries > 0 && tier1.instructions.some((i) => Number.isInteger(i.il_offset)), 'IL offsets');
  assert.ok(tier1.instructions.some((i) => i.il_offset === 'prolog'), 'the prolog is marked');
  const text = (await srv.api(`/api/sessions/1/functions/${read.CodeHot.f.function_id}/code?format=text&il=1&refresh=0`)).body;
  assert.match(text, /^; Assembly listing for method JitscopeE2e\.CodeWork\.CodeHot\(int\) \(Tier0\)$/m);
  assert.match(text, /^; Total bytes of code \d+$/m);
  assert.match(text, /call {5}\[JitscopeE2e\.CodeWork\.CodeLeaf\(int\)\]/);
  assert.match(text, /; IL_00[0-9A-F]{2}/);
  // inlining: Tier1 inlined CodeSmall (its call is gone), Tier0 still calls it
  const t0 = hot.versions[0];
  assert.ok(t0.calls.some((c) => c.name.includes('CodeSmall')), 'Tier0 calls CodeSmall');
  assert.ok(!tier1.calls.some((c) => c.name.includes('CodeSmall')), 'Tier1 does not');
  assert.ok(tier1.inlinees.some((c) => c.name.includes('CodeSmall')), 'Tier1 lists it as inlined');
  const inl = (await srv.api(`/api/sessions/1/functions/${read.CodeHot.f.function_id}/inlining`)).body;
  const small = inl.compilations.flatMap((k) => k.inlinees).find((x) => x.callee.name.includes('CodeSmall'));
  assert.ok(small, 'the inlining route lists CodeSmall');
  const smallFn = (await srv.api(`/api/sessions/1/functions/${small.callee.function_id}/inlining`)).body;
  assert.ok(smallFn.inlined_into.methods >= 1 && smallFn.inlined_into.callers.some((c) => c.name.includes('CodeHot')), 'inlined into CodeHot');
  // a call target names a method that the dashboard can open
  const leafCall = tier1.instructions.find((i) => i.target && i.target.kind === 'method' && i.target.name.includes('CodeLeaf'));
  assert.equal(leafCall.target.function_id, read.CodeLeaf.f.function_id);
  // start-up: CoreLib is precompiled and ran ReadyToRun code; the app's module is not
  const st = (await srv.api('/api/sessions/1/startup')).body;
  assert.equal(st.cache_searches, true);
  const corelib = st.modules.find((m) => m.module === 'System.Private.CoreLib');
  assert.ok(corelib.precompiled && corelib.ready_to_run_methods > 100, JSON.stringify(corelib));
  const app = st.modules.find((m) => m.module === 'E2eTarget');
  assert.equal(app.precompiled, false);
  assert.ok(app.jitted_methods >= 2 && st.top_methods.length > 0 && st.jit_ns > 0);

  srv.proc.stdin.write('exit\n');
  await waitFor('the app exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  const listings = readJitListings(file);
  for (const m of METHODS) {
    const mine = listings.filter((l) => l.key === `CodeWork|${m}|1`);
    const f = (await functionsOf(srv, 1, `&q=CodeWork.${m}`)).find((x) => x.name.includes(`.${m}(`));
    assert.equal(f.tiers.length, read[m].c.versions.length, `${m}: nothing compiled after the code was read`);
    compare(m, read[m].c.versions, mine, { tiers: true });
  }
  // an ended session serves the code read while it was live, and so does a
  // server started again on its data directory
  const again = await code(srv, 1, read.CodeHot.f.function_id);
  const ended = (await srv.api('/api/sessions/1/startup')).body;
  assert.deepEqual(again.versions.map((v) => v.code_size), hot.versions.map((v) => v.code_size));
  await srv.stop();
  srv = await startServer(['serve', '--port', '0', '--data', data]);
  const stored = await code(srv, 1, read.CodeHot.f.function_id);
  assert.deepEqual(stored.versions.map((v) => [v.tier, v.code_size, v.instruction_count]),
    hot.versions.map((v) => [v.tier, v.code_size, v.instruction_count]), 'the stored session shows the same code');
  assert.ok(stored.versions.at(-1).inlinees.some((c) => c.name.includes('CodeSmall')), 'and its inlining');
  const st2 = (await srv.api('/api/sessions/1/startup')).body;
  assert.deepEqual(st2.modules, ended.modules, 'the start-up view of the stored session is the same');
  console.log(`code (startup): ${METHODS.map((m) => `${m} ${read[m].c.versions.map((v) => `${v.tier} ${v.code_size} B`).join(', ')}`).join('; ')}`);
  await srv.stop();
});

test('attach: code compiled before the attach matches the JIT\'s listing too', async () => {
  const file = path.join(dir, 'attach.txt');
  const target = await startTarget(['code'], { env: jitEnv(file) });
  const exited = new Promise((resolve) => target.proc.on('exit', resolve));
  const { srv, id } = await serveAttached(target.pid, { timeoutMs: 30000 });
  target.send('stop');
  await target.waitLine(/^stopped$/m, 30000);
  const read = {};
  for (const m of METHODS) {
    const f = await fid(srv, id, m);
    read[m] = await code(srv, id, f.function_id);
    assert.ok(read[m].versions.length >= 1);
    assert.equal(read[m].versions[0].compilation, null, `${m}: its first version was compiled before the attach`);
  }
  const st = (await srv.api(`/api/sessions/${id}/startup`)).body;
  assert.equal(st.mode, 'attach');
  assert.equal(st.cache_searches, false, 'no ReadyToRun searches after an attach');
  target.send('exit');
  await exited;
  const listings = readJitListings(file);
  for (const m of METHODS)
    compare(m, read[m].versions, listings.filter((l) => l.key === `CodeWork|${m}|1`), { tiers: false });
  await srv.stop();
});

test('refusals: unknown and dynamic methods, an ended session with nothing read, bad parameters', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'run']);
  await waitFor('the app exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
  assert.equal((await srv.api('/api/sessions/1/functions/0x1234/code')).status, 404);
  const alpha = (await functionsOf(srv, 1, '&q=UniqueAlpha'))[0];
  const r = await srv.api(`/api/sessions/1/functions/${alpha.function_id}/code`);
  assert.equal(r.status, 409);
  assert.match(r.body.error, /no code .* was read while session 1 was live/);
  assert.equal((await srv.api(`/api/sessions/1/functions/${alpha.function_id}/code?format=xml`)).status, 400);
  assert.equal((await srv.api(`/api/sessions/1/functions/${alpha.function_id}/code?max_bytes=1`)).status, 400);
  assert.equal((await srv.api('/api/sessions/1/startup?window_ms=0')).status, 400);
  await srv.stop();
});
