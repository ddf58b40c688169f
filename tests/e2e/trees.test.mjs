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
// machine's NuGet folder. MSBUILDNODEHANDSHAKESALT keeps the MSBuild nodes these
// tests start apart from anyone else's; the compiler server cannot be kept
// apart, so it is shut down before and after.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, E2E_DLL, startServer, stopAll, waitFor, functionsOf, withEnv } from './lib.mjs';

const GIVE_UP_MS = 2000; // how long an orphaned agent waits for its server here
const SALT = crypto.randomBytes(8).toString('hex');
const NUGET_FOLDER = '/opt/nuget/packages';

// A developer machine's defaults, plus what keeps this test's build servers its own.
const DEV_ENV = {
  MSBUILDDISABLENODEREUSE: undefined,
  UseSharedCompilation: 'true',
  DOTNET_CLI_USE_MSBUILD_SERVER: '1',
  MSBUILDNODEHANDSHAKESALT: SALT,
  DOTNET_CLI_TELEMETRY_OPTOUT: '1',
  DOTNET_NOLOGO: '1',
  JITSCOPE_GIVE_UP_MS: String(GIVE_UP_MS),
};

let work;
const leftovers = new Set(); // pids this file started outside the server's reach

function shutdownBuildServers() {
  const r = spawnSync('dotnet', ['build-server', 'shutdown'], { cwd: work || ROOT, env: withEnv(DEV_ENV), encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, `dotnet build-server shutdown: ${r.stdout}${r.stderr}`);
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-trees-'));
  for (const p of ['BuildMe', 'TestMe']) fs.cpSync(path.join(ROOT, 'tests/trees', p), path.join(work, p), { recursive: true });
  fs.writeFileSync(path.join(work, 'NuGet.config'), `<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="machine" value="${NUGET_FOLDER}" />
  </packageSources>
</configuration>
`);
  shutdownBuildServers(); // a compiler server started without the agent would take the compile
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
  const childPid = Number((await waitFor('the child started', () => /^child (\d+)$/m.exec(srv.stdout), 60000))[1]);
  leftovers.add(childPid);
  const rootPid = launchedPid(srv);
  const list = await waitFor('two live sessions', async () => {
    const l = await sessionsOf(srv);
    return l.length === 2 && l.every((s) => s.state === 'live') && l;
  }, 60000);
  const root = list.find((s) => s.pid === rootPid);
  const child = list.find((s) => s.pid === childPid);
  assert.ok(root && child, `sessions by pid: ${JSON.stringify(list.map((s) => [s.id, s.pid]))}`);
  assert.equal(root.root_id, root.id, 'the launched process is the root');
  assert.equal(root.mode, 'run');
  assert.equal(child.root_id, root.id, 'the child is grouped under the run');
  assert.equal(child.parent_pid, rootPid, 'the child knows its parent');
  assert.match(child.command_line, /E2eTarget\.dll sleep 300$/);

  // each session holds its own process's methods
  await waitFor('the child ran Tree.Sleep', async () => (await functionsOf(srv, child.id, '&q=Tree.Sleep')).length === 1, 30000);
  const rootNames = (await functionsOf(srv, root.id, '&q=JitscopeE2e.Tree')).map((f) => f.name);
  assert.deepEqual(rootNames, ['JitscopeE2e.Tree.Parent()']);

  // the launched process exits, its child lives on: the run's session ends, the child's does not
  srv.proc.stdin.write('exit\n');
  const ended = await waitFor('the root session exited', async () => {
    const s = (await srv.api(`/api/sessions/${root.id}`)).body;
    return s.state === 'exited' && s;
  }, 30000);
  assert.equal(ended.exit_code, 0);
  assert.ok(alive(childPid), 'the child is still running');
  assert.equal((await srv.api(`/api/sessions/${child.id}`)).body.state, 'live');

  process.kill(childPid, 'SIGKILL');
  leftovers.delete(childPid);
  await waitFor('the child session exited', async () => (await srv.api(`/api/sessions/${child.id}`)).body.state === 'exited', 30000);
  assert.doesNotMatch(srv.stderr, /already has an agent connection/);
  await srv.stop();
});

