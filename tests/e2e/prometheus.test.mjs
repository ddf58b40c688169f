// prometheus.test.mjs -- a fleet scraped by a real Prometheus (issue 36, item
// 4): Debian's prometheus (scripts/deps.sh), started here on a free loopback
// port with a generated configuration, scrapes two jitscope servers every
// second: one attached to an app in a container and one on the host, the
// other observing an app in a container through its diagnostic port. Through
// Prometheus' own HTTP API: every session's JIT counter is what that server's
// REST API says, and the PromQL query of JIT compilations per second by
// program and container (irate over the last two samples) is what those
// samples give.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { attach, caughtUp, startServer, startTarget, stopAll, waitFor } from './lib.mjs';
import { sharedDir, startContainer, stopContainers } from './containers.mjs';

let prom = null;
after(async () => {
  if (prom) prom.proc.kill('SIGKILL');
  await stopContainers();
  await stopAll();
});

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.on('error', reject);
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

// Starts Prometheus scraping targets (host:port) every second; { url, proc, log }.
async function startPrometheus(targets) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-prom-'));
  const config = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(config, [
    'global:', '  scrape_interval: 1s', '  evaluation_interval: 1s',
    'scrape_configs:', '  - job_name: jitscope', '    metrics_path: /metrics',
    '    static_configs:', `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`, '',
  ].join('\n'));
  // a free port, taken between its probe and Prometheus' bind by another
  // test's server, is tried again with another one
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const p = spawn('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, `data${attempt}`)}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run = { proc: p, url: `http://127.0.0.1:${port}`, log: '', exit: null };
    p.stdout.on('data', (d) => { run.log += d; });
    p.stderr.on('data', (d) => { run.log += d; });
    p.on('exit', (code) => { run.exit = code; });
    const ready = await waitFor('Prometheus ready', async () => {
      if (run.exit !== null) return 'exited';
      try { return (await fetch(`${run.url}/-/ready`)).ok && 'ready'; } catch { return false; }
    }, { timeoutMs: 60000 });
    if (ready === 'ready') return run;
    assert.match(run.log, /address already in use/, `Prometheus did not start:\n${run.log}`);
  }
  throw new Error('no free port for Prometheus');
}

async function promQuery(prometheus, query, time) {
  const u = new URL(`${prometheus.url}/api/v1/query`);
  u.searchParams.set('query', query);
  if (time !== undefined) u.searchParams.set('time', String(time));
  const r = await (await fetch(u)).json();
  assert.equal(r.status, 'success', JSON.stringify(r));
  return r.data;
}

const groupKey = (labels) => `${labels.process}|${labels.container_hostname || ''}`;

