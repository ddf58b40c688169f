// tooling.test.mjs -- the project's own tools, run as the Makefile runs them:
// `make fuzz` runs every libFuzzer target there is (one per tests/fuzz/fuzz_<name>.c,
// the one list), and two scripts/deps.sh at once take turns instead of running
// apt side by side (the second waits for the first's lock; apt-get is told to
// wait for the package manager's own lock). deps.sh runs here against a fake
// dpkg-query (every package missing) and a fake apt-get that only notes its
// arguments, with a lock file of its own.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, stopAll, waitFor } from './lib.mjs';

after(stopAll);

function fuzzTargetFiles() {
  return fs.readdirSync(path.join(ROOT, 'tests/fuzz'))
    .map((f) => /^fuzz_(.+)\.c$/.exec(f)).filter(Boolean).map((m) => m[1]).sort();
}

test('make fuzz runs every fuzz target there is, one line each', () => {
  const r = spawnSync('make', ['--no-print-directory', '-s', 'fuzz', 'FUZZ_SECONDS=1'],
    { cwd: ROOT, encoding: 'utf8', timeout: 600000 });
  assert.equal(r.status, 0, `make fuzz: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  // run.sh's closing line per target: "<name>  1s  <execs> execs ..."
  const ran = [...r.stdout.matchAll(/^(\S+)\s+1s\s+\d+ execs/gm)].map((m) => m[1]).sort();
  const files = fuzzTargetFiles();
  assert.ok(files.includes('mdread') && files.length >= 8, `targets: ${files}`);
  assert.deepEqual(ran, files, `make fuzz ran ${ran}, the targets are ${files}`);
});

// A directory of fake tools: dpkg-query says nothing is installed, apt-get
// appends its arguments to LOG.
function fakeTools() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-deps-'));
  const log = path.join(dir, 'apt.log');
  fs.writeFileSync(path.join(dir, 'dpkg-query'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'apt-get'), `#!/bin/sh\necho "$*" >> '${log}'\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  fs.writeFileSync(log, '');
  return { dir, log, lock: path.join(dir, 'deps.lock') };
}

function spawnCollect(cmd, args, opts) {
  const p = spawn(cmd, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], ...opts });
  const out = { proc: p, text: '', exit: null };
  p.stdout.on('data', (d) => { out.text += d; });
  p.stderr.on('data', (d) => { out.text += d; });
  out.exited = new Promise((resolve) => p.on('exit', (code) => { out.exit = code; resolve(code); }));
  return out;
}

test('two scripts/deps.sh at once: the second waits for the first, apt-get waits for the package manager', async () => {
  const t = fakeTools();
  const env = { ...process.env, PATH: `${t.dir}:${process.env.PATH}`, JITSCOPE_DEPS_LOCK: t.lock };
  // the first run, as it installs: holds the lock until told to go
  const first = spawnCollect('flock', [t.lock, '-c', 'echo holding; read go'], { env });
  try {
    await waitFor('the first holds the lock', () => first.text.includes('holding'));
    const second = spawnCollect('scripts/deps.sh', ['build'], { env });
    await waitFor('the second waits (or ends)', () => second.text.includes('deps: waiting') || second.exit !== null, { timeoutMs: 30000 });
    assert.equal(second.exit, null, `deps.sh ran on while the lock was held: exit ${second.exit}\n${second.text}`);
    assert.equal(fs.readFileSync(t.log, 'utf8'), '', 'no apt-get while the other run holds the lock');
    first.proc.stdin.end('go\n');
    assert.equal(await first.exited, 0);
    assert.equal(await second.exited, 0, second.text);
    const calls = fs.readFileSync(t.log, 'utf8').trim().split('\n');
    assert.equal(calls.length, 2, `apt-get update, then install: ${calls}`);
    assert.match(calls[0], /-o DPkg::Lock::Timeout=\d+ update/);
    assert.match(calls[1], /-o DPkg::Lock::Timeout=\d+ install .*libmicrohttpd-dev/);
  } finally {
    first.proc.kill('SIGKILL');
    fs.rmSync(t.dir, { recursive: true, force: true });
  }
});
