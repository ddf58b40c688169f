// cpuprof.mjs -- what CPU profiles (issue 28) cost and how whole their stacks are.
//
// 1. Cost on a CPU-bound workload: StackTarget `cpu UNITS --gate --workers N
//    --warmup-ms 1000` (N = CPU_WORKERS, default one worker per core; UNITS =
//    CPU_UNITS, default 75,000 per worker), the work's own Stopwatch time
//    (stderr "cpu: work_ms="), after an untimed warm-up so every tool is set up
//    and sampling when the timed part starts. Variants, in rotation RUNS times
//    (default 7) in this one invocation, so drift hits all alike:
//      plain                 no tool
//      agent idle            `jitscope run`, no profile
//      wall 99 Hz            jitscope's wall-clock profile (suspended walks, 2% budget)
//      cpu 99 Hz, cpu 999 Hz jitscope's CPU profile (perf events read by the server)
//      dotnet-trace cpu-sampling   `dotnet-trace collect-linux --profile cpu-sampling`
//                            (the tool's own kernel CPU sampling, machine-wide)
//      dotnet-trace sampled-thread-time   `dotnet-trace collect --profile
//                            dotnet-sampled-thread-time` (the runtime's EventPipe
//                            sampler, which suspends the runtime)
//    dotnet-trace is installed as a dotnet tool into build/tools when missing
//    (NuGet); if it cannot be, its variants are left out and the table says so.
//    For jitscope the server's own CPU time during the timed work is shown too
//    (/proc/PID/stat): on a machine whose cores the workload fills, it competes.
// 1b. The same cost measured inside one process (PARTS=paired), which a loaded machine
//    disturbs far less: StackTarget `cpuloop` works without end on N threads, and
//    jitscope's profile is switched on and off while it runs, PHASE_MS (1500) per
//    phase, in the order off, cpu 999 Hz, off, cpu 99 Hz, off, wall 99 Hz, off,
//    `perf record -e cpu-clock -F 999 -g -p PID` (the kernel's sampling alone, as
//    a yardstick), off, dotnet-trace cpu-sampling (collect-linux), PAIRS (12)
//    times. Each profiled phase is compared with the unprofiled phase right
//    before it: units of work per wall second and per second of the app's CPU time
//    (the ratio of the two phases' rates; the median of the pairs is the cost, with a
//    bootstrap 95% confidence interval), and per second of the worker threads' own CPU
//    time (their schedstat, in ns): the kernel's sampling is paid in the sampled
//    thread's time (the timer interrupt and the stack walk run in it), while the
//    server's work and the other jobs on the machine are not in it, so this is the
//    figure that says what the sampling costs the thread it samples; the process's
//    CPU time (in 10 ms ticks) and the wall clock also count the server and the load.
//    The rounds interleave the arms, so each round also gives jitscope's cost minus
//    perf record's (the median of those differences, with its interval).
//    RAW=FILE writes every round's ratios there (JSON). PIN=1 pins the app to CPU 0 and the server, perf record and this script to
//    CPU 1 (taskset), so the server's wake-ups never preempt the sampled thread.
// 2. Throughput of an ASP.NET Core service under load (tests/apps/WebTarget,
//    WEB_CLIENTS (4) keep-alive clients calling /work and /items for WEB_SECONDS
//    (5) after a warm-up): requests per second plain, with the agent idle, with
//    a CPU profile at 999 Hz and with a wall-clock profile at 49 Hz; WEB_RUNS (5)
//    rotations.
// 3. Whole stacks: the CPU profile's own counters on StackTarget `stacks`
//    (the spinner), StackTarget `cpu` and WebTarget under load; and the spinner's
//    managed frames in CPU samples against DoStackSnapshot's at the same moments
//    (a snapshot every 200 ms during a CPU profile; the CPU samples of the spinner
//    in the 20 ms before each snapshot are compared with it).
// Target from the issue: at most 2% at 999 Hz.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, BUILD, STACK_DLL, WEB_DLL, startServer, waitFor, stopAll } from '../tests/e2e/lib.mjs';
import { median, medianCi, f1, f2 } from './stats.mjs';