test('run --no-children: the child runs without the agent and gets no session', async () => {
  const srv = await startServer(['run', '--port', '0', '--no-children', '--', 'dotnet', E2E_DLL, 'parent']);
  const childPid = Number((await waitFor('the child started', () => /^child (\d+)$/m.exec(srv.stdout), 60000))[1]);
  leftovers.add(childPid);
  await waitFor('the child is up', () => /^child up \d+$/m.test(srv.stdout), 60000);
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
  }, 300000, 250);
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
    await waitFor(`the agent in pid ${pid} detached`, () => !alive(pid) || !hasAgent(pid), GIVE_UP_MS + 30000, 100);
  }
  assert.ok(survivors.some(alive), 'build servers keep running without the agent');
  shutdownBuildServers(); // the next run starts its own, under the agent
}

test('dotnet build with node reuse and the compiler server on: one session per process, grouped under the build', async () => {
  const { srv, root, sessions } = await runDotnet('BuildMe', ['build']);
  assert.equal(root.root_id, root.id);
  assert.match(root.command_line, /^dotnet build$/);
  const children = sessions.filter((s) => s.id !== root.id);
  for (const c of children) {
    assert.equal(c.root_id, root.id, `session ${c.id} (${c.command_line}) is in the run`);
    assert.ok(c.parent_pid > 0, `session ${c.id} has a parent pid`);
    assert.notEqual(c.pid, root.pid);
  }
  assert.equal(new Set(sessions.map((s) => s.pid)).size, sessions.length, 'one session per process');
  assert.ok(children.some((c) => /MSBuild(\.dll)? .*\/nodemode:/.test(c.command_line)), `an MSBuild node: ${children.map((c) => c.command_line).join(' | ')}`);
  const compiler = children.find((c) => /VBCSCompiler/.test(c.command_line));
  assert.ok(compiler, 'the compiler server has a session');
  assert.ok(children.some((c) => c.parent_pid === root.pid), 'a child of the launched dotnet');
  assert.ok((await functionsOf(srv, compiler.id, '&q=Microsoft.CodeAnalysis')).length > 0, 'the compiler session holds the compiler\'s methods');
  assert.doesNotMatch(srv.stderr, /already has an agent connection/);
  await serverGoneAgentsLeave(srv, sessions);
});

test('dotnet test of an xUnit project: the test host has its own session with the tests\' names', async () => {
  const { srv, root, sessions } = await runDotnet('TestMe', ['test']);
  assert.match(srv.stdout, /Passed!.*Passed:\s+3/);
  const host = sessions.find((s) => /TestMe\.runtimeconfig\.json|testhost/.test(s.command_line));
  assert.ok(host, `a test host session among: ${sessions.map((s) => s.command_line).join(' | ')}`);
  assert.equal(host.root_id, root.id);
  // its link closes as it exits; the liveness sweep (every 500 ms) then sees the process gone
  await waitFor('the test host session ended', async () => (await srv.api(`/api/sessions/${host.id}`)).body.state === 'exited', 30000);
  const names = (await functionsOf(srv, host.id, '&q=JitscopeTrees.')).map((f) => f.name);
  assert.ok(names.includes('JitscopeTrees.CalculatorTests.JitscopeAddsTwoNumbers()'), names.join(', '));
  assert.ok(names.includes('JitscopeTrees.CalculatorTests.JitscopeSquares(int, int)'), names.join(', '));
  assert.ok(!(await functionsOf(srv, root.id, '&q=JitscopeTrees.CalculatorTests')).length, 'the tests ran in the test host, not in dotnet');
  // the host's parent is a process of the run too (vstest.console), with a session of its own
  const parent = sessions.find((s) => s.pid === host.parent_pid);
  assert.ok(parent && parent.root_id === root.id, `the test host's parent ${host.parent_pid} is in the run`);
  await serverGoneAgentsLeave(srv, sessions);
});
