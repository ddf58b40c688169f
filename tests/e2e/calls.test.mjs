// calls.test.mjs -- every call instruction of the code view named as the JIT's
// own listing names it (DOTNET_JitDisasm + DOTNET_JitStdOutFile, jit_oracle.mjs):
// for every compilation of E2eTarget's "calls" methods (Calls.cs: a delegate's
// Invoke, a virtual and an interface call, an async method and its state
// machine's MoveNext), in startup mode, each call instruction in code order has
// the target the JIT's listing gives it, compared by the key jit_oracle.mjs
// makes of a name (type, method, parameter count): a call through a register
// named from the IL call at its IL offset, a call through a stub to a method
// not compiled yet likewise, a call the code names directly by its method. The
// runtime's helpers (CORINFO_HELP_*) are compared as "a helper": the runtime
// exposes no names for them (README "Known limits"). Then the JIT-like text
// listing shows the names too. After an attach likewise for the code compiled
// before it, where no call through a stub is named from the IL (the session
// did not see what was inlined).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E2E_DLL, startServer, startTarget, serveAttached, stopAll, waitFor, functionsOf } from './lib.mjs';
import { readJitListings, keyOfName } from './jit_oracle.mjs';

after(stopAll);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-calls-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
// the methods: CallWork's four and the async one's state machine (<CallAsync>d__4.MoveNext)
const METHODS = [
  { q: 'CallWork.CallDelegate(', key: 'CallWork|CallDelegate|2' },
  { q: 'CallWork.CallVirtual(', key: 'CallWork|CallVirtual|2' },
  { q: 'CallWork.CallInterface(', key: 'CallWork|CallInterface|2' },
  { q: 'CallWork.CallAsync(', key: 'CallWork|CallAsync|1' },
  { q: '<CallAsync>', key: null }, // its MoveNext: the key from its name
];

// Each call instruction's target in the oracle's terms, in code order.
function ourTargets(version) {
  return version.instructions.filter((i) => i.mnemonic === 'call').map((i) => {
    if (!i.target) return 'none';
    if (i.target.kind === 'method') return keyOfName(i.target.name);
    return 'helper'; // native (library + offset) or unknown
  });
}

