// containers_errors.test.mjs -- what an attach into a container cannot do, said
// clearly, with nothing left behind (issue 36, item 1): a read-only /tmp (from
// the start, or turned read-only), a full one, a seccomp filter that forbids
// what the agent needs, a container whose user namespace the server's user
// may not enter; and what a server restart does with what a server left in a
// container: taken back (same data directory) or removed at start; and a
// process in a mount namespace of its own that shares the server's /tmp is not
// taken for a container (its leftovers are the live servers' own directories).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BUILD, agentLeft, agentTrace, attach, caughtUp, startServer, startTarget, stopAll, storageCaughtUp, tempDataDir, waitFor } from './lib.mjs';
import { asUser, jitscopeInTmp, startContainer, stopContainers } from './containers.mjs';

after(async () => { await stopContainers(); await stopAll(); });

const DENYSYS = path.join(BUILD, 'tests/denysys');

// The app runs on, untouched: it still answers.
async function stillRuns(c, n) {
  c.send('tick');
  await c.waitLine(new RegExp(`^tock ${n}$`, 'm'));
}

test('a read-only /tmp: from the start (no diagnostics socket) and turned read-only (no room for the agent): said, nothing written', { timeout: 120000 }, async () => {
  const srv = await startServer(['serve', '--port', '0', '--data', 'none']);
  const ro = await startContainer(['serve'], { tmpRo: true });
  let r = await attach(srv, ro.pid);
  assert.equal(r.status, 404, JSON.stringify(r.body));
  assert.match(r.body.error, /temp directory .* is read-only, so its runtime could not make its diagnostics socket there: give the process \(its container\) a writable \/tmp/);
  await stillRuns(ro, 1);

  const later = await startContainer(['serve']);
  const remount = spawnSync('nsenter', ['-t', String(later.pid), '-m', 'mount', '-o', 'remount,ro', '/tmp'], { encoding: 'utf8' });
  assert.equal(remount.status, 0, remount.stderr);
  r = await attach(srv, later.pid);
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.match(r.body.error, /temp directory is read-only .* give the container a writable \/tmp/);
  assert.deepEqual(jitscopeInTmp(later), []);
  assert.equal(agentTrace(later.pid).mapped, false);
  await stillRuns(later, 1);
  assert.deepEqual((await srv.api('/api/sessions')).body.sessions, [], 'no session was kept');
  await srv.stop();
});

test('a full /tmp: 507 naming it, no part of the copy left', { timeout: 120000 }, async () => {
  const srv = await startServer(['serve', '--port', '0', '--data', 'none']);
  const c = await startContainer(['serve'], { tmpSize: '256k' });
  const r = await attach(srv, c.pid);
  assert.equal(r.status, 507, JSON.stringify(r.body));
  assert.match(r.body.error, /temp directory is full .* the agent library \(\d+ bytes\) does not fit/);
  assert.deepEqual(jitscopeInTmp(c), []);
  assert.equal(agentTrace(c.pid).mapped, false);
  await stillRuns(c, 1);
  await srv.stop();
});

