// trees.test.mjs -- process trees under `jitscope run`: every process of the run
// that loads the agent gets a session of its own (root_id, parent_pid), the
// launched process's session ends with that process, `--no-children` keeps the
// agent out of the children, and agents whose server is gone detach themselves.
//
// First on a small tree of our own (E2eTarget "parent" starts one child), then
// the way a developer meets it: `dotnet build` and `dotnet test` with MSBuild
// node reuse, the MSBuild server and the shared compiler server on (this
// machine's environment turns them off; a developer's does not). The projects
// (tests/trees) are copied to a temporary directory; packages come from the
// machine's NuGet folder. The build servers these tests start are kept apart from
// anyone else's (another test run's, another engineer's build):
// MSBUILDNODEHANDSHAKESALT for the MSBuild nodes and server, SharedCompilationId
// (the compiler server's pipe name) for the compiler server, and a TMPDIR of this
// file's own (their pipes are sockets in the temporary directory). Without them a
// build here hands its compile to a compiler server another build left running,
// which is not in the run, and `dotnet build-server shutdown` here stops theirs.
// Only ours are stopped, after the tests that start them.
//
// Sessions are named by what their process runs (program: dotnet build,
// MSBuild, VBCSCompiler, dotnet test, vstest.console, testhost), and say why a
// child's exit code is unknown. When the build goes to build servers the run
// did not start (warm ones, node reuse), `run` says so (stderr and the root's
// build_servers_outside): first with stand-ins (processes named VBCSCompiler
// that burn CPU, one outside the run and one inside), then with real warm
// MSBuild and compiler servers, with this machine's environment (all reuse
// off: nothing to say) and a developer's (reuse on).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, E2E_DLL, startServer, stopAll, waitFor, functionsOf, withEnv, tempDataDir } from './lib.mjs';

const GIVE_UP_MS = 2000; // how long an orphaned agent waits for its server here
const SALT = crypto.randomBytes(8).toString('hex');
const NUGET_FOLDER = '/opt/nuget/packages';

// A developer machine's defaults, plus what keeps this test's build servers its own.
const DEV_ENV = {
  MSBUILDDISABLENODEREUSE: undefined,
  UseSharedCompilation: 'true',
  DOTNET_CLI_USE_MSBUILD_SERVER: '1',
  MSBUILDNODEHANDSHAKESALT: SALT,
  SharedCompilationId: `jitscope-trees-${SALT}`,
  DOTNET_CLI_TELEMETRY_OPTOUT: '1',
  DOTNET_NOLOGO: '1',
  JITSCOPE_GIVE_UP_MS: String(GIVE_UP_MS),
};

let work;
const leftovers = new Set(); // pids this file started outside the server's reach

// Stops the build servers of this file: the MSBuild ones by their salt (`dotnet
// build-server shutdown --msbuild`), the compiler server (which `dotnet build-server`
// would look for under the default pipe name: someone else's) by its own -shutdown
// with our pipe name, which also removes its socket.
function shutdownBuildServers() {
  const r = spawnSync('dotnet', ['build-server', 'shutdown', '--msbuild'], { cwd: work || ROOT, env: withEnv(DEV_ENV), encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, `dotnet build-server shutdown: ${r.stdout}${r.stderr}`);
  for (const pid of ourBuildServers()) {
    let argv;
    try { argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'); } catch { continue; } // gone
    const at = argv.findIndex((a) => /VBCSCompiler(\.dll)?$/.test(a)); // its apphost, or dotnet VBCSCompiler.dll
    if (at < 0) continue; // an MSBuild node the command above stopped
    const c = spawnSync(argv[0], [...argv.slice(1, at + 1), '-shutdown', `-pipename:${DEV_ENV.SharedCompilationId}`], { env: withEnv(DEV_ENV), encoding: 'utf8', timeout: 120000 });
    assert.equal(c.status, 0, `${argv[0]} -shutdown: ${c.stdout}${c.stderr}`);
  }
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-trees-'));
  DEV_ENV.TMPDIR = path.join(work, 'tmp'); // before the first build server starts
  fs.mkdirSync(DEV_ENV.TMPDIR);
  for (const p of ['BuildMe', 'TestMe']) fs.cpSync(path.join(ROOT, 'tests/trees', p), path.join(work, p), { recursive: true });
  fs.writeFileSync(path.join(work, 'NuGet.config'), `<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="machine" value="${NUGET_FOLDER}" />
  </packageSources>
</configuration>
`);
});

after(async () => {
  await stopAll();
  for (const pid of leftovers) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  if (work) {
    shutdownBuildServers();
    fs.rmSync(work, { recursive: true, force: true });
  }
});

const sessionsOf = async (srv) => (await srv.api('/api/sessions')).body.sessions;
const launchedPid = (srv) => Number(/started pid (\d+)/.exec(srv.stderr)[1]);
const hasAgent = (pid) => fs.readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libjitscope_agent');
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };

test('run: the launched process and its child get a session each; the run ends with the launched process', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'parent'], { env: { JITSCOPE_GIVE_UP_MS: String(GIVE_UP_MS) } });
  const childPid = Number((await waitFor('the child started', () => /^child (\d+)$/m.exec(srv.stdout), { timeoutMs: 60000 }))[1]);
  leftovers.add(childPid);
  const rootPid = launchedPid(srv);
  const list = await waitFor('two live sessions', async () => {
    const l = await sessionsOf(srv);
    return l.length === 2 && l.every((s) => s.state === 'live') && l;
  }, { timeoutMs: 60000 });
  const root = list.find((s) => s.pid === rootPid);
  const child = list.find((s) => s.pid === childPid);
  assert.ok(root && child, `sessions by pid: ${JSON.stringify(list.map((s) => [s.id, s.pid]))}`);
  assert.equal(root.root_id, root.id, 'the launched process is the root');
  assert.equal(root.mode, 'run');
  assert.equal(child.root_id, root.id, 'the child is grouped under the run');
  assert.equal(child.parent_pid, rootPid, 'the child knows its parent');
  assert.match(child.command_line, /E2eTarget\.dll sleep 300$/);

  // each session holds its own process's methods
  await waitFor('the child ran Tree.Sleep', async () => (await functionsOf(srv, child.id, '&q=Tree.Sleep')).length === 1, { timeoutMs: 30000 });
  const rootNames = (await functionsOf(srv, root.id, '&q=JitscopeE2e.Tree')).map((f) => f.name);
  assert.deepEqual(rootNames, ['JitscopeE2e.Tree.Parent()']);

  // the launched process exits, its child lives on: the run's session ends, the child's does not
  srv.proc.stdin.write('exit\n');
  const ended = await waitFor('the root session exited', async () => {
    const s = (await srv.api(`/api/sessions/${root.id}`)).body;
    return s.state === 'exited' && s;
  }, { timeoutMs: 30000 });
  assert.equal(ended.exit_code, 0);
  assert.ok(alive(childPid), 'the child is still running');
  assert.equal((await srv.api(`/api/sessions/${child.id}`)).body.state, 'live');

  process.kill(childPid, 'SIGKILL');
  leftovers.delete(childPid);
  await waitFor('the child session exited', async () => (await srv.api(`/api/sessions/${child.id}`)).body.state === 'exited', { timeoutMs: 30000 });
  assert.doesNotMatch(srv.stderr, /already has an agent connection/);
  await srv.stop();
});

