// containers.mjs -- containers for the end-to-end tests, made as an image
// would run (tests/helpers/container.sh: own mount, pid and UTS namespaces,
// a root of its own with the .NET runtime and the app read-only, a private
// /tmp, nothing of the build tree; `userns` adds a user namespace whose root
// is uid USERNS_UID on the host), with a cgroup named as Docker names one, so
// that its id can be checked. No container engine is needed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD, ROOT, waitFor } from './lib.mjs';

export const CONTAINER_SH = path.join(ROOT, 'tests/helpers/container.sh');
export const APP_DIR = path.join(BUILD, 'apps/E2eTarget');
export const DOTNET_INSIDE = '/usr/share/dotnet/dotnet';
export const USERNS_UID = 100000; // the user namespace's root, as the host sees it

const running = new Set();

// Starts E2eTarget (args) in a container; resolves once its first line
// matching `ready` came. { pid (the host's), id (cgroup), hostname, out, err,
// send, waitLine, exited, stop() }.
export async function startContainer(args = ['serve'], {
  hostname = `ctr-${crypto.randomBytes(3).toString('hex')}`, userns = false, rootless = null,
  volumes = [], env = {}, tmpSize = null, tmpRo = false, ready = /^READY$/m, prefix = [],
} = {}) {
  const id = crypto.randomBytes(32).toString('hex');
  const pidfile = path.join(os.tmpdir(), `jitscope-ctr-pid-${process.pid}-${id.slice(0, 8)}`);
  // rootless: made by an unprivileged user (a user namespace of theirs, no cgroup of its own)
  const argv = rootless === null ? [...prefix, CONTAINER_SH] : [...prefix, ...asUser(rootless), CONTAINER_SH, '--rootless'];
  argv.push('--hostname', hostname, '--bind', `${APP_DIR}:/app`, '--pidfile', pidfile);
  if (rootless === null) argv.push('--cgroup', `jitscope-test-${process.pid}/docker-${id}.scope`);
  if (userns) argv.push('--userns', String(USERNS_UID));
  if (tmpSize) argv.push('--tmp-size', tmpSize);
  if (tmpRo) argv.push('--tmp-ro');
  for (const v of volumes) argv.push('--volume', v);
  for (const [k, v] of Object.entries(env)) argv.push('--env', `${k}=${v}`);
  argv.push('--', DOTNET_INSIDE, '/app/E2eTarget.dll', ...args);
  const proc = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(proc);
  const c = { proc, id: rootless === null ? id : null, hostname, out: '', err: '' };
  proc.stdout.on('data', (d) => { c.out += d; });
  proc.stderr.on('data', (d) => { c.err += d; });
  c.exited = new Promise((resolve) => proc.on('exit', (code, signal) => {
    running.delete(proc);
    c.exit = { code, signal };
    fs.rmSync(pidfile, { force: true });
    resolve(c.exit);
  }));
  c.send = (line) => proc.stdin.write(line + '\n');
  c.waitLine = (re, ms = 30000) => waitFor(`container output ${re} (stderr: ${c.err.slice(-300)})`,
    () => { if (c.exit) throw new Error(`the container ended: ${JSON.stringify(c.exit)} ${c.err}`); return re.test(c.out); }, { timeoutMs: ms });
  // (an app that is not waited for may end before its pid is read: then null)
  c.pid = Number(await waitFor('the container\'s pid', () => {
    const t = fs.existsSync(pidfile) ? fs.readFileSync(pidfile, 'utf8').trim() : '';
    if (!/^\d+$/.test(t) && c.exit && !ready) return '0';
    if (c.exit) throw new Error(`the container ended: ${JSON.stringify(c.exit)} ${c.err}`);
    return /^\d+$/.test(t) && t;
  }, { timeoutMs: 30000 })) || null;
  if (ready) await c.waitLine(ready, 60000);
  c.tmp = `/proc/${c.pid}/root/tmp`; // its /tmp, as the host reaches it
  c.stop = async () => { if (!c.exit) proc.kill('SIGKILL'); return c.exited; };
  return c;
}

// A command's prefix that runs it as uid (and gid) `uid`, without groups.
export function asUser(uid) {
  return ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'];
}

export async function stopContainers() {
  for (const p of [...running]) p.kill('SIGKILL');
  running.clear();
}

// What the container's /tmp holds of jitscope's (a place directory and its files).
export function jitscopeInTmp(c) {
  const out = [];
  for (const name of fs.readdirSync(c.tmp)) {
    if (!name.startsWith('jitscope')) continue;
    out.push(name);
    try { for (const f of fs.readdirSync(path.join(c.tmp, name))) out.push(`${name}/${f}`); } catch { /* a file */ }
  }
  return out;
}

// A directory shared with a container (a volume), owned by its root: the
// host's root, or USERNS_UID for a container with a user namespace.
export function sharedDir(userns = false) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-vol-'));
  if (userns) fs.chownSync(dir, USERNS_UID, USERNS_UID);
  fs.chmodSync(dir, 0o755);
  return dir;
}

// E2eTarget's output without the agent, in the same container kind.
export async function aloneOutput(args, { input = [], ...opts } = {}) {
  const c = await startContainer(args, { ...opts, ready: null });
  for (const line of input) c.send(line);
  const exit = await c.exited;
  assert.equal(exit.signal, null, `alone: ${c.err}`);
  return { out: c.out, code: exit.code };
}
