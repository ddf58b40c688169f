// metrics.test.mjs -- GET /metrics against a real session: Prometheus's own
// checker (promtool, Debian's prometheus package, installed by scripts/deps.sh)
// accepts the exposition; the numbers are the session's; a session that ended
// drops out; HTTP requests are counted by route class and status.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { DEMO_DLL, E2E_DLL, startServer, waitFor, stopAll, fetchChecked } from './lib.mjs';

after(stopAll);

function promtool(text) {
  return spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
}

// name{labels} value lines -> [{name, labels: {k: v}, value}]
function parse(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const m = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] || '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

test('GET /metrics: promtool accepts it, and it says what the session says', async () => {
  // the demo runs until the test ends it, so a loaded machine cannot end the
  // session before its series are read
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', DEMO_DLL]);
  try {
    await waitFor('JITs', async () => (await srv.api('/api/sessions/1')).body.counters.jit_compilations > 50, { timeoutMs: 30000 });
    // one second more: the agent's drop and cost counters have come at least once
    await new Promise((r) => setTimeout(r, 1000));
    const r = await fetchChecked(`${srv.url}/metrics`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    const check = promtool(text);
    assert.equal(check.status, 0, `promtool check metrics: ${check.stdout}${check.stderr}`);
    const s = (await srv.api('/api/sessions/1')).body;
    const m = parse(text);
    const one = (name) => m.find((x) => x.name === name && x.labels.session === '1');
    const jits = one('jitscope_session_jit_compilations_total');
    assert.ok(jits, 'the live session has its series');
    assert.deepEqual(jits.labels, { session: '1', pid: String(s.pid), process: 'Demo.dll' });
    assert.ok(jits.value > 50 && jits.value <= s.counters.jit_compilations, `${jits.value} of ${s.counters.jit_compilations}`);
    assert.ok(one('jitscope_session_modules').value >= 5);
    assert.ok(one('jitscope_session_jit_time_seconds_total').value > 0);
    const causes = m.filter((x) => x.name === 'jitscope_session_agent_drops_total').map((x) => x.labels.cause).sort();
    assert.deepEqual(causes, ['name_failed', 'name_late', 'no_server', 'ring_full', 'shutdown', 'slow_server', 'too_large']);
    const count = one('jitscope_session_agent_jit_callback_seconds_count');
    const inf = m.find((x) => x.name === 'jitscope_session_agent_jit_callback_seconds_bucket' && x.labels.le === '+Inf');
    assert.ok(count.value > 0 && inf.value === count.value, 'the agent cost histogram: +Inf bucket = count');
    assert.equal(m.find((x) => x.name === 'jitscope_sessions' && x.labels.state === 'live').value, 1);
    const http = (list, route, code) => (list.find((x) => x.name === 'jitscope_http_requests_total' && x.labels.route === route && x.labels.code === code) || { value: 0 }).value;
    const api200 = http(m, 'api', '200');
    assert.ok(api200 >= 1, 'API requests counted by route class and status');
    await fetchChecked(`${srv.url}/api/sessions/99999`);
    const later = parse(await (await fetchChecked(`${srv.url}/metrics`)).text());
    assert.equal(http(later, 'api', '404'), 1, 'a 404 is counted');
    // since the first scrape: the detail call above (200) and the 404
    assert.equal(http(later, 'api', '200'), api200 + 1, 'each API answer is counted once');
    assert.equal(http(later, 'metrics', '200'), http(m, 'metrics', '200') + 1, 'the scrape itself is counted');
    assert.equal((await fetchChecked(`${srv.url}/metrics`, { method: 'POST' })).status, 405);

    // the session ends: its series go (bounded cardinality), the state count stays
    process.kill(s.pid, 'SIGTERM');
    await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
    const ended = await (await fetchChecked(`${srv.url}/metrics`)).text();
    assert.equal(promtool(ended).status, 0);
    const e = parse(ended);
    assert.ok(!e.some((x) => x.labels.session === '1'), 'no series of the ended session');
    assert.equal(e.find((x) => x.name === 'jitscope_sessions' && x.labels.state === 'exited').value, 1);
  } finally {
    await srv.stop();
  }
});

test('GET /metrics needs the API key when the server has one', async () => {
  const srv = await startServer(['run', '--port', '0', '--api-key', 'k'.repeat(32), '--', 'dotnet', E2E_DLL]);
  try {
    assert.equal((await fetchChecked(`${srv.url}/metrics`)).status, 401);
    const r = await fetchChecked(`${srv.url}/metrics`, { headers: { Authorization: `Bearer ${'k'.repeat(32)}` } });
    assert.equal(r.status, 200);
    assert.equal(promtool(await r.text()).status, 0);
  } finally {
    await srv.stop();
  }
});
