// stacktarget.mjs -- StackTarget (tests/apps/StackTarget: threads with known stacks,
// "deep" 25 x Recurse, "spinner" hot in Spin.Outer -> Spin.Inner, "sleeper") started
// the ways the stacks, CPU profile, storage, GC and flame graph tests start it, once
// for them all: under `jitscope run` until it printed READY and its session is live
// (e2e, through lib.mjs), on its own for an attach, and under `jitscope run` for a
// browser test (through tests/browser/helpers.mjs, loaded only then).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STACK_DLL, startServer, startTarget, waitFor } from './lib.mjs';

// What StackTarget prints once its threads are in place (stacks mode); park mode adds
// " threads=N".
export const STACK_READY = /^READY pid=(\d+)$/m;

// `jitscope run [args] -- dotnet StackTarget.dll <appArgs>` (or `-- <exe> <appArgs>`, a
// self-contained StackTarget): resolves { srv, pid, session } once the app printed READY
// and session 1 is live, the app that printed READY. env, prefix: lib.mjs startServer's.
export async function runStackTarget({
  appArgs = ['stacks'], args = [], exe = null, env = {}, prefix = [],
  readyMs = 60000, liveMs = 30000, everyMs = 50,
} = {}) {
  const app = exe ? [exe] : ['dotnet', STACK_DLL];
  const srv = await startServer(['run', '--port', '0', ...args, '--', ...app, ...appArgs], { env, prefix });
  await waitFor('StackTarget READY', () => STACK_READY.test(srv.stdout), { timeoutMs: readyMs, everyMs });
  const session = await waitFor('live session', async () => {
    const s = (await srv.api('/api/sessions/1')).body;
    return s.state === 'live' && s;
  }, { timeoutMs: liveMs, everyMs });
  const pid = Number(STACK_READY.exec(srv.stdout)[1]);
  assert.equal(session.pid, pid, 'the session is the app that printed READY');
  return { srv, pid, session };
}

// StackTarget in stacks mode without the agent (to attach to): lib.mjs startTarget's
// target once it printed READY. env: more environment for it.
export function startStackTarget({ env = {} } = {}) {
  return startTarget(['stacks'], { dll: STACK_DLL, ready: STACK_READY, env });
}

// For the browser tests: tests/browser/helpers.mjs startServer of StackTarget (its own
// process group, the app's stdin a pipe: srv.send) once the app printed `ready`; the
// server is stopped again when that does not happen. args, prefix: startServer's.
export async function serveStackTarget({
  appArgs = ['stacks', '600'], args = [], prefix = [], ready = /^READY pid=\d+/m,
} = {}) {
  const { startServer: startBrowserServer, stopServer, waitForOutput } = await import('../browser/helpers.mjs');
  const srv = await startBrowserServer({ dll: STACK_DLL, appArgs, args, prefix, stdin: true });
  try {
    await waitForOutput(srv, ready, 60000);
  } catch (e) {
    await stopServer(srv);
    throw e;
  }
  return srv;
}

// The source line of each method's "// HOT LINE <Method>" marker in StackTarget's
// Hot.cs (hotline mode): { Work: { line, text }, ... }, lines counted from 1.
export function hotLines() {
  const file = new URL('../apps/StackTarget/Hot.cs', import.meta.url);
  const at = {};
  readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
    const m = /\/\/ HOT LINE (\w+)$/.exec(text);
    if (m) at[m[1]] = { line: i + 1, text };
  });
  return at;
}

// For the browser tests of the Code tab's heat and lines: StackTarget's "hotline"
// mode served (serveStackTarget), Hot.Work at Tier1, then a 999 Hz CPU profile until
// enough(srv, work) holds, stopped. Resolves { srv, work } (work: Hot.Work's row of
// /functions); the server is stopped again when any step fails.
export async function serveHotWork({ what, enough }) {
  const { apiGet, fetchChecked, stopServer } = await import('../browser/helpers.mjs');
  const srv = await serveStackTarget({ appArgs: ['hotline'] });
  try {
    const work = await waitFor('Hot.Work at Tier1', async () => {
      const f = (await apiGet(srv, '/api/sessions/1/functions?q=Hot.Work(')).body.functions[0];
      return f && f.tiers.some((t) => t.tier === 'Tier1') && f;
    }, { timeoutMs: 60000, everyMs: 200 });
    const start = await fetchChecked(`${srv.url}/api/sessions/1/profile`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hz: 999, mode: 'cpu' }),
    });
    assert.equal(start.status, 202);
    await waitFor(what, () => enough(srv, work), { timeoutMs: 120000, everyMs: 500 });
    assert.equal((await fetchChecked(`${srv.url}/api/sessions/1/profile/stop`, { method: 'POST' })).status, 200);
    return { srv, work };
  } catch (e) {
    await stopServer(srv);
    throw e;
  }
}

// A CPU profile (999 Hz) of session 1 until each of the app's threads named in
// `threads` had `seconds` of CPU time more, then stopped (e2e: srv.api).
export async function cpuProfileFor(srv, pid, { threads = ['hotwork', 'hotosr'], seconds = 1.5 } = {}) {
  const { threadOf, cpuSeconds } = await import('./lib.mjs');
  const post = (p, body) => srv.api(p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const tids = threads.map((n) => threadOf(pid, n));
  const cpu0 = tids.map((t) => cpuSeconds(pid, t));
  const start = await post('/api/sessions/1/profile', { hz: 999, mode: 'cpu' });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  await waitFor(`${seconds} s of CPU time on each of ${threads}`, () =>
    tids.every((t, i) => cpuSeconds(pid, t) - cpu0[i] >= seconds), { timeoutMs: 120000, everyMs: 100 });
  assert.equal((await post('/api/sessions/1/profile/stop', {})).status, 200);
  await waitFor('profile stopped', async () =>
    (await srv.api('/api/sessions/1/profile')).body.profile.state === 'stopped', { timeoutMs: 30000 });
}
