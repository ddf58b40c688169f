// endtoend.mjs -- issue 12 item 2, end to end on the JIT storm, every target
// answered PASS or MISS in one run:
//  1. wall time: jitscope (defaults: tiers on, storage on) at most 1.05x the
//     plain run of the same round;
//  2. CPU time, app and server together, at most 1.08x the plain app's;
//  3. at most a third of the overhead of EventPipe JIT tracing (the runtime's
//     provider, JIT keyword 0x10, verbose, to a .nettrace file) in the same run;
//  4. the agent's sender thread plus the server at most half a core while the
//     app JITs 20,000 methods/s for 1 s (E2eTarget's paced storm, `pace K R`).
// Workload for 1-3: E2eTarget `jitstorm JIT_METHODS` (default 20000). RUNS
// rounds (default 11); a round runs plain, jitscope, jitscope with
// JITSCOPE_TIERS=0, without storage (--data none), with neither (the least
// jitscope does: agent, sender and server), with JITSCOPE_METADATA=importer (how the agent named methods before it read the
// modules' images itself) and the EventPipe peer once each, starting at a different
// arm each round; every arm is divided by THAT round's plain run (the machine's
// speed drifts between rounds) and the medians of those ratios are the answer.
// Times: the app's wall time (date around dotnet in a bash wrapper), its CPU
// (bash `times`: children user+sys, dotnet and every thread in it, the agent's
// too), the server's CPU (utime+stime of /proc/PID/stat, in clock ticks of
// `getconf CLK_TCK`, read right before it is stopped, once storage has written
// everything) and the storm's own time as E2eTarget prints it.
// Knobs: RUNS, JIT_METHODS, PACE_RATE (20000), PACE_SECONDS (1), PACE_ROUNDS
// (default min(RUNS, 5)), ARMS (the arms to run besides plain, by the names in
// `arms` below; default all; the targets' rows need jitscope and eventPipe).
// RUNS=3 PACE_ROUNDS=1 node bench/endtoend.mjs: ~1 min.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E2E_DLL, JITSCOPE, ROOT, startServer, stopAll, waitFor } from '../tests/e2e/lib.mjs';
import { median, f1, f2 } from './stats.mjs';
import { heldStorm, startupOver } from './storm.mjs';

const RUNS = Number(process.env.RUNS || 11);
const N = Number(process.env.JIT_METHODS || 20000);
const RATE = Number(process.env.PACE_RATE || 20000);
const PACE_N = Math.round(RATE * Number(process.env.PACE_SECONDS || 1));
const PACE_ROUNDS = Number(process.env.PACE_ROUNDS || Math.min(RUNS, 5));
const CAPACITY = 27930; // E2eTarget's storm methods (tests/apps/E2eTarget/Storm.cs)
if (!(N > 0 && N <= CAPACITY && PACE_N > 0 && PACE_N <= CAPACITY && RUNS > 0 && PACE_ROUNDS > 0)) {
  throw new Error(`JIT_METHODS (${N}) and PACE_RATE x PACE_SECONDS (${PACE_N}) must be 1..${CAPACITY}, RUNS and PACE_ROUNDS above 0`);
}
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
const LIMIT = { wall: 1.05, cpu: 1.08, peer: 1 / 3, cores: 0.5 };
const LOAD_LIMIT = 1.5;

// The app alone, from inside a shell: `times` right before and after dotnet
// (its second line is the shell's children, user and system: the difference is
// dotnet's, the date subshells outside it), date around both.
const wrapper = `s=$(date +%s%N); times >&2; dotnet ${E2E_DLL} jitstorm ${N} >/dev/null; times >&2; e=$(date +%s%N); echo "elapsed $((e - s))" >&2`;

const seconds = (t) => { const m = /^(\d+)m([\d.]+)s$/.exec(t); return Number(m[1]) * 60 + Number(m[2]); };

// What the wrapper printed: wall ms, the app's CPU ms (dotnet's, the children's
// difference across it) and the storm's own ms.
function parseWrapper(stderr) {
  const children = [...stderr.matchAll(/^\d+m[\d.]+s \d+m[\d.]+s\n(\d+m[\d.]+s) (\d+m[\d.]+s)$/gm)];
  const elapsed = /^elapsed (\d+)$/m.exec(stderr);
  const inner = /^jitstorm: (\d+) methods in (\d+) ms$/m.exec(stderr);
  if (children.length !== 2 || !elapsed || !inner) throw new Error(`the wrapper's output is not as expected:\n${stderr}`);
  if (Number(inner[1]) !== N) throw new Error(`the storm JITed ${inner[1]} methods, not ${N}`);
  const cpu = (m) => seconds(m[1]) + seconds(m[2]);
  return { wall: Number(elapsed[1]) / 1e6, app: (cpu(children[1]) - cpu(children[0])) * 1000, inner: Number(inner[2]) };
}

