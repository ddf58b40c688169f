// overhead.mjs -- wall time of a JIT-heavy workload with the agent streaming vs
// without it, and what the JIT-tier source (the agent's EventPipe session,
// agent/tiers.c) adds: the agent with JITSCOPE_TIERS=0 is the third arm.
// Workload: E2eTarget `jitstorm N` (N distinct generic instantiations over
// value types, each its own JIT), or with WORKLOAD=dynstorm `dynstorm N` (N
// DynamicMethods with class-typed parameters, which the agent names on the
// JIT thread). Runs rotate (plain, agent, agent without
// tiers, plain...) so drift hits all three; medians of RUNS each.
import { spawnSync } from 'node:child_process';
import { E2E_DLL, ROOT, startServer, waitFor } from '../tests/e2e/lib.mjs';
import { median, f1, f2 } from './stats.mjs';

const RUNS = Number(process.env.RUNS || 11);
const N = Number(process.env.JIT_METHODS || 10000);
const WORKLOAD = process.env.WORKLOAD === 'dynstorm' ? 'dynstorm' : 'jitstorm';

// Times the app alone (not the server) from inside a shell wrapper, in ns.
const wrapper = `s=$(date +%s%N); dotnet ${E2E_DLL} ${WORKLOAD} ${N} >/dev/null; e=$(date +%s%N); echo "elapsed $((e - s))" >&2`;

function plain() {
  const r = spawnSync('bash', ['-c', wrapper], { encoding: 'utf8', cwd: ROOT });
  return Number(/elapsed (\d+)/.exec(r.stderr)[1]) / 1e6;
}

// The same wrapper under `jitscope run`; the server keeps serving after the app
// exits, so we read the session and stop it.
async function withAgent(env = {}) {
  const srv = await startServer(['run', '--port', '0', '--', 'bash', '-c', wrapper], { env });
  await waitFor('exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 120000 });
  // bash is the launched process; dotnet, its child, has the session with the JITs
  const list = (await srv.api('/api/sessions')).body.sessions;
  const child = list.find((x) => x.root_id !== x.id && x.command_line.includes(` ${WORKLOAD} `));
  const s = child && (await waitFor('the dotnet session ended', async () => {
    const x = (await srv.api(`/api/sessions/${child.id}`)).body;
    return x.state === 'exited' && x;
  }, { timeoutMs: 30000 }));
  if (!s) throw new Error(`no session for dotnet among ${JSON.stringify(list.map((x) => x.command_line))}`);
  await srv.stop();
  const ms = Number(/elapsed (\d+)/.exec(srv.stderr)[1]) / 1e6;
  return { ms, session: s };
}

const base = [], agent = [], noTiers = [];
const cost = { on: [], off: [] }; // the agent's own histogram: [p50, p99] per run
let last, lastNoTiers;
plain(); // warm the disk cache and the dotnet host once
for (let i = 0; i < RUNS; i++) {
  base.push(plain());
  const r = await withAgent();
  agent.push(r.ms);
  last = r.session;
  cost.on.push([r.session.agent_cost.p50_ns, r.session.agent_cost.p99_ns]);
  const q = await withAgent({ JITSCOPE_TIERS: '0' });
  noTiers.push(q.ms);
  lastNoTiers = q.session;
  cost.off.push([q.session.agent_cost.p50_ns, q.session.agent_cost.p99_ns]);
}
const mb = median(base), ma = median(agent), mn = median(noTiers);
console.log(`### Agent overhead on a JIT-heavy workload (${WORKLOAD} ${N}, ${RUNS} runs each, rotating)`);
console.log('');
console.log('| | median wall time (ms) | min | max |');
console.log('|---|---|---|---|');
console.log(`| without agent | ${f1(mb)} | ${f1(Math.min(...base))} | ${f1(Math.max(...base))} |`);
console.log(`| with agent streaming | ${f1(ma)} | ${f1(Math.min(...agent))} | ${f1(Math.max(...agent))} |`);
console.log(`| with agent, JIT tiers off (JITSCOPE_TIERS=0) | ${f1(mn)} | ${f1(Math.min(...noTiers))} | ${f1(Math.max(...noTiers))} |`);
console.log(`| **ratio agent / without (medians)** | **${f2(ma / mb)}** | | |`);
console.log(`| **ratio tiers on / tiers off (medians): the tier source's cost** | **${f2(ma / mn)}** | | |`);
console.log('');
const tierNames = (x) => Object.entries(x.tiers || {}).map(([k, v]) => `${k} ${v.compilations}`).join(', ');
console.log(`Tiers seen with tiers on: ${tierNames(last) || 'none'}; with tiers off: ${tierNames(lastNoTiers) || 'none'}.`);
console.log(`Functions JITed per run (from the session): ${last.counters.jit_compilations}; records streamed: ${last.counters.events} events, drops ${last.drops.total}.`);
console.log('');
console.log('Agent\'s own time per JIT callback on the app\'s thread (its histogram, sent with its drop counters; medians over the runs):');
console.log('');
console.log('| | p50 (ns) | p99 (ns) |');
console.log('|---|---|---|');
console.log(`| tiers on: code start and size from MethodLoad, no runtime call | ${f1(median(cost.on.map((x) => x[0])))} | ${f1(median(cost.on.map((x) => x[1])))} |`);
console.log(`| tiers off: code versions asked of the runtime on the JIT thread | ${f1(median(cost.off.map((x) => x[0])))} | ${f1(median(cost.off.map((x) => x[1])))} |`);