const RUNS = Number(process.env.RUNS || 7);
const WORKERS = Number(process.env.CPU_WORKERS || os.cpus().length);
const UNITS = Number(process.env.CPU_UNITS || 75000 * WORKERS);
const ARGS = ['cpu', String(UNITS), '--gate', '--workers', String(WORKERS), '--warmup-ms', '1000'];
const WEB_CLIENTS = Number(process.env.WEB_CLIENTS || 4);
const WEB_SECONDS = Number(process.env.WEB_SECONDS || 5);
const WEB_RUNS = Number(process.env.WEB_RUNS || 5);
const TICK = 100;
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const procCpuMs = (pid) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) / TICK) * 1000;
};
// A process's CPU time in ms, summed over its threads' schedstat (ns; /proc/PID/stat counts in
// 10 ms ticks, too coarse for a second); 0 once it is gone.
const procThreadsCpuMs = (pid) => {
  let ns = 0;
  try {
    for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
      try { ns += Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { /* the thread ended */ }
    }
  } catch { return 0; }
  return ns / 1e6;
};
const post = (srv, p, body) => srv.api(p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const workMs = (stderr) => {
  const m = /cpu: work_ms=([\d.]+)/.exec(stderr);
  if (!m) throw new Error(`no work_ms in: ${stderr.slice(-500)}`);
  return Number(m[1]);
};
// The app's own CPU time during the timed work (all its threads, user and system), from
// StackTarget's "cpu_ms=": unlike wall time it does not grow when other processes share the cores.
const workCpuMs = (stderr) => Number((/ cpu_ms=([\d.]+)/.exec(stderr) || [])[1]);
const checksum = (stdout) => (/^cpu units \d+ checksum ([0-9a-f]{16})$/m.exec(stdout) || [])[1];

// ---- dotnet-trace ----
const TOOLS = path.join(BUILD, 'tools');
const DOTNET_TRACE = path.join(TOOLS, 'dotnet-trace');
function dotnetTrace() {
  if (fs.existsSync(DOTNET_TRACE)) return { ok: true };
  const r = spawnSync('dotnet', ['tool', 'install', '--tool-path', TOOLS, 'dotnet-trace'], { encoding: 'utf8', timeout: 300000 });
  return fs.existsSync(DOTNET_TRACE) ? { ok: true } : { ok: false, why: (r.stderr || r.stdout || '').trim().split('\n').slice(-2).join(' ') };
}

// ---- 1: the CPU-bound workload ----

// The app alone, or under dotnet-trace (traceArgs) attached once it waits.
function direct(traceArgs = null) {
  return new Promise((resolve, reject) => {
    const p = spawn('dotnet', [STACK_DLL, ...ARGS], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '', sent = false, tracer = null, traceOut = '';
    const file = path.join(os.tmpdir(), `jitscope-bench-${process.pid}-${Date.now()}.nettrace`);
    p.stdout.on('data', (d) => {
      out += d;
      const m = /^WAITING pid=(\d+)$/m.exec(out);
      if (m && !sent) {
        sent = true;
        if (!traceArgs) { p.stdin.write('go\n'); return; }
        tracer = spawn(DOTNET_TRACE, [...traceArgs, '-p', m[1], '-o', file], { stdio: ['ignore', 'pipe', 'pipe'] });
        tracer.stdout.on('data', (x) => {
          traceOut += x;
          if (/Output File/.test(traceOut) && !p.started) { p.started = true; p.stdin.write('go\n'); } // the warm-up covers the rest of its set-up
        });
        tracer.stderr.on('data', (x) => { traceOut += x; });
      }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', reject);
    p.on('exit', async (code) => {
      let traceBytes = null;
      if (tracer) {
        tracer.kill('SIGINT');
        await new Promise((r) => { tracer.on('exit', r); setTimeout(r, 120000); });
        try { traceBytes = fs.statSync(file).size; } catch { traceBytes = 0; }
        fs.rmSync(file, { force: true });
      }
      if (code !== 0) return reject(new Error(`cpu run exited ${code}: ${err}\n${traceOut}`));
      resolve({ ms: workMs(err), cpuMs: workCpuMs(err), sum: checksum(out), traceBytes });
    });
  });
}

// Under `jitscope run`; mode null = no profile.
async function withJitscope(mode, hz) {
  const srv = await startServer(['run', '--data', 'none', '--port', '0', '--', 'dotnet', STACK_DLL, ...ARGS]);
  try {
    await waitFor('WAITING', () => /^WAITING pid=\d+$/m.test(srv.stdout), { timeoutMs: 60000 });
    await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
    if (mode) {
      const r = await post(srv, '/api/sessions/1/profile', { hz, mode });
      if (r.status !== 202 || r.body.profile.mode !== mode) throw new Error(`POST profile: ${r.status} ${JSON.stringify(r.body)}`);
    }
    srv.proc.stdin.write('go\n');
    await waitFor('warm-up done', () => /^warm$/m.test(srv.stdout), { timeoutMs: 300000, everyMs: 20 });
    const at = { cpu: procCpuMs(srv.proc.pid), profile: mode ? (await srv.api('/api/sessions/1/profile')).body.profile : null };
    await waitFor('work done', () => /^cpu units \d+ checksum/m.test(srv.stdout), { timeoutMs: 300000, everyMs: 20 });
    const serverMs = procCpuMs(srv.proc.pid) - at.cpu;
    let profile = null;
    if (mode) {
      const end = (await srv.api('/api/sessions/1/profile')).body.profile;
      profile = { samples: end.samples - at.profile.samples, suspendedMs: (end.suspended_ns_total - at.profile.suspended_ns_total) / 1e6,
        cpu: end.cpu, effectiveHz: end.effective_hz };
    }
    await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000, everyMs: 100 });
    return { ms: workMs(srv.stderr), cpuMs: workCpuMs(srv.stderr), sum: checksum(srv.stdout), serverMs, profile };
  } finally {
    await srv.stop();
  }
}

async function costTable() {
  const dt = dotnetTrace();
  const variants = [
    { name: 'plain', run: () => direct() },
    { name: 'jitscope agent, no profile', run: () => withJitscope(null) },
    { name: 'jitscope wall 99 Hz', run: () => withJitscope('wall', 99) },
    { name: 'jitscope cpu 99 Hz', run: () => withJitscope('cpu', 99) },
    { name: 'jitscope cpu 999 Hz', run: () => withJitscope('cpu', 999) },
  ];
  if (dt.ok) {
    variants.push({ name: 'dotnet-trace cpu-sampling (collect-linux)', run: () => direct(['collect-linux', '--profile', 'cpu-sampling']) });
    variants.push({ name: 'dotnet-trace dotnet-sampled-thread-time', run: () => direct(['collect', '--profile', 'dotnet-sampled-thread-time']) });
  }
  const results = new Map(variants.map((v) => [v.name, []]));
  const load0 = loadavg();
  await direct(); // warm the disk cache and the dotnet host once
  for (let i = 0; i < RUNS; i++) for (const v of variants) results.get(v.name).push(await v.run());
  const sums = new Set([...results.values()].flat().map((r) => r.sum));
  if (sums.size !== 1) throw new Error(`the workload's checksum differs between runs: ${[...sums].join(', ')}`);
  const plain = results.get('plain').map((r) => r.ms), mp = median(plain);
  console.log(`### CPU profiles: cost on a CPU-bound workload (StackTarget \`${ARGS.filter((a) => a !== '--gate').join(' ')}\` on ${os.cpus().length} cores, ${RUNS} runs of each variant in rotation)`);
  console.log('');
  const plainCpu = results.get('plain').map((r) => r.cpuMs), mc = median(plainCpu);
  const idleCpu = median(results.get('jitscope agent, no profile').map((r) => r.cpuMs));
  console.log('| variant | median work time (ms) | min | max | ratio of medians | median of paired ratios | app CPU during the work (ms) | CPU ratio to plain | CPU ratio to the idle agent | samples during the work | runtime suspended (ms) | jitscope server CPU during the work (ms) | trace (KiB) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const v of variants) {
    const rs = results.get(v.name), ms = rs.map((r) => r.ms), cpu = rs.map((r) => r.cpuMs);
    const paired = rs.map((r, k) => r.ms / plain[k]);
    const prof = rs.map((r) => r.profile).filter(Boolean);
    const srvMs = rs.filter((r) => r.serverMs != null).map((r) => r.serverMs);
    const tb = rs.filter((r) => r.traceBytes != null).map((r) => r.traceBytes / 1024);
    const jit = v.name.startsWith('jitscope');
    console.log(`| ${v.name} | ${f1(median(ms))} | ${f1(Math.min(...ms))} | ${f1(Math.max(...ms))} | ${f2(median(ms) / mp)} | ${f2(median(paired))} | ${f1(median(cpu))} | ${(median(cpu) / mc).toFixed(3)} | ${jit ? (median(cpu) / idleCpu).toFixed(3) : ''} | ${prof.length ? median(prof.map((p) => p.samples)) : ''} | ${prof.length ? f1(median(prof.map((p) => p.suspendedMs))) : ''} | ${srvMs.length ? f1(median(srvMs)) : ''} | ${tb.length ? f1(median(tb)) : ''} |`);
  }
  console.log('');
  console.log(`Load average (1/5/15 min) before: ${load0}, after: ${loadavg()}. Same checksum in every run.`);
  if (!dt.ok) console.log(`dotnet-trace could not be installed as a dotnet tool here: ${dt.why}`);
  const r999 = median(results.get('jitscope cpu 999 Hz').map((r) => r.ms)) / mp;
  const p999 = median(results.get('jitscope cpu 999 Hz').map((r, k) => r.ms / plain[k]));
  const c999 = median(results.get('jitscope cpu 999 Hz').map((r) => r.cpuMs));
  const s999 = median(results.get('jitscope cpu 999 Hz').map((r) => r.profile.samples));
  console.log(`Target: CPU mode at 999 Hz costs at most 2%. Wall time: ${f1((r999 - 1) * 100)}% by the ratio of medians, ${f1((p999 - 1) * 100)}% by the median of paired ratios. The app's CPU time: ${f1((c999 / mc - 1) * 100)}% against plain, ${f1((c999 / idleCpu - 1) * 100)}% against the idle agent (${f1((c999 - idleCpu) * 1000 / s999)} us per sample).`);
  console.log('');
}

// ---- 1b: the same, in one process, switched on and off ----

const PAIRS = Number(process.env.PAIRS || 12);
const PHASE_MS = Number(process.env.PHASE_MS || 1500);

async function pairedTable() {
  const srv = await startServer(['run', '--data', 'none', '--port', '0', '--', 'dotnet', STACK_DLL, 'cpuloop', '--workers', String(WORKERS)]);
  const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));
  let seen = 0;
  const count = async () => {
    srv.proc.stdin.write('count\n');
    const want = ++seen;
    const m = await waitFor('count', () => {
      const all = [...srv.stdout.matchAll(/^count units=(\d+) cpu_ms=([\d.]+) wall_ms=([\d.]+) worker_cpu_ns=(\d+)$/gm)];
      return all.length >= want && all[want - 1];
    }, { timeoutMs: 30000, everyMs: 5 });
    return { units: Number(m[1]), cpu: Number(m[2]), wall: Number(m[3]), worker: Number(m[4]) / 1e6, server: procThreadsCpuMs(srv.proc.pid) };
  };
  const PIN = process.env.PIN === '1';
  const pin = (cpu, pid) => {
    const r = spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`taskset ${cpu} ${pid}: ${r.stderr}`);
  };
  const appPid = () => Number(/^READY pid=(\d+)$/m.exec(srv.stdout)[1]);
  // another tool on the app's process: started, given time to set up (or, with enable(),
  // until it says it samples), stopped with SIGINT; says how much CPU it used per second
  const external = async (argv, settleMs, ready, enable) => {
    const p = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    const exited = new Promise((r) => p.on('exit', r));
    if (ready) await waitFor(`${argv[0]} recording`, () => ready.test(out), { timeoutMs: 60000, everyMs: 20 });
    if (enable) {
      try {
        await enable();
      } catch (e) {
        p.kill('SIGKILL');
        await exited;
        throw new Error(`${e.message}; ${argv[0]} said: ${out.trim().slice(-300)}`, { cause: e });
      }
    }
    await sleepMs(settleMs);
    const t0 = Date.now(), cpu0 = procThreadsCpuMs(p.pid);
    return async () => {
      const seconds = (Date.now() - t0) / 1000, cpuMsPerS = (procThreadsCpuMs(p.pid) - cpu0) / seconds;
      p.kill('SIGINT');
      await Promise.race([exited, sleepMs(120000)]);
      return { cpuMsPerS };
    };
  };
  // perf record starts with its events disabled and enables them on a command through a FIFO,
  // answering "ack" once they are on: its phase then starts when it samples (a fixed wait after
  // the spawn did not make sure of that: under load perf takes hundreds of ms to set up).
  const perfControl = (dir) => {
    const ctl = path.join(dir, 'ctl'), ack = path.join(dir, 'ack');
    for (const f of [ctl, ack]) if (spawnSync('mkfifo', [f]).status !== 0) throw new Error(`mkfifo ${f}`);
    return {
      args: ['-D', '-1', '--control', `fifo:${ctl},${ack}`],
      enable: async () => {
        const stream = fs.createReadStream(ack, { encoding: 'utf8' }); // perf keeps it open: read up to "ack"
        let got = '';
        const answer = new Promise((resolve, reject) => {
          stream.on('data', (d) => { got += d; if (/ack/.test(got)) resolve(); });
          stream.on('error', reject);
          stream.on('end', () => reject(new Error(`perf record did not acknowledge enable: ${got}`)));
        });
        await fs.promises.writeFile(ctl, 'enable\n');
        try { await answer; } finally { stream.destroy(); }
      },
    };
  };
  const perfFailures = [];
  const phase = async (profile) => {
    let stopTool = null;
    const file = path.join(os.tmpdir(), `jitscope-bench-${process.pid}-${Date.now()}`);
    if (profile && profile.perf) {
      // perf record -p fails now and then when one of the app's threads ends while it sets up:
      // started again (at most 3 times), and the failures counted in the output
      for (let attempt = 1; !stopTool; attempt++) {
        const dir = fs.mkdtempSync(`${file}-ctl`), control = perfControl(dir);
        try {
          stopTool = await external([...(PIN ? ['taskset', '-c', '1'] : []), 'perf', 'record', ...control.args, '-e', 'cpu-clock', '-F', '999', '-g', '-p', String(appPid()), '-o', `${file}.data`], 100, null, control.enable);
        } catch (e) {
          perfFailures.push(e.message);
          if (attempt >= 3) throw e;
        } finally {
          fs.rmSync(dir, { recursive: true, force: true }); // the FIFOs stay open in perf
        }
      }
    } else if (profile && profile.dotnetTrace) {
      stopTool = await external([DOTNET_TRACE, 'collect-linux', '-p', String(appPid()), '--profile', 'cpu-sampling', '-o', `${file}.nettrace`], 1000, /Output File/);
    } else if (profile) {
      const r = await post(srv, '/api/sessions/1/profile', profile);
      if (r.status !== 202 || r.body.profile.mode !== (profile.mode || 'wall')) throw new Error(`POST profile: ${r.status} ${JSON.stringify(r.body)}`);
      // its events opened and sampling: its first samples folded (a batch every 100 ms)
      await waitFor('first CPU samples', async () => (await srv.api('/api/sessions/1/profile')).body.profile.samples > 0, { timeoutMs: 30000, everyMs: 20 });
      await sleepMs(100);
    }
    const a = await count();
    await sleepMs(PHASE_MS);
    const b = await count();
    let st = null, tool = null;
    if (stopTool) {
      tool = await stopTool();
      for (const ext of ['.data', '.nettrace']) fs.rmSync(file + ext, { force: true });
      await sleepMs(300);
    } else if (profile) {
      st = (await srv.api('/api/sessions/1/profile')).body.profile;
      await post(srv, '/api/sessions/1/profile/stop', {});
      await sleepMs(300);
    }
    return { perWall: (b.units - a.units) / (b.wall - a.wall), perCpu: (b.units - a.units) / (b.cpu - a.cpu),
      perWorker: (b.units - a.units) / (b.worker - a.worker),
      serverMsPerS: (b.server - a.server) / ((b.wall - a.wall) / 1000), st, tool };
  };
  const arms = [['jitscope cpu 999 Hz', { hz: 999, mode: 'cpu' }], ['jitscope cpu 99 Hz', { hz: 99, mode: 'cpu' }],
    ['jitscope wall 99 Hz', { hz: 99, mode: 'wall' }]];
  if (spawnSync('perf', ['--version']).status === 0) arms.push(['perf record -e cpu-clock -F 999 -g', { perf: true }]);
  if (dotnetTrace().ok) arms.push(['dotnet-trace cpu-sampling (collect-linux)', { dotnetTrace: true }]);
  if (process.env.ARMS) { // a subset, by the start of their names: ARMS="jitscope cpu 999,perf"
    const want = process.env.ARMS.split(',').map((x) => x.trim());
    arms.splice(0, arms.length, ...arms.filter(([n]) => want.some((w) => n.startsWith(w))));
  }
  const pairs = new Map(arms.map(([n]) => [n, []]));
  const load0 = loadavg();
  try {
    await waitFor('READY', () => /^READY pid=\d+$/m.test(srv.stdout), { timeoutMs: 60000 });
    await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
    if (PIN) { pin(0, appPid()); pin(1, srv.proc.pid); pin(1, process.pid); }
    await sleepMs(3000); // JIT tiers settle
    for (let i = 0; i < PAIRS; i++) {
      for (const [name, profile] of arms) {
        const off = await phase(null);
        const on = await phase(profile);
        pairs.get(name).push({ wall: on.perWall / off.perWall, cpu: on.perCpu / off.perCpu, worker: on.perWorker / off.perWorker, serverMsPerS: on.serverMsPerS,
          toolMsPerS: on.tool ? on.tool.cpuMsPerS : null,
          samplesPerS: on.st ? on.st.samples / ((on.st.stopped_ms || Date.now()) - on.st.started_ms) * 1000 : 0, st: on.st });
      }
    }
  } finally {
    srv.proc.stdin.write('exit\n');
    await srv.stop();
  }
  const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
  const cost = (x) => `${f1((1 - x) * 100)}%`;
  const ci = (xs) => { const [lo, hi] = medianCi(xs); return `${cost(hi)} to ${cost(lo)}`; };
  console.log(`### CPU profiles: cost inside one process, switched on and off (StackTarget \`cpuloop --workers ${WORKERS}\` on ${os.cpus().length} cores${PIN ? ', the app pinned to CPU 0, the server, perf and the script to CPU 1' : ''}, ${PAIRS} pairs of ${PHASE_MS} ms phases per arm, each profiled phase against the unprofiled one before it)`);
  console.log('');
  console.log('| arm | work per worker CPU second, profiled / not (median) | quartiles | cost (worker CPU) | 95% interval of the cost | work per wall second (median) | quartiles | cost (wall) | 95% interval | work per process CPU second (median) | cost (process CPU) | jitscope server CPU while profiling (ms per s) | the other tool\'s CPU (ms per s) | samples per s | runtime suspended per s (ms) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  if (process.env.RAW) fs.writeFileSync(process.env.RAW, JSON.stringify(Object.fromEntries([...pairs].map(([n, ps]) => [n, ps.map((p) => ({ ...p, st: undefined }))]))));
  const finite = (xs) => xs.filter((x) => Number.isFinite(x));
  for (const [name] of arms) {
    const ps = pairs.get(name), w = ps.map((p) => p.wall), c = ps.map((p) => p.cpu), k = finite(ps.map((p) => p.worker));
    if (k.length < ps.length) console.log(`(${name}: ${ps.length - k.length} rounds without a worker CPU reading left out)`);
    const susp = ps.map((p) => (p.st ? p.st.suspended_ns_total / 1e6 / (((p.st.stopped_ms || Date.now()) - p.st.started_ms) / 1000) : 0));
    console.log(`| ${name} | ${median(k).toFixed(4)} | ${q(k, 0.25).toFixed(3)}-${q(k, 0.75).toFixed(3)} | ${cost(median(k))} | ${ci(k)} | ${median(w).toFixed(3)} | ${q(w, 0.25).toFixed(3)}-${q(w, 0.75).toFixed(3)} | ${cost(median(w))} | ${ci(w)} | ${median(c).toFixed(3)} | ${cost(median(c))} | ${f1(median(ps.map((p) => p.serverMsPerS)))} | ${ps[0].toolMsPerS != null ? f1(median(ps.map((p) => p.toolMsPerS))) : ''} | ${f1(median(ps.map((p) => p.samplesPerS)))} | ${f1(median(susp))} |`);
  }
  console.log('');
  console.log(`Load average (1/5/15 min) before: ${load0}, after: ${loadavg()}.`);
  if (perfFailures.length) console.log(`perf record failed to start ${perfFailures.length} times and was started again: ${perfFailures[0]}`);
  const perfArm = [...pairs.keys()].find((n) => n.startsWith('perf'));
  for (const [name] of arms) { // the same round's jitscope arm against perf record: cost minus cost
    if (!name.startsWith('jitscope cpu') || !perfArm) continue;
    const a = pairs.get(name), b = pairs.get(perfArm);
    for (const [label, key] of [['worker CPU', 'worker'], ['wall', 'wall']]) {
      const d = finite(a.map((p, r) => (b[r][key] - p[key]) * 100)), [lo, hi] = medianCi(d);
      console.log(`${name} minus perf record, per round (${label}): median ${f1(median(d))} points, 95% interval ${f1(lo)} to ${f1(hi)}.`);
    }
  }
  if (pairs.has('jitscope cpu 999 Hz')) {
    const ps = pairs.get('jitscope cpu 999 Hz');
    const k999 = median(finite(ps.map((p) => p.worker))), w999 = median(ps.map((p) => p.wall));
    const perSample = ((1 - k999) * 1e6) / 999; // the CPU clock samples a thread 999 times per second of its CPU time: us per sample
    console.log(`Target: CPU mode at 999 Hz costs at most 2%: ${f1((1 - k999) * 100)}% of the work per worker CPU second (95% interval ${ci(finite(ps.map((p) => p.worker)))}), ${f1((1 - w999) * 100)}% per wall second (${1 - k999 <= 0.02 ? 'met' : 'NOT met'} by the first; about ${f1(perSample)} us of the sampled thread's CPU per sample).`);
  }
  console.log('');
}

