// attach.test.mjs -- attach to running .NET processes, catch up, watch live,
// detach without a trace (issue: attach, catch up, detach). Real runtime only.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { E2E_DLL, JITSCOPE, startServer, startTarget, stopAll, waitFor, functionsOf, agentTrace,
  agentLeft, attach, caughtUp, detachAndWait, runSync, sleep } from './lib.mjs';

after(stopAll);

const CAUGHT_UP = ['JitscopeE2e.Probe.UniqueAlpha()', 'JitscopeE2e.Probe.UniqueGeneric<System.Int32>(int)',
  'JitscopeE2e.Outer+Inner.UniqueNested()', 'JitscopeE2e.Box<System.Int64>.UniqueBoxGet()',
  'JitscopePlugin.PluginEntry.UniquePluginMethod()', 'JitscopeE2e.Probe.Calc(int, ref long)'];

test('attach catches up on what ran before, then streams new methods exactly once', async () => {
  const target = await startTarget();
  const srv = await startServer(['serve', '--port', '0']);
  const listing = (await srv.api('/api/processes')).body;
  assert.equal(listing.truncated, false, 'a handful of processes is listed in full');
  const procs = listing.processes;
  const listed = procs.find((p) => p.pid === target.pid);
  assert.ok(listed, 'the target is offered in /api/processes');
  assert.equal(listed.entry_assembly, 'E2eTarget');
  assert.match(listed.runtime_version, /^\d+\./);

  const r = await attach(srv, target.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  const s = await caughtUp(srv, id);
  assert.equal(s.mode, 'attach');
  assert.ok(s.catchup.functions >= CAUGHT_UP.length && s.catchup.modules >= 3, JSON.stringify(s.catchup));

  const fns = await functionsOf(srv, id);
  for (const name of CAUGHT_UP) {
    const f = fns.filter((x) => x.name === name);
    assert.equal(f.length, 1, `${name} from catch-up`);
    assert.equal(f[0].catchup, true);
    assert.ok(f[0].native_size > 0 && f[0].il_size > 0);
  }
  const mods = (await srv.api(`/api/sessions/${id}/modules`)).body.modules;
  assert.ok(mods.some((m) => m.assembly === 'E2ePlugin' && m.catchup && fs.existsSync(m.path)), 'plugin module caught up');
  const threads = (await srv.api(`/api/sessions/${id}/threads`)).body.threads;
  assert.ok(threads.some((t) => t.name === 'e2e-keeper' && t.alive && t.catchup), 'named thread caught up');

  for (const n of [5, 6, 7]) {
    target.send(`call ${n}`);
    const name = `JitscopeE2e.Late.LateMethod0${n}`;
    await waitFor(name, async () => (await functionsOf(srv, id, `&q=${name}`)).length > 0);
  }
  await sleep(300);
  for (const n of [5, 6, 7]) {
    const name = `JitscopeE2e.Late.LateMethod0${n}`;
    const f = await functionsOf(srv, id, `&q=${name}`);
    assert.equal(f.length, 1, `${name} exactly once`);
    assert.equal(f[0].catchup, false, `${name} came live`);
    assert.equal(f[0].jit_count, 1);
    assert.ok(f[0].jit_ns > 0);
  }
  const events = (await srv.api(`/api/sessions/${id}/events?limit=10000`)).body.events;
  assert.equal(events.filter((e) => e.type === 'jit' && /LateMethod0[567]\(\)$/.test(e.name || '')).length, 3,
    'one live jit event per new method');
  await detachAndWait(srv, id);
  await srv.stop();
});

test('detach leaves no trace and the app keeps running correctly', async () => {
  const target = await startTarget();
  const before = agentTrace(target.pid);
  const srv = await startServer(['serve', '--port', '0']);
  const r = await attach(srv, target.pid);
  assert.equal(r.status, 201);
  await caughtUp(srv, r.body.session.id);
  const during = agentTrace(target.pid);
  assert.ok(during.mapped && during.agentThreads === 1, 'agent loaded while attached');
  const s = await detachAndWait(srv, r.body.session.id);
  assert.ok(s.detach.duration_ms > 0 && s.detach.duration_ms < 10000, `detach took ${s.detach.duration_ms} ms`);
  await agentLeft(target.pid, before);
  target.send('call 9');
  await target.waitLine(/^called 9 -?\d+$/m);
  target.send('tick');
  await target.waitLine(/^tock 1$/m);
  // the data stays readable after detach
  assert.ok((await functionsOf(srv, r.body.session.id)).length > 0);
  assert.equal((await srv.api(`/api/sessions/${r.body.session.id}`)).body.state, 'detached');
  await srv.stop();
});

test('20 attach/detach cycles on one process: no growth, output unaffected', async () => {
  const plain = runSync('dotnet', [E2E_DLL, 'serve'], {
    input: Array.from({ length: 20 }, (_, i) => `call ${i + 1}`).join('\n') + '\nexit\n',
  });
  const expected = plain.stdout.split('\n').filter((l) => l.startsWith('called '));
  assert.equal(expected.length, 20);
  const target = await startTarget();
  const srv = await startServer(['serve', '--port', '0']);
  const samples = [];
  for (let i = 1; i <= 20; i++) {
    const r = await attach(srv, target.pid);
    assert.equal(r.status, 201, `cycle ${i}: ${JSON.stringify(r.body)}`);
    const id = r.body.session.id;
    await caughtUp(srv, id);
    target.send(`call ${i}`);
    const name = `JitscopeE2e.Late.LateMethod${String(i).padStart(2, '0')}`;
    await waitFor(`${name} in cycle ${i}`, async () => (await functionsOf(srv, id, `&q=${name}`)).length === 1);
    await detachAndWait(srv, id);
    const t = await waitFor('unloaded', () => { const x = agentTrace(target.pid); return !x.mapped && x; });
    assert.equal(t.agentThreads, 0, `cycle ${i}: no agent thread`);
    samples.push(t);
  }
  const first = samples[1], last = samples[19];
  console.log(`cycles: threads ${samples.map((s) => s.threadCount).join(',')}; fds ${samples.map((s) => s.fds.length).join(',')}; rss MB ${samples.map((s) => (s.rssKb / 1024).toFixed(1)).join(',')}`);
  assert.ok(last.threadCount <= first.threadCount + 1, `threads ${first.threadCount} -> ${last.threadCount}`);
  assert.equal(last.fds.length, first.fds.length, 'fd count stable');
  assert.ok(last.rssKb - first.rssKb < 12 * 1024, `RSS grew ${(last.rssKb - first.rssKb) / 1024} MB over 18 cycles`);
  const got = target.out.split('\n').filter((l) => l.startsWith('called '));
  assert.deepEqual(got, expected, 'the app computed the same results as without jitscope');
  await srv.stop();
});

test('refusals: already attached (409), not .NET / missing (404), other user (403), all quick', async () => {
  const target = await startTarget();
  const srv = await startServer(['serve', '--port', '0']);
  const first = await attach(srv, target.pid);
  assert.equal(first.status, 201);
  const id = first.body.session.id;
  await caughtUp(srv, id);

  const timed = async (pid) => { const t0 = Date.now(); const r = await attach(srv, pid); return { ...r, ms: Date.now() - t0 }; };
  const again = await timed(target.pid);
  assert.equal(again.status, 409);
  assert.match(again.body.error, /already attached by jitscope session/);
  const notDotnet = await timed(process.pid);
  assert.equal(notDotnet.status, 404, JSON.stringify(notDotnet.body));
  const missing = await timed(4000000);
  assert.equal(missing.status, 404);
  const bad = await srv.api('/api/processes/abc/attach', { method: 'POST' });
  assert.equal(bad.status, 400);

  const other = await startTarget(['serve'], {
    prefix: ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'],
    env: { HOME: '/tmp', DOTNET_CLI_HOME: '/tmp' },
  });
  const foreign = await timed(other.pid);
  assert.equal(foreign.status, 403, JSON.stringify(foreign.body));
  assert.ok(!(await srv.api('/api/processes')).body.processes.some((p) => p.pid === other.pid),
    'other users\' processes are not offered');
  for (const r of [again, notDotnet, missing, foreign]) assert.ok(r.ms < 2000, `answered in ${r.ms} ms`);

  // the first session is untouched and still streams
  const s = (await srv.api(`/api/sessions/${id}`)).body;
  assert.equal(s.state, 'live');
  assert.equal(s.link.connected, true);
  target.send('call 11');
  await waitFor('LateMethod11', async () => (await functionsOf(srv, id, '&q=LateMethod11')).length === 1);
  assert.equal((await srv.api('/api/sessions')).body.sessions.length, 1, 'failed attaches left no sessions');
  await detachAndWait(srv, id);
  await srv.stop();
});

test('server killed while attached: the app runs on, the agent leaves, a new server attaches', async () => {
  // the agent gives up on a dead server after JITSCOPE_GIVE_UP_MS (60 s by default; here 5 s)
  const target = await startTarget(['serve'], { env: { JITSCOPE_GIVE_UP_MS: '5000' } });
  const srv1 = await startServer(['serve', '--port', '0']);
  const r = await attach(srv1, target.pid);
  assert.equal(r.status, 201);
  await caughtUp(srv1, r.body.session.id);
  await srv1.stop('SIGKILL');
  target.send('tick');
  await target.waitLine(/^tock 1$/m);
  const t0 = Date.now();
  await waitFor('orphaned agent detaches itself', () => !agentTrace(target.pid).mapped, { timeoutMs: 30000, everyMs: 200 });
  console.log(`orphaned agent left after ${Date.now() - t0} ms`);
  assert.equal(agentTrace(target.pid).agentThreads, 0);
  const srv2 = await startServer(['serve', '--port', '0']);
  const again = await attach(srv2, target.pid);
  assert.equal(again.status, 201, JSON.stringify(again.body));
  target.send('call 12');
  await waitFor('LateMethod12', async () => (await functionsOf(srv2, again.body.session.id, '&q=LateMethod12')).length === 1);
  await detachAndWait(srv2, again.body.session.id);
  target.send('tick');
  await target.waitLine(/^tock 2$/m);
  await srv2.stop();
});

test('detach works for a session started with jitscope run', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live');
  const pid = (await srv.api('/api/sessions/1')).body.pid;
  await waitFor('READY', () => /^READY$/m.test(srv.stdout));
  await detachAndWait(srv, 1);
  await waitFor('unloaded', () => !agentTrace(pid).mapped);
  assert.equal(agentTrace(pid).agentThreads, 0);
  srv.proc.stdin.write('tick\n');
  await waitFor('tock', () => /^tock 1$/m.test(srv.stdout));
  srv.proc.stdin.write('exit\n');
  await waitFor('exited', async () => (await srv.api('/api/sessions/1')).body.exit_code === 0, { timeoutMs: 30000 });
  await srv.stop();
});

