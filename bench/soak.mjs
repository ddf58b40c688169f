// soak.mjs -- the attach/detach soak: CYCLES (default 1,000) attach/detach
// cycles against one live E2eTarget process, through one server. Each cycle:
// attach, wait for the catch-up, make the app JIT STORM_PER_CYCLE methods it never
// compiled before ("storm K"), wait until the session has them live, detach,
// wait until /proc/PID/maps no longer lists the agent. Any cycle that fails is
// counted (0 allowed: the script exits 1). The app's threads, fds and RSS and the
// server's are sampled before the first cycle, every 100 cycles and at the end.
// Not part of `make test` (about 7 minutes on 2 cores): `make bench BENCH=soak`.
//   CYCLES=N            how many cycles (default 1000)
//   STORM_PER_CYCLE=K   new methods per cycle (default 2; 0: none, so every
//                       session's catch-up is the same size)
//   JITSCOPE_BIN, SOAK_AGENT, SOAK_DLL   run other binaries (e.g. copies, so
//                       the tree can be rebuilt while the soak runs)
import fs from 'node:fs';
import { startServer, startTarget, waitFor, attach, detachAndWait, stopAll, agentTrace, functionsOf, E2E_DLL } from '../tests/e2e/lib.mjs';
import { median } from './stats.mjs';

const CYCLES = Number(process.env.CYCLES || 1000);
const STORM_PER_CYCLE = Number(process.env.STORM_PER_CYCLE ?? 2); // 27,930 storm methods: 2 per cycle last 13,965 cycles
const EVERY = Number(process.env.EVERY || 100);
const MAX_FAILURES = 20; // stop early: a broken build should not spin for an hour

function procStats(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    threads: Number(/Threads:\s+(\d+)/.exec(status)[1]),
    fds: fs.readdirSync(`/proc/${pid}/fd`).length,
    rssKb: Number(/VmRSS:\s+(\d+)/.exec(status)[1]),
  };
}

const serverArgs = ['serve', '--port', '0'];
if (process.env.SOAK_AGENT) serverArgs.push('--agent', process.env.SOAK_AGENT);
const target = await startTarget(['serve'], { dll: process.env.SOAK_DLL || E2E_DLL });
const srv = await startServer(serverArgs);
const samples = [];
const sample = (cycle) => {
  const s = { cycle, app: procStats(target.pid), server: procStats(srv.proc.pid), time: Date.now() };
  samples.push(s);
  process.stderr.write(`soak: cycle ${cycle}: app threads ${s.app.threads} fds ${s.app.fds} rss ${(s.app.rssKb / 1024).toFixed(1)} MB; ` +
    `server threads ${s.server.threads} fds ${s.server.fds} rss ${(s.server.rssKb / 1024).toFixed(1)} MB\n`);
};

const failures = [];
const cycleMs = [];
let stormed = 0;
sample(0);
const t0 = Date.now();
for (let i = 1; i <= CYCLES && failures.length < MAX_FAILURES; i++) {
  const c0 = Date.now();
  try {
    const r = await attach(srv, target.pid);
    if (r.status !== 201) throw new Error(`attach: ${r.status} ${JSON.stringify(r.body)}`);
    const id = r.body.session.id;
    await waitFor('catch-up', async () => (await srv.api(`/api/sessions/${id}`)).body.catchup.count >= 1, { timeoutMs: 30000 });
    target.send(`storm ${STORM_PER_CYCLE}`);
    stormed++;
    await waitFor('stormed', () => (target.out.match(/^stormed \d+ [0-9a-f]{16}$/gm) || []).length === stormed, { timeoutMs: 30000 });
    await waitFor('the storm methods, live', async () =>
      (await functionsOf(srv, id, '&q=Storm.Combo')).filter((f) => !f.catchup).length === STORM_PER_CYCLE, { timeoutMs: 30000 });
    await detachAndWait(srv, id);
    await waitFor('agent unloaded', () => !agentTrace(target.pid).mapped, { timeoutMs: 30000, everyMs: 20 });
  } catch (e) {
    failures.push({ cycle: i, error: e.message });
    process.stderr.write(`soak: cycle ${i} FAILED: ${e.message}\n`);
    // leave a clean state for the next cycle: wait for any agent to leave
    await waitFor('agent gone after a failure', () => !agentTrace(target.pid).mapped, { timeoutMs: 60000, everyMs: 200 }).catch(() => {});
  }
  cycleMs.push(Date.now() - c0);
  if (i === 1 || i % EVERY === 0 || i === CYCLES) sample(i);
}
const totalS = (Date.now() - t0) / 1000;
target.send('tick');
await target.waitLine(/^tock 1$/m).catch(() => failures.push({ cycle: 'end', error: 'the app no longer answers' }));
const ran = cycleMs.length;
target.send('exit');
await srv.stop();
await stopAll();

const first = samples[0], last = samples[samples.length - 1];
const mb = (kb) => (kb / 1024).toFixed(1);
console.log(`### Attach/detach soak: ${ran} cycles on one process (${STORM_PER_CYCLE} new methods JITed per cycle)`);
console.log('');
console.log(`${failures.length} failures; ${totalS.toFixed(0)} s in all, median cycle ${median(cycleMs)} ms, slowest ${Math.max(...cycleMs)} ms.`);
console.log('');
console.log('| after cycle | app threads | app fds | app RSS (MB) | server threads | server fds | server RSS (MB) |');
console.log('|---|---|---|---|---|---|---|');
for (const s of samples) {
  console.log(`| ${s.cycle} | ${s.app.threads} | ${s.app.fds} | ${mb(s.app.rssKb)} | ${s.server.threads} | ${s.server.fds} | ${mb(s.server.rssKb)} |`);
}
// from before the first attach, and from after the first cycle (the runtime's
// one-time cost of a first attach: its attach thread, the agent's first mapping)
for (const [what, from] of [['growth 0 -> end', first], ['growth 1 -> end', samples[1] || first]]) {
  console.log(`| ${what} | ${last.app.threads - from.app.threads} | ${last.app.fds - from.app.fds} | ${mb(last.app.rssKb - from.app.rssKb)} | ` +
    `${last.server.threads - from.server.threads} | ${last.server.fds - from.server.fds} | ${mb(last.server.rssKb - from.server.rssKb)} |`);
}
if (failures.length) {
  console.log('');
  for (const f of failures) console.log(`- cycle ${f.cycle}: ${f.error}`);
  process.exitCode = 1;
}
