// lib.mjs -- helpers for jitscope's end-to-end tests: start the real server
// (which starts or attaches to real .NET processes), talk to its REST API, wait
// for conditions. Every process a test starts is killed by stopAll(). Every
// response api() and fetchChecked() receive is checked against the OpenAPI
// document (openapi.mjs): an undocumented route, status or body fails the test.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkResponse, OpenApiViolation } from './openapi.mjs';

export { OpenApiViolation };

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BUILD = path.join(ROOT, 'build');
export const JITSCOPE = process.env.JITSCOPE_BIN || path.join(BUILD, 'jitscope');
export const E2E_DLL = path.join(BUILD, 'apps/E2eTarget/E2eTarget.dll');
export const DEMO_DLL = path.join(BUILD, 'apps/Demo/Demo.dll');
export const STACK_DLL = path.join(BUILD, 'apps/StackTarget/StackTarget.dll');
export const WEB_DLL = path.join(BUILD, 'apps/WebTarget/WebTarget.dll');
// The same apps published self-contained on older runtimes (tests/apps/apps.mk, apps-runtimes):
// RUNTIME_APPS['net8.0'] = { dir, e2e, stack } (dir holds the runtime; e2e, stack the executables).
export const RUNTIME_APPS = Object.fromEntries(['net8.0', 'net9.0'].map((tfm) => {
  const dir = path.join(BUILD, 'apps/runtimes', tfm);
  return [tfm, { tfm, dir, e2e: path.join(dir, 'E2eTarget'), stack: path.join(dir, 'StackTarget') }];
}));
// A runtime jitscope refuses: tests/apps/OldTarget on .NET Core 3.1, self-contained.
export const OLD_RUNTIME_EXE = path.join(BUILD, 'apps/runtimes/netcoreapp3.1/OldTarget');

const started = new Set();

export function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

// Polls fn() every everyMs until it returns a truthy value (its value then);
// throws "timed out waiting for <what>" with the last value after timeoutMs,
// and at once on a response that breaks the OpenAPI document. The one waitFor
// of the e2e and browser tests (tests/browser/helpers.mjs passes it on).
export async function waitFor(what, fn, options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`waitFor(${what}): options must be { timeoutMs, everyMs }, not ${JSON.stringify(options)}`);
  }
  const { timeoutMs = 15000, everyMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try { last = await fn(); if (last) return last; } catch (e) {
      if (e instanceof OpenApiViolation) throw e; // a wrong response is not worth waiting out
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await sleep(everyMs);
  }
}

// process.env with `env` applied; a variable set to undefined there is removed.
export function withEnv(env) {
  const out = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete out[k];
  return out;
}

// Every serving command a test starts gets a data directory of its own (the
// default one is the user's, and one server holds a directory's lock), removed
// when the tests end; a test that gives --data itself keeps its choice.
const dataDirs = [];
process.on('exit', () => { for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true }); });
// A jitscope a test starts without --data (runSync of a CLI error, a test's own
// spawn) must not reach the user's own data directory either: every child of
// this test process gets a private XDG_STATE_HOME, removed at the end (a test
// that sets XDG_STATE_HOME itself keeps its choice through withEnv).
if (!process.env.JITSCOPE_TEST_STATE) {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-state-'));
  dataDirs.push(state);
  process.env.XDG_STATE_HOME = state;
  process.env.JITSCOPE_TEST_STATE = state;
}
export function tempDataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-data-'));
  dataDirs.push(dir);
  return dir;
}
export function withDataDir(args) {
  if (!['run', 'serve', 'attach'].includes(args[0]) || args.includes('--data') || args.includes('--server')) return args;
  return [args[0], '--data', tempDataDir(), ...args.slice(1)];
}

