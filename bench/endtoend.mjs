// endtoend.mjs -- jitscope's cost end to end against the runtime's own floor
// (issue 23), on three workloads in one interleaved run:
//   jitstorm   E2eTarget `jitstorm JIT_METHODS` (default 20000): distinct generic
//              instantiations, each JIT-compiled and called once;
//   emitstorm  E2eTarget `emitstorm EMIT_METHODS` (default 20000): methods of a
//              dynamic assembly made with Reflection.Emit, each called once
//              (serializers, proxies, mappers do this);
//   web        an ASP.NET app (`dotnet new web`, created and built offline by this
//              script into build/bench/web/) from its start to its first answered
//              request.
// Arms (ARMS picks those besides plain, by the keys of `arms` below; default
// "floor jitscope eventPipe"): plain dotnet; the floor, `jitscope run` with
// JITSCOPE_NULL=1 (a null agent: the same event masks and tier source, callbacks
// that return at once, nothing sent: what the runtime charges for the events);
// `jitscope run` with its defaults (tiers on, storage on); the EventPipe peer
// (the runtime provider's JIT keyword, verbose, to a .nettrace file); on demand
// also noTiers, noStorage, bare (neither) and importer.
// A round runs every workload's arms once each, starting at a different arm
// every round; every arm is divided by THAT round's plain run of the same
// workload (the machine's speed drifts between rounds), and the medians of those
// per-round ratios are the answer. Targets per workload: defaults at most floor
// + 0.02 wall and floor + 0.05 CPU (medians of the per-round differences, in
// units of the plain run), the wall overhead at most a third of the EventPipe
// peer's, no drops.
// Times: the app's wall time and CPU from inside a bash wrapper ($EPOCHREALTIME
// around dotnet; `times` before and after: the children's user + system, every
// thread of dotnet, the agent's included), written to a file of its own; the
// web wrapper polls the app with bash's own /dev/tcp (no process of its own)
// until it answers 200, then kills it (-9) and waits for it, so its CPU ends at
// the first answer. The server's CPU (utime + stime of /proc/PID/stat, in clock
// ticks of `getconf CLK_TCK`) is read right before it is stopped, once storage
// has written everything.
// Paced: the sender thread plus the server while the app JITs 20,000 methods/s
// for 1 s (E2eTarget's held storm, `pace K R`), PACE_ROUNDS times.
// Knobs: RUNS (11), WORKLOADS ("jitstorm emitstorm web"), JIT_METHODS,
// EMIT_METHODS, ARMS, PACE_RATE (20000), PACE_SECONDS (1), PACE_ROUNDS
// (default min(RUNS, 5); 0: none).
// RUNS=3 PACE_ROUNDS=1 node bench/endtoend.mjs: a few minutes.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BUILD, E2E_DLL, JITSCOPE, ROOT, startServer, stopAll, waitFor } from '../tests/e2e/lib.mjs';
import { median, f1, f2 } from './stats.mjs';
import { heldStorm, startupOver } from './storm.mjs';

const RUNS = Number(process.env.RUNS || 11);
const N = Number(process.env.JIT_METHODS || 20000);
const EMIT_N = Number(process.env.EMIT_METHODS || 20000);
const RATE = Number(process.env.PACE_RATE || 20000);
const PACE_N = Math.round(RATE * Number(process.env.PACE_SECONDS || 1));
const PACE_ROUNDS = Number(process.env.PACE_ROUNDS ?? Math.min(RUNS, 5));
const CAPACITY = 27930; // E2eTarget's storm methods (tests/apps/E2eTarget/Storm.cs)
if (!(N > 0 && N <= CAPACITY && EMIT_N > 0 && PACE_N > 0 && PACE_N <= CAPACITY && RUNS > 0 && PACE_ROUNDS >= 0)) {
  throw new Error(`JIT_METHODS (${N}) and PACE_RATE x PACE_SECONDS (${PACE_N}) must be 1..${CAPACITY}, EMIT_METHODS and RUNS above 0`);
}
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
const LIMIT = { wall: 0.02, cpu: 0.05, peer: 1 / 3, cores: 0.5 };
const LOAD_LIMIT = 1.5;
const WORK = path.join(BUILD, 'bench');
const WEB = path.join(WORK, 'web');
const WEB_DLL = path.join(WEB, 'app', 'BenchWeb.dll');
const FIFO = path.join(WORK, 'sleep.fifo'); // the web wrapper sleeps in `read -t` on it

