// code_safety.test.mjs -- WIRE_CMD_CODE against code that dies: the agent in a
// real runtime (the sanitizer build when it is there), E2eTarget loading,
// JIT-compiling and unloading collectible assemblies in a loop, and a "server"
// this test owns (a socket read as docs/PROTOCOL.md describes) that asks for
// the code of those methods as fast as it can, before and after their modules
// unload, and with addresses that are not theirs. Every request gets its
// CODE_END; a method whose module is gone, or an address that is not the
// method's code, is refused (STALE: an unload began since the agent last saw
// it alive; UNLOADING while one is under way; NOT_ALIVE: the address is not
// its code) and counted, never read; the app runs to its end unharmed (the
// runtime finds a collectible method's code for a while after its module is
// freed: reading it then crashed the app in GetModuleInfo2 before the STALE
// rule).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BUILD, E2E_DLL, ROOT, asanRuntime, stopAll, waitFor } from './lib.mjs';

after(stopAll);

const TOKEN = 'ef'.repeat(16);
const CLSID = '{B8E5C1D2-7A43-4C6E-9F10-5A3B2D1C0E7F}';
const T = { JIT_FINISHED: 3, NAME: 4, MODULE_UNLOADED: 6, CODE_VERSION: 25, CODE_PART: 26, CODE_END: 27, CMD_CODE: 106 };
const STATUS = ['ok', 'not_alive', 'unloading', 'dynamic', 'detaching', 'failed', 'no_memory', 'not_seen', 'stale'];

function command(requestId, fid, address) {
  const b = Buffer.alloc(24 + 32);
  b.writeUInt16LE(T.CMD_CODE, 0);
  b.writeUInt32LE(32, 4);
  b.writeBigUInt64LE(BigInt(requestId), 24);
  b.writeBigUInt64LE(fid, 32);
  b.writeBigUInt64LE(address, 40);
  return b;
}

