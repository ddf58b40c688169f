// cpuframes.test.mjs -- CPU profiles keep the frames the frame-pointer walk alone
// loses (issue 38, item 4), on a real .NET process (tests/apps/StackTarget
// `frames`): "osrloop" runs Frames.OsrLoop, entered once from Frames.OsrCaller,
// as on-stack-replaced code on its Tier0 frame: every sample of OsrLoop has
// OsrCaller right under it; "mathleaf" runs Frames.MathLoop, whose time goes to
// libm's sin and log (no frame pointer): MathLoop is on the stack, right under
// libm and right above its caller, in at least 99% of that thread's samples.
//
// Deterministic under load: the profile runs until both threads had enough CPU
// time (read from /proc), whatever the wall time, and only shares are judged.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { stopAll, waitFor, threadOf, cpuSeconds } from './lib.mjs';
import { runStackTarget } from './stacktarget.mjs';

after(stopAll);

const OSR = 'StackTarget.Frames.OsrLoop(double, double)';
const OSR_CALLER = 'StackTarget.Frames.OsrCaller(double, double)';
const MATH = 'StackTarget.Frames.MathLoop(int, double)';
const MATH_CALLER = 'StackTarget.Frames.MathCaller(double)';

const post = (srv, p, body) => srv.api(p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

// The folded stacks of one thread as [frames root first, count].
async function foldedOf(srv, thread) {
  const text = (await srv.api(`/api/sessions/1/profile?format=folded&thread=${thread}`)).body;
  return text.split('\n').filter(Boolean).map((line) => {
    const m = /^(.*) (\d+)$/.exec(line);
    return [m[1].split(';'), Number(m[2])];
  });
}

test('frames: an on-stack-replaced method keeps its caller, a method calling libm stays on the stack', async () => {
  const { srv, pid } = await runStackTarget({ appArgs: ['frames', '600'] });
  const osr = threadOf(pid, 'osrloop'), math = threadOf(pid, 'mathleaf');
  // past tiering: both loops have run a while (OsrLoop on its OSR code, MathLoop in Tier1)
  await waitFor('0.5 s of CPU on each thread', () => cpuSeconds(pid, osr) >= 0.5 && cpuSeconds(pid, math) >= 0.5,
    { timeoutMs: 60000, everyMs: 100 });
  const c0 = [cpuSeconds(pid, osr), cpuSeconds(pid, math)];
  const start = await post(srv, '/api/sessions/1/profile', { hz: 999, mode: 'cpu' });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  await waitFor('1.5 s of CPU on each thread', () => cpuSeconds(pid, osr) - c0[0] >= 1.5 && cpuSeconds(pid, math) - c0[1] >= 1.5,
    { timeoutMs: 120000, everyMs: 100 });
  assert.equal((await srv.api('/api/sessions/1/profile/stop', { method: 'POST' })).status, 200);
  await waitFor('stopped and folded', async () => (await srv.api('/api/sessions/1/profile')).body.profile.state === 'stopped',
    { timeoutMs: 10000 });

  // (a) on-stack replacement: every sample of OsrLoop has OsrCaller right under it
  let osrSamples = 0, osrWithCaller = 0;
  const lost = [];
  for (const [frames, n] of await foldedOf(srv, 'osrloop')) {
    const at = frames.indexOf(OSR);
    if (at < 0) continue;
    osrSamples += n;
    if (frames[at - 1] === OSR_CALLER) osrWithCaller += n;
    else lost.push(`${frames.slice(Math.max(0, at - 3)).join(';')} ${n}`);
  }
  assert.ok(osrSamples >= 500, `OsrLoop has ${osrSamples} samples (at least 500)`);
  assert.equal(osrWithCaller, osrSamples, `every sample of OsrLoop has OsrCaller under it: ${lost.slice(0, 5).join('\n')}`);

  // (b) a leaf without a frame pointer: MathLoop on the stack in >= 99% of the thread's samples
  let total = 0, withMath = 0, underLibm = 0;
  const missing = [];
  for (const [frames, n] of await foldedOf(srv, 'mathleaf')) {
    total += n;
    const at = frames.indexOf(MATH);
    if (at > 0 && frames[at - 1] === MATH_CALLER) {
      withMath += n;
      if (frames.slice(at + 1).some((f) => /^(__)?(sin|log|__ieee754_log)/.test(f))) underLibm += n;
    } else {
      missing.push(`${frames.slice(-4).join(';')} ${n}`);
    }
  }
  assert.ok(total >= 500, `mathleaf has ${total} samples (at least 500)`);
  assert.ok(withMath >= 0.99 * total,
    `MathLoop (under MathCaller) in ${withMath} of ${total} samples; without:\n${missing.slice(0, 8).join('\n')}`);
  assert.ok(underLibm >= 0.5 * total, `libm's sin or log is the leaf under MathLoop in ${underLibm} of ${total} samples`);
  const text = (await srv.api('/api/sessions/1/profile?format=folded&thread=osrloop')).body;
  assert.doesNotMatch(text, /\[missing frame/, 'osrloop: no [missing frame] label');

  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  assert.ok(srv.stdout.split('\n').includes('bye'), 'app printed "bye"');
  await srv.stop();
});