// ---- the ASP.NET app: `dotnet new web`, built offline (no package source) ----
function buildWeb() {
  if (fs.existsSync(WEB_DLL)) return;
  const env = {
    ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1',
    DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE: '1', DOTNET_GENERATE_ASPNET_CERTIFICATE: 'false', MSBUILDDISABLENODEREUSE: '1',
  };
  const src = path.join(WEB, 'src');
  fs.rmSync(WEB, { recursive: true, force: true });
  const step = (args) => {
    const r = spawnSync('dotnet', args, { encoding: 'utf8', env, cwd: ROOT, timeout: 300000 });
    if (r.status !== 0) throw new Error(`dotnet ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  };
  step(['new', 'web', '-n', 'BenchWeb', '-o', src, '--no-restore']);
  fs.copyFileSync(path.join(ROOT, 'tests/apps/NuGet.config'), path.join(src, 'NuGet.config')); // offline
  step(['build', src, '-c', 'Release', '-o', path.join(WEB, 'app'), '-nologo', '-v:minimal', '-nodeReuse:false',
    '--disable-build-servers', '-p:UseSharedCompilation=false']);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// ---- the wrappers: each writes "times" twice and "elapsed S E" to fd 5 ----
const stormWrapper = (command) => `exec 5>"$BENCH_OUT"; s=$EPOCHREALTIME; times >&5; ${command} >/dev/null; times >&5; e=$EPOCHREALTIME; echo "elapsed $s $e" >&5`;
// start the app, ask it for / every ~2 ms until it answers 200, kill it there
const webWrapper = (port) => [
  `cd ${path.dirname(WEB_DLL)} || exit 1`,
  `exec 5>"$BENCH_OUT" 4<>${FIFO}`,
  's=$EPOCHREALTIME; times >&5',
  `dotnet BenchWeb.dll --urls http://127.0.0.1:${port} >/dev/null 2>&1 & pid=$!`,
  `until { exec 3<>/dev/tcp/127.0.0.1/${port}; } 2>/dev/null && printf 'GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' >&3 && read -r -u 3 line && [[ $line == *" 200 "* ]]; do exec 3<&-; read -t 0.002 -u 4; done`,
  'e=$EPOCHREALTIME; exec 3<&-',
  '{ kill -9 $pid; wait $pid; } 2>/dev/null; times >&5',
  'echo "elapsed $s $e" >&5',
].join('\n');

const workloads = {
  jitstorm: {
    title: `the generic storm: E2eTarget \`jitstorm ${N}\` (distinct generic instantiations, each JITed and called once)`,
    wrapper: async () => stormWrapper(`dotnet ${E2E_DLL} jitstorm ${N}`),
    inner: /^jitstorm: (\d+) methods in (\d+) ms$/m, count: N, session: ' jitstorm ',
  },
  emitstorm: {
    title: `the Reflection.Emit storm: E2eTarget \`emitstorm ${EMIT_N}\` (methods of a dynamic assembly, 100 a type, each called once)`,
    wrapper: async () => stormWrapper(`dotnet ${E2E_DLL} emitstorm ${EMIT_N}`),
    inner: /^emitstorm: (\d+) methods in (\d+) ms$/m, count: EMIT_N, session: ' emitstorm ',
  },
  web: {
    title: 'ASP.NET start-up: `dotnet new web` from its start to its first answered request',
    wrapper: async () => webWrapper(await freePort()),
    inner: null, session: 'BenchWeb.dll',
  },
};
const chosen = (process.env.WORKLOADS || 'jitstorm emitstorm web').split(/[ ,]+/).filter(Boolean);
for (const w of chosen) if (!workloads[w]) throw new Error(`unknown workload ${w} (${Object.keys(workloads).join(', ')})`);

const seconds = (t) => { const m = /^(\d+)m([\d.]+)s$/.exec(t); return Number(m[1]) * 60 + Number(m[2]); };

// What a wrapper wrote: wall ms, the app's CPU ms (its children's difference
// across dotnet) and, for the storms, the storm's own ms as the app says.
function parseRun(w, out, stderr) {
  const lines = out.split('\n');
  const children = lines.filter((l, i) => i % 2 === 1 && i < 4).map((l) => l.split(' '));
  const elapsed = /^elapsed ([\d.]+) ([\d.]+)$/m.exec(out);
  if (children.length !== 2 || !elapsed) throw new Error(`the wrapper's output is not as expected:\n${out}\n${stderr.slice(-2000)}`);
  const cpu = (c) => seconds(c[0]) + seconds(c[1]);
  const r = { wall: (Number(elapsed[2]) - Number(elapsed[1])) * 1000, app: (cpu(children[1]) - cpu(children[0])) * 1000 };
  if (w.inner) {
    const m = w.inner.exec(stderr);
    if (!m) throw new Error(`the app did not say what it did:\n${stderr.slice(-2000)}`);
    if (Number(m[1]) !== w.count) throw new Error(`the storm made ${m[1]} methods, not ${w.count}`);
    r.inner = Number(m[2]);
  }
  return r;
}

const outFile = path.join(os.tmpdir(), `jitscope-bench-${process.pid}.out`);
function readOut() { const t = fs.readFileSync(outFile, 'utf8'); fs.rmSync(outFile, { force: true }); return t; }

function bash(w, script, env = {}) {
  fs.rmSync(outFile, { force: true });
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, ...env, BENCH_OUT: outFile }, timeout: 120000 });
  if (r.status !== 0) throw new Error(`the plain app failed (${r.status} ${r.signal}):\n${r.stderr}`);
  return parseRun(w, readOut(), r.stderr);
}

