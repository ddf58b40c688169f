// attach.mjs -- attach latency (request until the catch-up is complete) for a
// process with about 1,000 and about 20,000 JITed methods, and detach latency
// (request until the agent's ProfilerDetachSucceeded record arrived). Medians
// of repeated attach/detach cycles on the same process.
import { startServer, startTarget, waitFor, attach, detachAndWait, stopAll, agentTrace } from '../tests/e2e/lib.mjs';
import { median, f1 } from './stats.mjs';

const CYCLES = Number(process.env.CYCLES || 7);
const rows = [];
for (const n of [1000, 20000]) {
  const target = await startTarget(['jitstorm', String(n), 'hold'], { ready: /^holding$/m });
  const srv = await startServer(['serve', '--port', '0']);
  const att = [], det = [], fns = [], catchupMs = [];
  for (let i = 0; i < CYCLES; i++) {
    const r = await attach(srv, target.pid);
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    const id = r.body.session.id;
    const ev = await waitFor('catch-up event', async () => {
      const e = (await srv.api(`/api/sessions/${id}/events?limit=10000`)).body.events.find((x) => x.type === 'catchup');
      return e;
    }, { timeoutMs: 60000, everyMs: 10 });
    const s = (await srv.api(`/api/sessions/${id}`)).body;
    att.push(ev.time_ms - s.created_ms);
    catchupMs.push(s.catchup.duration_ms);
    fns.push(s.catchup.functions);
    const d = await detachAndWait(srv, id);
    det.push(d.detach.duration_ms);
    await waitFor('unloaded', () => !agentTrace(target.pid).mapped, { timeoutMs: 10000 });
  }
  rows.push({ n, fns: median(fns), att: median(att), catchup: median(catchupMs), det: median(det), attMax: Math.max(...att), detMax: Math.max(...det) });
  target.send('exit');
  await srv.stop();
}
await stopAll();

console.log(`### Attach and detach latency (${CYCLES} cycles per process, medians)`);
console.log('');
console.log('| JITed methods in target | functions caught up | attach: request -> catch-up complete (ms) | of which enumeration (ms) | detach: request -> detached (ms) |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ~${r.n} | ${r.fns} | ${f1(r.att)} (max ${f1(r.attMax)}) | ${f1(r.catchup)} | ${f1(r.det)} (max ${f1(r.detMax)}) |`);