function bash(env = {}) {
  const r = spawnSync('bash', ['-c', wrapper], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, ...env }, timeout: 120000 });
  if (r.status !== 0) throw new Error(`the plain app failed (${r.status} ${r.signal}):\n${r.stderr}`);
  return parseWrapper(r.stderr);
}

function plain() {
  const r = bash();
  return { ...r, cpu: r.app };
}

// The runtime's own JIT tracing: EventPipe on from the start, the runtime
// provider's JIT keyword at verbose, written to a file (which must not be empty).
function eventPipe() {
  const file = path.join(os.tmpdir(), `jitscope-bench-${process.pid}.nettrace`);
  fs.rmSync(file, { force: true });
  try {
    const r = bash({
      DOTNET_EnableEventPipe: '1',
      DOTNET_EventPipeConfig: 'Microsoft-Windows-DotNETRuntime:0x10:5',
      DOTNET_EventPipeOutputPath: file,
    });
    const bytes = fs.existsSync(file) ? fs.statSync(file).size : 0;
    if (bytes === 0) throw new Error(`EventPipe wrote nothing to ${file}`);
    return { ...r, cpu: r.app, traceBytes: bytes };
  } finally {
    fs.rmSync(file, { force: true });
  }
}

// utime + stime of a process or thread, in ms.
function cpuMs(statPath) {
  const s = fs.readFileSync(statPath, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
  return (Number(f[11]) + Number(f[12])) * 1000 / TICK;
}

async function storageWritten(srv) {
  await waitFor('storage written', async () => (await srv.api('/api/config')).body.storage.backlog_bytes === 0, 60000, 20);
}

// The wrapper under `jitscope run` with a fresh data directory (storage on, as
// by default). The server's stderr carries the wrapper's.
async function jitscope(env = {}, { storage = true } = {}) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-data-'));
  try {
    const srv = await startServer(['run', '--port', '0', '--data', storage ? data : 'none', '--', 'bash', '-c', wrapper], { env });
    // no requests while the app runs: the server's CPU is its own
    await waitFor('the app ended', () => /^elapsed \d+$/m.test(srv.stderr), 120000, 20);
    await waitFor('bash ended', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', 30000);
    const list = (await srv.api('/api/sessions')).body.sessions;
    const child = list.find((x) => x.root_id !== x.id && x.command_line.includes(' jitstorm '));
    if (!child) throw new Error(`no session for dotnet among ${JSON.stringify(list.map((x) => x.command_line))}`);
    const s = await waitFor('the dotnet session ended', async () => {
      const x = (await srv.api(`/api/sessions/${child.id}`)).body;
      return x.state === 'exited' && x;
    }, 30000);
    if (storage) await storageWritten(srv); // (without storage /api/config has no backlog to wait for)
    const server = cpuMs(`/proc/${srv.proc.pid}/stat`);
    await srv.stop();
    const r = parseWrapper(srv.stderr);
    return { ...r, server, cpu: r.app + server, jits: s.counters.jit_compilations, drops: s.drops.total };
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

// The paced storm under `jitscope run`: the CPU of the agent's sender thread
// (its name in /proc/PID/task/*/comm) and of the server, read once the app
// holds after start-up and again once the server has every function of the
// storm and storage has written them, over the storm's own wall time.
async function paced() {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-data-'));
  try {
    const srv = await startServer(['run', '--port', '0', '--data', data, '--', 'dotnet', E2E_DLL, 'jitstorm', '0', 'hold']);
    const { me, sender, jits } = await heldStorm(srv);
    // start-up over: nothing new for 300 ms and storage idle
    const c0 = await startupOver(jits);
    await storageWritten(srv);
    const senderPath = `/proc/${me.pid}/task/${sender}/stat`;
    const s0 = cpuMs(senderPath), v0 = cpuMs(`/proc/${srv.proc.pid}/stat`);
    srv.proc.stdin.write(`pace ${PACE_N} ${RATE}\n`);
    await waitFor('paced', () => /^paced \d+ /m.test(srv.stdout), 120000, 20);
    const done = Date.now();
    await waitFor('every function at the server', async () => (await jits()) >= c0 + PACE_N, 60000, 20);
    await storageWritten(srv);
    const tail = Date.now() - done;
    const s1 = cpuMs(senderPath), v1 = cpuMs(`/proc/${srv.proc.pid}/stat`);
    srv.proc.stdin.write('exit\n');
    await srv.stop();
    const m = /^pace: (\d+) methods in ([\d.]+) ms/m.exec(srv.stderr);
    if (!m || Number(m[1]) !== PACE_N) throw new Error(`the paced storm did not say what it did:\n${srv.stderr}`);
    const ms = Number(m[2]);
    return { ms, rate: PACE_N / (ms / 1000), sender: s1 - s0, server: v1 - v0, cores: (s1 - s0 + v1 - v0) / ms, tail };
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

// Other work on the machine while we measure: every core's busy time
// (/proc/stat) less this script's and its reaped children's (cutime, cstime of
// /proc/self/stat: bash, dotnet, jitscope once they ended), in ticks.
function busyTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return f[0] + f[1] + f[2] + f[5] + f[6] + f[7]; // user nice system irq softirq steal
}
function ownTicks() {
  const s = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
}
const others0 = { busy: busyTicks(), own: ownTicks(), at: Date.now() };

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(', ');
const loadBefore = os.loadavg()[0];
const started = new Date();

const arms = {
  plain: { name: 'plain `dotnet E2eTarget.dll jitstorm N`', run: plain, rounds: [] },
  jitscope: { name: 'jitscope run (tiers on, storage on)', run: () => jitscope(), rounds: [] },
  noTiers: { name: 'jitscope run, JITSCOPE_TIERS=0', run: () => jitscope({ JITSCOPE_TIERS: '0' }), rounds: [] },
  noStorage: { name: 'jitscope run --data none (storage off)', run: () => jitscope({}, { storage: false }), rounds: [] },
  bare: { name: 'jitscope run --data none, JITSCOPE_TIERS=0 (neither: agent, sender and server only)', run: () => jitscope({ JITSCOPE_TIERS: '0' }, { storage: false }), rounds: [] },
  importer: { name: 'jitscope run, JITSCOPE_METADATA=importer (names as the agent read them before: through the runtime)', run: () => jitscope({ JITSCOPE_METADATA: 'importer' }), rounds: [] },
  eventPipe: { name: 'EventPipe: runtime provider, JIT keyword, verbose, to a file', run: eventPipe, rounds: [] },
};
if (process.env.ARMS) { // only these (and plain, which every ratio needs)
  const keep = new Set(['plain', ...process.env.ARMS.split(/[ ,]+/)]);
  for (const k of Object.keys(arms)) if (!keep.has(k)) delete arms[k];
}
const order = Object.keys(arms);
const pace = [];
try {
  plain(); // warm the disk cache and the dotnet host once
  for (let i = 0; i < RUNS; i++) {
    for (let k = 0; k < order.length; k++) {
      const a = arms[order[(i + k) % order.length]];
      a.rounds.push(await a.run());
    }
  }
  for (let i = 0; i < PACE_ROUNDS; i++) pace.push(await paced());
} finally {
  await stopAll(); // also the servers (and so their apps) of a round that failed
}
const others = ((busyTicks() - others0.busy) - (ownTicks() - others0.own)) / TICK / ((Date.now() - others0.at) / 1000);

// per round: the arm over that round's plain run
const ratio = (a, key) => (a ? median(a.rounds.map((r, i) => r[key] / arms.plain.rounds[i][key])) : NaN);
const raw = (a, key) => (a ? median(a.rounds.map((r) => r[key])) : NaN);
const verdict = (x, limit) => (Number.isFinite(x) && x <= limit ? '**PASS**' : '**MISS**');
const js = arms.jitscope;
const wallR = ratio(js, 'wall'), cpuR = ratio(js, 'cpu');
const peerWall = (ratio(js, 'wall') - 1) / (ratio(arms.eventPipe, 'wall') - 1);
const peerCpu = (ratio(js, 'cpu') - 1) / (ratio(arms.eventPipe, 'cpu') - 1);
const cores = median(pace.map((p) => p.cores));
// a storm slower than asked would make the cores look smaller: no PASS then
const reached = median(pace.map((p) => p.rate));
const coresVerdict = reached >= 0.95 * RATE ? verdict(cores, LIMIT.cores) : `**MISS** (the app reached only ${Math.round(reached)} JITs/s)`;
const shown = (x) => (Number.isFinite(x) ? f2(x) : 'n/a (EventPipe cost nothing)');

const runtime = execFileSync('dotnet', ['--list-runtimes'], { encoding: 'utf8' }).split('\n').filter((l) => l.startsWith('Microsoft.NETCore.App ')).pop() || '';
const machine = `${os.hostname()}, ${os.cpus().length} cores, ${os.cpus()[0].model}, ${Math.floor(os.totalmem() / 2 ** 30)} GiB, ${runtime.split(' ').slice(0, 2).join(' ')}`;
console.log(`### End to end on the JIT storm (issue 12 item 2): jitstorm ${N}, ${RUNS} rounds, paced ${PACE_N} at ${RATE}/s x ${PACE_ROUNDS}`);
console.log('');
console.log(`Machine: ${machine}; ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC; RUNS=${RUNS}; load average before ${f2(loadBefore)}, after ${load()}; server ${path.relative(ROOT, JITSCOPE)}.`);
console.log(`Other work on the machine during the measurement: ${f2(Math.max(others, 0))} cores on average (all cores' busy time less this run's own).`);
if (loadBefore > LOAD_LIMIT) console.log(`**The load average was above ${LOAD_LIMIT} before measuring: other work shared the cores, rerun when quiet.**`);
console.log('');
console.log('| target (issue 12 item 2) | measured | limit | |');
console.log('|---|---|---|---|');
console.log(`| wall time, jitscope / plain (median of per-round ratios) | ${f2(wallR)}x | ${f2(LIMIT.wall)}x | ${verdict(wallR, LIMIT.wall)} |`);
console.log(`| CPU time, (app + server) / plain app | ${f2(cpuR)}x | ${f2(LIMIT.cpu)}x | ${verdict(cpuR, LIMIT.cpu)} |`);
console.log(`| overhead against EventPipe JIT tracing, wall: (jitscope - 1) / (EventPipe - 1) | ${shown(peerWall)} | ${f2(LIMIT.peer)} | ${verdict(peerWall, LIMIT.peer)} |`);
console.log(`| the same on CPU time | ${shown(peerCpu)} | ${f2(LIMIT.peer)} | ${verdict(peerCpu, LIMIT.peer)} |`);
console.log(`| sender thread + server at ${RATE.toLocaleString('en-US')} JITs/s (cores, median of ${PACE_ROUNDS}) | ${f2(cores)} | ${f2(LIMIT.cores)} | ${coresVerdict} |`);
console.log('');
// What the runtime charges for the tier data, measured as the difference the
// tier source makes with everything else the same: the part of targets 1-2 no
// change in jitscope can win back while tiers are shown.
const tierWall = ratio(js, 'wall') - ratio(arms.noTiers, 'wall');
const tierCpu = ratio(js, 'cpu') - ratio(arms.noTiers, 'cpu');
console.log(`The tier source's share (defaults less JITSCOPE_TIERS=0, both with storage): wall +${f2(tierWall)}, CPU +${f2(tierCpu)} ` +
  `(targets: wall +${f2(LIMIT.wall - 1)}, CPU +${f2(LIMIT.cpu - 1)} in all). ` +
  `Without the tier source and storage: wall ${f2(ratio(arms.bare, 'wall'))}x, CPU ${f2(ratio(arms.bare, 'cpu'))}x. ` +
  `Storage's share (defaults less --data none): wall +${f2(ratio(js, 'wall') - ratio(arms.noStorage, 'wall'))}, ` +
  `CPU +${f2(ratio(js, 'cpu') - ratio(arms.noStorage, 'cpu'))} (the server's CPU is read once storage has written everything, the session's snapshot included).`);
console.log('');
console.log(`Per arm, medians over ${RUNS} rounds; ratios are medians of each round's arm / that round's plain run:`);
console.log('');
console.log('| arm | wall (ms) | min | max | app CPU (ms) | server CPU (ms) | storm, as the app says (ms) | wall ratio | CPU ratio | storm ratio |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const a of Object.values(arms)) {
  const w = a.rounds.map((r) => r.wall);
  const srvCpu = a.rounds[0].server === undefined ? '-' : f1(raw(a, 'server'));
  console.log(`| ${a.name} | ${f1(median(w))} | ${f1(Math.min(...w))} | ${f1(Math.max(...w))} | ${f1(raw(a, 'app'))} | ${srvCpu} | ${f1(raw(a, 'inner'))} | ${f2(ratio(a, 'wall'))} | ${f2(ratio(a, 'cpu'))} | ${f2(ratio(a, 'inner'))} |`);
}
console.log('');
console.log(`Functions JITed per jitscope run (the dotnet session): ${raw(js, 'jits')}, drops ${Math.max(...js.rounds.map((r) => r.drops))} at most; ` +
  `EventPipe trace ${arms.eventPipe ? f1(raw(arms.eventPipe, 'traceBytes') / 1048576) : '-'} MiB per run (deleted). CPU in clock ticks of 1/${TICK} s.`);
console.log('');
console.log(`Paced storm (\`jitscope run -- dotnet E2eTarget.dll jitstorm 0 hold\`, then \`pace ${PACE_N} ${RATE}\`; tiers and storage on):`);
console.log('');
console.log('| round | storm (ms) | achieved JITs/s | sender CPU (ms) | server CPU (ms) | server done after the storm (ms) | cores |');
console.log('|---|---|---|---|---|---|---|');
pace.forEach((p, i) => console.log(`| ${i + 1} | ${f1(p.ms)} | ${Math.round(p.rate)} | ${f1(p.sender)} | ${f1(p.server)} | ${p.tail} | ${f2(p.cores)} |`));
