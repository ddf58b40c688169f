// service.mjs -- what storage costs a long-running service that keeps JITting:
// issue 12 item 6's service (500,000 methods, 10,000 JITs/s), measured rather
// than worked out. `jitscope run -- build/bench/replay --functions F --rate R
// --scatter`: the first F compilations name and JIT every method once, after
// that each compilation is a re-JIT (Tier1) of a pseudo-random method, as a
// service's tier-ups land all over its methods. Once the first pass is over
// (plus a settling margin), MEASURE seconds of the server's CPU (/proc stat),
// the CPU of its storage writer and ingest threads (schedstat) and the bytes
// it wrote to disk (/proc PID/io write_bytes) are taken, per arm:
//   - storage with its defaults (re-JITs of stored methods rewritten in
//     batches, --rewrite-delay 30);
//   - --rewrite-delay 0 (every re-JIT's row rewritten at the next commit: how
//     storage worked before the batches);
//   - --data none.
// Knobs: FUNCTIONS (500000), RATE (10000), MEASURE (40 s), SETTLE (15 s).
// One run of all three arms takes about 3 x (FUNCTIONS / RATE + SETTLE +
// MEASURE) seconds: 5 1/2 minutes with the defaults.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, startServer, stopAll, sleep } from '../tests/e2e/lib.mjs';
import { f1 } from './stats.mjs';

const FUNCTIONS = Number(process.env.FUNCTIONS || 500000);
const RATE = Number(process.env.RATE || 10000);
const MEASURE = Number(process.env.MEASURE || 40);
const SETTLE = Number(process.env.SETTLE || 15);
if (!(FUNCTIONS > 0 && RATE > 0 && MEASURE > 0 && SETTLE >= 0)) throw new Error('FUNCTIONS, RATE and MEASURE must be above 0');
const REPLAY = path.join(ROOT, 'build/bench/replay');
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })); // of /proc/PID/stat

function threadNs(pid, name) {
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    const comm = fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
    if (comm === name) return Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
  }
  return 0;
}

function sample(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
  const rss = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1];
  return {
    cpu: (Number(f[11]) + Number(f[12])) / TICK,
    written: Number(/^write_bytes: (\d+)/m.exec(io)[1]),
    writer: threadNs(pid, 'jitscope-store') / 1e9,
    link: threadNs(pid, 'jitscope-link') / 1e9,
    rssMb: Number(rss) / 1024,
  };
}

async function arm(name, storageArgs) {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-service-'));
  const seconds = FUNCTIONS / RATE + SETTLE + MEASURE + 5;
  try {
    const args = storageArgs === null ? ['--data', 'none'] : ['--data', data, ...storageArgs];
    const srv = await startServer(['run', '--port', '0', ...args, '--', REPLAY, '--functions', String(FUNCTIONS),
      '--rate', String(RATE), '--seconds', String(seconds), '--modules', '16', '--scatter']);
    await sleep((FUNCTIONS / RATE + SETTLE) * 1000);
    const a = sample(srv.proc.pid);
    await sleep(MEASURE * 1000);
    const b = sample(srv.proc.pid);
    const s = (await srv.api('/api/sessions/1')).body;
    const storage = (await srv.api('/api/config')).body.storage;
    await srv.stop('SIGINT'); // the writer's last round writes every deferred rewrite
    const files = fs.readdirSync(data).reduce((n, f) => n + fs.statSync(path.join(data, f)).size, 0);
    if (s.counters.functions !== FUNCTIONS) throw new Error(`${name}: ${s.counters.functions} functions, not ${FUNCTIONS}`);
    return {
      name,
      cores: (b.cpu - a.cpu) / MEASURE,
      writer: (b.writer - a.writer) / MEASURE,
      link: (b.link - a.link) / MEASURE,
      mbs: (b.written - a.written) / 1e6 / MEASURE,
      rss: b.rssMb,
      jits: s.counters.jit_compilations,
      drops: s.drops.total,
      deferred: storage.enabled ? storage.deferred : '-',
      fileMb: files / 1e6,
    };
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

const rows = [];
try {
  rows.push(await arm('storage, defaults (re-JITs of stored methods rewritten in batches, --rewrite-delay 30)', []));
  rows.push(await arm('storage, --rewrite-delay 0 (each re-JIT\'s row at the next commit)', ['--rewrite-delay', '0']));
  rows.push(await arm('--data none', null));
} finally {
  await stopAll();
}

console.log(`### A service's re-JITs on disk: ${FUNCTIONS.toLocaleString('en-US')} methods, ${RATE.toLocaleString('en-US')} JITs/s (\`bench/service.mjs\`)`);
console.log('');
console.log(`\`jitscope run -- build/bench/replay --functions ${FUNCTIONS} --rate ${RATE} --scatter\`: every method named and JITed once, then re-JITs of pseudo-random methods; ` +
  `${MEASURE} s measured from ${SETTLE} s after the first pass. ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}.`);
console.log('');
console.log('| server | server CPU (cores) | storage writer (cores) | ingest thread (cores) | written to disk (MB/s) | RSS (MB) | rewrites deferred at the end | database files after stop (MB) | JITs | drops |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.name} | ${r.cores.toFixed(3)} | ${r.writer.toFixed(3)} | ${r.link.toFixed(3)} | ${f1(r.mbs)} | ${Math.round(r.rss)} | ${r.deferred} | ${f1(r.fileMb)} | ${r.jits} | ${r.drops} |`);
}
