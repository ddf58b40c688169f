// sender.mjs -- the agent's sender thread ("jitscope-agent") on a JIT storm:
// its CPU time (the kernel's schedstat, ns on a CPU) for JIT_METHODS
// (default 20,000) distinct methods, from E2eTarget `jitstorm 0 hold` then
// `storm N`, over RUNS processes (default 7; each storm method JITs once per
// process). Counted from after start-up (the app holds, nothing JITs for
// 300 ms) until the server has every compilation of the storm, so the sender
// has read, named, framed and sent all of them. Storage is off (--data none):
// the server's side does not matter here. Prints the median and the range,
// in ms per storm and ns per JIT. AGENTS="old.so new.so" compares agent
// libraries (--agent), one process of each per round, in turn.
import fs from 'node:fs';
import { E2E_DLL, startServer, stopAll, waitFor } from '../tests/e2e/lib.mjs';
import { median, f1 } from './stats.mjs';
import { heldStorm, startupOver } from './storm.mjs';

const RUNS = Number(process.env.RUNS || 7);
const N = Number(process.env.JIT_METHODS || 20000);
const CAPACITY = 27930; // E2eTarget's storm methods (tests/apps/E2eTarget/Storm.cs)
if (!(N > 0 && N <= CAPACITY && RUNS > 0)) throw new Error(`JIT_METHODS must be 1..${CAPACITY}, RUNS above 0`);

// ns this thread has spent on a CPU (first field of schedstat).
const onCpuNs = (pid, tid) => Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);

async function round(agent) {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', ...(agent ? ['--agent', agent] : []),
    '--', 'dotnet', E2E_DLL, 'jitstorm', '0', 'hold']);
  try {
    const { me, sender: tid, jits } = await heldStorm(srv);
    const c0 = await startupOver(jits);
    const t0 = onCpuNs(me.pid, tid);
    srv.proc.stdin.write(`storm ${N}\n`);
    await waitFor('stormed', () => /^stormed \d+ /m.test(srv.stdout), { timeoutMs: 120000, everyMs: 20 });
    await waitFor('every compilation at the server', async () => (await jits()) >= c0 + N, { timeoutMs: 60000, everyMs: 20 });
    const t1 = onCpuNs(me.pid, tid);
    srv.proc.stdin.write('exit\n');
    return (t1 - t0) / 1e6;
  } finally {
    await srv.stop();
  }
}

const agents = process.env.AGENTS ? process.env.AGENTS.split(/[ ,]+/).filter(Boolean) : [null];
const ms = agents.map(() => []);
try {
  for (let i = 0; i < RUNS; i++) {
    for (let k = 0; k < agents.length; k++) {
      const a = (i + k) % agents.length; // a different one first each round
      ms[a].push(await round(agents[a]));
    }
  }
} finally {
  await stopAll();
}
const perJit = (x) => Math.round((x * 1e6) / N);
console.log(`### The agent's sender thread, ${N.toLocaleString('en')} JITs (E2eTarget storm, ${RUNS} processes each)\n`);
console.log('| agent | sender CPU per storm: median (range) | per JIT: median (range) |');
console.log('|---|---|---|');
agents.forEach((a, k) => {
  const xs = ms[k], lo = Math.min(...xs), hi = Math.max(...xs), m = median(xs);
  console.log(`| ${a || 'build/libjitscope_agent.so'} | ${f1(m)} ms (${f1(lo)}-${f1(hi)}) | ${perJit(m)} ns (${perJit(lo)}-${perJit(hi)}) |`);
});
