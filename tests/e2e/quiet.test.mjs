// quiet.test.mjs -- quiet means quiet: once its server is gone the agent asks
// the runtime for nothing, its tier source included (an EventPipe session that
// kept running would have the runtime format three verbose events per JIT for
// nobody), and starts it again with the next server; and a detach stops it
// before the agent leaves. The evidence is the app's own: E2eTarget's
// "tracing" asks the runtime provider's managed half whether any EventPipe
// session has the provider enabled (it is told of every session that enables
// or disables it).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startTarget, stopAll, waitFor, attach, detachAndWait, agentTrace, tempDataDir } from './lib.mjs';

after(stopAll);

// Asks the app and returns its answer: on, off or absent.
async function tracing(target) {
  const count = () => (target.out.match(/^tracing /mg) || []).length;
  const n = count();
  target.send('tracing');
  await waitFor('the app answers', () => count() > n);
  return /^tracing (\w+)$/m.exec(target.out.split('\n').filter((l) => l.startsWith('tracing ')).pop())[1];
}

const liveSession = (srv, id) => waitFor(`session ${id} live with its tier source on`, async () => {
  const s = (await srv.api(`/api/sessions/${id}`)).body;
  return s.state === 'live' && s.link.connected && s.tier_source.enabled === true && s;
}, { timeoutMs: 30000 });

for (const floor of [false, true]) {
  const env = floor ? { JITSCOPE_NULL: '1' } : {};
  test(`${floor ? 'floor: ' : ''}the tier source stops when the server is killed and starts again with the next server`, { timeout: 120000 }, async () => {
    const target = await startTarget(['serve']);
    assert.equal(await tracing(target), 'off', 'no session before the agent');
    const data = tempDataDir(); // the next server on the same data directory takes the session back
    const srv = await startServer(['serve', '--port', '0', '--data', data], { env });
    const r = await attach(srv, target.pid);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const id = r.body.session.id;
    await liveSession(srv, id);
    assert.equal(await tracing(target), 'on', 'the tier source runs while the server is there');
    // storage has the session (its header and its log) before the kill, so that
    // the next server knows it and takes its agent back
    await waitFor('the session committed', async () => {
      const st = (await srv.api('/api/config')).body.storage;
      return st.sessions_stored >= 1 && st.chunks >= 1 && st.backlog_bytes === 0;
    });

    await srv.stop('SIGKILL');
    // the agent notices the lost connection at its next poll (milliseconds); the
    // session's provider goes off with it
    await waitFor('the runtime provider off in the app', async () => (await tracing(target)) === 'off', { timeoutMs: 20000, everyMs: 50 });
    assert.ok(agentTrace(target.pid).mapped, 'the agent is still loaded (it waits for a server)');
    target.send('call 9'); // the app runs on meanwhile
    await target.waitLine(/^called 9 /m);

    const again = await startServer(['serve', '--port', '0', '--data', data], { env });
    const s = await liveSession(again, id); // taken back: the same session
    assert.equal(s.agent.floor, floor);
    assert.equal(await tracing(target), 'on', 'on again with the next server');
    if (!floor) assert.ok(s.catchup.quiet_ms > 0, `the catch-up says how long the agent was quiet: ${s.catchup.quiet_ms} ms`);

    // detach stops the tier source before the agent leaves
    await detachAndWait(again, id);
    await waitFor('unloaded', () => !agentTrace(target.pid).mapped, { timeoutMs: 10000 });
    assert.equal(await tracing(target), 'off', 'no session left behind by a detached agent');
    target.send('exit');
    await again.stop();
  });
}
