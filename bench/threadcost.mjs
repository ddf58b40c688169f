// threadcost.mjs -- where jitscope's cost above the floor goes, thread by
// thread (issue 23 item 3): the app's own threads (the runtime, the JIT, and
// the agent's callbacks on them), the agent's sender thread (naming, encoding,
// the socket), the server's link thread (ingest), its storage writer, and its
// other threads; for the floor (JITSCOPE_NULL=1) and the defaults, on each
// workload of bench/endtoend.mjs, ROUNDS interleaved rounds, medians.
// Each thread's time on a CPU is its schedstat (ns): the app's once the server
// has all its records, the server's once storage has written them: the storms hold
// after the storm (E2eTarget `jitstorm N hold`, `emitstorm N hold`), the web
// app is read at its first answer (then the server once it is quiet) and
// killed. Threads that ended before the read are not counted (the app's
// start-up threads; none of jitscope's).
// Knobs: ROUNDS (5), WORKLOADS ("jitstorm emitstorm web"), JIT_METHODS,
// EMIT_METHODS (20000 each), ARMS ("floor jitscope"; also noTiers, noStorage
// (--data none: what storage costs each thread), and old: the defaults with the
// server OLD_BIN and the agent OLD_AGENT, for before/after: its paired difference
// from the defaults is a column of its own).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BUILD, E2E_DLL, startServer, stopAll, waitFor, sleep } from '../tests/e2e/lib.mjs';
import { median, f1 } from './stats.mjs';

const ROUNDS = Number(process.env.ROUNDS || 5);
const N = Number(process.env.JIT_METHODS || 20000);
const EMIT_N = Number(process.env.EMIT_METHODS || 20000);
const WEB_DLL = path.join(BUILD, 'bench', 'web', 'app', 'BenchWeb.dll');
const chosen = (process.env.WORKLOADS || 'jitstorm emitstorm web').split(/[ ,]+/).filter(Boolean);
// `old`: the defaults with another build (OLD_BIN, OLD_AGENT): before/after a change, in one run
const arms = { floor: { env: { JITSCOPE_NULL: '1' } }, jitscope: {}, noTiers: { env: { JITSCOPE_TIERS: '0' } },
  noStorage: { storage: false },
  old: { bin: process.env.OLD_BIN, agent: process.env.OLD_AGENT } };
const armKeys = (process.env.ARMS || 'floor jitscope').split(/[ ,]+/).filter(Boolean);
if (chosen.includes('web') && !fs.existsSync(WEB_DLL)) throw new Error(`${WEB_DLL} is missing: node bench/endtoend.mjs builds it (WORKLOADS=web RUNS=1)`);

// Time on a CPU of every live thread of a process, in ms, by thread name.
function threads(pid) {
  const out = {};
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
      const ns = Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      out[comm] = (out[comm] || 0) + ns / 1e6;
    } catch { /* it ended meanwhile */ }
  }
  return out;
}

const groupApp = (t) => ({
  app: Object.entries(t).filter(([k]) => !k.startsWith('jitscope')).reduce((a, [, v]) => a + v, 0),
  sender: t['jitscope-agent'] || 0,
});
const groupServer = (t) => ({
  link: t['jitscope-link'] || 0,
  store: t['jitscope-store'] || 0,
  http: Object.entries(t).filter(([k]) => k.startsWith('MHD')).reduce((a, [, v]) => a + v, 0),
  other: Object.entries(t).filter(([k]) => k !== 'jitscope-link' && k !== 'jitscope-store' && !k.startsWith('MHD')).reduce((a, [, v]) => a + v, 0),
});

// The server has every record: their count unchanged for 200 ms (the agent's
// sender is idle then; its idle loop, a few ms a second, is the floor's too).
async function allRecords(srv, id) {
  let last = -1;
  return waitFor('every record at the server', async () => {
    const s = (await srv.api(`/api/sessions/${id}`)).body;
    const done = s.link.records === last;
    last = s.link.records;
    if (!done) await sleep(200);
    return done && s;
  }, { timeoutMs: 60000, everyMs: 0 });
}

// ...and storage has written them.
async function stored(srv) {
  await waitFor('storage written', async () => (await srv.api('/api/config')).body.storage.backlog_bytes === 0, { timeoutMs: 60000, everyMs: 20 });
}

function freePort() {
  return new Promise((resolve) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); }); });
}

