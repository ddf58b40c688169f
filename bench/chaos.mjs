// chaos.mjs -- what a JIT-heavy app pays when its jitscope server is killed -9
// mid-run (issue 23 item 4: at most 1.02x its plain time): `dotnet
// E2eTarget.dll jitstorm 27930` (27,930 distinct methods JITed, nothing else)
// plain; under `jitscope run` with the server killed once it has seen about
// 1,000 live JITs (defaults, and the floor, JITSCOPE_NULL=1, for what the
// runtime charged before the kill); and with the agent but no server from the
// start (the state the app is in after the kill: no callbacks asked for, no
// tier source). PAIRS interleaved rounds, medians of per-round ratios to the
// plain run. The app's own times, as in bench/endtoend.mjs: $EPOCHREALTIME
// around dotnet and bash `times` (every thread of dotnet) in a wrapper, written
// to a file of its own; not the server's start. The app's output must be the
// plain run's.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD, E2E_DLL, ROOT, startServer, stopAll, waitFor } from '../tests/e2e/lib.mjs';
import { median, f1, f2 } from './stats.mjs';

const PAIRS = Number(process.env.PAIRS || 9);
const N = 27930;
const KILL_AFTER = 1000;
const LIMIT = 1.02;
const agentEnv = {
  CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: '{B8E5C1D2-7A43-4C6E-9F10-5A3B2D1C0E7F}',
  CORECLR_PROFILER_PATH: path.join(BUILD, 'libjitscope_agent.so'),
  JITSCOPE_SOCKET: '/nonexistent/jitscope-bench.sock', JITSCOPE_TOKEN: 'ab'.repeat(16),
};
const out = path.join(os.tmpdir(), `jitscope-chaos-${process.pid}`);
const wrapper = `exec 5>"$BENCH_OUT"; s=$EPOCHREALTIME; times >&5; dotnet ${E2E_DLL} jitstorm ${N} >"$BENCH_OUT.stdout"; times >&5; e=$EPOCHREALTIME; echo "elapsed $s $e" >&5`;

const seconds = (t) => { const m = /^(\d+)m([\d.]+)s$/.exec(t); return Number(m[1]) * 60 + Number(m[2]); };
function result(extra = {}) {
  const text = fs.readFileSync(out, 'utf8');
  const lines = text.split('\n');
  const cpu = (l) => l.split(' ').reduce((a, t) => a + seconds(t), 0);
  const e = /^elapsed ([\d.]+) ([\d.]+)$/m.exec(text);
  if (!e || lines.length < 4) throw new Error(`the wrapper's output is not as expected:\n${text}`);
  const stdout = fs.readFileSync(`${out}.stdout`, 'utf8');
  fs.rmSync(out, { force: true });
  fs.rmSync(`${out}.stdout`, { force: true });
  return { wall: (Number(e[2]) - Number(e[1])) * 1000, cpu: (cpu(lines[3]) - cpu(lines[1])) * 1000, stdout, ...extra };
}

function plain(env = {}) {
  const r = spawnSync('bash', ['-c', wrapper], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env, BENCH_OUT: out }, timeout: 120000 });
  if (r.status !== 0) throw new Error(`the app failed: ${r.stderr}`);
  return result();
}

// `jitscope run` (storage on), killed -9 once the dotnet session has ~KILL_AFTER
// live JITs; resolves once the app ended (it writes its times last).
async function killed(env = {}) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-data-'));
  try {
    const srv = await startServer(['run', '--port', '0', '--data', data, '--', 'bash', '-c', wrapper], { env: { ...env, BENCH_OUT: out } });
    const seen = await waitFor('~1,000 live JITs', async () => {
      const list = (await srv.api('/api/sessions')).body.sessions;
      const s = list.find((x) => x.root_id !== x.id && x.command_line.includes(' jitstorm '));
      if (!s) return false;
      if (env.JITSCOPE_NULL) return s.state === 'live' && 1; // a floor says no number: killed at its hello
      return s.counters.jit_compilations >= KILL_AFTER && s.counters.jit_compilations;
    }, { timeoutMs: 60000, everyMs: 2 });
    await srv.stop('SIGKILL');
    await waitFor('the app ended', () => /^elapsed /m.test(fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : ''), { timeoutMs: 120000, everyMs: 20 });
    return result({ seen });
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

const variants = {
  plain: { label: 'plain `dotnet E2eTarget.dll jitstorm 27930`', run: () => plain() },
  killed: { label: '`jitscope run`, server killed -9 after ~1,000 JITs', run: () => killed() },
  killedFloor: { label: '... the floor (JITSCOPE_NULL=1), killed at its hello', run: () => killed({ JITSCOPE_NULL: '1' }) },
  noServer: { label: 'agent loaded, no server at all', run: () => plain(agentEnv) },
};
const res = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
const loadBefore = os.loadavg().map((x) => x.toFixed(2)).join(', ');
try {
  plain(); // warm up
  const keys = Object.keys(variants);
  for (let i = 0; i < PAIRS; i++) {
    for (let j = 0; j < keys.length; j++) {
      const k = keys[(i + j) % keys.length];
      res[k].push(await variants[k].run());
    }
  }
} finally {
  await stopAll();
}
for (const [k, rs] of Object.entries(res)) {
  for (const r of rs) if (r.stdout !== res.plain[0].stdout) throw new Error(`${k}: the app's output differs from a plain run's`);
}
const ratio = (k, key) => median(res[k].map((r, i) => r[key] / res.plain[i][key]));
console.log(`### Server killed mid-run: a JIT storm of ${N} methods (${PAIRS} interleaved rounds, medians; load average before ${loadBefore}, after ${os.loadavg().map((x) => x.toFixed(2)).join(', ')})`);
console.log('');
console.log('| run | wall (ms) | vs plain | app CPU (ms) | vs plain | server killed after (JITs) |');
console.log('|---|---|---|---|---|---|');
for (const [k, v] of Object.entries(variants)) {
  const seen = res[k][0].seen != null && k !== 'killedFloor' ? String(median(res[k].map((r) => r.seen))) : k === 'killedFloor' ? 'hello' : '-';
  console.log(`| ${v.label} | ${f1(median(res[k].map((r) => r.wall)))} | ${f2(ratio(k, 'wall'))}x | ${f1(median(res[k].map((r) => r.cpu)))} | ${f2(ratio(k, 'cpu'))}x | ${seen} |`);
}
const w = ratio('killed', 'wall');
console.log('');
console.log(`Target (issue 23 item 4): the killed run at most ${f2(LIMIT)}x the plain wall time: ${f2(w)}x **${w <= LIMIT ? 'PASS' : 'MISS'}**.`);
