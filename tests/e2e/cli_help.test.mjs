// cli_help.test.mjs -- what `jitscope` says about itself (issue 34, item 12):
// --version, each command's own --help (not the global text), help texts printed
// as written (no printf escapes such as "25%%"), and `attach 1` answered with
// what is true of process 1 rather than "not a process id".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { JITSCOPE, runSync } from './lib.mjs';

const jitscope = (args) => runSync(JITSCOPE, args, { timeout: 20000 });

test('--version and version print the version', () => {
  for (const args of [['--version'], ['version']]) {
    const r = jitscope(args);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^jitscope \d+\.\d+\S*\n$/);
    assert.equal(r.stderr, '');
  }
});

test('each command has its own --help; help COMMAND is the same text', () => {
  const global = jitscope(['--help']);
  assert.equal(global.status, 0);
  assert.match(global.stdout, /^usage: jitscope COMMAND/);
  for (const cmd of ['run', 'attach', 'detach', 'ps', 'serve']) {
    const own = jitscope([cmd, '--help']);
    assert.equal(own.status, 0, `${cmd} --help: ${own.stderr}`);
    assert.match(own.stdout, new RegExp(`^usage: jitscope ${cmd}\\b`), `${cmd} --help starts with its usage`);
    assert.doesNotMatch(own.stdout, /^commands:/m, `${cmd} --help is not the global text`);
    assert.match(own.stdout, /^exit codes: /m, `${cmd} --help says its exit codes`);
    assert.equal(jitscope([cmd, '-h']).stdout, own.stdout);
    assert.equal(jitscope(['help', cmd]).stdout, own.stdout);
  }
  const run = jitscope(['run', '--help']).stdout;
  for (const opt of ['--exit', '--no-children', '--report FILE', '--baseline FILE', '--fail-on COND', '--port N'])
    assert.ok(run.includes(`  ${opt}`), `run --help lists ${opt}`);
  assert.doesNotMatch(run, /--server URL/, 'run has no --server');
  const attach = jitscope(['attach', '--help']).stdout;
  assert.ok(attach.includes('  --server URL'));
  assert.doesNotMatch(attach, /--exit|--no-children|--report/, 'attach --help lists only its options');
  const ps = jitscope(['ps', '--help']).stdout;
  assert.doesNotMatch(ps, /--port/, 'ps takes no options');
  const unknown = jitscope(['help', 'nope']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /no command 'nope'/);
});

test('help texts print percent signs as written', () => {
  for (const args of [['--help'], ['run', '--help'], ['serve', '--help'], ['attach', '--help']]) {
    const out = jitscope(args).stdout;
    assert.doesNotMatch(out, /%%/, `${args.join(' ')}: no doubled percent sign`);
  }
  const serve = jitscope(['serve', '--help']).stdout;
  assert.match(serve, /or N% of the machine's\s+memory; default 25%,/);
  assert.match(jitscope(['run', '--help']).stdout, /'jit_time>\+20%'/);
});

test('attach 1 says what is true of process 1; 0 is no process id', () => {
  const comm = fs.readFileSync('/proc/1/comm', 'utf8').trim();
  const r = jitscope(['attach', '1', '--port', '0']);
  assert.equal(r.status, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /not a process id|cannot be attached to/);
  // a non-root user meets init as another user's process; root (or a container's
  // own pid 1) as a process without a .NET diagnostics socket
  assert.match(r.stderr, /^jitscope attach: (process 1 belongs to uid \d+|no dotnet-diagnostic-1-\*-socket .*not a \.NET process)/m, `pid 1 is ${comm}`);
  assert.doesNotMatch(r.stdout + r.stderr, /dashboard at/);
  const zero = jitscope(['attach', '0']);
  assert.equal(zero.status, 2);
  assert.match(zero.stderr, /'0' is not a process id/);
});
