// storage.mjs -- what storage (--data DIR) costs, measured in one run with
// storage on and off interleaved (the machine's speed drifts between rounds):
//  1. ingest: build/bench/replay (the native agent stand-in) sends FUNCTIONS
//     distinct compilations at full speed; records/s from the hello until the
//     server applied them all; with storage on, how long the writer needs to
//     have written everything after that, and the database's size per 100k
//     functions once the server stopped (WAL checkpointed);
//  2. the app: E2eTarget jitstorm 20000 (its own wall time for the storm, as it
//     prints it) and the latency from each JIT to a WebSocket client.
// Medians of ROUNDS rounds per mode.
import fs from 'node:fs';
import path from 'node:path';
import WebSocket from '../tests/node_modules/ws/index.js';
import { BUILD, E2E_DLL, startServer, waitFor, sleep, stopAll, tempDataDir } from '../tests/e2e/lib.mjs';
import { median, pct, f1, f2 } from './stats.mjs';

const ROUNDS = Number(process.env.ROUNDS || 5);
const FUNCTIONS = Number(process.env.FUNCTIONS || 300000);
const replay = path.join(BUILD, 'bench/replay');
const nowMs = () => performance.timeOrigin + performance.now();
const dataArgs = (on) => ['--data', on ? tempDataDir() : 'none'];

function dbBytes(dir) {
  let n = 0;
  for (const f of fs.readdirSync(dir)) if (f.startsWith('jitscope.db')) n += fs.statSync(path.join(dir, f)).size;
  return n;
}

async function ingestRound(on) {
  const data = dataArgs(on);
  const srv = await startServer(['run', '--port', '0', ...data, '--', replay, '--count', String(FUNCTIONS), '--functions', String(FUNCTIONS)]);
  const want = 1 + 3 * FUNCTIONS;
  await waitFor('hello', async () => (await srv.api('/api/sessions/1')).body.state !== 'starting', 20000);
  const s = await waitFor('all applied', async () => {
    const x = (await srv.api('/api/sessions/1')).body;
    return x.link.records >= want && x;
  }, 300000, 10);
  const applied = nowMs();
  const rate = s.link.records / ((applied - s.connected_ms) / 1000);
  let catchUp = null;
  let bytes = null;
  if (on) {
    const r0 = (await srv.api('/api/config')).body.storage.rounds;
    await waitFor('written', async () => {
      const st = (await srv.api('/api/config')).body.storage;
      return st.backlog === 0 && st.rounds >= r0 + 2 && st;
    }, 300000, 20);
    catchUp = (nowMs() - applied) / 1000;
  }
  await srv.stop();
  if (on) bytes = dbBytes(data[1]);
  return { rate, catchUp, bytes };
}

async function appRound(on) {
  const srv = await startServer(['run', '--port', '0', ...dataArgs(on), '--', 'dotnet', E2E_DLL, 'jitstorm', '20000', 'hold']);
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', 60000);
  const port = (await srv.api('/api/config')).body.ws_port;
  const lat = [];
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
  await new Promise((r) => ws.on('open', r));
  ws.on('message', (d) => {
    const t = nowMs();
    const m = JSON.parse(d);
    if (m.type === 'events') for (const e of m.events) if (e.type === 'jit' && !e.catchup) lat.push(t - e.time_ms);
  });
  ws.send(JSON.stringify({ subscribe: 1, after: 0 }));
  await waitFor('storm', () => /^jitted$/m.test(srv.stdout), 120000);
  await sleep(1000);
  ws.close();
  const wall = Number((/jitstorm: \d+ methods in (\d+) ms/.exec(srv.stderr) || [])[1]);
  srv.proc.stdin.write('exit\n');
  await srv.stop();
  return { wall, p50: pct(lat, 50), p99: pct(lat, 99), n: lat.length };
}

const ingest = { on: [], off: [] };
const app = { on: [], off: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const on of r % 2 ? [true, false] : [false, true]) ingest[on ? 'on' : 'off'].push(await ingestRound(on));
  for (const on of r % 2 ? [false, true] : [true, false]) app[on ? 'on' : 'off'].push(await appRound(on));
}
await stopAll();

const m = (xs, k) => median(xs.map((x) => x[k]));
const onRate = m(ingest.on, 'rate');
const offRate = m(ingest.off, 'rate');
console.log(`### Storage (--data) on and off, ${ROUNDS} interleaved rounds each (medians)`);
console.log('');
console.log(`| ingest, ${FUNCTIONS.toLocaleString('en-US')} distinct functions at full speed | storage off | storage on | on / off |`);
console.log('|---|---|---|---|');
console.log(`| records/s applied | ${f1(offRate / 1e6)} M | ${f1(onRate / 1e6)} M | ${f2(onRate / offRate)} |`);
console.log(`| writer done after the last record applied | – | ${f2(m(ingest.on, 'catchUp'))} s (${f1(FUNCTIONS / m(ingest.on, 'catchUp') / 1000)} k functions/s) | |`);
console.log(`| database size per 100k functions (names ~40 bytes) | – | ${f1(m(ingest.on, 'bytes') / FUNCTIONS * 1e5 / 1048576)} MiB | |`);
console.log('');
console.log('| E2eTarget jitstorm 20000 | storage off | storage on | on / off |');
console.log('|---|---|---|---|');
console.log(`| the app's wall time for the storm (ms) | ${m(app.off, 'wall')} | ${m(app.on, 'wall')} | ${f2(m(app.on, 'wall') / m(app.off, 'wall'))} |`);
console.log(`| JIT -> WebSocket client p50 (ms) | ${f2(m(app.off, 'p50'))} | ${f2(m(app.on, 'p50'))} | |`);
console.log(`| JIT -> WebSocket client p99 (ms) | ${f2(m(app.off, 'p99'))} | ${f2(m(app.on, 'p99'))} | |`);
console.log(`| JIT events measured per round | ${m(app.off, 'n')} | ${m(app.on, 'n')} | |`);