test('run --no-children: the child runs without the agent and gets no session', async () => {
  const srv = await startServer(['run', '--port', '0', '--no-children', '--', 'dotnet', E2E_DLL, 'parent']);
  const childPid = Number((await waitFor('the child started', () => /^child (\d+)$/m.exec(srv.stdout), { timeoutMs: 60000 }))[1]);
  leftovers.add(childPid);
  await waitFor('the child is up', () => /^child up \d+$/m.test(srv.stdout), { timeoutMs: 60000 });
  // the agent declines in Initialize, before the child's Main, with one line on its stderr
  assert.match(srv.stderr, new RegExp(`pid ${childPid} is a child of the launched app \\(run --no-children\\); not profiling`));
  assert.equal(srv.stderr.match(/not profiling/g).length, 1);
  const list = await sessionsOf(srv);
  assert.deepEqual(list.map((s) => [s.pid, s.state]), [[launchedPid(srv), 'live']]);
  process.kill(childPid, 'SIGKILL');
  leftovers.delete(childPid);
  await srv.stop();
});

// Runs `jitscope run -- dotnet ARGS` in the project and waits until dotnet exited.
async function runDotnet(project, args) {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', ...args], { cwd: path.join(work, project), env: DEV_ENV });
  const rootPid = launchedPid(srv);
  const root = await waitFor(`dotnet ${args.join(' ')} finished`, async () => {
    const s = (await sessionsOf(srv)).find((x) => x.pid === rootPid);
    return s && s.state === 'exited' && s;
  }, { timeoutMs: 300000, everyMs: 250 });
  assert.equal(root.exit_code, 0, `dotnet ${args.join(' ')} failed:\n${srv.stdout.slice(-3000)}`);
  return { srv, root, sessions: await sessionsOf(srv) };
}

// The server goes away; the agents left in build servers give up and detach
// while those processes keep running.
async function serverGoneAgentsLeave(srv, sessions) {
  const survivors = sessions.filter((s) => s.state === 'live' && alive(s.pid)).map((s) => s.pid);
  assert.ok(survivors.length > 0, 'some build server outlives the run');
  for (const pid of survivors) assert.ok(hasAgent(pid), `pid ${pid} has the agent`);
  await srv.stop();
  for (const pid of survivors) {
    await waitFor(`the agent in pid ${pid} detached`, () => !alive(pid) || !hasAgent(pid), { timeoutMs: GIVE_UP_MS + 30000, everyMs: 100 });
  }
  assert.ok(survivors.some(alive), 'build servers keep running without the agent');
  shutdownBuildServers(); // the next run starts its own, under the agent
}

test('dotnet build with node reuse and the compiler server on: one session per process, grouped under the build', async () => {
  const { srv, root, sessions } = await runDotnet('BuildMe', ['build']);
  assert.equal(root.root_id, root.id);
  assert.match(root.command_line, /^dotnet build$/);
  assert.equal(root.program, 'dotnet build');
  // the build servers are the run's own: none is reported (another build of this user's
  // running meanwhile could be: its servers do not have this file's salt)
  for (const o of root.build_servers_outside) assert.ok(!hasOurSalt(o.pid), `the run's own ${o.name} ${o.pid} is not reported`);
  const children = sessions.filter((s) => s.id !== root.id);
  for (const c of children) {
    assert.equal(c.root_id, root.id, `session ${c.id} (${c.command_line}) is in the run`);
    assert.ok(c.parent_pid > 0, `session ${c.id} has a parent pid`);
    assert.notEqual(c.pid, root.pid);
  }
  assert.equal(new Set(sessions.map((s) => s.pid)).size, sessions.length, 'one session per process');
  const node = children.find((c) => /MSBuild(\.dll)? .*\/nodemode:/.test(c.command_line));
  assert.ok(node, `an MSBuild node: ${children.map((c) => c.command_line).join(' | ')}`);
  assert.equal(node.program, 'MSBuild', `named by what it runs: ${node.command_line}`);
  const compiler = children.find((c) => /VBCSCompiler/.test(c.command_line));
  assert.ok(compiler, 'the compiler server has a session');
  assert.equal(compiler.program, 'VBCSCompiler');
  assert.ok(children.some((c) => c.parent_pid === root.pid), 'a child of the launched dotnet');
  assert.ok((await functionsOf(srv, compiler.id, '&q=Microsoft.CodeAnalysis')).length > 0, 'the compiler session holds the compiler\'s methods');
  assert.doesNotMatch(srv.stderr, /already has an agent connection/);
  await serverGoneAgentsLeave(srv, sessions);
});