// Starts `jitscope <args>`; resolves once it printed its URL. Under valgrind (a prefix that
// runs it) a server starts 20-50 times slower, and with TLS on a loaded machine it took more
// than 30 s: the wait for its URL is 3 minutes then.
export async function startServer(args, { env = {}, bin = JITSCOPE, prefix = [], cwd = ROOT } = {}) {
  const argv = [...prefix, bin, ...withDataDir(args)];
  const proc = spawn(argv[0], argv.slice(1), {
    cwd, env: withEnv(env), stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.add(proc);
  const srv = { proc, stdout: '', stderr: '', exit: null };
  proc.stdout.on('data', (d) => { srv.stdout += d; });
  proc.stderr.on('data', (d) => { srv.stderr += d; });
  srv.exited = new Promise((resolve) => proc.on('exit', (code, signal) => {
    srv.exit = { code, signal }; started.delete(proc); resolve(srv.exit);
  }));
  const slow = prefix[0] === 'valgrind';
  await waitFor('server URL', () => srv.exit || /dashboard at (https?:\/\/(?:127\.0\.0\.1|\[::1\]):\d+)\//.exec(srv.stdout), { timeoutMs: slow ? 180000 : 30000 });
  if (srv.exit) throw new Error(`server exited: ${JSON.stringify(srv.exit)}\n${srv.stderr}`);
  srv.url = /dashboard at (https?:\/\/(?:127\.0\.0\.1|\[::1\]):\d+)\//.exec(srv.stdout)[1];
  srv.port = Number(new URL(srv.url).port);
  srv.socket = (/agent socket (\S+)/.exec(srv.stderr) || [])[1];
  srv.api = (p, init) => api(srv.url + p, init);
  srv.stop = async (signal = 'SIGTERM') => {
    if (!srv.exit) proc.kill(signal);
    return srv.exited;
  };
  return srv;
}

// fetch(), then the response is checked against the OpenAPI document; returns
// { status, body (parsed JSON, else the text), text, headers }.
export async function apiCall(url, init = {}) {
  let res, text;
  try {
    res = await fetch(url, init);
    text = await res.text();
  } catch (e) { // undici says only "fetch failed": which request, and why (the server gone? reset?)
    if (e && e.cause) e.message = `${e.message} (${init.method || 'GET'} ${url}: ${e.cause.code || e.cause.message})`;
    throw e;
  }
  let body;
  try { body = JSON.parse(text); } catch { body = text; }
  checkResponse({ method: init.method || 'GET', url, status: res.status, contentType: res.headers.get('content-type'), body, text });
  return { status: res.status, body, text, headers: res.headers };
}

export async function api(url, init = {}) {
  const { status, body, headers } = await apiCall(url, init);
  return { status, body, headers };
}

// A drop-in for fetch() in tests: the same Response, checked against the
// OpenAPI document first.
export async function fetchChecked(url, init = {}) {
  const r = await apiCall(url, init);
  return new Response(init.method === 'HEAD' ? null : r.text, { status: r.status, headers: r.headers });
}

// Waits until the storage writer of the server at srv.url has committed all it
// held when called: two more writer rounds, nothing waiting. Its storage stats.
// Once an agent can send no more (its process stopped or gone), waits until the
// server has read everything it sent: every connection the server accepted on
// its agent socket has an empty receive queue (ss), twice in a row.
export async function agentBytesRead(srv, { timeoutMs = 30000 } = {}) {
  const queued = () => {
    const ss = spawnSync('ss', ['-xpnH', 'state', 'established'], { encoding: 'utf8' });
    if (ss.status !== 0) throw new Error(`ss: ${ss.stderr}`);
    const mine = ss.stdout.split('\n').filter((l) => l.includes(` ${srv.socket} `) && l.includes(`pid=${srv.proc.pid},`));
    return mine.reduce((n, l) => n + Number(l.trim().split(/\s+/)[1]), 0);
  };
  let quiet = 0;
  await waitFor('the server to read what the agent sent', () => (queued() === 0 ? ++quiet >= 2 : (quiet = 0, false)), { timeoutMs });
}

export async function storageCaughtUp(srv, timeoutMs = 30000) {
  const storage = async () => (await api(`${srv.url}/api/config`)).body.storage;
  const r0 = (await storage()).rounds;
  return waitFor('the writer caught up', async () => {
    const st = await storage();
    return st.rounds >= r0 + 2 && st.backlog_bytes === 0 && st;
  }, { timeoutMs });
}

export async function stopAll() {
  for (const p of [...started]) {
    p.kill('SIGKILL');
  }
  started.clear();
}

// Runs a command to completion (used for the app without the agent).
export function runSync(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: 60000, ...opts });
}

export function asanRuntime() {
  const r = spawnSync('gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' });
  const p = r.stdout.trim();
  return p && fs.existsSync(p) ? fs.realpathSync(p) : null;
}