test('Prometheus scrapes two servers: each session\'s JIT counter is its REST one, and JITs per second by program and container are what the samples give', { timeout: 300000 }, async () => {
  // server A: an app in a container (attached) and one on the host
  const a = await startServer(['serve', '--port', '0', '--data', 'none']);
  const c1 = await startContainer(['serve']);
  const host = await startTarget(['serve']);
  for (const pid of [c1.pid, host.pid]) {
    const r = await attach(a, pid);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    await caughtUp(a, r.body.session.id);
  }
  // server B: an app in another container, through B's diagnostic port
  const dir = sharedDir();
  const b = await startServer(['serve', '--port', '0', '--data', 'none', '--diagnostic-port', `${dir}/port.sock`]);
  const c2 = await startContainer(['serve'], { volumes: [`${dir}:${dir}`], env: { DOTNET_DiagnosticPorts: `${dir}/port.sock,suspend` } });
  await waitFor('B\'s session live', async () => (await b.api('/api/sessions')).body.sessions.some((s) => s.state === 'live'), { timeoutMs: 30000 });

  prom = await startPrometheus([a, b].map((s) => `127.0.0.1:${s.port}`));
  await waitFor('both targets up', async () => {
    const t = await (await fetch(`${prom.url}/api/v1/targets`)).json();
    return t.data.activeTargets.length === 2 && t.data.activeTargets.every((x) => x.health === 'up');
  }, { timeoutMs: 60000 });

  // every session scraped twice before the storms: at any sample time after
  // now, each series has two samples for irate to take
  await waitFor('two samples of every session', async () => {
    const d = await promQuery(prom, 'count_over_time(jitscope_session_jit_compilations_total[2m])');
    return d.result.length === 3 && d.result.every((r) => Number(r.value[1]) >= 2);
  }, { timeoutMs: 60000 });
  const tReady = Date.now() / 1000;

  // JITs to count: a storm in each app, of different sizes
  const storms = [[c1, 300], [host, 500], [c2, 700]];
  for (const [app, n] of storms) app.send(`storm ${n}`);
  for (const [app] of storms) await app.waitLine(/^stormed /m, 120000);

  // REST's counters by (instance, session), read before and after a scrape
  const restCounters = async () => {
    const out = new Map();
    for (const srv of [a, b])
      for (const x of (await srv.api('/api/sessions')).body.sessions)
        out.set(`127.0.0.1:${srv.port}|${x.id}`, x.counters.jit_compilations);
    return out;
  };
  const r0 = await restCounters();
  const t0 = Date.now() / 1000;
  assert.equal(r0.size, 3);
  // (a range vector has the samples' own times; an instant one the query's)
  const series = await waitFor('a scrape of every session after that read', async () => {
    const d = await promQuery(prom, 'jitscope_session_jit_compilations_total[10s]');
    return d.result.length === 3 && d.result.every((r) => r.values.at(-1)[0] > t0 + 0.001) &&
      d.result.map((r) => ({ metric: r.metric, value: r.values.at(-1) }));
  }, { timeoutMs: 60000 });
  const r1 = await restCounters();
  // each counter as Prometheus has it lies between REST's word before the
  // scrape and after it (equal when the app was idle meanwhile)
  for (const r of series) {
    const k = `${r.metric.instance}|${r.metric.session}`, v = Number(r.value[1]);
    assert.ok(r0.has(k), `a session of ${k}`);
    assert.ok(v >= r0.get(k) && v <= r1.get(k), `${k}: Prometheus ${v}, REST ${r0.get(k)}..${r1.get(k)}`);
  }
  const byHost = Object.fromEntries(series.map((r) => [r.metric.container_hostname || 'host', r.metric]));
  assert.equal(byHost[c1.hostname].container_id, c1.id);
  assert.equal(byHost[c1.hostname].container_pid, '1');
  assert.equal(byHost[c2.hostname].container_id, c2.id);
  assert.ok(byHost.host && !byHost.host.container_id, 'the host app has no container labels');
  for (const m of series) assert.equal(m.metric.process, 'E2eTarget.dll');

  // the time of c2's storm: its sample after tReady with the largest step
  // from the one before
  const rangeOf = async (sel, time) => (await promQuery(prom, `${sel}[2m]`, time)).result;
  const c2series = (await rangeOf(`jitscope_session_jit_compilations_total{container_hostname="${c2.hostname}"}`))[0].values;
  let at = 0, step = -1;
  for (let i = 1; i < c2series.length; i++) {
    if (c2series[i][0] <= tReady) continue;
    const d = Number(c2series[i][1]) - Number(c2series[i - 1][1]);
    if (d > step) [step, at] = [d, c2series[i][0]];
  }
  assert.ok(step > 0, `c2 compiled between two of its samples (${step})`);
  const rate = await promQuery(prom, 'sum by (process, container_hostname) (irate(jitscope_session_jit_compilations_total[2m]))', at);
  // the same from the samples themselves: (last - before) / their distance in
  // time, summed per group; that distance in whole milliseconds as Prometheus
  // keeps it (a difference of two times in seconds since 1970 as floats is
  // off by up to 1e-7 s)
  const expected = new Map();
  for (const r of await rangeOf('jitscope_session_jit_compilations_total', at)) {
    const v = r.values;
    assert.ok(v.length >= 2, 'two samples at least');
    const [[t1, v1], [t2, v2]] = v.slice(-2);
    const k = groupKey(r.metric);
    expected.set(k, (expected.get(k) || 0) + (Number(v2) - Number(v1)) / ((Math.round(t2 * 1000) - Math.round(t1 * 1000)) / 1000));
  }
  assert.equal(rate.result.length, 3, 'one group per program and container');
  for (const r of rate.result) {
    const want = expected.get(groupKey(r.metric));
    assert.ok(want !== undefined, `group ${groupKey(r.metric)}`);
    assert.ok(Math.abs(Number(r.value[1]) - want) <= 1e-9 * Math.max(1, want), `${groupKey(r.metric)}: ${r.value[1]} per second, the samples say ${want}`);
  }
  assert.ok(expected.get(`E2eTarget.dll|${c2.hostname}`) > 0, 'c2 compiled between its last two samples');
  await Promise.all([a.stop(), b.stop()]);
});