// /proc/PID/stat's CPU time (user + system), in clock ticks (100 a second).
const cpuTicks = (pid) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3
  return Number(f[11]) + Number(f[12]);
};
// The watcher knows build servers by their arguments: a shell whose argv[0] is
// VBCSCompiler is one, and spins.
const SPIN = 'while :; do :; done';

test('run of an SDK command: build servers outside the run that work meanwhile are reported, the run\'s own are not (stand-ins)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-standins-'));
  const go = path.join(dir, 'go');
  // running before the run; once told, it starts another one (started meanwhile, outside the run)
  const outside = spawn('bash', ['-c', `while [ ! -e "$0" ]; do :; done; (exec -a VBCSCompiler bash -c '${SPIN}') & echo "second $!"; ${SPIN}`, go],
    { argv0: 'VBCSCompiler', stdio: ['ignore', 'pipe', 'ignore'] });
  leftovers.add(outside.pid);
  let outsideOut = '';
  outside.stdout.on('data', (d) => { outsideOut += d; });
  // the launched "dotnet build" starts one of its own and waits for a line
  const fake = path.join(dir, 'dotnet');
  fs.writeFileSync(fake, `#!/bin/bash\n(exec -a VBCSCompiler bash -c '${SPIN}') &\necho "inner $!"\nread -r line\n`, { mode: 0o755 });
  const data = tempDataDir();
  const srv = await startServer(['run', '--exit', '--port', '0', '--data', data, '--', fake, 'build'], { env: { MSBUILDDISABLENODEREUSE: undefined } });
  let second, inner;
  try {
    inner = Number((await waitFor('the run\'s own stand-in', () => /^inner (\d+)$/m.exec(srv.stdout), { timeoutMs: 30000 }))[1]);
    leftovers.add(inner);
    fs.writeFileSync(go, '');
    second = Number((await waitFor('the second outside stand-in', () => /^second (\d+)$/m.exec(outsideOut), { timeoutMs: 30000 }))[1]);
    leftovers.add(second);
    await waitFor('both outside ones reported', () => srv.stderr.includes(`the build went to VBCSCompiler pid ${outside.pid}, which this run did not start (it was running before, without the agent;`) &&
      srv.stderr.includes(`the build went to VBCSCompiler pid ${second}, which this run did not start (started meanwhile by a process outside the run;`), { timeoutMs: 60000 });
    assert.match(srv.stderr, new RegExp(`To see it: jitscope attach ${outside.pid} \\(or Attach on the dashboard\\), or run with node reuse off: ` +
      `MSBUILDDISABLENODEREUSE=1 UseSharedCompilation=false DOTNET_CLI_USE_MSBUILD_SERVER=0 jitscope run -- ${fake} build`));
    const live = (await srv.api('/api/sessions/1')).body;
    assert.equal(live.program, 'dotnet build');
    // (another build of this user's that runs meanwhile may add its own busy servers)
    const standIns = live.build_servers_outside.filter((o) => [outside.pid, second, inner].includes(o.pid));
    assert.deepEqual(standIns.map((o) => [o.pid, o.name, o.started_before]).sort(),
      [[outside.pid, 'VBCSCompiler', true], [second, 'VBCSCompiler', false]].sort());
    // the run's own has worked as much as they have; the run ends, its last look is stored
    await waitFor('the run\'s own stand-in used 0.2 s of CPU', () => cpuTicks(inner) >= 20, { timeoutMs: 60000 });
    srv.proc.stdin.write('done\n');
    assert.deepEqual(await srv.exited, { code: 0, signal: null }, srv.stderr);
    assert.doesNotMatch(srv.stderr, new RegExp(`pid ${inner}\\b`), 'the run\'s own build server is not reported');
  } finally {
    // killed now and forgotten: a pid killed again minutes later may be another process's by
    // then (pids wrap at 32,768 and two test runs with their threads use them up in minutes)
    for (const pid of [outside.pid, inner, second]) {
      if (!leftovers.delete(pid)) continue;
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
  }
  const again = await startServer(['serve', '--port', '0', '--data', data]);
  const stored = (await again.api('/api/sessions/1')).body;
  const standIns = stored.build_servers_outside.filter((o) => [outside.pid, second, inner].includes(o.pid));
  assert.deepEqual(standIns.map((o) => o.pid).sort(), [outside.pid, second].sort(), 'stored with the run, the run\'s own left out');
  for (const o of standIns) assert.ok(o.cpu_ms >= 50, `${o.pid} used ${o.cpu_ms} ms`);
  await again.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function hasOurSalt(pid) {
  try { return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`MSBUILDNODEHANDSHAKESALT=${SALT}`); } catch { return false; }
}

