// chaos.mjs -- what a JIT-heavy app pays when its jitscope server is killed -9
// mid-run: `dotnet E2eTarget.dll jitstorm 27930` (27,930 distinct methods JITed,
// nothing else) plain, and under `jitscope run` with the server killed once it
// has seen 1,000 live JITs; also with the agent's tier source off
// (JITSCOPE_TIERS=0), and with the agent but no server from the start (the
// state the app is in after the kill). Runs are interleaved (PAIRS rounds of
// each) so that every variant sees the same machine load; medians. Wall time is
// from spawn until the app closed its stdout (for `jitscope run` that includes
// the server's own start, a few ms); CPU is the app's own, every thread (its
// TotalProcessorTime, printed at the end of the storm).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { BUILD, E2E_DLL, JITSCOPE } from '../tests/e2e/lib.mjs';
import { median, f2 } from './stats.mjs';

const PAIRS = Number(process.env.PAIRS || 9);
const N = 27930;
const KILL_AFTER = 1000;
const agentEnv = {
  CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: '{B8E5C1D2-7A43-4C6E-9F10-5A3B2D1C0E7F}',
  CORECLR_PROFILER_PATH: path.join(BUILD, 'libjitscope_agent.so'),
  JITSCOPE_SOCKET: '/nonexistent/jitscope-bench.sock', JITSCOPE_TOKEN: 'ab'.repeat(16),
};

// Runs argv; calls watch(proc, url) once the server printed its URL. Resolves
// when stdout closes (every holder of the pipe, the app included, has exited).
function run(argv, env = {}, watch = null) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '', err = '', watching = false, seen = null;
    p.stdout.on('data', (d) => {
      out += d;
      const m = /dashboard at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (watch && m && !watching) { watching = true; watch(p, m[1]).then((n) => { seen = n; }, reject); }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.stdout.on('close', () => {
      const cpu = /process cpu (\d+) ms/.exec(err);
      if (!cpu) { reject(new Error(`no cpu line: ${err.slice(-500)}`)); return; }
      resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, cpu: Number(cpu[1]), seen, out: out.split('\n').filter((l) => !l.startsWith('jitscope: ')).join('\n') });
    });
  });
}

async function killAfter(p, url) {
  for (;;) {
    const s = await (await fetch(`${url}/api/sessions/1`)).json().catch(() => null);
    if (s && s.counters && s.counters.jit_compilations >= KILL_AFTER) { p.kill('SIGKILL'); return s.counters.jit_compilations; }
    await new Promise((r) => setTimeout(r, 5));
  }
}

const variants = {
  plain: () => run(['dotnet', E2E_DLL, 'jitstorm', String(N)]),
  killed: () => run([JITSCOPE, 'run', '--port', '0', '--', 'dotnet', E2E_DLL, 'jitstorm', String(N)], {}, killAfter),
  killedNoTiers: () => run([JITSCOPE, 'run', '--port', '0', '--', 'dotnet', E2E_DLL, 'jitstorm', String(N)], { JITSCOPE_TIERS: '0' }, killAfter),
  noServer: () => run(['dotnet', E2E_DLL, 'jitstorm', String(N)], agentEnv),
};
const res = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let i = 0; i < PAIRS; i++) {
  for (const [k, fn] of Object.entries(variants)) {
    const r = await fn();
    if (r.out !== (res.plain[0] || r).out) throw new Error(`${k}: the app's output differs from a plain run's`);
    res[k].push(r);
  }
}
const pw = median(res.plain.map((r) => r.ms)), pc = median(res.plain.map((r) => r.cpu));
const label = {
  plain: 'plain `dotnet E2eTarget.dll jitstorm 27930`',
  killed: '`jitscope run`, server killed -9 after ~1,000 JITs',
  killedNoTiers: '... with JITSCOPE_TIERS=0',
  noServer: 'agent loaded, no server at all',
};
console.log(`### Server killed mid-run: a JIT storm of ${N} methods (${PAIRS} interleaved rounds, medians)`);
console.log('');
console.log('| run | wall (ms) | vs plain | app CPU (ms) | vs plain | server killed after (JITs) |');
console.log('|---|---|---|---|---|---|');
for (const k of Object.keys(variants)) {
  const w = median(res[k].map((r) => r.ms)), c = median(res[k].map((r) => r.cpu));
  const seen = res[k][0].seen != null ? String(median(res[k].map((r) => r.seen))) : '-';
  console.log(`| ${label[k]} | ${w.toFixed(0)} | ${f2(w / pw)}x | ${c} | ${f2(c / pc)}x | ${seen} |`);
}
