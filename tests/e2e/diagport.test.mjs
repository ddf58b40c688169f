// diagport.test.mjs -- listen mode (issue 36, item 2): `serve --diagnostic-port
// PATH[=APPPATH]`, E2eTarget in a container (tests/e2e/containers.mjs) started
// with DOTNET_DiagnosticPorts on a volume it shares with the server. In
// suspend mode its session holds the JIT of its Main (the agent is its startup
// profiler), in nosuspend mode it is attached; either way the app prints
// exactly what it prints alone; two runtimes on one port at once are two
// sessions; a volume the app sees at another path (PATH=APPPATH), in a
// container with a user namespace, works the same. server/diagport.c,
// dpwork.c, docs/CONTAINERS.md.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { JITSCOPE, functionsOf, startServer, startTarget, stopAll, storageCaughtUp, tempDataDir, waitFor } from './lib.mjs';
import { CONTAINER_SH, aloneOutput, sharedDir, startContainer, stopContainers, USERNS_UID } from './containers.mjs';

after(async () => { await stopContainers(); await stopAll(); });

// The port's record of the runtime that runs in container c (by its session).
async function portRecord(srv, sessionId) {
  return waitFor(`the port's record of session ${sessionId}`, async () => {
    const r = await srv.api('/api/diagnostic-port');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.runtimes.find((x) => x.session_id === sessionId && x.outcome !== 'working');
  }, { timeoutMs: 30000 });
}

// The session of the app in container c, once it exited.
async function sessionOf(srv, c) {
  return waitFor(`the session of ${c.hostname}`, async () => {
    const list = (await srv.api('/api/sessions')).body.sessions;
    const s = list.find((x) => x.container && x.container.hostname === c.hostname);
    return s && s.state === 'exited' && s;
  }, { timeoutMs: 30000 });
}

// What every session from the port shows: its container, Main's JIT seen live
// (suspend: the agent was there from the first method on) or not.
async function checkSession(srv, c, { suspend, userns = false }) {
  const s = await sessionOf(srv, c);
  assert.equal(s.mode, suspend ? 'port' : 'attach');
  assert.deepEqual(s.diagnostic_port, { suspend });
  assert.equal(s.container.hostname, c.hostname);
  assert.equal(s.container.id, c.id);
  assert.equal(s.container.pid, 1);
  assert.equal(s.container.user_namespace, userns);
  assert.equal(s.program, 'E2eTarget');
  const main = (await functionsOf(srv, s.id, '&q=Program.Main')).find((f) => f.name.startsWith('JitscopeE2e.Program.Main('));
  if (suspend) {
    assert.ok(main, 'the session holds Main');
    assert.equal(main.catchup, false, 'Main\'s JIT seen live: the agent came before it');
    assert.ok(main.jit_count >= 1);
  }
  const alpha = (await functionsOf(srv, s.id, '&q=UniqueAlpha'))[0];
  assert.ok(alpha, 'the scenario\'s methods are there');
  if (suspend) assert.equal(alpha.catchup, false);
  const rec = await portRecord(srv, s.id);
  assert.equal(rec.outcome, suspend ? 'startup' : 'attached', rec.reason);
  assert.equal(rec.suspended, suspend);
  // how soon is bench/portresume.mjs's (a time is not a test's): here, that it was resumed
  assert.ok(rec.resumed_ms !== null && rec.resumed_ms >= 0, `resumed: ${rec.resumed_ms}`);
  return { s, rec };
}

for (const suspend of [true, false]) {
  test(`${suspend ? 'suspend' : 'nosuspend'}: the app's session ${suspend ? 'holds its Main' : 'is attached'}, the app prints what it prints alone`, { timeout: 180000 }, async (t) => {
    // suspend: `run`, an app that ends as soon as it can (the agent is there
    // from its first method on); nosuspend: `serve`, ended once attached (an
    // app that does not wait for it may end before an attach could be made)
    const dir = sharedDir();
    const args = suspend ? ['run'] : ['serve'];
    const alone = await aloneOutput(args, { input: ['exit'] });
    assert.equal(alone.code, suspend ? 42 : 0, `E2eTarget ${args[0]}'s exit code`);
    const srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock`]);
    assert.match(srv.stderr, new RegExp(`diagnostic port ${dir}/port.sock`));
    const c = await startContainer(args, {
      ready: null, volumes: [`${dir}:${dir}`],
      env: { DOTNET_DiagnosticPorts: `${dir}/port.sock,${suspend ? 'suspend' : 'nosuspend'}` },
    });
    if (!suspend) {
      await waitFor(`the attached session of ${c.hostname}`, async () => (await srv.api('/api/sessions')).body.sessions
        .some((x) => x.container && x.container.hostname === c.hostname && x.state === 'live'), { timeoutMs: 60000 });
      c.send('exit');
    }
    const exit = await c.exited;
    assert.equal(exit.code, alone.code, c.err);
    assert.equal(c.out, alone.out, 'the app prints exactly what it prints alone');
    const { rec } = await checkSession(srv, c, { suspend });
    t.diagnostic(`resumed ${rec.resumed_ms.toFixed(1)} ms after its first connection`);
    await srv.stop();
    assert.deepEqual(fs.readdirSync(dir), [], 'the port and the agent\'s place go with the server');
  });
}

test('two runtimes on one port at once: two sessions, each with its container', { timeout: 180000 }, async () => {
  const dir = sharedDir();
  const alone = await aloneOutput(['run']);
  const srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock`]);
  const opts = { ready: null, volumes: [`${dir}:${dir}`], env: { DOTNET_DiagnosticPorts: `${dir}/port.sock` } };
  const [a, b] = await Promise.all([startContainer(['run'], opts), startContainer(['run'], opts)]);
  for (const c of [a, b]) {
    assert.equal((await c.exited).code, 42, c.err);
    assert.equal(c.out, alone.out);
  }
  const [sa, sb] = [await checkSession(srv, a, { suspend: true }), await checkSession(srv, b, { suspend: true })];
  assert.notEqual(sa.s.id, sb.s.id);
  const port = (await srv.api('/api/diagnostic-port')).body;
  assert.equal(port.runtimes.filter((r) => r.outcome === 'startup').length, 2);
  await srv.stop();
});