// The build servers a build with this file's salt left running: MSBuild nodes or
// server (their environment has the salt) and the compiler server they started.
function ourBuildServers() {
  const pids = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const args = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
      if (/MSBuild(\.dll)? .*nodemode:|VBCSCompiler/.test(args) && hasOurSalt(Number(d))) pids.push(Number(d));
    } catch { /* gone, or not ours */ }
  }
  return pids;
}

// `jitscope run --exit -- dotnet ARGS` in the project with env, to its end (its
// last look at build servers included); then its sessions as stored.
async function runToExit(project, args, env) {
  const data = tempDataDir();
  const srv = await startServer(['run', '--exit', '--port', '0', '--data', data, '--', 'dotnet', ...args], { cwd: path.join(work, project), env });
  const exit = await srv.exited;
  assert.deepEqual(exit, { code: 0, signal: null }, `dotnet ${args.join(' ')}:\n${srv.stdout.slice(-3000)}\n${srv.stderr.slice(-3000)}`);
  const stored = await startServer(['serve', '--port', '0', '--data', data]);
  const sessions = (await stored.api('/api/sessions')).body.sessions;
  await stored.stop();
  return { stderr: srv.stderr, root: sessions.find((x) => x.id === x.root_id && x.pid === launchedPid(srv)), sessions };
}

test('warm build servers: a build that goes to them says so (reuse on); with this machine\'s reuse off there is nothing to say', async () => {
  // a build without jitscope leaves the MSBuild server and the compiler server running
  const warmup = spawnSync('dotnet', ['build'], { cwd: path.join(work, 'BuildMe'), env: withEnv(DEV_ENV), encoding: 'utf8', timeout: 300000 });
  assert.equal(warmup.status, 0, warmup.stdout);
  const warm = ourBuildServers();
  assert.ok(warm.length > 0, 'build servers outlive the build');

  // this machine's environment turns all reuse off: the build runs in the run's own processes
  const off = await runToExit('BuildMe', ['build', '--no-incremental'], { ...DEV_ENV, MSBUILDDISABLENODEREUSE: '1', UseSharedCompilation: 'false', DOTNET_CLI_USE_MSBUILD_SERVER: '0' });
  assert.equal(off.root.program, 'dotnet build');
  assert.deepEqual(off.root.build_servers_outside, []);
  assert.doesNotMatch(off.stderr, /the build went to/);
  for (const pid of warm) assert.ok(!off.sessions.some((x) => x.pid === pid), `warm pid ${pid} is not in the run`);

  // a developer's: the CLI hands the build to the warm servers, which the run did not start
  const on = await runToExit('BuildMe', ['build', '--no-incremental'], DEV_ENV);
  const outside = on.root.build_servers_outside;
  const ours = outside.filter((o) => warm.includes(o.pid));
  assert.ok(ours.length > 0, `a warm server of ours is reported: ${JSON.stringify(outside)} (warm: ${warm})`);
  for (const o of ours) {
    assert.match(o.name, /^(MSBuild server|MSBuild node|VBCSCompiler)$/);
    assert.equal(o.started_before, true);
    assert.ok(o.cpu_ms >= 50, `${o.name} ${o.pid} worked: ${o.cpu_ms} ms`);
    assert.ok(!on.sessions.some((x) => x.pid === o.pid), `${o.pid} has no session: its work is not in the run`);
    assert.ok(on.stderr.includes(`the build went to ${o.name} pid ${o.pid}, which this run did not start (it was running before, without the agent; `), on.stderr);
    assert.ok(on.stderr.includes(`To see it: jitscope attach ${o.pid} (or Attach on the dashboard), or run with node reuse off: ` +
      'MSBUILDDISABLENODEREUSE=1 UseSharedCompilation=false DOTNET_CLI_USE_MSBUILD_SERVER=0 jitscope run -- dotnet build --no-incremental'));
  }
  shutdownBuildServers();
});

