// cli.test.mjs -- what `jitscope` tells a user and a script (issue 26, items 4
// and 10): `run --exit` stops once the app has ended and its session is stored,
// with the app's exit code (128 + N for signal N); without --exit a SIGINT or
// SIGTERM still answers with the app's code once it has ended; a program given
// without "--" gets the command line that has it; `attach PID` checks the
// process before it starts a server or makes a data directory; a second
// server's refusal names the live server that has the process (or says its
// server is gone); the processes table never offers a stored session as a
// running process's own; `make run DATA=DIR` passes --data, and the lock
// error says so.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, JITSCOPE, E2E_DLL, startServer, startTarget, attach, stopAll, waitFor, runSync, tempDataDir, functionsOf, agentTrace } from './lib.mjs';

const leftovers = new Set(); // processes a killed server left behind
after(async () => {
  await stopAll();
  for (const pid of leftovers) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
});

// The methods E2eTarget's "run" scenario JITs (startup.test.mjs checks them in detail).
const UNIQUE = [
  'JitscopeE2e.Probe.UniqueAlpha()',
  'JitscopeE2e.Outer+Inner.UniqueNested()',
  'JitscopeE2e.Box<System.Int64>.UniqueBoxGet()',
  'JitscopePlugin.PluginEntry.UniquePluginMethod()',
  '[dynamic] JitscopeE2eDynamicAdd(long, int)',
];
const launchedPid = (srv) => Number(/started pid (\d+)/.exec(srv.stderr)[1]);

