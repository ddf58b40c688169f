// stacktarget.mjs -- StackTarget (tests/apps/StackTarget: threads with known stacks,
// "deep" 25 x Recurse, "spinner" hot in Spin.Outer -> Spin.Inner, "sleeper") started
// the ways the stacks, CPU profile, storage, GC and flame graph tests start it, once
// for them all: under `jitscope run` until it printed READY and its session is live
// (e2e, through lib.mjs), on its own for an attach, and under `jitscope run` for a
// browser test (through tests/browser/helpers.mjs, loaded only then).
import assert from 'node:assert/strict';
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
