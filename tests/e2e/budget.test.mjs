// budget.test.mjs -- the server-wide memory budget (--max-memory, server/budget.h)
// against peers that hold a session token: a same-uid process reads
// JITSCOPE_TOKEN and JITSCOPE_SOCKET from a `run` app's /proc/PID/environ and
// speaks the agent protocol (build/bench/replay, the native agent stand-in),
// pushing functions with 4 KB names flat out. Each gets a session of its own
// (a child of the run) and stops at its share; the server stays within the
// budget plus a stated margin, answers REST all along, its database and its
// stop stay small and quick; and the real .NET app beside them (E2eTarget, the
// run's own session) JITs a storm of methods meanwhile and loses none of them.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { BUILD, E2E_DLL, startServer, stopAll, waitFor, tempDataDir, fetchChecked, OpenApiViolation } from './lib.mjs';

const REPLAY = path.join(BUILD, 'bench/replay');
const BUDGET_MIB = 192;
const MARGIN_MIB = 64; // what the server holds besides sessions: code, SQLite, buffers, the allocator's slack
const PEERS = 4;
const STORM = 3000; // E2eTarget storm methods the app JITs while the peers flood

const peers = [];
after(async () => {
  for (const p of peers) p.kill('SIGKILL');
  await stopAll();
});

