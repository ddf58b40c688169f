// exceptions.mjs -- what recording every exception costs an exception storm:
// E2eTarget `throwstorm N` throws and catches N ArgumentExceptions (after 1,000
// to warm up) and prints the loop's wall time and the process's CPU time during
// it (every thread's, the agent's sender too), and the agent's sender thread's own
// CPU time from the loop's start to half a second after it (its drain). Arms, interleaved round by round so
// drift hits all: the app alone (plain); the floor (JITSCOPE_NULL=1: the same
// event masks and EventPipe sessions, every callback a no-op: what the runtime
// charges for delivering the exception events); jitscope on (the default); and,
// for docs/RUNTIME.md's choice, two more floors: no exception delivery at all
// (JITSCOPE_EXCEPTIONS=0) and the profiling API's exception callbacks instead of
// the events (JITSCOPE_EXCEPTION_CALLBACKS=1, left at their no-op stubs). The
// target (issue 39): jitscope's own cost, on - floor, at most 0.05 of plain's CPU.
// Medians of RUNS each, with bootstrap intervals, and the median of the rounds'
// paired ratios. `node bench/exceptions.mjs`
import { spawnSync } from 'node:child_process';
import { E2E_DLL, ROOT, startServer, waitFor } from '../tests/e2e/lib.mjs';
import { median, medianCi, f1, f2 } from './stats.mjs';

const RUNS = Number(process.env.RUNS || 7);
const N = Number(process.env.THROWS || 200000);

const loop = (out) => {
  const m = /^throwstorm (\d+) ([\d.]+) ([\d.]+) ([\d.]+)$/m.exec(out);
  if (!m) throw new Error(`no "throwstorm" line in: ${out.slice(-500)}`);
  return { wall: Number(m[2]), cpu: Number(m[3]), sender: Number(m[4]) };
};

function plain() {
  const r = spawnSync('dotnet', [E2E_DLL, 'throwstorm', String(N)], { encoding: 'utf8', cwd: ROOT });
  return loop(r.stdout);
}

async function withAgent(env = {}) {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', E2E_DLL, 'throwstorm', String(N)], { env });
  await waitFor('exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 300000 });
  const x = (await srv.api('/api/sessions/1/exceptions')).body;
  await srv.stop();
  return { ...loop(srv.stdout), total: x.total };
}

const ARMS = {
  plain: () => plain(),
  floor: () => withAgent({ JITSCOPE_NULL: '1' }),
  on: () => withAgent(),
  'floor, no exceptions': () => withAgent({ JITSCOPE_NULL: '1', JITSCOPE_EXCEPTIONS: '0' }),
  'floor, callbacks': () => withAgent({ JITSCOPE_NULL: '1', JITSCOPE_EXCEPTIONS: '0', JITSCOPE_EXCEPTION_CALLBACKS: '1' }),
};
const cpu = {}, wall = {}, sender = {};
let seen = 0;
plain(); // warm the disk cache and the dotnet host once
for (let i = 0; i < RUNS; i++)
  for (const [name, run] of Object.entries(ARMS)) {
    const r = await run();
    (cpu[name] ||= []).push(r.cpu);
    (wall[name] ||= []).push(r.wall);
    (sender[name] ||= []).push(r.sender);
    if (name === 'on') seen = r.total;
  }
const row = (name) => {
  const [lo, hi] = medianCi(cpu[name]);
  return `| ${name} | ${f1(median(cpu[name]))} | ${f1(lo)}-${f1(hi)} | ${f2((median(cpu[name]) / N) * 1000)} | ${f1(median(wall[name]))} | ${f1(median(sender[name]))} |`;
};
const own = median(cpu.on) - median(cpu.floor);
// the same, paired: each round's (on - floor) / plain, then their median (drift
// that hits a whole round cancels out)
const paired = (a, b) => median(cpu.plain.map((p, i) => (cpu[a][i] - cpu[b][i]) / p));
console.log(`### Exceptions: an exception storm (E2eTarget \`throwstorm ${N}\`, ${RUNS} runs each, interleaved; \`node bench/exceptions.mjs\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`);
console.log('');
console.log('| arm | loop CPU, median (ms) | 95% interval | per exception (µs) | loop wall, median (ms) | sender thread CPU, median (ms) |');
console.log('|---|---|---|---|---|---|');
for (const name of Object.keys(ARMS)) console.log(row(name));
console.log(`| **jitscope's own (on - floor) / plain** | **${f2(own / median(cpu.plain))}** | | **${f2((own / N) * 1000)} µs** | | |`);
console.log(`| jitscope's own, paired: median of each round's (on - floor) / plain | **${f2(paired('on', 'floor'))}** | | | | |`);
console.log(`| the runtime's events (floor - floor without exceptions) / plain | ${f2((median(cpu.floor) - median(cpu['floor, no exceptions'])) / median(cpu.plain))} (paired ${f2(paired('floor', 'floor, no exceptions'))}) | | | | |`);
console.log(`| the profiling API's callbacks (their floor - floor without exceptions) / plain | ${f2((median(cpu['floor, callbacks']) - median(cpu['floor, no exceptions'])) / median(cpu.plain))} (paired ${f2(paired('floor, callbacks', 'floor, no exceptions'))}) | | | | |`);
console.log('');
console.log(`Exceptions the server counted in the last "on" run: ${seen} (of ${N + 1000}).`);