// ---- 2: ASP.NET Core under load ----

async function load(url, seconds) {
  let running = true, n = 0, bad = 0;
  const client = async () => {
    for (let i = 0; running; i++) {
      try {
        const res = await fetch(`${url}/${i % 5 === 4 ? 'items?n=200' : 'work?n=300'}`);
        await res.arrayBuffer();
        if (res.ok) n++; else bad++;
      } catch { bad++; }
    }
  };
  const clients = Array.from({ length: WEB_CLIENTS }, client);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  running = false;
  await Promise.all(clients);
  return { rps: n / ((Date.now() - t0) / 1000), bad };
}

async function webRun(mode) {
  const ready = /^READY pid=(\d+) url=(\S+)$/m;
  let srv = null, app = null, url;
  if (mode === 'plain') {
    app = spawn('dotnet', [WEB_DLL, '0'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    app.stdout.on('data', (d) => { out += d; });
    url = (await waitFor('WebTarget READY', () => ready.exec(out), { timeoutMs: 60000 }))[2];
  } else {
    srv = await startServer(['run', '--data', 'none', '--port', '0', '--', 'dotnet', WEB_DLL, '0']);
    url = (await waitFor('WebTarget READY', () => ready.exec(srv.stdout), { timeoutMs: 60000 }))[2];
    await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
  }
  try {
    await load(url, 2); // warm-up: the JIT's tiers settle
    let profile = null;
    if (mode === 'cpu' || mode === 'wall') {
      const r = await post(srv, '/api/sessions/1/profile', mode === 'cpu' ? { hz: 999, mode: 'cpu' } : { hz: 49 });
      if (r.status !== 202) throw new Error(`POST profile: ${r.status}`);
    }
    const cpu0 = srv ? procCpuMs(srv.proc.pid) : 0;
    const res = await load(url, WEB_SECONDS);
    if (srv && mode !== 'idle') profile = (await srv.api('/api/sessions/1/profile')).body.profile;
    return { ...res, serverMs: srv ? procCpuMs(srv.proc.pid) - cpu0 : null, profile };
  } finally {
    if (app) { app.stdin.write('exit\n'); await new Promise((r) => app.on('exit', r)); }
    if (srv) { srv.proc.stdin.write('exit\n'); await srv.stop(); }
  }
}

async function webTable() {
  const modes = ['plain', 'idle', 'cpu', 'wall'];
  const names = { plain: 'plain', idle: 'jitscope agent, no profile', cpu: 'jitscope cpu 999 Hz', wall: 'jitscope wall 49 Hz' };
  const results = new Map(modes.map((m) => [m, []]));
  for (let i = 0; i < WEB_RUNS; i++) for (const m of modes) results.get(m).push(await webRun(m));
  const base = median(results.get('plain').map((r) => r.rps));
  console.log(`### CPU profiles: an ASP.NET Core service under load (tests/apps/WebTarget, ${WEB_CLIENTS} keep-alive clients, ${WEB_SECONDS} s after a 2 s warm-up, ${WEB_RUNS} runs of each in rotation)`);
  console.log('');
  console.log('| variant | median requests/s | min | max | ratio to plain | failed requests | jitscope server CPU (ms) | samples | whole stacks | runtime suspended (ms) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const m of modes) {
    const rs = results.get(m), rps = rs.map((r) => r.rps);
    const prof = rs.map((r) => r.profile).filter(Boolean);
    const whole = prof.filter((p) => p.cpu).map((p) => 100 * p.cpu.complete / Math.max(1, p.cpu.samples));
    console.log(`| ${names[m]} | ${f1(median(rps))} | ${f1(Math.min(...rps))} | ${f1(Math.max(...rps))} | ${f2(median(rps) / base)} | ${rs.reduce((n, r) => n + r.bad, 0)} | ${rs[0].serverMs != null ? f1(median(rs.map((r) => r.serverMs))) : ''} | ${prof.length ? median(prof.map((p) => p.samples)) : ''} | ${whole.length ? `${f1(median(whole))}%` : ''} | ${prof.length ? f1(median(prof.map((p) => p.suspended_ns_total / 1e6))) : ''} |`);
  }
  console.log('');
}

// ---- 3: whole stacks, and against DoStackSnapshot ----

const isLabel = (n) => n.startsWith('[');
const managed = (frames) => frames.filter((f) => !isLabel(f) && f.includes('('));

// The samples of the session's profile with each label (a sample counted once per label).
const labelCounts = {};
async function countLabels(srv, name) {
  const folded = String((await srv.api('/api/sessions/1/profile?format=folded')).body);
  const c = {};
  for (const line of folded.split('\n').filter(Boolean)) {
    const m = /^(.*) (\d+)$/.exec(line);
    for (const l of new Set(m[1].split(';').filter((f) => /^\[(missing frame|incomplete stack)/.test(f)))) c[l] = (c[l] || 0) + Number(m[2]);
  }
  labelCounts[name] = c;
}

async function chains() {
  const rows = [];
  // StackTarget stacks: the spinner, with snapshots to compare with
  {
    const srv = await startServer(['run', '--data', 'none', '--port', '0', '--', 'dotnet', STACK_DLL, 'stacks', '600']);
    try {
      await waitFor('READY', () => /^READY pid=\d+$/m.test(srv.stdout), { timeoutMs: 60000 });
      await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
      await post(srv, '/api/sessions/1/profile', { hz: 999, mode: 'cpu' });
      const snaps = [];
      for (let i = 0; i < 25; i++) {
        await new Promise((r) => setTimeout(r, 200));
        const s = await srv.api('/api/sessions/1/stacks', { method: 'POST' });
        if (s.status === 201) snaps.push(s.body.snapshot);
      }
      await post(srv, '/api/sessions/1/profile/stop', {});
      await new Promise((r) => setTimeout(r, 500)); // the sampler's last batch (its thread ends within 100 ms)
      const st = (await srv.api('/api/sessions/1/profile')).body.profile;
      rows.push(['StackTarget stacks (spinner, deep, sleeper)', st]);
      await countLabels(srv, 'StackTarget stacks');
      let same = 0, compared = 0, cpuSamples = 0;
      const differ = new Map(); // "cpu sample's frames | snapshot's frames" -> samples
      for (const snap of snaps) {
        const t = snap.threads.find((x) => x.name === 'spinner');
        if (!t) continue;
        const want = t.frames.filter((f) => !f.native).map((f) => f.name); // leaf first
        const folded = (await srv.api(`/api/sessions/1/profile?format=folded&thread=spinner&from_ms=${snap.time_ms - 20}&to_ms=${snap.time_ms}`)).body;
        for (const line of String(folded).split('\n').filter(Boolean)) {
          const m = /^(.*) (\d+)$/.exec(line), n = Number(m[2]);
          const all = m[1].split(';').reverse(); // leaf first
          const got = managed(all);
          cpuSamples += n;
          compared++;
          if (got.length === want.length && got.every((x, k) => x === want[k])) same += n;
          else {
            const k = `${all.filter((x) => x.includes('(') || x.startsWith('[missing')).join(' < ')} | ${want.join(' < ')}`;
            differ.set(k, (differ.get(k) || 0) + n);
          }
        }
      }
      console.log(`### CPU samples against DoStackSnapshot at the same moments (StackTarget spinner, ${snaps.length} snapshots during a CPU profile at 999 Hz)`);
      console.log('');
      console.log(`${cpuSamples} CPU samples of the spinner in the 20 ms before a snapshot (${compared} distinct stacks): ${same} (${f1(100 * same / Math.max(1, cpuSamples))}%) have exactly the managed frames DoStackSnapshot walked, in order.`);
      for (const [k, n] of [...differ].sort((a, b) => b[1] - a[1]).slice(0, 3)) console.log(`- ${n} samples: CPU \`${k.split(' | ')[0]}\`, DoStackSnapshot \`${k.split(' | ')[1]}\``);
      console.log('');
    } finally {
      await srv.stop();
    }
  }
  // StackTarget cpu workload
  {
    const srv = await startServer(['run', '--data', 'none', '--port', '0', '--', 'dotnet', STACK_DLL, ...ARGS]);
    try {
      await waitFor('WAITING', () => /^WAITING pid=\d+$/m.test(srv.stdout), { timeoutMs: 60000 });
      await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
      await post(srv, '/api/sessions/1/profile', { hz: 999, mode: 'cpu' });
      srv.proc.stdin.write('go\n');
      await waitFor('work done', () => /^cpu units \d+ checksum/m.test(srv.stdout), { timeoutMs: 300000, everyMs: 50 });
      await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
      rows.push([`StackTarget \`cpu\` (${WORKERS} workers: expression trees, Array.Sort, Dictionary)`, (await srv.api('/api/sessions/1/profile')).body.profile]);
      await countLabels(srv, 'StackTarget cpu');
    } finally {
      await srv.stop();
    }
  }
  // StackTarget frames: an on-stack-replaced loop and a loop calling libm (issue 38, item 4)
  {
    const srv = await startServer(['run', '--data', 'none', '--port', '0', '--', 'dotnet', STACK_DLL, 'frames', '600']);
    try {
      await waitFor('READY', () => /^READY pid=\d+$/m.test(srv.stdout), { timeoutMs: 60000 });
      await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
      await new Promise((r) => setTimeout(r, 1000));
      await post(srv, '/api/sessions/1/profile', { hz: 999, mode: 'cpu' });
      await new Promise((r) => setTimeout(r, 4000));
      await post(srv, '/api/sessions/1/profile/stop', {});
      await new Promise((r) => setTimeout(r, 500));
      rows.push(['StackTarget `frames` (osrloop, mathleaf)', (await srv.api('/api/sessions/1/profile')).body.profile]);
      await countLabels(srv, 'StackTarget frames');
      const kept = async (thread, method, caller) => {
        const folded = (await srv.api(`/api/sessions/1/profile?format=folded&thread=${thread}`)).body;
        let all = 0, on = 0;
        for (const line of String(folded).split('\n').filter(Boolean)) {
          const m = /^(.*) (\d+)$/.exec(line), n = Number(m[2]), fr = m[1].split(';'), at = fr.indexOf(method);
          all += n;
          if (at > 0 && fr[at - 1] === caller) on += n;
        }
        return `${on} of ${all} (${f1(100 * on / Math.max(1, all))}%)`;
      };
      console.log('### The two threads of StackTarget `frames` (999 Hz, 4 s)');
      console.log('');
      console.log(`- osrloop: \`Frames.OsrLoop\` with \`Frames.OsrCaller\` under it in ${await kept('osrloop', 'StackTarget.Frames.OsrLoop(double, double)', 'StackTarget.Frames.OsrCaller(double, double)')} samples`);
      console.log(`- mathleaf: \`Frames.MathLoop\` with \`Frames.MathCaller\` under it in ${await kept('mathleaf', 'StackTarget.Frames.MathLoop(int, double)', 'StackTarget.Frames.MathCaller(double)')} samples`);
      console.log('');
      srv.proc.stdin.write('exit\n');
    } finally {
      await srv.stop();
    }
  }
  // WebTarget under load
  {
    const srv = await startServer(['run', '--data', 'none', '--port', '0', '--', 'dotnet', WEB_DLL, '0']);
    try {
      const url = (await waitFor('READY', () => /^READY pid=\d+ url=(\S+)$/m.exec(srv.stdout), { timeoutMs: 60000 }))[1];
      await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
      await load(url, 2);
      await post(srv, '/api/sessions/1/profile', { hz: 999, mode: 'cpu' });
      await load(url, WEB_SECONDS);
      await post(srv, '/api/sessions/1/profile/stop', {});
      await new Promise((r) => setTimeout(r, 500));
      rows.push([`WebTarget under load (${WEB_CLIENTS} clients)`, (await srv.api('/api/sessions/1/profile')).body.profile]);
      await countLabels(srv, 'WebTarget');
      srv.proc.stdin.write('exit\n');
    } finally {
      await srv.stop();
    }
  }
  console.log('### CPU profiles: how whole the stacks are (999 Hz)');
  console.log('');
  console.log('| app | samples | whole | a frame missing | cut short (ended in managed code) | in the kernel | managed frames unnamed | addresses asked of the agent | threads |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [name, st] of rows) {
    const c = st.cpu, pc = (x) => `${x} (${f1(100 * x / Math.max(1, c.samples))}%)`;
    console.log(`| ${name} | ${c.samples} | ${pc(c.complete)} | ${pc(c.missing)} | ${pc(c.broken)} | ${pc(c.kernel_samples)} | ${c.unresolved} | ${c.lookups} | ${c.threads_seen} |`);
  }
  console.log('');
  console.log('Samples with each label:');
  for (const [app, c] of Object.entries(labelCounts)) {
    console.log(`- ${app}: ${Object.entries(c).sort((a, b) => b[1] - a[1]).map(([l, n]) => `${n} \`${l}\``).join(', ') || 'none'}`);
  }
  console.log('');
}

try {
  const parts = (process.env.PARTS || 'paired cost web chains').split(/\s+/);
  if (parts.includes('paired')) await pairedTable();
  if (parts.includes('cost')) await costTable();
  if (parts.includes('web')) await webTable();
  if (parts.includes('chains')) await chains();
} finally {
  await stopAll();
}