async function plain(w) {
  const r = bash(w, await w.wrapper());
  return { ...r, cpu: r.app };
}

// The runtime's own JIT tracing: EventPipe on from the start, the runtime
// provider's JIT keyword at verbose, written to a file (which must not be empty).
async function eventPipe(w) {
  const file = path.join(os.tmpdir(), `jitscope-bench-${process.pid}.nettrace`);
  fs.rmSync(file, { force: true });
  try {
    const r = bash(w, await w.wrapper(), {
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
  await waitFor('storage written', async () => (await srv.api('/api/config')).body.storage.backlog_bytes === 0, { timeoutMs: 60000, everyMs: 20 });
}

// The wrapper under `jitscope run` with a fresh data directory (storage on, as
// by default). No requests while the app runs: the server's CPU is its own.
async function jitscope(w, env = {}, { storage = true } = {}) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-data-'));
  fs.rmSync(outFile, { force: true });
  try {
    const srv = await startServer(['run', '--port', '0', '--data', storage ? data : 'none', '--', 'bash', '-c', await w.wrapper()],
      { env: { ...env, BENCH_OUT: outFile } });
    await waitFor('bash ended', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 120000, everyMs: 20 });
    const list = (await srv.api('/api/sessions')).body.sessions;
    const child = list.find((x) => x.root_id !== x.id && x.command_line.includes(w.session));
    if (!child) throw new Error(`no session for dotnet among ${JSON.stringify(list.map((x) => x.command_line))}`);
    const s = await waitFor('the dotnet session ended', async () => {
      const x = (await srv.api(`/api/sessions/${child.id}`)).body;
      return x.state === 'exited' && x;
    }, { timeoutMs: 30000 });
    if (storage) await storageWritten(srv); // (without storage /api/config has no backlog to wait for)
    const server = cpuMs(`/proc/${srv.proc.pid}/stat`);
    await srv.stop();
    const r = parseRun(w, readOut(), srv.stderr);
    return { ...r, server, cpu: r.app + server, jits: s.counters.jit_compilations, drops: s.drops.total, floor: s.agent.floor };
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

// The paced storm under `jitscope run`: the CPU of the agent's sender thread
// and of the server from the end of start-up until the server has every function
// of the storm and storage has written them, over the storm's own wall time.
async function paced() {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-data-'));
  try {
    const srv = await startServer(['run', '--port', '0', '--data', data, '--', 'dotnet', E2E_DLL, 'jitstorm', '0', 'hold']);
    const { me, sender, jits } = await heldStorm(srv);
    const c0 = await startupOver(jits); // nothing new for 300 ms
    await storageWritten(srv);
    const senderPath = `/proc/${me.pid}/task/${sender}/stat`;
    const s0 = cpuMs(senderPath), v0 = cpuMs(`/proc/${srv.proc.pid}/stat`);
    srv.proc.stdin.write(`pace ${PACE_N} ${RATE}\n`);
    await waitFor('paced', () => /^paced \d+ /m.test(srv.stdout), { timeoutMs: 120000, everyMs: 20 });
    const done = Date.now();
    await waitFor('every function at the server', async () => (await jits()) >= c0 + PACE_N, { timeoutMs: 60000, everyMs: 20 });
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
// (/proc/stat) less this script's and its reaped children's, in ticks.
function busyTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return f[0] + f[1] + f[2] + f[5] + f[6] + f[7]; // user nice system irq softirq steal
}
function ownTicks() {
  const s = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
}

const armDefs = {
  plain: { name: 'plain `dotnet`', run: plain },
  floor: { name: 'the floor: jitscope run, JITSCOPE_NULL=1 (same events and tier source, nothing done with them)', run: (w) => jitscope(w, { JITSCOPE_NULL: '1' }) },
  jitscope: { name: 'jitscope run, defaults (tiers on, storage on)', run: (w) => jitscope(w) },
  noTiers: { name: 'jitscope run, JITSCOPE_TIERS=0', run: (w) => jitscope(w, { JITSCOPE_TIERS: '0' }) },
  noStorage: { name: 'jitscope run --data none (storage off)', run: (w) => jitscope(w, {}, { storage: false }) },
  bare: { name: 'jitscope run --data none, JITSCOPE_TIERS=0', run: (w) => jitscope(w, { JITSCOPE_TIERS: '0' }, { storage: false }) },
  importer: { name: 'jitscope run, JITSCOPE_METADATA=importer', run: (w) => jitscope(w, { JITSCOPE_METADATA: 'importer' }) },
  eventPipe: { name: 'EventPipe: runtime provider, JIT keyword, verbose, to a file', run: eventPipe },
};
const armKeys = ['plain', ...(process.env.ARMS || 'floor jitscope eventPipe').split(/[ ,]+/).filter((k) => k && k !== 'plain')];
for (const k of armKeys) if (!armDefs[k]) throw new Error(`unknown arm ${k} (${Object.keys(armDefs).join(', ')})`);

if (chosen.includes('web')) buildWeb();
if (!fs.existsSync(FIFO)) execFileSync('mkfifo', [FIFO]);

const others0 = { busy: busyTicks(), own: ownTicks(), at: Date.now() };
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(', ');
const loadBefore = os.loadavg()[0];
const started = new Date();

// results[workload][arm] = [round...]
const results = Object.fromEntries(chosen.map((w) => [w, Object.fromEntries(armKeys.map((k) => [k, []]))]));
const pace = [];
try {
  for (const w of chosen) await plain(workloads[w]); // warm the disk cache and the dotnet host once
  for (let i = 0; i < RUNS; i++) {
    for (const w of chosen) {
      for (let k = 0; k < armKeys.length; k++) {
        const key = armKeys[(i + k) % armKeys.length];
        results[w][key].push(await armDefs[key].run(workloads[w]));
      }
    }
  }
  for (let i = 0; i < PACE_ROUNDS; i++) pace.push(await paced());
} finally {
  await stopAll(); // also the servers (and so their apps) of a round that failed
  fs.rmSync(outFile, { force: true });
}
const others = ((busyTicks() - others0.busy) - (ownTicks() - others0.own)) / TICK / ((Date.now() - others0.at) / 1000);

const runtime = execFileSync('dotnet', ['--list-runtimes'], { encoding: 'utf8' }).split('\n').filter((l) => l.startsWith('Microsoft.NETCore.App ')).pop() || '';
const machine = `${os.hostname()}, ${os.cpus().length} cores, ${os.cpus()[0].model}, ${Math.floor(os.totalmem() / 2 ** 30)} GiB, ${runtime.split(' ').slice(0, 2).join(' ')}`;
console.log(`### End to end against the floor (issue 23): ${chosen.join(', ')}; ${RUNS} rounds`);
console.log('');
console.log(`Machine: ${machine}; ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC; RUNS=${RUNS}; load average before ${f2(loadBefore)}, after ${load()}; server ${path.relative(ROOT, JITSCOPE)}.`);
console.log(`Other work on the machine during the measurement: ${f2(Math.max(others, 0))} cores on average (all cores' busy time less this run's own).`);
if (loadBefore > LOAD_LIMIT) console.log(`**The load average was above ${LOAD_LIMIT} before measuring: other work shared the cores; only the paired ratios mean much.**`);
console.log('');

const verdict = (x, limit) => (Number.isFinite(x) && x <= limit ? '**PASS**' : '**MISS**');
const sign = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${f2(x)}` : 'n/a');
for (const wk of chosen) {
  const w = workloads[wk], res = results[wk];
  const base = res.plain;
  // per round: the arm over that round's plain run; and paired differences
  const ratios = (k, key) => (res[k] ? res[k].map((r, i) => r[key] / base[i][key]) : []);
  const ratio = (k, key) => (res[k] ? median(ratios(k, key)) : NaN);
  const diff = (a, b, key) => (res[a] && res[b] ? median(res[a].map((r, i) => (r[key] - res[b][i][key]) / base[i][key])) : NaN);
  const raw = (k, key) => median(res[k].map((r) => r[key]));
  console.log(`#### ${w.title}`);
  console.log('');
  console.log('| target (issue 23) | measured | limit | |');
  console.log('|---|---|---|---|');
  const dw = diff('jitscope', 'floor', 'wall'), dc = diff('jitscope', 'floor', 'cpu');
  const peer = (ratio('jitscope', 'wall') - 1) / (ratio('eventPipe', 'wall') - 1);
  const drops = res.jitscope ? Math.max(...res.jitscope.map((r) => r.drops)) : NaN;
  console.log(`| wall: defaults - floor (median of per-round differences, plain = 1) | ${sign(dw)} | +${f2(LIMIT.wall)} | ${verdict(dw, LIMIT.wall)} |`);
  console.log(`| CPU (app + server): defaults - floor | ${sign(dc)} | +${f2(LIMIT.cpu)} | ${verdict(dc, LIMIT.cpu)} |`);
  console.log(`| wall overhead against the EventPipe peer's: (defaults - 1) / (EventPipe - 1) | ${Number.isFinite(peer) ? f2(peer) : 'n/a'} | ${f2(LIMIT.peer)} | ${verdict(peer, LIMIT.peer)} |`);
  console.log(`| drops (defaults, most in a round) | ${Number.isFinite(drops) ? drops : 'n/a'} | 0 | ${verdict(drops, 0)} |`);
  if (res.noStorage) { // issue 22: what storage adds, paired per round against --data none
    const ds = diff('jitscope', 'noStorage', 'cpu');
    const dsv = median(res.jitscope.map((r, i) => (r.server - res.noStorage[i].server) / base[i].cpu));
    console.log(`| storage's CPU (app + server): defaults - \`--data none\` (median of per-round differences; the server's alone ${sign(dsv)}) | ${sign(ds)} | +0.01 | ${verdict(ds, 0.01)} |`);
  }
  console.log('');
  console.log(`Per arm, medians over ${RUNS} rounds; ratios are medians of each round's arm / that round's plain run:`);
  console.log('');
  console.log(`| arm | wall (ms) | min | max | app CPU (ms) | server CPU (ms) | wall ratio | CPU ratio |${w.inner ? ' storm, as the app says (ms) | storm ratio |' : ''} JITs at the server |`);
  console.log(`|---|---|---|---|---|---|---|---|${w.inner ? '---|---|' : ''}---|`);
  for (const k of armKeys) {
    const rs = res[k], wl = rs.map((r) => r.wall);
    const srv = rs[0].server === undefined ? '-' : f1(raw(k, 'server'));
    const inner = w.inner ? ` ${f1(raw(k, 'inner'))} | ${f2(ratio(k, 'inner'))} |` : '';
    const jits = rs[0].jits === undefined ? '-' : String(raw(k, 'jits'));
    console.log(`| ${armDefs[k].name} | ${f1(median(wl))} | ${f1(Math.min(...wl))} | ${f1(Math.max(...wl))} | ${f1(raw(k, 'app'))} | ${srv} | ${f2(ratio(k, 'wall'))} | ${f2(ratio(k, 'cpu'))} |${inner} ${jits} |`);
  }
  if (res.eventPipe) console.log(`\nEventPipe trace ${f1(raw('eventPipe', 'traceBytes') / 1048576)} MiB per run (deleted).`);
  console.log('');
}
console.log(`CPU: the app's from bash \`times\` (ms), the server's in clock ticks of 1/${TICK} s.`);
if (pace.length) {
  const cores = median(pace.map((p) => p.cores));
  const reached = median(pace.map((p) => p.rate));
  const coresVerdict = reached >= 0.95 * RATE ? verdict(cores, LIMIT.cores) : `**MISS** (the app reached only ${Math.round(reached)} JITs/s)`;
  console.log('');
  console.log(`Paced storm (\`jitscope run -- dotnet E2eTarget.dll jitstorm 0 hold\`, then \`pace ${PACE_N} ${RATE}\`; tiers and storage on): sender thread + server ${f2(cores)} cores (median of ${pace.length}; limit ${f2(LIMIT.cores)}) ${coresVerdict}`);
  console.log('');
  console.log('| round | storm (ms) | achieved JITs/s | sender CPU (ms) | server CPU (ms) | server done after the storm (ms) | cores |');
  console.log('|---|---|---|---|---|---|---|');
  pace.forEach((p, i) => console.log(`| ${i + 1} | ${f1(p.ms)} | ${Math.round(p.rate)} | ${f1(p.sender)} | ${f1(p.server)} | ${p.tail} | ${f2(p.cores)} |`));
}