test('dotnet test of an xUnit project: the test host has its own session with the tests\' names', async () => {
  const { srv, root, sessions } = await runDotnet('TestMe', ['test']);
  assert.match(srv.stdout, /Passed!.*Passed:\s+3/);
  const host = sessions.find((s) => /TestMe\.runtimeconfig\.json|testhost/.test(s.command_line));
  assert.ok(host, `a test host session among: ${sessions.map((s) => s.command_line).join(' | ')}`);
  assert.equal(host.root_id, root.id);
  assert.equal(root.program, 'dotnet test');
  assert.equal(host.program, 'testhost', `named by what it runs: ${host.command_line}`);
  // its link closes as it exits; the liveness sweep (every 500 ms) then sees the process gone
  const ended = await waitFor('the test host session ended', async () => {
    const s = (await srv.api(`/api/sessions/${host.id}`)).body;
    return s.state === 'exited' && s;
  }, { timeoutMs: 30000 });
  assert.equal(ended.exit_code, null, 'not our child: the kernel does not tell us its exit code');
  assert.match(ended.exit_code_unknown, /^jitscope did not start it, and only a process's parent is told its exit code/);
  const names = (await functionsOf(srv, host.id, '&q=JitscopeTrees.')).map((f) => f.name);
  assert.ok(names.includes('JitscopeTrees.CalculatorTests.JitscopeAddsTwoNumbers()'), names.join(', '));
  assert.ok(names.includes('JitscopeTrees.CalculatorTests.JitscopeSquares(int, int)'), names.join(', '));
  assert.ok(!(await functionsOf(srv, root.id, '&q=JitscopeTrees.CalculatorTests')).length, 'the tests ran in the test host, not in dotnet');
  // the host's parent is a process of the run too (vstest.console), with a session of its own
  const parent = sessions.find((s) => s.pid === host.parent_pid);
  assert.ok(parent && parent.root_id === root.id, `the test host's parent ${host.parent_pid} is in the run`);
  assert.equal(parent.program, 'vstest.console', `named by what it runs: ${parent.command_line}`);
  await serverGoneAgentsLeave(srv, sessions);
});

// `run --exit -- dotnet test` of a project that builds first (its source
// touched): the test host and vstest.console end just before `dotnet test`,
// sooner than the liveness sweep looks; the run must still store every
// session as ended, never "interrupted" (the server stopped while it was
// live). Processes that outlive the run (build servers under node reuse) are
// detached. Read back by a new server on the same data directory.
async function testRunToExit(env) {
  fs.utimesSync(path.join(work, 'TestMe', 'CalculatorTests.cs'), new Date(), new Date());
  const data = tempDataDir();
  const srv = await startServer(['run', '--exit', '--port', '0', '--data', data, '--', 'dotnet', 'test'], { cwd: path.join(work, 'TestMe'), env });
  assert.deepEqual(await srv.exited, { code: 0, signal: null }, `${srv.stdout.slice(-3000)}\n${srv.stderr.slice(-3000)}`);
  assert.match(srv.stdout, /Passed!.*Passed:\s+3/);
  const stored = await startServer(['serve', '--port', '0', '--data', data]);
  try {
    const sessions = (await stored.api('/api/sessions')).body.sessions;
    const byProgram = Object.fromEntries(sessions.map((s) => [s.program, s]));
    for (const p of ['dotnet test', 'vstest.console', 'testhost']) assert.ok(byProgram[p], `a ${p} session among ${sessions.map((s) => s.program)}`);
    assert.ok(sessions.some((s) => ['csc', 'VBCSCompiler', 'MSBuild'].includes(s.program)), `the build ran in the run: ${sessions.map((s) => s.program)}`);
    for (const s of sessions) {
      const outlived = srv.stderr.includes(`pid ${s.pid} (${s.program}) outlives the run: detaching the agent`);
      assert.equal(s.state, outlived ? 'detached' : 'exited', `session ${s.id} (${s.program}, pid ${s.pid}) as stored:\n${srv.stderr}`);
    }
    // the test host's compilations after the runtime ended its tier events
    // (as it exits) are unknown, and the session says from when
    const host = (await stored.api(`/api/sessions/${byProgram.testhost.id}`)).body;
    // (a compilation still under way as the process ended has no tier either: no jit_count)
    const unknown = (await functionsOf(stored, host.id, '&sort=time&order=desc')).filter((f) => f.tier === 'unknown' && !f.catchup && f.jit_count > 0);
    for (const f of unknown) {
      assert.ok(host.tier_source.ended_by_runtime_ms !== null && f.last_jit_ms >= host.tier_source.ended_by_runtime_ms,
        `${f.name} at ${f.last_jit_ms}: tier unknown only once the runtime ended the source (${JSON.stringify(host.tier_source)})`);
    }
    return { stderr: srv.stderr, sessions };
  } finally {
    await stored.stop();
  }
}

test('run --exit -- dotnet test, building first: every session stored as ended, none interrupted (this machine\'s reuse off)', async () => {
  const off = await testRunToExit({ ...DEV_ENV, MSBUILDDISABLENODEREUSE: '1', UseSharedCompilation: 'false', DOTNET_CLI_USE_MSBUILD_SERVER: '0' });
  assert.ok(off.sessions.every((s) => s.state === 'exited'), 'with reuse off no process outlives the run');
});

test('run --exit -- dotnet test, building first, with node reuse on: the build servers that outlive the run are detached, the rest exited', async () => {
  shutdownBuildServers();
  const on = await testRunToExit(DEV_ENV);
  const detached = on.sessions.filter((s) => s.state === 'detached');
  assert.ok(detached.length > 0, `a build server outlived the run: ${on.sessions.map((s) => `${s.program} ${s.state}`)}`);
  for (const s of detached) {
    assert.match(s.program, /^(MSBuild|VBCSCompiler)$/);
    if (alive(s.pid)) assert.ok(!hasAgent(s.pid), `pid ${s.pid} runs on without the agent`);
  }
  shutdownBuildServers();
});

test('run --exit: a child that ends just before the launched process is stored as exited, not interrupted', async () => {
  const data = tempDataDir();
  const srv = await startServer(['run', '--exit', '--port', '0', '--data', data, '--', 'dotnet', E2E_DLL, 'parentwait']);
  assert.deepEqual(await srv.exited, { code: 0, signal: null }, srv.stderr);
  assert.match(srv.stdout, /^child exited 0$/m);
  const stored = await startServer(['serve', '--port', '0', '--data', data]);
  const sessions = (await stored.api('/api/sessions')).body.sessions;
  await stored.stop();
  assert.equal(sessions.length, 2, JSON.stringify(sessions.map((s) => [s.id, s.pid, s.state])));
  for (const s of sessions) assert.equal(s.state, 'exited', `session ${s.id} (pid ${s.pid})`);
});