function rssMib(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

// The agent's environment, as any process of the same user can read it.
function agentEnv(pid) {
  const env = Object.fromEntries(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
    .filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  assert.match(env.JITSCOPE_TOKEN || '', /^[0-9a-f]{32}$/, 'the token is in the app\'s environment');
  return { JITSCOPE_TOKEN: env.JITSCOPE_TOKEN, JITSCOPE_SOCKET: env.JITSCOPE_SOCKET };
}

// A REST call that must be answered (200) within 10 s (404 for the peers' sessions
// before they connect); returns { body, ms }.
async function answered(srv, p) {
  const t0 = performance.now();
  let r;
  try {
    r = await fetchChecked(srv.url + p, { signal: AbortSignal.timeout(10000) });
  } catch (e) {
    if (e instanceof OpenApiViolation) throw e;
    throw new Error(`${p}: no answer within 10 s during the flood (${e.message})`, { cause: e });
  }
  assert.ok(r.status === 200 || (r.status === 404 && p.startsWith('/api/sessions/2/')), `${p} answered ${r.status}`);
  return { body: await r.json(), ms: performance.now() - t0 };
}

test(`${PEERS} token-holding peers pushing 4 KB names: memory within --max-memory ${BUDGET_MIB}M, REST answers, the app beside them loses nothing`, { timeout: 240000 }, async () => {
  const data = tempDataDir();
  const srv = await startServer(['run', '--port', '0', '--data', data, '--max-memory', `${BUDGET_MIB}M`, '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('READY', () => /^READY$/m.test(srv.stdout), { timeoutMs: 60000 });
  const app = await waitFor('the app live', async () => { const s = (await srv.api('/api/sessions/1')).body; return s.state === 'live' && s; });
  const baseline = rssMib(srv.proc.pid);
  let worstRss = baseline, worstMs = 0, polls = 0;
  const sampler = setInterval(() => { // the server's RSS every 20 ms, between the polls too
    try { worstRss = Math.max(worstRss, rssMib(srv.proc.pid)); } catch { /* it stopped */ }
  }, 20);
  const poll = async () => {
    // the app's and the first peer's functions: the query works on a session that refuses
    for (const p of ['/api/sessions', '/api/config', '/api/sessions/1/functions?limit=20&sort=jit_time',
      '/api/sessions/2/functions?limit=20&sort=name&q=Method1']) {
      const { ms } = await answered(srv, p);
      worstMs = Math.max(worstMs, ms);
    }
    worstRss = Math.max(worstRss, rssMib(srv.proc.pid));
    polls++;
  };

  const env = { ...process.env, ...agentEnv(app.pid) };
  for (let i = 0; i < PEERS; i++) {
    const p = spawn(REPLAY, ['--name-bytes', '4000', '--rate', '0', '--seconds', '600', '--functions', '4000000'],
      { env, stdio: 'ignore' });
    peers.push(p);
  }
  // every peer has its session and has filled its share: it is refused now
  const full = await waitFor('every peer refused at its share', async () => {
    await poll();
    const list = (await answered(srv, '/api/sessions')).body.sessions.filter((s) => s.id !== 1);
    return list.length === PEERS && list.every((s) => s.refused.memory > 0 && s.state === 'live') && list;
  }, { timeoutMs: 120000, everyMs: 200 });
  const config = (await answered(srv, '/api/config')).body.memory;
  assert.equal(config.max, BUDGET_MIB * 1048576);
  assert.equal(config.connected_sessions, PEERS + 1);
  assert.ok(config.held <= config.max, `held ${config.held} within the budget`);
  for (const s of full) {
    const d = (await answered(srv, `/api/sessions/${s.id}`)).body;
    assert.ok(d.memory.held <= d.memory.share, `peer ${s.id} holds ${d.memory.held}, its share is ${d.memory.share}`);
    assert.ok(d.memory.refused.functions > 0, `peer ${s.id}: new functions refused and counted`);
    assert.equal(d.refused.memory, Object.values(d.memory.refused).reduce((a, b) => a + b, 0));
    assert.ok(s.counters.functions > 1000, `peer ${s.id} was let in up to its share (${s.counters.functions} functions)`);
  }

  // the app JITs a storm while the peers keep pushing
  srv.proc.stdin.write(`storm ${STORM}\n`);
  await waitFor('stormed', async () => { await poll(); return /^stormed /m.test(srv.stdout); }, { timeoutMs: 120000, everyMs: 200 });
  const stormed = await waitFor(`all ${STORM} storm methods in the app's session`, async () => {
    await poll();
    const r = (await answered(srv, '/api/sessions/1/functions?q=Storm.Combo&limit=1')).body;
    return r.total >= STORM && r;
  }, { timeoutMs: 60000, everyMs: 200 });
  assert.equal(stormed.total, STORM);
  const s1 = await waitFor('the agent reported its counters after the storm', async () => {
    const s = (await answered(srv, '/api/sessions/1')).body;
    return s.drops.produced > 0 && s.link.records > 0 && s;
  });
  assert.equal(s1.refused.memory, 0, 'the app\'s session refused nothing');
  assert.equal(s1.refused.inconsistent, 0);
  assert.equal(s1.drops.total, 0, 'the agent lost nothing');
  assert.equal(s1.link.seq_gaps, 0);
  assert.equal(s1.link.server_capacity_drops, 0);

  const metrics = await (await fetch(srv.url + '/metrics')).text();
  assert.match(metrics, new RegExp(`jitscope_memory_budget_bytes ${BUDGET_MIB * 1048576}\\n`));
  assert.match(metrics, /jitscope_session_records_refused_total\{session="2",[^}]*reason="memory"\} [1-9]/);

  for (const p of peers) p.kill('SIGKILL');
  clearInterval(sampler);
  const rss = worstRss;
  console.log(`budget: ${PEERS} peers, ${polls} polls, worst REST answer ${worstMs.toFixed(0)} ms, RSS ${baseline.toFixed(0)} -> worst ${rss.toFixed(0)} MiB (budget ${BUDGET_MIB} + margin ${MARGIN_MIB})`);
  assert.ok(rss <= BUDGET_MIB + MARGIN_MIB, `server RSS ${rss.toFixed(0)} MiB stays within ${BUDGET_MIB} + ${MARGIN_MIB} MiB`);

  // the stop and the database stay bounded too
  const t0 = performance.now();
  await srv.stop('SIGTERM');
  const stopMs = performance.now() - t0;
  const dbMib = fs.statSync(path.join(data, 'jitscope.db')).size / 1048576;
  console.log(`budget: SIGTERM to exit ${stopMs.toFixed(0)} ms, database ${dbMib.toFixed(0)} MiB`);
  assert.equal(srv.exit.code, 0, `a clean stop: ${JSON.stringify(srv.exit)}`);
  assert.ok(dbMib <= BUDGET_MIB + MARGIN_MIB, `database ${dbMib.toFixed(0)} MiB: what the sessions held, not what the peers sent`);
  assert.ok(stopMs < 10000, `stopped in ${stopMs.toFixed(0)} ms`);
});