// Runs `jitscope ARGS` to its end (startServer is for servers that wait to be stopped).
function runToEnd(args) {
  return new Promise((resolve) => {
    const proc = spawn(JITSCOPE, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const r = { stdout: '', stderr: '' };
    proc.stdout.on('data', (d) => { r.stdout += d; });
    proc.stderr.on('data', (d) => { r.stderr += d; });
    proc.on('close', (code, signal) => resolve({ ...r, code, signal }));
  });
}
const sessionOf = async (srv, id) => (await srv.api(`/api/sessions/${id}`)).body;

test('run --exit: stops once the app has ended and its session is stored, with the app\'s exit code', async () => {
  const data = tempDataDir();
  const r = await runToEnd(['run', '--exit', '--port', '0', '--data', data, '--', 'dotnet', E2E_DLL, 'run']);
  assert.deepEqual([r.code, r.signal], [42, null], `jitscope's exit (no signal sent: it stops by itself)\n${r.stderr}`);
  assert.match(r.stdout, /dashboard at/);
  assert.match(r.stderr, /the app has ended \(--exit\)/);
  assert.match(r.stderr, /exit code 42 \(the app's\)/);

  // everything is on disk: a new server reads the run back as it ended
  const again = await startServer(['serve', '--port', '0', '--data', data]);
  const s = await sessionOf(again, 1);
  assert.equal(s.state, 'exited');
  assert.equal(s.exit_code, 42);
  assert.equal(s.drops.total, 0, 'nothing lost on the way');
  assert.equal(s.link.seq_gaps, 0);
  const names = (await functionsOf(again, 1)).map((f) => f.name);
  assert.equal(names.length, s.counters.functions, 'every function the session counts is stored');
  for (const name of UNIQUE) assert.ok(names.includes(name), `${name} is stored`);
  await again.stop();
});

test('run --exit: an app killed by a signal gives 128 + the signal', async () => {
  const srv = await startServer(['run', '--exit', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('the app serves', () => /^READY$/m.test(srv.stdout), { timeoutMs: 60000 });
  process.kill(launchedPid(srv), 'SIGKILL');
  const exit = await srv.exited;
  assert.deepEqual(exit, { code: 137, signal: null }, `${JSON.stringify(exit)}\n${srv.stderr}`);
});

test('without --exit, SIGINT answers with the app\'s exit code once it has ended (0 while it runs)', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'run']);
  await waitFor('the app exited', async () => (await sessionOf(srv, 1)).state === 'exited', { timeoutMs: 60000 });
  assert.equal((await sessionOf(srv, 1)).exit_code, 42);
  assert.ok(!srv.exit, 'the server goes on serving the ended run');
  assert.deepEqual(await srv.stop('SIGINT'), { code: 42, signal: null }, srv.stderr);

  const running = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('the app serves', () => /^READY$/m.test(running.stdout), { timeoutMs: 60000 });
  assert.deepEqual(await running.stop('SIGTERM'), { code: 0, signal: null }, 'jitscope stopped the app itself');
});

test('a program without "--" gets the command line with it', () => {
  let r = runSync(JITSCOPE, ['run', 'dotnet', '--version'], { timeout: 10000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown or incomplete option 'dotnet': the program to run comes after '--'/);
  assert.match(r.stderr, /^did you mean: jitscope run -- dotnet --version$/m);
  r = runSync(JITSCOPE, ['run', '--port', '0', 'dotnet', 'my app.dll'], { timeout: 10000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^did you mean: jitscope run --port 0 -- dotnet 'my app\.dll'$/m);
});

test('attach checks the process before it starts a server or makes a data directory', async () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-xdg-'));
  try {
    const env = { ...process.env, XDG_STATE_HOME: state };
    const gone = runSync(JITSCOPE, ['attach', '4000000', '--port', '0'], { env, timeout: 20000 });
    assert.equal(gone.status, 1, gone.stderr);
    assert.match(gone.stderr, /^jitscope attach: no process 4000000 is running$/m);
    const notDotnet = runSync(JITSCOPE, ['attach', String(process.pid), '--port', '0'], { env, timeout: 20000 });
    assert.equal(notDotnet.status, 1, notDotnet.stderr);
    assert.match(notDotnet.stderr, /not a \.NET process/);
    for (const r of [gone, notDotnet]) assert.doesNotMatch(r.stdout + r.stderr, /dashboard at|sessions kept in/);
    assert.deepEqual(fs.readdirSync(state), [], 'no data directory was made');
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
});

test('a second server names the live server that observes the process, or says its server is gone', async () => {
  // the agent of a `run` waits for its server JITSCOPE_GIVE_UP_MS: long enough to ask about it
  // (and an app that does not read the server's stdin, which closes when it is killed)
  const first = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'sleep', '600'], { env: { JITSCOPE_GIVE_UP_MS: '600000' } });
  const pid = launchedPid(first);
  leftovers.add(pid);
  await waitFor('the run is live', async () => (await sessionOf(first, 1)).state === 'live', { timeoutMs: 60000 });
  const second = await startServer(['serve', '--port', '0']);

  let r = await attach(second, pid);
  assert.equal(r.status, 409);
  assert.equal(r.body.error, `process ${pid} is already observed by the jitscope server at ${first.url}/ ` +
    '(one profiler per process): open it there, or detach it there first');
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-xdg-'));
  try {
    const cli = runSync(JITSCOPE, ['attach', String(pid), '--port', '0'], { env: { ...process.env, XDG_STATE_HOME: state }, timeout: 20000 });
    assert.equal(cli.status, 1);
    assert.match(cli.stderr, new RegExp(`already observed by the jitscope server at ${first.url}/`));
    assert.deepEqual(fs.readdirSync(state), [], 'refused before anything was made');
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }

  await first.stop('SIGKILL'); // its agent stays, retrying for 10 minutes
  r = await attach(second, pid);
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.match(r.body.error, new RegExp(`^a jitscope agent whose server is gone is still active in process ${pid}; it detaches itself`));
  process.kill(pid, 'SIGKILL');
  leftovers.delete(pid);
  await second.stop();
});

test('the processes table does not offer a stored session as a running process\'s own', async () => {
  const data = tempDataDir();
  // its agent gives up on a dead server after 1 s (a live one would be taken back by the next)
  const target = await startTarget(['serve'], { env: { JITSCOPE_GIVE_UP_MS: '1000' } });
  const first = await startServer(['serve', '--port', '0', '--data', data]);
  assert.equal((await attach(first, target.pid)).status, 201);
  const row = async (srv) => (await srv.api('/api/processes')).body.processes.find((p) => p.pid === target.pid);
  assert.equal((await row(first)).session_id, 1, 'its own live session');
  await waitFor('the session is stored', async () => (await first.api('/api/config')).body.storage.sessions_stored === 1);
  await first.stop('SIGKILL');
  await waitFor('the agent left', () => !agentTrace(target.pid).mapped, { timeoutMs: 30000, everyMs: 100 });

  const second = await startServer(['serve', '--port', '0', '--data', data]);
  assert.equal((await sessionOf(second, 1)).state, 'interrupted');
  const p = await row(second);
  assert.ok(p, 'the process is listed');
  assert.equal(p.session_id, null, 'the interrupted session of the killed server is not this process\'s session');
  await second.stop();
});

test('make run DATA=DIR keeps the sessions in DIR; the lock error says how', async () => {
  const data = tempDataDir();
  const env = { ...process.env };
  for (const k of ['MAKEFLAGS', 'MAKELEVEL', 'MFLAGS']) delete env[k]; // not the make that runs the tests
  const make = spawn('make', ['--no-print-directory', 'run', `DATA=${data}`, 'PORT=0'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  make.stdout.on('data', (d) => { out += d; });
  make.stderr.on('data', (d) => { out += d; });
  try {
    const url = (await waitFor('make run serves', () => /dashboard at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out), { timeoutMs: 300000 }))[1];
    assert.match(out, new RegExp(`sessions kept in ${data}/jitscope\\.db`));
    assert.ok(fs.existsSync(path.join(data, 'jitscope.db')));
    const config = await (await fetch(`${url}/api/config`)).json();
    assert.equal(config.storage.path, path.join(data, 'jitscope.db'));
    const r = runSync(JITSCOPE, ['serve', '--port', '0', '--data', data], { timeout: 20000 });
    assert.equal(r.status, 3);
    assert.match(r.stderr, /give this one --data DIR \(another directory\) or --data none \(make run: DATA=DIR or DATA=none\)/);
  } finally {
    try { process.kill(-make.pid, 'SIGTERM'); } catch { /* gone */ }
    await new Promise((resolve) => (make.exitCode !== null ? resolve() : make.on('exit', resolve)));
  }
});