test('code requests for collectible methods that load and unload: refused once dead, never read, counted', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-codesafe-'));
  const sock = path.join(dir, 's');
  const methods = new Map(); // fid -> {module, start, dead, reused}
  const sent = new Map(); // request id -> {fid, kind: 'alive' | 'dead' | 'wrong'}
  const ends = [];
  let conn = null, buf = Buffer.alloc(0), next = 1;
  const server = net.createServer((c) => {
    conn = c;
    c.on('error', () => {});
    c.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 24 && buf.length >= 24 + buf.readUInt32LE(4)) {
        const type = buf.readUInt16LE(0), len = buf.readUInt32LE(4);
        const p = buf.subarray(24, 24 + len);
        if (type === T.NAME) {
          const n = p.readUInt16LE(24), name = p.subarray(26, 26 + n).toString();
          if (name.startsWith('JitscopeGen.') || name.startsWith('JitscopeE2e.Late.LateMethod')) methods.set(p.readBigUInt64LE(0), { name, module: p.readBigUInt64LE(8), start: 0n, dead: false });
        } else if (type === T.JIT_FINISHED) {
          const m = methods.get(p.readBigUInt64LE(0));
          const start = p.readBigUInt64LE(16) || (len >= 64 ? p.readBigUInt64LE(48) : 0n);
          if (m && start) { m.start = start; m.dead = false; }
        } else if (type === T.MODULE_UNLOADED) {
          const module = p.readBigUInt64LE(0);
          for (const m of methods.values()) if (m.module === module) m.dead = true;
        } else if (type === T.CODE_END) {
          ends.push({ request: Number(p.readBigUInt64LE(0)), refused: Number(p.readBigUInt64LE(32)), status: STATUS[p.readUInt32LE(40)] });
        }
        buf = buf.subarray(24 + len);
      }
    });
  });
  await new Promise((r) => server.listen(sock, r));
  const asan = asanRuntime(), asanAgent = path.join(BUILD, 'asan/libjitscope_agent.so');
  const sanitized = asan && fs.existsSync(asanAgent);
  const env = {
    ...process.env, CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: CLSID,
    CORECLR_PROFILER_PATH: sanitized ? asanAgent : path.join(BUILD, 'libjitscope_agent.so'),
    JITSCOPE_SOCKET: sock, JITSCOPE_TOKEN: TOKEN,
    ...(sanitized ? {
      LD_PRELOAD: asan, ASAN_OPTIONS: 'detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:abort_on_error=1',
      UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
    } : {}),
  };
  const app = spawn('dotnet', [E2E_DLL, 'collectible', '150', '40', 'hold'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '', err = '';
  app.stdout.on('data', (d) => { out += d; });
  app.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => app.on('exit', (code, signal) => resolve({ code, signal })));
  let running = true;
  exited.then(() => { running = false; });
  try {
    // ask, and ask again, while the rounds load and unload: every 5 ms a few
    // live methods, a few dead ones and one address that is not the method's,
    // with at most IN_FLIGHT unanswered. The agent answers in order, so a queue
    // the test builds faster than a loaded agent answers is a queue every later
    // request waits behind (5,000 deep, the answer for the method after the
    // rounds came 6 s late; deeper, past the wait below)
    const IN_FLIGHT = 64;
    const pick = (list, n) => list.sort(() => Math.random() - 0.5).slice(0, n);
    const ask = (fid, address, kind) => {
      const id = next++;
      sent.set(id, { fid, kind });
      conn.write(command(id, fid, address));
    };
    const done = () => /^collectible done \d+$/m.test(out);
    while (running && !done()) {
      if (conn && !conn.destroyed && next - 1 - ends.length < IN_FLIGHT) {
        const known = [...methods].filter(([, m]) => m.start && m.name.startsWith('JitscopeGen.'));
        for (const [fid, m] of pick(known.filter(([, x]) => !x.dead), 6)) ask(fid, m.start, 'alive');
        for (const [fid, m] of pick(known.filter(([, x]) => x.dead), 2)) ask(fid, m.start, 'dead');
        for (const [fid, m] of pick(known, 1)) ask(fid, m.start + 0x100000n, 'wrong');
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(done(), `the rounds ran to their end (${JSON.stringify({ running, out: out.slice(-300), err: err.slice(-2000) })})`);
    // Live code is read: a method JIT-compiled after the rounds (serve's
    // "call N" JITs LateMethodN) is asked for once its JIT record came. A
    // request while an unload is still under way is refused (unloading, or
    // stale once one began since); the rounds' last unloads end soon after
    // their end, so the next method is asked for until one is read (at most 40).
    let after = null;
    for (let n = 1; n <= 40 && (!after || after.status !== 'ok'); n++) {
      app.stdin.write(`call ${n}\n`);
      const name = `JitscopeE2e.Late.LateMethod${String(n).padStart(2, '0')}()`;
      const fid = await waitFor(`${name} compiled`, () => { for (const [f, m] of methods) if (m.name === name && m.start) return f; return null; }, { timeoutMs: 20000 });
      const id = next;
      ask(fid, methods.get(fid).start, 'after');
      after = await waitFor(`the answer for ${name}`, () => ends.find((e) => e.request === id), { timeoutMs: 20000 });
    }
    assert.equal(after.status, 'ok', 'a method alive after the last unload is read');
    app.stdin.write('exit\n');
    const r = await exited;
    assert.equal(r.code, 0, `the app ends normally (${JSON.stringify(r)}; stderr ${err.slice(-2000)})`);
    assert.doesNotMatch(err, /runtime error:|AddressSanitizer/, 'no sanitizer report');
    await waitFor('the last answers', () => conn.destroyed || conn.readableEnded || ends.length > 0, { timeoutMs: 10000 });
    const byKind = { alive: {}, dead: {}, wrong: {}, after: {} };
    for (const e of ends) {
      const s = sent.get(e.request);
      assert.ok(s, `an answer to a request we sent (${e.request})`);
      byKind[s.kind][e.status] = (byKind[s.kind][e.status] || 0) + 1;
    }
    console.log(`code requests: ${sent.size} sent, ${ends.length} answered (${sanitized ? 'sanitizer agent' : 'agent'}): ${JSON.stringify(byKind)}`);
    assert.ok(ends.length > 300, 'enough requests answered to judge');
    const refusedDead = (byKind.dead.not_alive || 0) + (byKind.dead.unloading || 0) + (byKind.dead.stale || 0);
    assert.ok(refusedDead > 10, 'dead methods were asked for, and refused');
    for (const k of ['alive', 'dead', 'wrong'])
      for (const st of Object.keys(byKind[k]))
        assert.ok(['not_alive', 'unloading', 'stale', 'ok'].includes(st), `${k}: ${st}`);
    assert.ok(!byKind.wrong.ok, 'an address that is not the method\'s code is never read');
    const refused = ends.filter((e) => e.status !== 'ok').length;
    assert.equal(ends.at(-1).refused, refused, 'the agent counts every refusal');
  } finally {
    app.kill('SIGKILL');
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
