// ingest.mjs -- how many agent records per second the server ingests. The
// native agent stand-in build/bench/replay (bench/replay.c; started by
// `jitscope run`, so it gets the real socket and token) sends a hello and then
// RECORDS/3 compilations of distinct functions (JIT_STARTED, FUNCTION_NAME,
// JIT_FINISHED each) as fast as the socket takes them; we time from the
// server's hello (the session's connected_ms) until it has applied all of them. Its own ceiling is measured too (--out
// /dev/null and a socket pair), to show the generator is not the limit.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { BUILD, startServer, waitFor } from '../tests/e2e/lib.mjs';
import { f1 } from './stats.mjs';

const RECORDS = Number(process.env.RECORDS || 3000000);
const events = Math.floor(RECORDS / 3);
const replay = path.join(BUILD, 'bench/replay');
const want = 1 + 3 * events;

function ceiling(args) {
  const r = spawnSync(replay, [...args, '--seconds', '2'], { encoding: 'utf8' });
  const m = /(\d+) records\/s/.exec(r.stdout);
  if (!m) throw new Error(`replay ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return Number(m[1]);
}

const srv = await startServer(['run', '--port', '0', '--', replay, '--count', String(events), '--functions', String(events)]);
await waitFor('hello', async () => (await srv.api('/api/sessions/1')).body.state !== 'starting', { timeoutMs: 20000 });
const s = await waitFor('all applied', async () => {
  const x = (await srv.api('/api/sessions/1')).body;
  return x.link.records >= want && x;
}, { timeoutMs: 120000, everyMs: 10 });
const secs = (Date.now() - s.connected_ms) / 1000; // polled every 10 ms
await srv.stop();
const devnull = ceiling(['--out', '/dev/null']);
const pair = ceiling(['--socketpair']);
console.log('### Server ingest rate (build/bench/replay at full speed, one connection)');
console.log('');
console.log(`| records | seconds | records/s | functions in session |`);
console.log('|---|---|---|---|');
console.log(`| ${s.link.records} | ${secs.toFixed(2)} | ${f1(s.link.records / secs / 1000)} k | ${s.counters.functions} |`);
console.log('');
console.log(`The generator's own ceiling (2 s, full speed): ${f1(devnull / 1e6)} M records/s into /dev/null, ` +
  `${f1(pair / 1e6)} M records/s through a Unix socket pair drained by a second thread.`);
