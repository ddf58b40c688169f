// portresume.mjs -- how soon a runtime waiting in suspend mode on jitscope's
// diagnostic port is resumed (issue 36, item 2's 100 ms), for the two ways the
// server takes such a runtime: the agent as its startup profiler (`startup`)
// and a refusal (another profiler set to load: `refused`). Each round starts
// E2eTarget `run` with DOTNET_DiagnosticPorts=<port>,suspend, alternating the
// two kinds, and waits for it to end; the figure is the server's own measure,
// GET /api/diagnostic-port's `resumed_ms` (accept of the runtime's first
// connection to ResumeRuntime's answer). The tests check that every runtime
// is resumed and runs to its end; the latency is measured here, not there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, startTarget, waitFor } from '../tests/e2e/lib.mjs';
import { median, pct, f1 } from './stats.mjs';

const ROUNDS = Number(process.env.ROUNDS || 20);
const OTHER_PROFILER = {
  CORECLR_ENABLE_PROFILING: '1', CORECLR_PROFILER: '{11111111-2222-3333-4444-555555555555}',
  CORECLR_PROFILER_PATH: '/nonexistent/libother.so',
};

const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-bench-port-'));
const port = `${dir}/port.sock`;
const srv = await startServer(['serve', '--port', '0', '--diagnostic-port', port]);
const load0 = loadavg();
const got = { startup: [], refused: [] };
try {
  for (let i = 0; i < ROUNDS; i++) {
    const kind = i % 2 ? 'refused' : 'startup';
    const env = { DOTNET_DiagnosticPorts: `${port},suspend`, ...(kind === 'refused' ? OTHER_PROFILER : {}) };
    const before = new Set((await srv.api('/api/diagnostic-port')).body.runtimes.map((r) => r.id));
    const t = await startTarget(['run'], { env, ready: /^exit 42$/m });
    const rec = await waitFor(`round ${i}: its record`, async () =>
      (await srv.api('/api/diagnostic-port')).body.runtimes.find((r) => !before.has(r.id) && r.resumed_ms !== null), { timeoutMs: 60000 });
    if (rec.outcome !== kind) throw new Error(`round ${i}: outcome ${rec.outcome}, expected ${kind} (${rec.reason})`);
    got[kind].push(rec.resumed_ms);
    await new Promise((r) => (t.proc.exitCode !== null ? r() : t.proc.once('exit', r)));
  }
} finally {
  await srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

console.log(`### Resumed after the first connection, diagnostic port in suspend mode (E2eTarget \`run\`, ${ROUNDS} runtimes, alternating)`);
console.log('');
console.log('| outcome | runtimes | p50 (ms) | p95 (ms) | max (ms) | target (ms) |');
console.log('|---|---|---|---|---|---|');
for (const [kind, xs] of Object.entries(got)) {
  console.log(`| ${kind} | ${xs.length} | ${f1(median(xs))} | ${f1(pct(xs, 95))} | ${f1(Math.max(...xs))} | 100 |`);
}
console.log('');
console.log(`Load average before/after: ${load0} / ${loadavg()}.`);
