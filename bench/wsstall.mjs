// wsstall.mjs -- does a WebSocket client that stops reading make the others late?
// Two servers under the same flood (20,000 JIT events/s, build/bench/replay) at the
// same time, each with one normal subscriber: B also gets two clients that stop
// reading, A is the baseline over the very same seconds, so other work on the
// machine hits both alike. The normal clients' end-to-end latency (the event's
// time in the "agent" to its arrival) before and while the others stall, until
// B's server closes them (1008, WS_STALL_SECONDS). tests/e2e/hostile.test.mjs
// checks what the server promises meanwhile: every event, in order.
import os from 'node:os';
import { floodedServer, stalledClient } from '../tests/e2e/flood.mjs';
import { sleep, stopAll, waitFor } from '../tests/e2e/lib.mjs';
import { pct, f1 } from './stats.mjs';

const a = await floodedServer(60);
const b = await floodedServer(60);
let stalledFor;
try {
  await waitFor('the floods reaching both clients', () => a.events > 20000 && b.events > 20000, { timeoutMs: 30000 });
  a.phase = b.phase = 'before';
  await sleep(4000);
  const stalled = [await stalledClient(b), await stalledClient(b)];
  const t0 = performance.now();
  a.phase = b.phase = 'stalled';
  await waitFor('B closes its stalled clients', () => (b.srv.stderr.match(/WebSocket client stalled for 10 s, closing it \(1008\)/g) || []).length === 2, { timeoutMs: 40000, everyMs: 200 });
  stalledFor = (performance.now() - t0) / 1000;
  a.phase = b.phase = null;
  for (const c of stalled) c.ws.terminate();
} finally {
  a.ws.close();
  b.ws.close();
  await a.srv.stop();
  await b.srv.stop();
  await stopAll();
}
const row = (what, f, ph) => {
  const xs = f.lat[ph] || [0];
  return `| ${what} | ${xs.length.toLocaleString('en')} | ${f1(pct(xs, 50))} | ${f1(pct(xs, 99))} | ${f1(xs.reduce((m, x) => (x > m ? x : m), 0))} |`;
};
console.log('### A client that stops reading, and the others (WebSocket, 20,000 JIT events/s)');
console.log('');
console.log(`The stalled clients were closed ${f1(stalledFor)} s after they stopped reading; lagged notices ${a.lagged}/${b.lagged} (${a.missed}/${b.missed} events skipped), unannounced gaps ${a.gaps}/${b.gaps}; ` +
  `load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}.`);
console.log('');
console.log('| normal client | events | p50 (ms) | p99 (ms) | max (ms) |');
console.log('|---|---|---|---|---|');
console.log(row('A (no stalled client), before', a, 'before'));
console.log(row('B, before its clients stall', b, 'before'));
console.log(row('A (no stalled client), the same seconds', a, 'stalled'));
console.log(row('B, while two clients do not read', b, 'stalled'));
