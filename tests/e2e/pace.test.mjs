// pace.test.mjs -- E2eTarget's paced storm, which bench/endtoend.mjs uses to
// measure the sender and the server at a given JIT rate: `jitstorm N rate R`
// and the serve command `pace K R` compile the same methods as the unpaced
// storm (the same checksum) and never faster than asked. Only lower bounds on
// time are asserted: a loaded machine makes the storm slower, never faster.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { E2E_DLL, runSync, startTarget, stopAll } from './lib.mjs';

after(stopAll);

test('jitstorm N rate R: the same methods as jitstorm N, at no more than R per second', () => {
  const plain = runSync('dotnet', [E2E_DLL, 'jitstorm', '2000']);
  const paced = runSync('dotnet', [E2E_DLL, 'jitstorm', '2000', 'rate', '4000']);
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(paced.status, 0, paced.stderr);
  assert.equal(paced.stdout, plain.stdout, 'the same stdout, checksum included');
  // the last of 2000 methods is due at 1999 / 4000 s
  const ms = Number(/^jitstorm: 2000 methods in (\d+) ms$/m.exec(paced.stderr)?.[1]);
  assert.ok(ms >= 499, `paced storm took ${ms} ms, at least 499 expected`);
  const m = /^jitstorm: paced at (\d+)\/s \(asked 4000\/s\)$/m.exec(paced.stderr);
  assert.ok(m, paced.stderr);
  assert.ok(Number(m[1]) <= Math.ceil(2000 / (1999 / 4000)), `achieved ${m[1]}/s: 2000 methods in no less than 1999 / 4000 s`);
});

test('jitstorm N rate R refuses a rate that is not a number above 0', () => {
  for (const bad of [['rate', '0'], ['rate', 'x'], ['rate']]) {
    const r = runSync('dotnet', [E2E_DLL, 'jitstorm', '10', ...bad]);
    assert.equal(r.status, 2, `${bad.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /a rate wants a number above 0/);
  }
});

test('serve command "pace K R" JITs the next K storm methods at R per second', async () => {
  const plain = runSync('dotnet', [E2E_DLL, 'jitstorm', '1500']);
  const sum = /^checksum ([0-9a-f]{16})$/m.exec(plain.stdout)[1];
  const t = await startTarget(['jitstorm', '0', 'hold'], { ready: /^holding$/m });
  t.send('pace x');
  t.send('pace 5 0');
  t.send('pace 1500 3000');
  await t.waitLine(/^paced /m, 60000);
  assert.match(t.out, /^error unknown-command pace x$/m);
  assert.match(t.out, /^error unknown-command pace 5 0$/m);
  assert.match(t.out, new RegExp(`^paced 1500 ${sum}$`, 'm'), 'the checksum of the first 1500 storm methods');
  // the last of 1500 methods is due at 1499 / 3000 s
  const ms = Number(/^pace: 1500 methods in ([\d.]+) ms, \d+\/s \(asked 3000\/s\)$/m.exec(t.err)?.[1]);
  assert.ok(ms >= 499, `paced storm took ${ms} ms, at least 499 expected`);
  t.send('pace 10 1000'); // the next ten, never compiled before
  await t.waitLine(/^paced 10 /m, 30000);
  t.send('exit');
  await t.waitLine(/^bye$/m);
});
