// serverperf.mjs -- the server under load: ingest rate alone and while a
// dashboard and a script query it, functions-query latency at rest, and the
// memory held per function, at SIZES functions (default 100k and 1M).
//
// The agent is build/bench/replay (bench/replay.c) at full speed under
// `jitscope run`: per function JIT_STARTED, FUNCTION_NAME, JIT_FINISHED, over
// MODULES modules. "With queries": while it streams, a script sends functions
// queries back to back (sorts and filters in rotation), and a dashboard polls
// the session every second, the slowest 20 every 3 s and the per-module totals
// every 5 s (GET .../modules/totals, or, on a server without that route, the
// old dashboard's paging of every function 10,000 at a time).
// BINS="a b" compares server binaries in one run (default: build/jitscope,
// with its default storage), interleaved per size; "PATH+nostorage" runs one
// with --data none, "PATH+storage" with a fresh --data directory. REPS
// (default 3) repetitions of each ingest, medians. REALISTIC=1 names the
// functions as a real service's (replay --realistic: 100-250 bytes, 24 methods
// a type), as issue 23 item 5 measures.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { BUILD, ROOT, waitFor, sleep } from '../tests/e2e/lib.mjs';
import { median, pct, f1 } from './stats.mjs';

const SIZES = (process.env.SIZES || '100000,1000000').split(',').map(Number);
const MODULES = Number(process.env.MODULES || 16);
const REPS = Number(process.env.REPS || 3);
const QUERY_REPS = Number(process.env.QUERY_REPS || 5);
const BINS = (process.env.BINS || `${path.join(BUILD, 'jitscope')}+storage`).split(/\s+/).filter(Boolean);
const replay = path.join(BUILD, 'bench/replay');
const REALISTIC = process.env.REALISTIC === '1' ? ['--realistic'] : [];

const SORTS = ['time', 'jit_time', 'name', 'native_size', 'il_size'];
const FILTERS = ['', '&q=Method12', '&module=Module3'];

// A server binary, optionally with storage: "PATH" as it is (a binary that
// predates storage), "PATH+storage" with a fresh --data directory,
// "PATH+nostorage" with --data none.
const dataDirs = [];
process.on('exit', () => { for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true }); });

function serverSpec(spec) {
  const m = /^(.*?)(\+storage|\+nostorage)?$/.exec(spec);
  return { bin: m[1], storage: m[2] || '' };
}