test('a volume the app sees elsewhere (PATH=APPPATH), in a container with a user namespace', { timeout: 180000 }, async () => {
  const dir = sharedDir(true); // the volume belongs to the container's root
  const alone = await aloneOutput(['run'], { userns: true });
  const srv = await startServer(['serve', '--port', '0', '--diagnostic-port', `${dir}/port.sock=/diag/port.sock`]);
  const port = (await srv.api('/api/diagnostic-port')).body;
  assert.equal(port.app_path, '/diag/port.sock');
  assert.equal(port.trusted_uid, USERNS_UID, 'the volume\'s owner is served');
  assert.equal(fs.statSync(`${dir}/port.sock`).uid, USERNS_UID, 'the port is its owner\'s');
  const c = await startContainer(['run'], {
    ready: null, userns: true, volumes: [`${dir}:/diag`],
    env: { DOTNET_DiagnosticPorts: '/diag/port.sock,suspend' },
  });
  assert.equal((await c.exited).code, 42, c.err);
  assert.equal(c.out, alone.out);
  await checkSession(srv, c, { suspend: true, userns: true });
  await srv.stop();
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('a server killed -9: the next one on its data directory takes the port\'s session back and knows its runtime', { timeout: 180000 }, async () => {
  const dir = sharedDir();
  const data = tempDataDir();
  const args = ['serve', '--port', '0', '--data', data, '--diagnostic-port', `${dir}/port.sock`];
  let srv = await startServer(args);
  const app = await startTarget(['serve'], { env: { DOTNET_DiagnosticPorts: `${dir}/port.sock,suspend` } });
  const s = await waitFor('its session live', async () =>
    (await srv.api('/api/sessions')).body.sessions.find((x) => x.state === 'live'), { timeoutMs: 30000 });
  await storageCaughtUp(srv);
  srv.proc.kill('SIGKILL');
  await srv.exited;
  srv = await startServer(args);
  await waitFor('taken back', async () => {
    const x = (await srv.api(`/api/sessions/${s.id}`)).body;
    return x.state === 'live' && x.stored.resumes >= 1;
  }, { timeoutMs: 30000 });
  const rec = await waitFor('its runtime known again', async () =>
    (await srv.api('/api/diagnostic-port')).body.runtimes.find((r) => r.outcome === 'known'), { timeoutMs: 30000 });
  assert.equal(rec.session_id, s.id);
  assert.equal(rec.connected, true);
  app.send('tick');
  await app.waitLine(/^tock 1$/m);
  await srv.stop();
});

test('a sidecar that shares only a volume: jitscope in a container of its own cannot see the app\'s process; the session ends with it', { timeout: 180000 }, async () => {
  const dir = sharedDir();
  const alone = await aloneOutput(['run']);
  // the server in its own mount and pid namespaces (a sidecar), the volume at /diag
  const srv = await startServer(['serve', '--port', '0', '--data', 'none', '--diagnostic-port', '/diag/port.sock'], {
    bin: '/jitscope/jitscope',
    prefix: [CONTAINER_SH, '--hostname', 'jitscope-sidecar', '--volume', `${dir}:/diag`,
      '--bind', `${JITSCOPE}:/jitscope/jitscope`, '--bind', `${path.dirname(JITSCOPE)}/libjitscope_agent.so:/jitscope/libjitscope_agent.so`, '--'],
  });
  const c = await startContainer(['run'], {
    ready: null, volumes: [`${dir}:/diag`],
    env: { DOTNET_DiagnosticPorts: '/diag/port.sock,suspend', HOSTNAME: 'shop-api-7c9d5-xk2lp' },
  });
  assert.equal((await c.exited).code, 42, c.err);
  assert.equal(c.out, alone.out);
  const s = await waitFor('its session ended with its process', async () => {
    const x = (await srv.api('/api/sessions')).body.sessions[0];
    return x && x.state === 'exited' && x;
  }, { timeoutMs: 30000 });
  assert.equal(s.pid, 0, 'the sidecar cannot see the process');
  assert.equal(s.mode, 'port');
  assert.deepEqual(s.container, { id: null, hostname: 'shop-api-7c9d5-xk2lp', pid: 1, user_namespace: false, uid: null });
  assert.equal(s.program, 'E2eTarget');
  const main = (await functionsOf(srv, s.id, '&q=Program.Main')).find((f) => f.name.startsWith('JitscopeE2e.Program.Main('));
  assert.ok(main && main.catchup === false, 'Main\'s JIT seen live');
  const rec = (await srv.api('/api/diagnostic-port')).body.runtimes[0];
  assert.equal(rec.pid, null);
  assert.equal(rec.outcome, 'startup');
  assert.equal(rec.connected, false, 'its held connection ended with it');
  await srv.stop();
});