export async function functionsOf(srv, id, query = '') {
  const r = await srv.api(`/api/sessions/${id}/functions?limit=10000${query}`);
  if (r.status !== 200) throw new Error(`functions: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.functions;
}

// Starts E2eTarget in serve mode (or another mode, or another app: `dll`, or a
// self-contained executable: `exe`) without the agent; resolves once it printed
// READY. `send` writes a command line, `waitLine` waits for output.
export async function startTarget(args = ['serve'], { prefix = [], env = {}, ready = /^READY$/m, dll = E2E_DLL, exe = null } = {}) {
  const argv = [...prefix, ...(exe ? [exe] : ['dotnet', dll]), ...args];
  const proc = spawn(argv[0], argv.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  started.add(proc);
  const t = { proc, pid: proc.pid, out: '', err: '' };
  proc.stdout.on('data', (d) => { t.out += d; });
  proc.stderr.on('data', (d) => { t.err += d; });
  proc.on('exit', () => started.delete(proc));
  t.send = (line) => proc.stdin.write(line + '\n');
  t.waitLine = (re, ms = 15000) => waitFor(`target output ${re}`, () => re.test(t.out), { timeoutMs: ms });
  await t.waitLine(ready, 60000);
  return t;
}

// What /proc says about the agent inside a process.
export function agentTrace(pid) {
  const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
  const threads = fs.readdirSync(`/proc/${pid}/task`).map((t) => {
    try { return fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim(); } catch { return ''; }
  });
  const fds = fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try { return fs.readlinkSync(`/proc/${pid}/fd/${fd}`); } catch { return ''; }
  });
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    mapped: maps.includes('libjitscope_agent'),
    agentThreads: threads.filter((c) => c.startsWith('jitscope')).length,
    threadCount: threads.length,
    fds,
    sockets: fds.filter((f) => f.startsWith('socket:')).length,
    rssKb: Number((/VmRSS:\s+(\d+)/.exec(status) || [])[1]),
  };
}

// Waits until the agent library has left process pid, and checks that it left
// nothing behind: no agent thread, no socket but those open before the attach
// (`before`: agentTrace of the process then). A socket is its inode: the
// agent's connection would be one the process did not have before. The runtime
// may hold one of its own sockets twice for a moment, and another server
// listing processes connects to the runtime's diagnostics port for a moment
// (tests run side by side): what is only passing through is waited out.
// Returns the process's trace.
export async function agentLeft(pid, before, timeoutMs = 15000) {
  const had = new Set(before.fds.filter((f) => f.startsWith('socket:')));
  const newSockets = (trace) => [...new Set(trace.fds.filter((f) => f.startsWith('socket:') && !had.has(f)))].sort();
  const t = await waitFor('library unloaded', () => { const x = agentTrace(pid); return !x.mapped && x; }, { timeoutMs });
  assert.equal(t.agentThreads, 0, 'no agent thread');
  let last = t;
  try {
    await waitFor('no socket but those open before the attach', () => { last = agentTrace(pid); return newSockets(last).length === 0; }, { timeoutMs });
  } catch { /* said below */ }
  assert.deepEqual(newSockets(last), [], 'no agent socket left open');
  return last;
}

export async function attach(srv, pid) {
  return srv.api(`/api/processes/${pid}/attach`, { method: 'POST' });
}

// Waits until session id's agent has sent its catch-up; its summary then.
export async function caughtUp(srv, id, timeoutMs = 15000) {
  return waitFor('catch-up', async () => {
    const s = (await srv.api(`/api/sessions/${id}`)).body;
    return s.catchup.count >= 1 && s;
  }, { timeoutMs });
}

// A server on a free port attached to pid: { srv, id } once the catch-up is in.
export async function serveAttached(pid, { timeoutMs = 15000 } = {}) {
  const srv = await startServer(['serve', '--port', '0']);
  const r = await attach(srv, pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  await caughtUp(srv, id, timeoutMs);
  return { srv, id };
}

export async function detachAndWait(srv, id) {
  const r = await srv.api(`/api/sessions/${id}/detach`, { method: 'POST' });
  if (r.status !== 202) throw new Error(`detach: ${r.status} ${JSON.stringify(r.body)}`);
  return waitFor('detached', async () => {
    const s = (await srv.api(`/api/sessions/${id}`)).body;
    if (s.state === 'live' && s.error) throw new Error(`detach refused: ${s.error}`);
    return s.state === 'detached' && s;
  }, { timeoutMs: 20000 });
}

// /proc's CPU times are in USER_HZ ticks (1/100 s).
const USER_HZ = 100;
// utime + stime (fields 14 and 15) of a /proc stat line, in seconds.
function statCpuSeconds(stat) {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / USER_HZ;
}

// The OS thread of process `pid` named `name` (its comm).
export function threadOf(pid, name) {
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      if (fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim() === name) return Number(t);
    } catch { /* ended meanwhile */ }
  }
  throw new Error(`no thread named ${name} in ${pid}`);
}

// A thread's CPU time so far (s); processCpuSeconds: every thread's.
export function cpuSeconds(pid, tid) {
  return statCpuSeconds(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
}
export function processCpuSeconds(pid) {
  return statCpuSeconds(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
}
