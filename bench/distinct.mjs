// distinct.mjs -- issue 37's replay targets: the server's ingest of 1M
// functions, each a distinct generic instantiation (replay --distinct:
// Namespace.Type<Namespace2.ItemN>.Method(), 8 namespaces, 10 types, 12
// method names, a module every 200 functions, 8 JIT threads; JIT_STARTED,
// FUNCTION_NAME, JIT_FINISHED with its code range per function), beside the
// realistic one (replay --realistic, 16 modules), at full speed, while a
// script asks for the 20 slowest JITs every 100 ms. Per run: records/s (hello
// to the last record applied), the queries' max, the server's RSS growth per
// function (VmRSS a second after the last record applied minus VmRSS before
// the replay started, from /proc, divided by the functions), the link thread's CPU (schedstat) and
// its split per stage (the server's own measurement, JITSCOPE_LINK_COST=1,
// server/linkcost.h: decode, checks, budget, fold, storage journal, and the
// rest of the thread: reads, locks, polls; the stages are wall time of the
// sampled records that were not preempted, the link CPU is the kernel's). PASS/FAIL per target: >= 2M
// records/s, query max <= 50 ms, <= 200 bytes of RSS per function.
//
// First the generator's own ceiling (replay --out /dev/null, and into a
// socket pair drained by a thread): what a rate above it would mean.
// Knobs: FUNCTIONS (1000000), ROUNDS (3, medians), KINDS ("distinct
// realistic"), BINS ("PATH ..." server binaries compared in one run,
// interleaved per round; default build/jitscope), storage on (a fresh --data).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD, ROOT, waitFor, sleep } from '../tests/e2e/lib.mjs';
import { median, f1, f2 } from './stats.mjs';

const FUNCTIONS = Number(process.env.FUNCTIONS || 1000000);
const ROUNDS = Number(process.env.ROUNDS || 3);
const KINDS = (process.env.KINDS || 'distinct realistic').split(/\s+/).filter(Boolean);
const BINS = (process.env.BINS || path.join(BUILD, 'jitscope')).split(/\s+/).filter(Boolean);
const replay = path.join(BUILD, 'bench/replay');
const ARGS = { distinct: ['--distinct'], realistic: ['--realistic', '--modules', '16'] };
const MODULES = { distinct: Math.ceil(FUNCTIONS / 200), realistic: 16 };
const TARGET = { rate: 2e6, queryMs: 50, bytes: 200 };
const STAGES = ['decode', 'check', 'budget', 'fold', 'journal'];

const dirs = [];
process.on('exit', () => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

function linkCpu(pid) {
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      if (fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === 'jitscope-link')
        return Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
    } catch { /* gone */ }
  }
  return NaN;
}

function ceiling(kind) {
  const rate = (extra) => {
    const r = spawnSync(replay, [...ARGS[kind], '--count', String(FUNCTIONS), '--functions', String(FUNCTIONS), ...extra], { encoding: 'utf8' });
    const m = /: (\d+) records\/s/.exec(r.stdout);
    if (!m) throw new Error(`replay: ${r.stdout}${r.stderr}`);
    return Number(m[1]);
  };
  const devnull = [], pair = [];
  for (let i = 0; i < ROUNDS; i++) { devnull.push(rate(['--out', '/dev/null'])); pair.push(rate(['--socketpair'])); }
  return { devnull: median(devnull), pair: median(pair) };
}

