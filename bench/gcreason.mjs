// gcreason.mjs -- what the runtime's GC events cost a GC-heavy app: the
// agent opens an EventPipe session for the GC keyword (informational) to learn
// each collection's reason (agent/gcreason.h); every collection then delivers
// some twenty events to the agent's callback. Workload: E2eTarget `gcs N`
// (short-lived 1 KiB arrays until gen 0 has been collected N times), timed by
// the app itself around the loop (the process's CPU time: the collections run
// on the allocating thread, and CPU time is less moved than wall time by the
// other work on a shared machine), with a 256 KiB gen 0 budget
// (DOTNET_GCgen0size) so that the collections, not the allocations, take the
// time: about 70 µs a collection without the agent. Arms, rotating so drift hits all: without
// the agent, the agent with GC reasons (the default), the agent with
// JITSCOPE_GC_REASONS=0. Medians of RUNS each, with bootstrap intervals.
import { spawnSync } from 'node:child_process';
import { E2E_DLL, ROOT, startServer, waitFor } from '../tests/e2e/lib.mjs';
import { median, medianCi, f1, f2 } from './stats.mjs';

const RUNS = Number(process.env.RUNS || 11);
const N = Number(process.env.GCS || 5000);
const GEN0 = { DOTNET_GCgen0size: process.env.GEN0 || '0x40000' };

const loopMs = (out) => {
  const m = /^gcs (\d+) ([\d.]+) ([\d.]+)$/m.exec(out);
  if (!m) throw new Error(`no "gcs" line in: ${out.slice(-500)}`);
  return { gcs: Number(m[1]), ms: Number(m[2]), cpu: Number(m[3]) };
};

function plain() {
  const r = spawnSync('dotnet', [E2E_DLL, 'gcs', String(N)], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, ...GEN0 } });
  return loopMs(r.stdout).cpu;
}

async function withAgent(env = {}) {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', E2E_DLL, 'gcs', String(N)], { env: { ...GEN0, ...env } });
  const s = await waitFor('exit', async () => { const x = (await srv.api('/api/sessions/1')).body; return x.state === 'exited' && x; }, { timeoutMs: 120000 });
  const t = (await srv.api('/api/sessions/1/timeline')).body;
  await srv.stop();
  const reasons = {};
  for (const g of t.gcs) reasons[g.reason] = (reasons[g.reason] || 0) + 1;
  return { ms: loopMs(srv.stdout).cpu, reasons, records: s.counters.records };
}

const arms = { plain: [], on: [], off: [] };
let lastOn, lastOff;
plain(); // warm the disk cache and the dotnet host once
for (let i = 0; i < RUNS; i++) {
  arms.plain.push(plain());
  lastOn = await withAgent();
  arms.on.push(lastOn.ms);
  lastOff = await withAgent({ JITSCOPE_GC_REASONS: '0' });
  arms.off.push(lastOff.ms);
}
const row = (name, xs) => {
  const [lo, hi] = medianCi(xs);
  return `| ${name} | ${f1(median(xs))} | ${f1(lo)}-${f1(hi)} | ${f1(median(xs) / N * 1000)} |`;
};
console.log(`### GC reasons: the GC session's cost (E2eTarget \`gcs ${N}\`, gen 0 budget ${GEN0.DOTNET_GCgen0size}, ${RUNS} runs each, rotating; \`node bench/gcreason.mjs\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`);
console.log('');
console.log('| | loop CPU time, median (ms) | 95% interval | per collection (µs) |');
console.log('|---|---|---|---|');
console.log(row('without agent', arms.plain));
console.log(row('agent, GC reasons on (default)', arms.on));
console.log(row('agent, JITSCOPE_GC_REASONS=0', arms.off));
console.log(`| **ratio on / off (medians)** | **${f2(median(arms.on) / median(arms.off))}** | | **${f1((median(arms.on) - median(arms.off)) / N * 1000)} µs a collection** |`);
console.log('');
console.log(`Reasons seen with it on: ${JSON.stringify(lastOn.reasons)}; off: ${JSON.stringify(lastOff.reasons)}.`);