test('a seccomp filter that forbids connect(): the attach says so; the agent leaves by itself, nothing stays in /tmp', { timeout: 120000 }, async () => {
  assert.ok(fs.existsSync(DENYSYS), `${DENYSYS} (make build/tests/denysys)`);
  const srv = await startServer(['serve', '--port', '0', '--data', 'none']);
  const c = await startContainer(['serve'], { prefix: [DENYSYS, 'connect'], env: { JITSCOPE_GIVE_UP_MS: '2000' } });
  const before = agentTrace(c.pid);
  const r = await attach(srv, c.pid);
  assert.equal(r.status, 504, JSON.stringify(r.body));
  assert.match(r.body.error, /never connected to jitscope.*runs under \d+ seccomp filter\(s\).*allow them in the container's seccomp profile/);
  await waitFor('nothing of jitscope in its /tmp', () => jitscopeInTmp(c).length === 0, { timeoutMs: 15000 });
  await agentLeft(c.pid, before, 60000); // it gave up (JITSCOPE_GIVE_UP_MS) and detached itself
  await stillRuns(c, 1);
  await srv.stop();
});

test('a user namespace the server\'s user may not enter: 403 saying whose it is and what to do', { timeout: 120000 }, async () => {
  const c = await startContainer(['serve'], { userns: true });
  // the server as an unprivileged user: the container's namespace is root's
  const srv = await startServer(['serve', '--port', '0', '--data', 'none'], {
    prefix: ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'], env: { HOME: '/tmp' },
  });
  assert.ok(!(await srv.api('/api/processes')).body.processes.some((p) => p.pid === c.pid), 'not listed');
  const r = await attach(srv, c.pid);
  assert.equal(r.status, 403, JSON.stringify(r.body));
  assert.match(r.body.error, /runs in a user namespace of its own \(it is uid 100000 here, uid 0 inside\) that jitscope, running as uid 65534, may not enter: run jitscope as root, or as the user who started its container/);
  assert.deepEqual(jitscopeInTmp(c), []);
  await srv.stop();
});

// A rootless container (a user namespace made by an unprivileged user) and
// jitscope run by that same user: its root is that user, so jitscope gives it
// files without being root. Servers of other users (root's, in the tests run
// beside this one) leave that user's containers alone: what a server left in
// it is this test's to see.
const ROOTLESS_UID = 4242;

test('rootless: jitscope as the container\'s user; killed, the next server on its data directory takes the session back; one without takes the leftover away', { timeout: 180000 }, async () => {
  const data = tempDataDir();
  fs.chownSync(data, ROOTLESS_UID, ROOTLESS_UID);
  const asIt = { prefix: asUser(ROOTLESS_UID), env: { HOME: '/tmp' } };
  const c = await startContainer(['serve'], { rootless: ROOTLESS_UID });
  const before = agentTrace(c.pid);
  let srv = await startServer(['serve', '--port', '0', '--data', data], asIt);
  const listed = (await srv.api('/api/processes')).body.processes.find((p) => p.pid === c.pid);
  assert.ok(listed, 'its user lists its container\'s process');
  assert.deepEqual(listed.container, { id: null, hostname: c.hostname, pid: 1, user_namespace: true, uid: 0 });
  let r = await attach(srv, c.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  await caughtUp(srv, id);
  await storageCaughtUp(srv); // its header is on disk
  srv.proc.kill('SIGKILL');
  await srv.exited;
  assert.equal(jitscopeInTmp(c).length, 3, 'a killed server cannot clean up');
  srv = await startServer(['serve', '--port', '0', '--data', data], asIt);
  const back = await waitFor('taken back', async () => {
    const s = (await srv.api(`/api/sessions/${id}`)).body;
    return s.state === 'live' && s.stored.resumes >= 1 && s;
  }, { timeoutMs: 30000 });
  assert.equal(back.container.hostname, c.hostname);
  assert.equal((await srv.api(`/api/sessions/${id}/detach`, { method: 'POST' })).status, 202);
  await waitFor('detached', async () => (await srv.api(`/api/sessions/${id}`)).body.state === 'detached', { timeoutMs: 30000 });
  await agentLeft(c.pid, before, 30000);
  await waitFor('nothing left', () => jitscopeInTmp(c).length === 0, { timeoutMs: 15000 });
  await srv.stop();

  // a server without storage, killed: its directory stays until a server starts
  srv = await startServer(['serve', '--port', '0', '--data', 'none'], asIt);
  r = await attach(srv, c.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  srv.proc.kill('SIGKILL');
  await srv.exited;
  assert.equal(jitscopeInTmp(c).length, 3);
  const next = await startServer(['serve', '--port', '0', '--data', 'none'], asIt);
  await waitFor('the leftover removed at start', () => jitscopeInTmp(c).length === 0, { timeoutMs: 15000 });
  assert.match(next.stderr, /removed \/proc\/\d+\/root\/tmp\/jitscope-\S+, left by a server before/);
  await next.stop();
});

test('a process with a mount namespace of its own but the server\'s /tmp is no container: a starting server keeps its own socket directory and the others\'', { timeout: 120000 }, async () => {
  // unshare -m without a root of its own: its temp directory is the host's
  const target = await startTarget(['serve'], { prefix: ['unshare', '--mount', '--propagation', 'private', '--'] });
  assert.notEqual(fs.readlinkSync(`/proc/${target.pid}/ns/mnt`), fs.readlinkSync('/proc/self/ns/mnt'), 'a mount namespace of its own');
  const first = await startServer(['serve', '--port', '0']);
  // the second one's start looks for leftovers in the temp directories of processes in other mount namespaces
  const second = await startServer(['serve', '--port', '0']);
  for (const srv of [first, second]) {
    assert.ok(fs.statSync(srv.socket).isSocket(), `${srv.socket} is still there`);
    assert.doesNotMatch(srv.stderr, /left by a server before/);
  }
  // and the second one works: it attaches the process
  const r = await attach(second, target.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  await caughtUp(second, r.body.session.id);
  target.send('exit');
  await first.stop();
  await second.stop();
});
