// ingest.mjs -- how many agent records per second the server ingests. A fake
// agent (started by `jitscope run`, so it gets the real socket and token) sends
// a hello and then N JIT_STARTED/JIT_FINISHED/FUNCTION_NAME records as fast as
// the socket takes them; we time until the server has applied all of them.
import { startServer, waitFor } from '../tests/e2e/lib.mjs';
import { f1 } from './stats.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const N = Number(process.env.RECORDS || 600000);
const fake = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake_agent.mjs');
const srv = await startServer(['run', '--port', '0', '--', 'node', fake, String(N)]);
await waitFor('hello', async () => (await srv.api('/api/sessions/1')).body.state !== 'starting', 20000);
const t0 = performance.now();
const s = await waitFor('all applied', async () => {
  const x = (await srv.api('/api/sessions/1')).body;
  return x.link.records >= N + 1 && x;
}, 120000, 20);
const secs = (performance.now() - t0) / 1000;
await srv.stop();
console.log('### Server ingest rate (fake agent at full speed, one connection)');
console.log('');
console.log(`| records | seconds | records/s | functions in session |`);
console.log('|---|---|---|---|');
console.log(`| ${s.link.records} | ${secs.toFixed(2)} | ${f1(s.link.records / secs / 1000)} k | ${s.counters.functions} |`);
