// codeheat.mjs -- issue 38 item 5's numbers for items 1 and 2: how long GET
// .../functions/{fid}/code takes to answer with every instruction's samples,
// and GET .../functions/{fid}/source with every line's (its PDB read each time)
// of a profile of at least SAMPLES thread samples (default 10,000). The app is
// StackTarget's "hotline" mode (two threads hot in Hot.Work and Hot.OsrLoop);
// the profile is a CPU profile at 999 Hz, stopped once it holds SAMPLES. Then
// REQUESTS requests in a row for each method from the code read before
// (refresh=0: the server's attribution, disassembly and JSON, no agent), and
// REFRESHES reading the code again from the agent (refresh=1, the default of
// the Code tab), interleaved with them. Then build/bench/heatcost (heatcost.c):
// the server's part under the sessions lock at its bound, a full address table. Latency from the client (fetch to the last byte), p50, p95,
// max. Knobs: SAMPLES, REQUESTS (default 200), REFRESHES (default 40).
import { spawnSync } from 'node:child_process';
import { ROOT, BUILD, STACK_DLL, startServer, waitFor, functionsOf, stopAll } from '../tests/e2e/lib.mjs';
import { pct, f1 } from './stats.mjs';

const SAMPLES = Number(process.env.SAMPLES || 10000);
const REQUESTS = Number(process.env.REQUESTS || 200);
const REFRESHES = Number(process.env.REFRESHES || 40);

async function timed(url) {
  const t0 = performance.now();
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 200)}`);
  return { ms: performance.now() - t0, bytes: text.length, body: JSON.parse(text) };
}

// n requests of `kept`, and one of `fresh` after every n / m of them
// (interleaved, so both see the same load).
async function series(kept, fresh, n, m) {
  const a = { ms: [], last: null }, b = { ms: [], last: null };
  for (let i = 0; i < n; i++) {
    a.last = await timed(kept);
    a.ms.push(a.last.ms);
    if (i % Math.max(1, Math.floor(n / m)) === 0 && b.ms.length < m) {
      b.last = await timed(fresh);
      b.ms.push(b.last.ms);
    }
  }
  return [a, b];
}

const row = (what, s, extra) =>
  `| ${what} | ${s.ms.length} | ${f1(pct(s.ms, 50))} | **${f1(pct(s.ms, 95))}** | ${f1(Math.max(...s.ms))} | ${extra} |`;

async function main() {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', STACK_DLL, 'hotline']);
  await waitFor('READY', () => /^READY pid=\d+$/m.test(srv.stdout), { timeoutMs: 60000 });
  const fn = async (q, tier) => waitFor(`${q} at ${tier}`, async () => {
    const f = (await functionsOf(srv, 1, `&q=${encodeURIComponent(q)}`))[0];
    return f && f.tiers.some((t) => t.tier === tier) && f;
  }, { timeoutMs: 60000, everyMs: 200 });
  const work = await fn('Hot.Work(', 'Tier1');
  const osr = await fn('Hot.OsrLoop(', 'Tier1-OSR');
  const start = await srv.api('/api/sessions/1/profile', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hz: 999, mode: 'cpu' }),
  });
  if (start.status !== 202) throw new Error(`profile: ${start.status}`);
  await waitFor(`${SAMPLES} samples`, async () =>
    (await srv.api('/api/sessions/1/profile')).body.profile.samples >= SAMPLES, { timeoutMs: 300000, everyMs: 200 });
  await srv.api('/api/sessions/1/profile/stop', { method: 'POST' });
  await waitFor('stopped', async () => (await srv.api('/api/sessions/1/profile')).body.profile.state === 'stopped', { timeoutMs: 10000 });
  const status = (await srv.api('/api/sessions/1/profile')).body.profile;
  const lines = [];
  lines.push(`### The code view with a profile's samples (issue 38 items 1 and 5; \`node bench/codeheat.mjs\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ${(await import('node:os')).loadavg()[0].toFixed(2)})`);
  lines.push('');
  lines.push(`A CPU profile of StackTarget \`hotline\` with ${status.samples} thread samples (${status.distinct_stacks} distinct stacks); GET .../code and .../source of each hot method, latency at the client (ms):`);
  lines.push('');
  lines.push('| request | n | p50 | p95 | max | reply |');
  lines.push('| --- | --- | --- | --- | --- | --- |');
  for (const f of [work, osr]) {
    const base = `${srv.url}/api/sessions/1/functions/${f.function_id}/code`;
    await timed(base); // read once from the agent: refresh=0 serves it
    const [kept, fresh] = await series(`${base}?refresh=0`, base, REQUESTS, REFRESHES);
    const v = kept.last.body.versions;
    const insns = v.reduce((n, x) => n + x.instructions.length, 0);
    const here = v.reduce((n, x) => n + x.self_samples, 0);
    const what = `${f.name.replace(/^StackTarget\./, '')}: ${v.length} versions, ${insns} instructions, ${here} samples`;
    lines.push(row(`${what}, refresh=0`, kept, `${(kept.last.bytes / 1024).toFixed(0)} KiB`));
    lines.push(row(`${what}, refresh=1 (from the agent)`, fresh, `${(fresh.last.bytes / 1024).toFixed(0)} KiB`));
    const src = `${srv.url}/api/sessions/1/functions/${f.function_id}/source`;
    const [srcKept, srcFresh] = await series(`${src}?refresh=0`, src, REQUESTS, REFRESHES);
    const sl = srcKept.last.body.lines;
    const onLines = `${f.name.replace(/^StackTarget\./, '')}: ${sl.length} lines, ${sl.reduce((n, l) => n + l.self_samples, 0)} samples as the leaf`;
    lines.push(row(`${onLines}, per line, refresh=0`, srcKept, `${(srcKept.last.bytes / 1024).toFixed(0)} KiB`));
    lines.push(row(`${onLines}, per line, refresh=1 (from the agent)`, srcFresh, `${(srcFresh.last.bytes / 1024).toFixed(0)} KiB`));
  }
  srv.proc.stdin.write('exit\n');
  await srv.stop();
  const make = spawnSync('make', ['-s', '-C', ROOT, 'build/bench/heatcost'], { encoding: 'utf8' });
  if (make.status !== 0) throw new Error(`make build/bench/heatcost: ${make.stderr}`);
  const cost = spawnSync(`${BUILD}/bench/heatcost`, [String(REQUESTS)], { encoding: 'utf8' });
  lines.push('', `The server's part at its bound (\`build/bench/heatcost ${REQUESTS}\`, bench/heatcost.c): ${cost.stdout.trim()}`);
  console.log(lines.join('\n'));
}

main().then(() => stopAll()).catch(async (e) => {
  console.error(e);
  await stopAll();
  process.exit(1);
});