// The differences README "Known limits" lists, each by what the code shows; null
// for any other difference.
function excepted(want, insn, version) {
  const t = insn && insn.target;
  if (!t) return null;
  // a helper the runtime implements in managed code (.NET 9+: StaticsHelpers,
  // CastHelpers...): named by that method, where the JIT says CORINFO_HELP_*
  if (want === 'helper' && t.kind === 'method' && t.named_from === 'code' &&
      t.module === 'System.Private.CoreLib' && /Helpers\.[^.]+\(/.test(t.name)) return 'managed helper';
  if (want === 'helper' || want === 'none' || t.kind !== 'native' || !/^libcoreclr\.so\+/.test(t.name)) return null;
  // a method implemented in the runtime (an FCall) called directly: stripped libcoreclr.so
  if (!/\[/.test(insn.operands)) return 'fcall';
  // through a cell to the runtime's prestub: a method not compiled yet, called
  // from inlined code (its IL offset is its root's call's, so the IL does not name it)
  if (version.inlinees.length > 0) return 'stub in inlined code';
  // the same in code compiled before an attach, whose inlining the session did not see: no stub's
  // call is named from the IL there (it may be an inlinee's)
  if (version.compilation === null) return 'stub, inlining not seen';
  return null;
}

// Each version of each method read against the JIT's listings of it, in order.
function compareAll(read, listings) {
  const r = { compilations: 0, calls: 0, named: 0, helpers: 0, fromIl: 0, wrong: [], known: {} };
  for (const { f, c, key } of read) {
    const mine = listings.filter((l) => l.key === key);
    assert.equal(c.versions.length, mine.length, `${f.name}: ${c.versions.length} versions, the JIT listed ${mine.length}`);
    c.versions.forEach((v, i) => {
      const l = mine[i], ours = ourTargets(v), insns = v.instructions.filter((x) => x.mnemonic === 'call');
      assert.equal(v.code_size, l.bytes, `${f.name} version ${i + 1}: the JIT's code`);
      r.compilations++;
      l.targets.forEach((want, k) => {
        r.calls++;
        if (want === 'helper') r.helpers++;
        else r.named++;
        if (ours[k] === want) return;
        const why = excepted(want, insns[k], v);
        if (why) r.known[why] = (r.known[why] || 0) + 1;
        else r.wrong.push(`${f.name} ${l.tier} call ${k + 1}: JIT ${want}, jitscope ${ours[k]} (${insns[k] && insns[k].operands} -> ${JSON.stringify(insns[k] && insns[k].target)})`);
      });
      assert.equal(ours.length, l.targets.length, `${f.name} ${l.tier}: call instructions`);
      r.fromIl += v.instructions.filter((x) => x.target && x.target.named_from === 'il').length;
    });
  }
  const excused = Object.values(r.known).reduce((a, b) => a + b, 0);
  r.line = `${r.compilations} compilations, ${r.calls} call instructions (${r.named} named by the JIT, ${r.helpers} helpers): ${r.calls - r.wrong.length - excused} the same target, ${r.fromIl} of them named from the IL; known limits: ${JSON.stringify(r.known)}; wrong: ${r.wrong.length}`;
  return r;
}

// The methods' code views, read once the app stopped calling them.
async function readAll(srv, id, { startup }) {
  const read = [];
  for (const m of METHODS) {
    const f = await find(srv, id, m);
    const r = await srv.api(`/api/sessions/${id}/functions/${f.function_id}/code`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    if (startup) assert.equal(r.body.versions.length, f.tiers.length, `${f.name}: one version per compilation`);
    const text = (await srv.api(`/api/sessions/${id}/functions/${f.function_id}/code?format=text&refresh=0`)).body;
    read.push({ m, f, c: r.body, text, key: m.key || keyOfName(f.name) });
  }
  return read;
}

const find = async (srv, id, m) => (await functionsOf(srv, id, `&q=${encodeURIComponent(m.q.replace('(', ''))}`))
  .find((f) => f.name.includes(m.q) && (m.key || f.name.endsWith('.MoveNext()')));
const jitEnv = (file) => ({ DOTNET_JitDisasm: 'CallDelegate CallVirtual CallInterface CallAsync MoveNext', DOTNET_JitStdOutFile: file });

test('every call instruction of every compilation has the JIT\'s target', async () => {
  const file = path.join(dir, 'calls.txt');
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'calls'], { env: jitEnv(file) });
  srv.proc.stdin.write('');
  await waitFor('every method at Tier1', async () => {
    const fns = await Promise.all(METHODS.map((m) => find(srv, 1, m)));
    return fns.every((f) => f && f.tiers.some((t) => t.tier === 'Tier1'));
  }, { timeoutMs: 90000 });
  srv.proc.stdin.write('stop\n');
  await waitFor('the app stopped calling', () => /^stopped$/m.test(srv.stdout), { timeoutMs: 60000 });
  const read = await readAll(srv, 1, { startup: true });
  srv.proc.stdin.write('exit\n');
  await waitFor('the app exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  const r = compareAll(read, readJitListings(file));
  console.log(`calls (startup): ${r.line}`);
  assert.deepEqual(r.wrong, [], 'every call instruction has the JIT\'s target');
  // at least the six Tier0 calls through a register (two each of Invoke, a virtual, an interface call)
  assert.ok(r.fromIl >= 6, `${r.fromIl} calls named from the IL`);
  // the text listing names a delegate's, a virtual and an interface call as the JIT does
  const text = (k) => read.find((x) => x.m.q.includes(k)).text;
  assert.match(text('CallDelegate'), /call {5}qword ptr \[\w+ \+ 0x18\] System\.Func<int, int>\.Invoke\(int\)/);
  assert.match(text('CallVirtual'), /call {5}qword ptr \[\w+ \+ 0x20\] JitscopeE2e\.CallBase\.Virt\(int\)/);
  assert.match(text('CallInterface'), /call {5}qword ptr \[r11\] JitscopeE2e\.ICallShape\.Area\(int\)/);
  await srv.stop();
});

test('attach: code compiled before the attach has the JIT\'s targets too, or none', async () => {
  const file = path.join(dir, 'attach.txt');
  const target = await startTarget(['calls'], { env: jitEnv(file) });
  const exited = new Promise((resolve) => target.proc.on('exit', resolve));
  const { srv, id } = await serveAttached(target.pid, { timeoutMs: 30000 });
  target.send('stop');
  await target.waitLine(/^stopped$/m, 60000);
  const read = await readAll(srv, id, { startup: false });
  target.send('exit');
  await exited;
  const r = compareAll(read, readJitListings(file));
  console.log(`calls (attach): ${r.line}`);
  assert.deepEqual(r.wrong, [], 'no call named otherwise than the JIT names it');
  assert.ok(r.fromIl >= 6, `${r.fromIl} calls named from the IL`);
  await srv.stop();
});
