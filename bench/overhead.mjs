// overhead.mjs -- wall time of a JIT-heavy workload with the agent streaming vs
// without it. Workload: E2eTarget `jitstorm N` (N distinct generic
// instantiations over value types, each its own JIT). Runs alternate
// (plain, agent, plain, agent...) so drift hits both; medians of RUNS each.
import { spawnSync } from 'node:child_process';
import { E2E_DLL, ROOT, startServer, waitFor } from '../tests/e2e/lib.mjs';
import { median, f1, f2 } from './stats.mjs';

const RUNS = Number(process.env.RUNS || 11);
const N = Number(process.env.JIT_METHODS || 10000);

// Times the app alone (not the server) from inside a shell wrapper, in ns.
const wrapper = `s=$(date +%s%N); dotnet ${E2E_DLL} jitstorm ${N} >/dev/null; e=$(date +%s%N); echo "elapsed $((e - s))" >&2`;

function plain() {
  const r = spawnSync('bash', ['-c', wrapper], { encoding: 'utf8', cwd: ROOT });
  return Number(/elapsed (\d+)/.exec(r.stderr)[1]) / 1e6;
}

// The same wrapper under `jitscope run`; the server keeps serving after the app
// exits, so we read the session and stop it.
async function withAgent() {
  const srv = await startServer(['run', '--port', '0', '--', 'bash', '-c', wrapper]);
  const s = await waitFor('exit', async () => { const x = (await srv.api('/api/sessions/1')).body; return x.state === 'exited' && x; }, 120000);
  await srv.stop();
  const ms = Number(/elapsed (\d+)/.exec(srv.stderr)[1]) / 1e6;
  return { ms, session: s };
}

const base = [], agent = [];
let last;
plain(); // warm the disk cache and the dotnet host once
for (let i = 0; i < RUNS; i++) {
  base.push(plain());
  const r = await withAgent();
  agent.push(r.ms);
  last = r.session;
}
const mb = median(base), ma = median(agent);
console.log(`### Agent overhead on a JIT-heavy workload (jitstorm ${N}, ${RUNS} runs each, alternating)`);
console.log('');
console.log('| | median wall time (ms) | min | max |');
console.log('|---|---|---|---|');
console.log(`| without agent | ${f1(mb)} | ${f1(Math.min(...base))} | ${f1(Math.max(...base))} |`);
console.log(`| with agent streaming | ${f1(ma)} | ${f1(Math.min(...agent))} | ${f1(Math.max(...agent))} |`);
console.log(`| **ratio (medians)** | **${f2(ma / mb)}** | | |`);
console.log('');
console.log(`Functions JITed per run (from the session): ${last.counters.jit_compilations}; records streamed: ${last.counters.events} events, drops ${last.drops.total}.`);