// Starts a server (no response checking: plain fetch, as a script would).
async function startServer(args, { bin }) {
  const spec = serverSpec(bin);
  const dir = spec.storage === '+storage' ? fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-bench-')) : null;
  if (dir) dataDirs.push(dir);
  const extra = dir ? ['--data', dir]
    : spec.storage === '+nostorage' ? ['--data', 'none'] : [];
  const proc = spawn(spec.bin, [args[0], ...extra, ...args.slice(1)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const srv = { proc, stdout: '', exit: null };
  proc.stdout.on('data', (d) => { srv.stdout += d; });
  proc.stderr.on('data', () => {});
  srv.exited = new Promise((resolve) => proc.on('exit', (code, signal) => { srv.exit = { code, signal }; resolve(srv.exit); }));
  await waitFor('server URL', () => srv.exit || /dashboard at (http:\/\/127\.0\.0\.1:\d+)\//.exec(srv.stdout), { timeoutMs: 30000 });
  if (srv.exit) throw new Error(`${spec.bin} exited: ${JSON.stringify(srv.exit)}`);
  srv.url = /dashboard at (http:\/\/127\.0\.0\.1:\d+)\//.exec(srv.stdout)[1];
  srv.api = async (p) => {
    const res = await fetch(srv.url + p);
    const text = await res.text();
    let body;
    try { body = JSON.parse(text); } catch { body = text; }
    return { status: res.status, body };
  };
  srv.stop = async () => { if (!srv.exit) proc.kill('SIGTERM'); return srv.exited; };
  return srv;
}

// The link thread's time on a CPU and waiting for one (ns), from the kernel's schedstat.
function linkThread(pid) {
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      if (fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === 'jitscope-link') return tid;
    } catch { /* gone */ }
  }
  return null;
}
function sched(pid, tid) {
  if (!tid) return null;
  const [cpu, runq] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
  return { cpu, runq };
}

const rssKb = (pid) => {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
};

async function timed(srv, p) {
  const t0 = performance.now();
  const r = await srv.api(p);
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`${p}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  return { ms, body: r.body };
}

// The per-module totals as the dashboard gets them.
async function byModule(srv, hasRoute) {
  if (hasRoute) return timed(srv, '/api/sessions/1/modules/totals');
  const t0 = performance.now();
  for (let offset = 0; ;) {
    const { body } = await timed(srv, `/api/sessions/1/functions?sort=time&order=asc&limit=10000&offset=${offset}`);
    offset += body.functions.length;
    if (!body.functions.length || offset >= body.total) break;
  }
  return { ms: performance.now() - t0 };
}

// withQueries: 0 none, 1 the script back to back, 2 the script at 10 queries/s.
async function ingest(bin, n, withQueries) {
  const srv = await startServer(['run', '--port', '0', '--', replay, ...REALISTIC, '--count', String(n), '--functions', String(n), '--modules', String(MODULES)], { bin });
  const want = 1 + MODULES + 3 * n;
  const tid = linkThread(srv.proc.pid);
  await waitFor('hello', async () => (await srv.api('/api/sessions/1')).body.state !== 'starting', { timeoutMs: 20000, everyMs: 5 });
  const hasRoute = (await srv.api('/api/sessions/1/modules/totals')).status === 200;
  let done = false;
  const script = [];
  const scriptKinds = []; // the query of each in script
  const dash = [];
  const loops = [];
  if (withQueries) {
    loops.push((async () => {
      for (let i = 0; !done; i++) {
        const q = `/api/sessions/1/functions?sort=${SORTS[i % SORTS.length]}&limit=100${FILTERS[Math.floor(i / SORTS.length) % FILTERS.length]}`;
        const t0 = performance.now();
        script.push((await timed(srv, q)).ms);
        scriptKinds.push(q.replace(/^.*functions\?/, ''));
        if (withQueries === 2) await sleep(Math.max(0, 100 - (performance.now() - t0)));
      }
    })());
    loops.push((async () => {
      for (let t = 0; !done; t++) {
        const t0 = performance.now();
        await timed(srv, '/api/sessions/1');
        if (t % 3 === 0) dash.push((await timed(srv, '/api/sessions/1/functions?sort=jit_time&order=desc&limit=20')).ms);
        if (t % 5 === 0) dash.push((await byModule(srv, hasRoute)).ms);
        await sleep(Math.max(0, 1000 - (performance.now() - t0)));
      }
    })());
  }
  const s = await waitFor('all applied', async () => {
    const x = (await srv.api('/api/sessions/1')).body;
    return x.link.records >= want && x;
  }, { timeoutMs: 600000, everyMs: 10 });
  const secs = (Date.now() - s.connected_ms) / 1000;
  const sched1 = sched(srv.proc.pid, tid);
  done = true;
  await Promise.all(loops);
  const rssAfter = rssKb(srv.proc.pid);
  await srv.stop();
  // since the thread started: it does next to nothing before the agent connects,
  // and a first reading would come too late for a fast ingest (100k functions: ~0.1 s)
  const cpu = sched1 ? sched1.cpu / 1e9 : NaN;
  const runq = sched1 ? sched1.runq / 1e9 : NaN;
  return { rate: s.link.records / secs, secs, perCpu: s.link.records / cpu, runqShare: runq / secs, functions: s.counters.functions, script, scriptKinds, dash, rssKb: rssAfter - idleRssKb, memory: s.memory || null, hasRoute };
}

// RSS of a server with no session: what the growth is measured from.
let idleRssKb = 0;
async function idleRss(bin) {
  const srv = await startServer(['serve', '--port', '0'], { bin });
  await sleep(300);
  idleRssKb = rssKb(srv.proc.pid);
  await srv.stop();
}

async function queries(bin, n) {
  const srv = await startServer(['run', '--port', '0', '--', replay, ...REALISTIC, '--count', String(n), '--functions', String(n), '--modules', String(MODULES)], { bin });
  const want = 1 + MODULES + 3 * n;
  await waitFor('all applied', async () => (await srv.api('/api/sessions/1')).body.link?.records >= want, { timeoutMs: 600000, everyMs: 50 });
  const hasRoute = (await srv.api('/api/sessions/1/modules/totals')).status === 200;
  const all = [];
  const bySort = {};
  for (let r = 0; r < QUERY_REPS; r++) {
    for (const sort of SORTS) {
      for (const f of FILTERS) {
        const { ms } = await timed(srv, `/api/sessions/1/functions?sort=${sort}&limit=100${f}`);
        all.push(ms);
        (bySort[sort] ||= []).push(ms);
      }
    }
  }
  const mods = [];
  for (let r = 0; r < (hasRoute ? QUERY_REPS : 1); r++) mods.push((await byModule(srv, hasRoute)).ms); // paging 1M functions takes half a minute: once
  await srv.stop();
  return { all, bySort, mods };
}

const label = (spec) => (path.relative(ROOT, serverSpec(spec).bin) || spec) + serverSpec(spec).storage;
console.log(`### Server under load (\`bench/serverperf.mjs\`; replay at full speed, ${MODULES} modules, ${REALISTIC.length ? "names as a real service's (replay --realistic), " : ""}${REPS} ingests of each kind, medians)`);
console.log('');
const rows = [];
const qrows = [];
const slowest = [];
for (const n of SIZES) {
  const res = new Map(BINS.map((b) => [b, { alone: [], loaded: [], paced: [] }]));
  for (let rep = 0; rep < REPS; rep++) {
    for (const b of BINS) {
      await idleRss(b);
      res.get(b).alone.push(await ingest(b, n, 0));
      res.get(b).loaded.push(await ingest(b, n, 1));
      res.get(b).paced.push(await ingest(b, n, 2));
    }
  }
  for (const b of BINS) {
    const { alone, loaded, paced } = res.get(b);
    const script = loaded.flatMap((x) => x.script);
    const pacedScript = paced.flatMap((x) => x.script);
    const pacedKinds = paced.flatMap((x) => x.scriptKinds);
    slowest.push(`${label(b)}: ${pacedScript.map((ms, i) => [ms, pacedKinds[i]]).sort((x, y) => y[0] - x[0]).slice(0, 5).map(([ms, k]) => `${f1(ms)} ms ${k}`).join(', ')}`);
    const dash = loaded.flatMap((x) => x.dash);
    const mem = alone[alone.length - 1].memory;
    const m = (xs, k) => median(xs.map((x) => x[k]));
    const mf = (xs, k, scale) => (Number.isFinite(m(xs, k)) ? f1(m(xs, k) * scale) : '-'); // '-': no thread named jitscope-link
    rows.push(`| ${label(b)} | ${n.toLocaleString('en')} | ${f1(m(alone, 'rate') / 1e6)} M (${mf(alone, 'perCpu', 1e-6)} M) | ${f1(m(loaded, 'rate') / 1e6)} M (${mf(loaded, 'perCpu', 1e-6)} M, ${mf(loaded, 'runqShare', 100)}%) | ` +
      `${f1(m(paced, 'rate') / 1e6)} M (${mf(paced, 'perCpu', 1e-6)} M, ${mf(paced, 'runqShare', 100)}%) | ` +
      `${pacedScript.length}: ${pacedScript.length ? f1(pct(pacedScript, 50)) : '-'} / ${pacedScript.length ? f1(Math.max(...pacedScript)) : '-'} | ` +
      `${f1(median(loaded.map((x) => x.rate)) / median(alone.map((x) => x.rate)) * 100)}% | ${script.length} | ${script.length ? f1(pct(script, 50)) : '-'} / ${script.length ? f1(pct(script, 99)) : '-'} | ` +
      `${dash.length ? f1(pct(dash, 50)) : '-'} / ${dash.length ? f1(Math.max(...dash)) : '-'} | ${f1(median(alone.map((x) => x.rssKb)) * 1024 / n)} | ` +
      `${mem ? f1(mem.function_bytes / n) + ' + names ' + f1(mem.names / n) : '-'} |`);
    const q = await queries(b, n);
    qrows.push(`| ${label(b)} | ${n.toLocaleString('en')} | ${q.all.length} | ${f1(pct(q.all, 50))} | ${f1(pct(q.all, 99))} | ${f1(Math.max(...q.all))} | ` +
      `${SORTS.map((s) => f1(median(q.bySort[s]))).join(' / ')} | ${f1(median(q.mods))} |`);
  }
}
console.log('| server | functions | ingest alone: records/s (per second on a CPU) | with the dashboard and a script querying back to back: records/s (per second on a CPU, share of the time the link thread waited for a CPU) | the same with the script at 10 queries/s | its queries: count: p50 / max (ms) | with / alone (back to back) | script queries (back to back) | their p50 / p99 (ms) | dashboard requests p50 / max (ms) | RSS growth per function (bytes) | held per function, server\'s count (bytes) |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log('');
console.log('The slowest queries of the script at 10 queries/s:');
for (const r of slowest) console.log(`- ${r}`);
console.log('');
console.log(`Functions queries at rest (every sort x {no filter, q=, module=} x ${QUERY_REPS}, limit 100; time is the HTTP round trip from Node), and per-module totals:`);
console.log('');
console.log(`| server | functions | queries | p50 (ms) | p99 (ms) | max (ms) | median by sort: ${SORTS.join(' / ')} (ms) | per-module totals (ms) |`);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of qrows) console.log(r);
console.log('');
const load = spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim().split(' ').slice(0, 3).join(' ');
console.log(`Load average at the end: ${load} (the machine is shared).`);