async function answers(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1', () => c.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    let got = '';
    c.on('data', (d) => { got += d; });
    c.on('error', () => resolve(false));
    c.on('close', () => resolve(/^HTTP\/1\.1 200 /.test(got)));
  });
}

async function one(workload, { env = {}, bin, agent, storage = true } = {}) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-data-'));
  try {
    const port = await freePort();
    const argv = workload === 'web' ? ['dotnet', WEB_DLL, '--urls', `http://127.0.0.1:${port}`]
      : ['dotnet', E2E_DLL, workload, String(workload === 'jitstorm' ? N : EMIT_N), 'hold'];
    const srv = await startServer(['run', '--port', '0', '--data', storage ? data : 'none', ...(agent ? ['--agent', agent] : []), '--', ...argv],
      { env, cwd: workload === 'web' ? path.dirname(WEB_DLL) : undefined, ...(bin ? { bin } : {}) });
    let app;
    if (workload === 'web') {
      await waitFor('first answer', () => answers(port), { timeoutMs: 60000, everyMs: 2 });
    } else {
      await waitFor('holding', () => /^holding$/m.test(srv.stdout), { timeoutMs: 120000, everyMs: 20 });
    }
    const s = (await srv.api('/api/sessions/1')).body;
    if (workload === 'web') app = threads(s.pid); // at the first answer
    const done = await allRecords(srv, 1);
    if (workload !== 'web') app = threads(s.pid);
    if (storage) await stored(srv);
    const server = threads(srv.proc.pid);
    if (workload === 'web') process.kill(s.pid, 'SIGKILL'); else srv.proc.stdin.write('exit\n');
    await srv.stop();
    return { ...groupApp(app), ...groupServer(server), functions: done.counters.functions };
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

const res = Object.fromEntries(chosen.map((w) => [w, Object.fromEntries(armKeys.map((a) => [a, []]))]));
console.log(`load average before ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`);
try {
  for (let i = 0; i < ROUNDS; i++) {
    for (const w of chosen) {
      for (let k = 0; k < armKeys.length; k++) {
        const a = armKeys[(i + k) % armKeys.length];
        res[w][a].push(await one(w, arms[a]));
      }
    }
  }
} finally {
  await stopAll();
}
console.log(`load average after ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`);
const rows = [['app', "the app's threads (runtime, JIT, the agent's callbacks)"], ['sender', "the agent's sender thread (jitscope-agent)"],
  ['link', "the server's link thread (ingest)"], ['store', "the server's storage writer (jitscope-store)"], ['http', "the server's HTTP threads (this script's requests)"],
  ['other', "the server's other threads (main, stream)"]];
for (const w of chosen) {
  const r = res[w];
  const fns = r.jitscope ? median(r.jitscope.map((x) => x.functions)) : 0;
  console.log('');
  console.log(`#### ${w}: CPU per thread, medians of ${ROUNDS} rounds (ms); the defaults' session holds ${fns} functions`);
  console.log('');
  const vsOld = r.old && r.jitscope; // before/after: the paired difference too
  console.log(`| thread | ${armKeys.join(' | ')} |${r.floor && r.jitscope ? ' defaults - floor | per function (ns) |' : ''}${vsOld ? ' defaults - old |' : ''}`);
  console.log(`|---|${armKeys.map(() => '---').join('|')}|${r.floor && r.jitscope ? '---|---|' : ''}${vsOld ? '---|' : ''}`);
  let total = 0;
  for (const [k, label] of rows) {
    const m = Object.fromEntries(armKeys.map((a) => [a, median(r[a].map((x) => x[k]))]));
    const d = r.floor && r.jitscope ? median(r.jitscope.map((x, i) => x[k] - r.floor[i][k])) : NaN;
    if (Number.isFinite(d)) total += d;
    const o = vsOld ? ` ${f1(median(r.jitscope.map((x, i) => x[k] - r.old[i][k])))} |` : '';
    console.log(`| ${label} | ${armKeys.map((a) => f1(m[a])).join(' | ')} |${Number.isFinite(d) ? ` ${f1(d)} | ${fns ? Math.round(d * 1e6 / fns) : '-'} |` : ''}${o}`);
  }
  if (r.floor && r.jitscope) console.log(`| all | | | ${f1(total)} | ${fns ? Math.round(total * 1e6 / fns) : '-'} |`);
}
