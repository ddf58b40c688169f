// stream.mjs -- latency from a method's JITCompilationFinished (its timestamp in
// the target, CLOCK_MONOTONIC mapped to wall time by the hello's clock pair) to
// its row arriving at a WebSocket client, at a low rate (one new method every
// 100 ms) and a high rate (a burst of ~20,000 JITs in about a second).
import WebSocket from '../tests/node_modules/ws/index.js';
import { E2E_DLL, startServer, waitFor, sleep, stopAll } from '../tests/e2e/lib.mjs';
import { pct, f2 } from './stats.mjs';

const nowMs = () => performance.timeOrigin + performance.now();

async function measure(args, drive) {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, ...args]);
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
  const port = (await srv.api('/api/config')).body.ws_port;
  const lat = [];
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
  await new Promise((r) => ws.on('open', r));
  let last = 0;
  ws.on('message', (d) => {
    const t = nowMs();
    const m = JSON.parse(d);
    if (m.type !== 'events') return;
    for (const e of m.events) {
      if (e.type === 'jit' && !e.catchup && e.seq > last) lat.push(t - e.time_ms);
      last = Math.max(last, e.seq);
    }
  });
  const cur = (await srv.api('/api/sessions/1')).body.counters.events;
  ws.send(JSON.stringify({ subscribe: 1, after: cur }));
  await sleep(200);
  const before = lat.length;
  await drive(srv);
  await sleep(1000);
  ws.close();
  srv.proc.stdin.write('exit\n');
  await srv.stop();
  return lat.slice(before);
}

const low = await measure(['serve'], async (srv) => {
  for (let i = 1; i <= 40; i++) { srv.proc.stdin.write(`call ${i}\n`); await sleep(100); }
});
const high = await measure(['jitstorm', '20000', 'hold'], async (srv) => {
  await waitFor('storm', () => /^jitted$/m.test(srv.stdout), { timeoutMs: 60000 });
});
await stopAll();
console.log('### JITCompilationFinished -> WebSocket client latency');
console.log('');
console.log('| rate | JIT events measured | p50 (ms) | p99 (ms) | max (ms) |');
console.log('|---|---|---|---|---|');
console.log(`| low: one new method / 100 ms (plus what it pulls in) | ${low.length} | ${f2(pct(low, 50))} | ${f2(pct(low, 99))} | ${f2(Math.max(...low))} |`);
console.log(`| high: ~20,000 JITs in ~1 s | ${high.length} | ${f2(pct(high, 50))} | ${f2(pct(high, 99))} | ${f2(Math.max(...high))} |`);
