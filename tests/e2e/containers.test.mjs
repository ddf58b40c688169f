// containers.test.mjs -- attaching into containers (issue 36, item 1): E2eTarget
// runs in a container made as an image would run (tests/e2e/containers.mjs),
// without and with a user namespace whose root is an unprivileged user of the
// host. `jitscope ps` and GET /api/processes list it with its container (id
// from its cgroup, hostname, pid inside); attach (the agent copied into the
// container's /tmp, the socket beside it), catch-up, a stack snapshot, a
// method's code, a CPU profile and detach work; afterwards nothing of jitscope
// is in the container's /tmp and no mapping, thread or fd of the agent in the
// process; attaching again works. server/agentplace.c, docs/CONTAINERS.md.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { JITSCOPE, agentLeft, agentTrace, attach, caughtUp, functionsOf, startServer, stopAll, waitFor } from './lib.mjs';
import { jitscopeInTmp, startContainer, stopContainers } from './containers.mjs';

after(async () => { await stopContainers(); await stopAll(); });

const post = (srv, p, body) => srv.api(p, body === undefined ? { method: 'POST' } : {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
});

// The row of `jitscope ps` for pid: { container, hostname, cpid, agent }.
function psRow(pid) {
  const r = spawnSync(JITSCOPE, ['ps'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const header = r.stdout.split('\n')[0];
  assert.match(header, /CONTAINER\s+HOSTNAME\s+CPID/, 'ps names the container columns');
  const line = r.stdout.split('\n').find((l) => l.startsWith(`${pid} `));
  assert.ok(line, `ps lists pid ${pid}:\n${r.stdout}`);
  const f = line.split(/\s+/);
  return { agent: f[3], container: f[4], hostname: f[5], cpid: f[6] };
}

async function detached(srv, id) {
  const r = await post(srv, `/api/sessions/${id}/detach`);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return waitFor('detached', async () => (await srv.api(`/api/sessions/${id}`)).body.state === 'detached', { timeoutMs: 30000 });
}

for (const userns of [false, true]) {
  const kind = userns ? 'with a user namespace' : 'without a user namespace';
  test(`a container ${kind}: listed with its container, attach, catch-up, stacks, code, CPU profile, detach, nothing left, attach again`, { timeout: 240000 }, async (t) => {
    const c = await startContainer(['serve'], { userns });
    const container = { id: c.id, hostname: c.hostname, pid: 1, user_namespace: userns, uid: 0 };

    const row = psRow(c.pid);
    assert.deepEqual(row, { agent: '-', container: c.id.slice(0, 12), hostname: c.hostname, cpid: '1' });
    const srv = await startServer(['serve', '--port', '0']);
    const listed = (await srv.api('/api/processes')).body.processes.find((p) => p.pid === c.pid);
    assert.ok(listed, 'GET /api/processes lists it');
    assert.deepEqual(listed.container, container);
    assert.equal(listed.command_line, '/usr/share/dotnet/dotnet /app/E2eTarget.dll serve');

    const before = agentTrace(c.pid);
    for (let round = 1; round <= 2; round++) {
      const t0 = performance.now();
      const r = await attach(srv, c.pid);
      const attachMs = performance.now() - t0;
      assert.equal(r.status, 201, JSON.stringify(r.body));
      t.diagnostic(`attach ${round} into the container ${kind}: ${attachMs.toFixed(0)} ms`);
      const id = r.body.session.id;
      assert.deepEqual(r.body.session.container, container, 'the session says which container');
      // the agent's place: a private directory of the container's root user in its /tmp
      const files = jitscopeInTmp(c);
      assert.equal(files.length, 3, files.join(', '));
      assert.ok(files.some((f) => /\/libjitscope_agent-[0-9a-f]{16}\.so$/.test(f)), files.join(', '));
      assert.ok(files.some((f) => f.endsWith('/agent.sock')), files.join(', '));
      assert.equal(psRow(c.pid).agent, 'loaded');

      const s = await caughtUp(srv, id);
      assert.equal(s.state, 'live');
      const alpha = await functionsOf(srv, id, '&q=UniqueAlpha');
      assert.equal(alpha.length, 1, 'the catch-up lists what ran before the attach');
      // a live JIT, then its code read from the process
      c.send(`call ${round}`);
      await c.waitLine(new RegExp(`^called ${round} `, 'm'));
      const late = await waitFor('the live JIT', async () => (await functionsOf(srv, id, `&q=LateMethod0${round}`))[0]);
      const code = await srv.api(`/api/sessions/${id}/functions/${late.function_id}/code`);
      assert.equal(code.status, 200, JSON.stringify(code.body));
      assert.ok(code.body.versions.length >= 1 && code.body.versions[0].instructions.length > 0, 'its code');
      const snap = await post(srv, `/api/sessions/${id}/stacks`);
      assert.equal(snap.status, 201, JSON.stringify(snap.body));
      assert.ok(snap.body.snapshot.threads.length >= 1, 'a stack snapshot');
      if (round === 1) {
        const cfg = (await srv.api('/api/config')).body.cpu_profiling;
        assert.equal(cfg.available, true, `CPU profiles are not possible on this machine: ${cfg.reason}`);
        const start = await post(srv, `/api/sessions/${id}/profile`, { hz: 499, mode: 'cpu' });
        assert.equal(start.status, 202, JSON.stringify(start.body));
        // the sampler follows the process's threads once it runs (202: accepted):
        // storm after that, or a loaded machine can finish the storm first
        await waitFor('the CPU sampler following the container\'s threads', async () => {
          const p = (await srv.api(`/api/sessions/${id}/profile?format=json`)).body.profile;
          return p.state === 'running' && p.cpu && p.cpu.threads > 0;
        }, { timeoutMs: 30000 });
        c.send('storm 4000'); // CPU time to sample
        await c.waitLine(/^stormed /m, 60000);
        assert.equal((await post(srv, `/api/sessions/${id}/profile/stop`)).status, 200);
        const prof = await waitFor('the profile stopped', async () => {
          const p = (await srv.api(`/api/sessions/${id}/profile?format=json`)).body;
          return p.profile.state === 'stopped' && p;
        });
        assert.equal(prof.profile.mode, 'cpu');
        const samples = prof.threads.reduce((n, th) => n + th.samples, 0);
        assert.ok(samples > 0, `CPU samples of the container's threads: ${samples}`);
      }
      await detached(srv, id);
      await agentLeft(c.pid, before, 30000);
      await waitFor('nothing of jitscope in the container\'s /tmp', () => jitscopeInTmp(c).length === 0, { timeoutMs: 15000 });
      assert.equal(psRow(c.pid).agent, '-');
    }
    c.send('tick');
    await c.waitLine(/^tock /m);
    await srv.stop();
    assert.deepEqual(jitscopeInTmp(c), []);
    await c.stop();
  });
}
