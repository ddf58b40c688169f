// allocations.mjs -- what sampling allocations costs an app, at two rates.
// APP=storm (the default): E2eTarget `allocs MB` (tests/apps/E2eTarget/Allocs.cs)
// allocates MB megabytes (70% byte[], 30% small objects) as fast as it can,
// the worst case. APP=requests: E2eTarget `requests N` (Requests.cs), N
// service-like JSON requests (build an order, serialize it with
// System.Text.Json, parse it back) on one thread: a realistic allocation rate
// with the CPU work around it (about 8 KB a request). Each prints its round's
// wall and CPU time. Arms,
// interleaved round by round so drift hits all: the app alone (plain); under
// the agent with allocations off (the default: off); with them on
// (JITSCOPE_ALLOCATIONS=1: the runtime's sampling events, the thread's own
// stack walk per sample, at most 1,000 a second sent); and the floor of that
// (JITSCOPE_NULL=1 with allocations on: the same EventPipe session, every
// callback a no-op: what the runtime charges for raising the events). The
// target (issue 39): allocation sampling at its default rate, (on - off) / off,
// at most 0.02 of the wall time. Medians of RUNS each, with bootstrap
// intervals. `node bench/allocations.mjs`, `APP=requests node bench/allocations.mjs`
import { spawnSync } from 'node:child_process';
import { E2E_DLL, ROOT, startServer, waitFor } from '../tests/e2e/lib.mjs';
import { median, medianCi, f1 } from './stats.mjs';

const RUNS = Number(process.env.RUNS || 7);
const MB = Number(process.env.ALLOC_MB || 20000);
const REQUESTS = Number(process.env.REQUESTS || 30000);
const APP = process.env.APP || 'storm';
if (APP !== 'storm' && APP !== 'requests') throw new Error('APP must be storm or requests');
const ARGS = APP === 'storm' ? ['allocs', String(MB)] : ['requests', String(REQUESTS)];
const allocated = (out) => Number((/^allocated bytes (\d+)/m.exec(out) || [])[1] || 0);

const round = (out) => {
  const m = /^round wall_ms ([\d.]+) cpu_ms ([\d.]+)$/m.exec(out);
  if (!m) throw new Error(`no "round wall_ms" line in: ${out.slice(-500)}`);
  return { wall: Number(m[1]), cpu: Number(m[2]) };
};

function plain() {
  const r = spawnSync('dotnet', [E2E_DLL, ...ARGS], { encoding: 'utf8', cwd: ROOT });
  return { ...round(r.stdout), bytes: allocated(r.stdout) };
}

async function withAgent(env = {}) {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', E2E_DLL, ...ARGS], { env });
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
let last = null, lastPlain = null;
plain(); // warm the disk cache and the dotnet host once
for (let i = 0; i < RUNS; i++)
  for (const [name, run] of Object.entries(ARMS)) {
    const r = await run();
    (wall[name] ||= []).push(r.wall);
    (cpu[name] ||= []).push(r.cpu);
    if (name === 'on') last = r;
    if (name === 'plain') lastPlain = r;
  }
const row = (name) => {
  const [lo, hi] = medianCi(wall[name]);
  const [clo, chi] = medianCi(cpu[name]);
  return `| ${name} | ${f1(median(wall[name]))} | ${f1(lo)}-${f1(hi)} | ${f1(median(cpu[name]))} | ${f1(clo)}-${f1(chi)} |`;
};
const share = (x, a, b, base) => ((median(x[a]) - median(x[b])) / median(x[base])).toFixed(3);
const what = APP === 'storm'
  ? `an allocation-heavy app (E2eTarget \`allocs ${MB}\``
  : `a service-like app (E2eTarget \`requests ${REQUESTS}\``;
console.log(`### Allocations: ${what}, ${RUNS} runs each, interleaved; \`APP=${APP} node bench/allocations.mjs\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`);
console.log('');
console.log('| arm | round wall, median (ms) | 95% interval | round CPU, median (ms) | 95% interval |');
console.log('|---|---|---|---|---|');
for (const name of Object.keys(ARMS)) console.log(row(name));
console.log(`| **sampling on: (on - off) / off** | **${share(wall, 'on', 'off', 'off')}** | | **${share(cpu, 'on', 'off', 'off')}** | |`);
console.log(`| jitscope's own: (on - floor) / off | ${share(wall, 'on', 'floor', 'off')} | | ${share(cpu, 'on', 'floor', 'off')} | |`);
console.log(`| the runtime's events: (floor - off) / off | ${share(wall, 'floor', 'off', 'off')} | | ${share(cpu, 'floor', 'off', 'off')} | |`);
console.log('');
console.log(`Samples in the last "on" run: ${last.samples} sent, ${last.unsent} counted and not sent.`);
if (APP === 'requests')
  console.log(`Allocation rate, plain: ${f1(lastPlain.bytes / 1e6 / (median(cpu.plain) / 1000))} MB per second of CPU (${f1(lastPlain.bytes / 1e6)} MB in the round, ${f1(lastPlain.bytes / REQUESTS)} bytes a request).`);