test('command line: ps, attach --server, detach PID', async () => {
  const target = await startTarget();
  const srv = await startServer(['serve', '--port', '0']);
  const ps = runSync(JITSCOPE, ['ps']);
  assert.equal(ps.status, 0);
  assert.match(ps.stdout, new RegExp(`^${target.pid}\\s+\\d+\\.\\d+\\S*\\s+E2eTarget`, 'm'));
  const a = runSync(JITSCOPE, ['attach', String(target.pid), '--server', srv.url]);
  assert.equal(a.status, 0, a.stderr);
  assert.match(a.stdout, /attached to pid \d+: session 1/);
  const again = runSync(JITSCOPE, ['attach', String(target.pid), '--server', srv.url]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already attached/);
  const d = runSync(JITSCOPE, ['detach', String(target.pid), '--server', srv.url]);
  assert.equal(d.status, 0, d.stderr);
  assert.match(d.stdout, /session 1 detached in [\d.]+ ms/);
  const none = runSync(JITSCOPE, ['detach', '99', '--server', srv.url]);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /no session 99/);
  await srv.stop();
});

test('a process with another TMPDIR is found and attached; an unloadable agent gives 500 with its path', async () => {
  const tmp = fs.mkdtempSync('/tmp/jitscope-othertmp-');
  const target = await startTarget(['serve'], { env: { TMPDIR: tmp } });
  try {
    assert.ok(fs.readdirSync(tmp).some((f) => f.startsWith(`dotnet-diagnostic-${target.pid}-`)),
      'the runtime put its socket in its own TMPDIR');
    // a "library" the runtime cannot load: the attach fails cleanly, nothing is left behind
    const bogus = path.join(tmp, 'not-a-library.so');
    fs.writeFileSync(bogus, 'this is not an ELF file\n');
    const bad = await startServer(['serve', '--port', '0', '--agent', bogus]);
    const r = await attach(bad, target.pid);
    assert.equal(r.status, 500, JSON.stringify(r.body));
    assert.ok(r.body.error.includes(bogus), `the message names the library: ${r.body.error}`);
    assert.equal((await bad.api('/api/sessions')).body.sessions.length, 0, 'no half-made session');
    await bad.stop();

    const srv = await startServer(['serve', '--port', '0']);
    const listed = (await srv.api('/api/processes')).body.processes.find((p) => p.pid === target.pid);
    assert.ok(listed, 'found although its TMPDIR differs from the server\'s');
    const ok = await attach(srv, target.pid);
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    target.send('call 30');
    await waitFor('LateMethod30', async () => (await functionsOf(srv, ok.body.session.id, '&q=LateMethod30')).length === 1);
    await detachAndWait(srv, ok.body.session.id);
    await srv.stop();
  } finally {
    target.send('exit');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
