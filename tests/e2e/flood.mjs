// flood.mjs -- a server under a flood of JIT events for the stalled-client checks:
// `jitscope run` of build/bench/replay at 20,000 JIT events/s, with one normal
// WebSocket subscriber that counts the events it got, the events the server said
// it skipped (a `lagged` notice: a client more than WS_MAX_BACKLOG events behind,
// as a loaded machine makes it, is moved ahead), the gaps in the sequence nobody
// announced, and, while `phase` is set, records each JIT event's end-to-end
// latency (its time in the "agent" to its arrival here) in lat[phase]. Used by tests/e2e/hostile.test.mjs (what the
// server promises: every event, in order, whatever another client does) and
// bench/wsstall.mjs (how late they come).
import path from 'node:path';
import WebSocket from '../node_modules/ws/index.js';
import { BUILD, startServer, waitFor } from './lib.mjs';

const REPLAY = path.join(BUILD, 'bench/replay');

export { WebSocket };

// Returns { srv, port, ws, phase, lat: {phase: [ms]}, events, lagged, missed, gaps, last }.
export async function floodedServer(seconds, rate = 20000) {
  const srv = await startServer(['run', '--port', '0', '--', REPLAY, '--rate', String(rate), '--seconds', String(seconds)]);
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live');
  const port = (await srv.api('/api/config')).body.ws_port;
  const f = { srv, port, phase: null, lat: {}, events: 0, lagged: 0, missed: 0, gaps: 0, last: 0 };
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
  f.ws = ws;
  ws.on('message', (d) => {
    const t = performance.timeOrigin + performance.now();
    const m = JSON.parse(d.toString());
    if (m.type === 'lagged') { // announced: the stream goes on after resume_after
      f.lagged++;
      f.missed += Number(m.missed);
      f.last = Number(m.resume_after);
    }
    if (m.type !== 'events') return;
    for (const e of m.events) {
      if (f.last && e.seq !== f.last + 1) f.gaps++;
      f.last = e.seq;
      f.events++;
      if (f.phase && e.type === 'jit') (f.lat[f.phase] ||= []).push(t - e.time_ms);
    }
  });
  await new Promise((r) => ws.on('open', r));
  const cur = (await srv.api('/api/sessions/1')).body.counters.events;
  ws.send(JSON.stringify({ subscribe: 1, after: cur }));
  return f;
}

// A client of f's server that subscribes from the start and stops reading at once
// (its socket paused: the kernel's buffers fill, then the server's). { ws, code,
// reason, messages }, code and reason set when it sees the close.
export async function stalledClient(f) {
  const ws = new WebSocket(`ws://127.0.0.1:${f.port}/`, 'jitscope');
  const c = { ws, code: null, reason: null, messages: 0 };
  ws.on('close', (code, reason) => { c.code = code; c.reason = reason.toString(); });
  ws.on('message', () => { c.messages++; });
  await new Promise((r) => ws.on('open', r));
  ws._socket.pause();
  ws.send(JSON.stringify({ subscribe: 1, after: 0 }));
  return c;
}