async function run(bin, kind) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-distinct-'));
  dirs.push(dir);
  const go = path.join(dir, 'go');
  // the replay waits for the bench's go, so that the RSS before it is the server's alone
  const script = `while [ ! -e '${go}' ]; do sleep 0.02; done; exec "$@"`;
  const argv = ['run', '--port', '0', '--data', path.join(dir, 'data'), '--', 'sh', '-c', script, 'replay',
    replay, ...ARGS[kind], '--count', String(FUNCTIONS), '--functions', String(FUNCTIONS), '--linger', '3'];
  const proc = spawn(bin, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, JITSCOPE_LINK_COST: '1' } });
  let stdout = '', stderr = '', exit = null;
  proc.stdout.on('data', (d) => { stdout += d; });
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => { exit = { code, signal }; resolve(); }));
  try {
    await waitFor('server URL', () => exit || /dashboard at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout), { timeoutMs: 60000 });
    if (exit) throw new Error(`${bin} exited: ${JSON.stringify(exit)} ${stderr}`);
    const url = /dashboard at (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)[1];
    const get = async (p) => { const r = await fetch(url + p); if (r.status !== 200) throw new Error(`${p}: ${r.status}`); return r.json(); };
    await sleep(500);
    const before = rssKb(proc.pid);
    fs.writeFileSync(go, '');
    const want = 1 + MODULES[kind] + 3 * FUNCTIONS;
    await waitFor('hello', async () => { try { return (await get('/api/sessions/1')).connected_ms; } catch { return false; } }, { timeoutMs: 30000, everyMs: 5 });
    let done = false;
    const queries = [];
    const asking = (async () => {
      while (!done) {
        const t0 = performance.now();
        await get('/api/sessions/1/functions?sort=jit_time&order=desc&limit=20');
        queries.push(performance.now() - t0);
        await sleep(Math.max(0, 100 - (performance.now() - t0)));
      }
    })();
    const s = await waitFor('all applied', async () => {
      const x = await get('/api/sessions/1');
      return x.link.records >= want && x;
    }, { timeoutMs: 900000, everyMs: 10 });
    const appliedMs = Date.now();
    done = true;
    await asking;
    const cpu = linkCpu(proc.pid);
    await sleep(1000); // at rest, the session live (replay --linger): storage's writer has had its rounds
    const after = rssKb(proc.pid);
    // a server without server/linkcost.c never writes the line: its stages stay empty
    await waitFor('link cost line', () => /link cost \d+: (.*)/.exec(stderr), { timeoutMs: 15000 }).catch(() => null);
    const cost = {};
    const line = (/link cost \d+: (.*)/.exec(stderr) || [null, ''])[1].trim().split(/\s+/);
    for (let i = 0; i + 1 < line.length; i += 2) cost[line[i]] = Number(line[i + 1]) / 1e9;
    return {
      rate: s.link.records / ((appliedMs - s.connected_ms) / 1000), perCpu: s.link.records / cpu,
      queries, queryMax: Math.max(...queries), bytes: ((after - before) * 1024) / FUNCTIONS, cpu, cost,
    };
  } finally {
    if (!exit) proc.kill('SIGTERM');
    await exited;
  }
}

const label = (b) => path.relative(ROOT, b) || b;
const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
console.log(`### Distinct instantiations and the realistic replay (\`bench/distinct.mjs\`; ${FUNCTIONS.toLocaleString('en')} functions, ${ROUNDS} rounds, medians; the 20 slowest JITs asked for every 100 ms; storage on)`);
console.log('');
console.log('The generator alone (records/s): ' + KINDS.map((k) => { const c = ceiling(k); return `${k}: ${f2(c.devnull / 1e6)} M into /dev/null, ${f2(c.pair / 1e6)} M into a socket pair`; }).join('; ') + '.');
console.log('');
const res = new Map();
for (let r = 0; r < ROUNDS; r++)
  for (const kind of KINDS)
    for (const bin of BINS) {
      const key = `${kind} ${bin}`;
      if (!res.has(key)) res.set(key, []);
      res.get(key).push(await run(bin, kind));
    }
console.log(`| replay | server | records/s | query max (ms) | RSS per function (B) | link CPU (s); records per CPU second | ${STAGES.join(' | ')} | of the fold and checks: arrays grown (s) | rest of the thread (s) | targets: rate / query / RSS |`);
console.log(`|---|---|---|---|---|---|${STAGES.map(() => '---|').join('')}---|---|---|`);
for (const kind of KINDS)
  for (const bin of BINS) {
    const xs = res.get(`${kind} ${bin}`);
    const m = (f) => median(xs.map(f));
    const rate = m((x) => x.rate), q = m((x) => x.queryMax), bytes = m((x) => x.bytes), cpu = m((x) => x.cpu);
    const stage = STAGES.map((st) => m((x) => x.cost[st] || 0));
    const grow = m((x) => x.cost.grow || 0);
    const rest = m((x) => x.cpu - STAGES.reduce((a, st) => a + (x.cost[st] || 0), 0));
    console.log(`| ${kind} | ${label(bin)} | ${f2(rate / 1e6)} M (${xs.map((x) => f2(x.rate / 1e6)).join(', ')}) | ${f1(q)} (${xs.map((x) => f1(x.queryMax)).join(', ')}) | ` +
      `${f1(bytes)} | ${f2(cpu)}; ${f2(m((x) => x.perCpu) / 1e6)} M | ${stage.map(f2).join(' | ')} | ${f2(grow)} | ${f2(rest)} | ` +
      `${verdict(rate >= TARGET.rate)} / ${verdict(q <= TARGET.queryMs)} / ${verdict(bytes <= TARGET.bytes)} |`);
  }
console.log('');
const load = fs.readFileSync('/proc/loadavg', 'utf8').trim().split(' ').slice(0, 3).join(' ');
console.log(`Load average at the end: ${load} (the machine is shared with other builds).`);
