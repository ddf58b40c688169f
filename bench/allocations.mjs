// allocations.mjs -- what sampling allocations costs an allocation-heavy app:
// E2eTarget `allocs MB` (tests/apps/E2eTarget/Allocs.cs) allocates MB megabytes
// (70% byte[], 30% small objects) and prints the round's wall time. Arms,
// interleaved round by round so drift hits all: the app alone (plain); under
// the agent with allocations off (the default: off); with them on
// (JITSCOPE_ALLOCATIONS=1: the runtime's sampling events, the thread's own
// stack walk per sample, at most 1,000 a second sent); and the floor of that
// (JITSCOPE_NULL=1 with allocations on: the same EventPipe session, every
// callback a no-op: what the runtime charges for raising the events). The
// target (issue 39): allocation sampling at its default rate, (on - off) / off,
// at most 0.02 of the wall time. Medians of RUNS each, with bootstrap
// intervals. `node bench/allocations.mjs`
import { spawnSync } from 'node:child_process';
import { E2E_DLL, ROOT, startServer, waitFor } from '../tests/e2e/lib.mjs';
import { median, medianCi, f1 } from './stats.mjs';

const RUNS = Number(process.env.RUNS || 7);
const MB = Number(process.env.ALLOC_MB || 20000);

const round = (out) => {
  const m = /^round wall_ms ([\d.]+) cpu_ms ([\d.]+)$/m.exec(out);
  if (!m) throw new Error(`no "round wall_ms" line in: ${out.slice(-500)}`);
  return { wall: Number(m[1]), cpu: Number(m[2]) };
};

function plain() {
  const r = spawnSync('dotnet', [E2E_DLL, 'allocs', String(MB)], { encoding: 'utf8', cwd: ROOT });
  return round(r.stdout);
}

async function withAgent(env = {}) {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', E2E_DLL, 'allocs', String(MB)], { env });
  await waitFor('exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 300000 });
  const a = (await srv.api('/api/sessions/1/allocations')).body;
  await srv.stop();
  return { ...round(srv.stdout), samples: a.samples, unsent: a.unsent };
}

const ARMS = {
  plain: () => plain(),
  off: () => withAgent(),
  floor: () => withAgent({ JITSCOPE_NULL: '1', JITSCOPE_ALLOCATIONS: '1' }),
  on: () => withAgent({ JITSCOPE_ALLOCATIONS: '1' }),
};
const wall = {}, cpu = {};
let last = null;
plain(); // warm the disk cache and the dotnet host once
for (let i = 0; i < RUNS; i++)
  for (const [name, run] of Object.entries(ARMS)) {
    const r = await run();
    (wall[name] ||= []).push(r.wall);
    (cpu[name] ||= []).push(r.cpu);
    if (name === 'on') last = r;
  }
const row = (name) => {
  const [lo, hi] = medianCi(wall[name]);
  const [clo, chi] = medianCi(cpu[name]);
  return `| ${name} | ${f1(median(wall[name]))} | ${f1(lo)}-${f1(hi)} | ${f1(median(cpu[name]))} | ${f1(clo)}-${f1(chi)} |`;
};
const share = (x, a, b, base) => ((median(x[a]) - median(x[b])) / median(x[base])).toFixed(3);
console.log(`### Allocations: an allocation-heavy app (E2eTarget \`allocs ${MB}\`, ${RUNS} runs each, interleaved; \`node bench/allocations.mjs\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`);
console.log('');
console.log('| arm | round wall, median (ms) | 95% interval | round CPU, median (ms) | 95% interval |');
console.log('|---|---|---|---|---|');
for (const name of Object.keys(ARMS)) console.log(row(name));
console.log(`| **sampling on: (on - off) / off** | **${share(wall, 'on', 'off', 'off')}** | | **${share(cpu, 'on', 'off', 'off')}** | |`);
console.log(`| jitscope's own: (on - floor) / off | ${share(wall, 'on', 'floor', 'off')} | | ${share(cpu, 'on', 'floor', 'off')} | |`);
console.log(`| the runtime's events: (floor - off) / off | ${share(wall, 'floor', 'off', 'off')} | | ${share(cpu, 'floor', 'off', 'off')} | |`);
console.log('');
console.log(`Samples in the last "on" run: ${last.samples} sent, ${last.unsent} counted and not sent.`);
