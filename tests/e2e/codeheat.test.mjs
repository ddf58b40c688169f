// codeheat.test.mjs -- a CPU profile's samples on the instructions of the code
// view (issue 38, item 1): GET .../functions/{fid}/code gives each instruction
// and version the samples of the session's newest profile. The oracle is
// tests/apps/StackTarget's "hotline" mode (Hot.cs): Hot.Work, called again and
// again (Tier1), and Hot.OsrLoop, entered once (on-stack replacement), each
// spend nearly all their time on one line ("HOT LINE"), a chain of divisions;
// the app prints that line's IL offsets from its own PDB (System.Reflection.
// Metadata), so the test does not take them from jitscope. At least 85% of each
// method's samples in its Tier1 (OSR) version must land on the instructions the
// IL-to-native map gives to that line. A caller's frame counts on its call:
// Hot.WorkCaller's call to Work carries (nearly) every sample of Work, as
// `samples`, not as its own. Then the same numbers from a restarted
// server on the same data directory (the profile's LOGREC_CPU_HEAT records),
// ?profile=N; and a wall profile's samples (where the runtime stopped the
// thread, from its own walk) on the same line and call.
//
// Deterministic under load: the profile runs until both threads had a given
// CPU time (from /proc), not for a wall time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { STACK_DLL, startServer, stopAll, waitFor, functionsOf, tempDataDir } from './lib.mjs';
import { cpuProfileFor, hotLines } from './stacktarget.mjs';

after(stopAll);

const READY = /^READY pid=(\d+)$/m;

const post = (srv, p, body) => srv.api(p, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
});


// [start, end) IL offsets of `line` in `method`, from the app's SEQ lines.
function ilRange(out, method, line) {
  const points = [...out.matchAll(/^SEQ (\w+) (\d+) (\d+)$/gm)]
    .filter((m) => m[1] === method).map((m) => ({ il: Number(m[2]), line: Number(m[3]) }))
    .sort((a, b) => a.il - b.il);
  const i = points.findIndex((p) => p.line === line);
  assert.ok(i >= 0 && i + 1 < points.length, `${method}: a sequence point for line ${line}: ${JSON.stringify(points)}`);
  return [points[i].il, points[i + 1].il];
}


async function fn(srv, q) {
  const list = await functionsOf(srv, 1, `&q=${encodeURIComponent(q)}`);
  return list.find((f) => f.name.startsWith(q));
}

// What one version's instructions say of a line: its samples, all of them.
function onLine(version, [from, to]) {
  let line = 0, all = 0, total = 0;
  for (const i of version.instructions) {
    all += i.self_samples;
    total += i.samples;
    if (typeof i.il_offset === 'number' && i.il_offset >= from && i.il_offset < to) line += i.self_samples;
  }
  return { line, all, total };
}

// Checks the hot line of `name` in its version of tier `tier`; returns the code.
// `least`: the samples the version must hold (a wall profile's rate falls under
// load: the agent keeps its suspensions within 2% of the time).
async function checkHot(srv, fid, name, tier, range, number, least = 100) {
  const r = await srv.api(`/api/sessions/1/functions/${fid}/code?refresh=0`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const code = r.body;
  assert.equal(code.profile.number, number);
  const v = code.versions.find((x) => x.tier === tier);
  assert.ok(v, `${name}: a ${tier} version among ${code.versions.map((x) => x.tier).join(', ')}`);
  const { line, all, total } = onLine(v, range);
  assert.equal(all, v.self_samples, `${name}: the version's self samples are its instructions'`);
  assert.equal(total, v.samples, `${name}: and its samples`);
  const everywhere = code.versions.reduce((n, x) => n + x.self_samples, 0);
  assert.ok(all >= least && all >= 0.8 * everywhere,
    `${name}: its ${tier} version has most of its samples (${all} of ${everywhere})`);
  assert.ok(line >= 0.85 * all,
    `${name}: ${line} of ${all} samples (${(100 * line / all).toFixed(1)}%) on the hot line's instructions (IL ${range[0]}..${range[1]})`);
  console.log(`${name} ${tier}: ${line} of ${all} samples on the hot line (${(100 * line / all).toFixed(1)}%)`);
  const hottest = [...v.instructions].sort((a, b) => b.self_samples - a.self_samples)[0];
  assert.ok(hottest.il_offset >= range[0] && hottest.il_offset < range[1], `${name}: the hottest instruction is on the line`);
  return code;
}

// Hot.WorkCaller's call to Work holds Work's samples (its frame's return
// address - 1 is inside that call).
async function checkCaller(srv, workCode) {
  const caller = await fn(srv, 'StackTarget.Hot.WorkCaller(');
  assert.ok(caller, 'WorkCaller is a function of the session');
  const r = await srv.api(`/api/sessions/1/functions/${caller.function_id}/code`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const all = r.body.versions.flatMap((v) => v.instructions.map((i) => ({ ...i, tier: v.tier })));
  const top = [...all].sort((a, b) => b.samples - a.samples)[0];
  const calls = all.filter((i) => i.mnemonic === 'call' && i.target && i.target.name &&
    i.target.name.startsWith('StackTarget.Hot.Work('));
  const under = calls.reduce((n, i) => n + i.samples, 0);
  const work = workCode.versions.reduce((n, v) => n + v.samples, 0); // Work on the stack
  assert.ok(calls.includes(top), `the instruction most samples were under is a call to Work: ${JSON.stringify(top)}`);
  assert.ok(under >= 0.9 * work && under <= 1.01 * work + 5 && calls.every((i) => i.self_samples <= 0.01 * i.samples),
    `WorkCaller's calls to Work (${calls.map((i) => `${i.tier}: ${i.samples}`).join(', ')}) under ${under} of Work's ${work} samples, not as their own`);
  console.log(`WorkCaller's calls to Work (${calls.map((i) => `${i.tier}: ${i.samples}`).join(', ')}): under ${under} of Work's ${work} samples`);
}

test('CPU samples on the instructions of the hot line: Tier1 and OSR, through a restart', async () => {
  const data = tempDataDir();
  const srv = await startServer(['run', '--data', data, '--port', '0', '--', 'dotnet', STACK_DLL, 'hotline'],
    { env: { JITSCOPE_COMPACT_MIN: '0' } });
  await waitFor('StackTarget READY', () => READY.test(srv.stdout), { timeoutMs: 60000 });
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
  const pid = Number(READY.exec(srv.stdout)[1]);
  const lines = hotLines();
  const workRange = ilRange(srv.stdout, 'Work', lines.Work.line);
  const osrRange = ilRange(srv.stdout, 'OsrLoop', lines.OsrLoop.line);
  const work = await waitFor('Hot.Work at Tier1', async () => {
    const f = await fn(srv, 'StackTarget.Hot.Work(');
    return f && f.tiers.some((t) => t.tier === 'Tier1') && f;
  }, { timeoutMs: 60000, everyMs: 200 });
  const osr = await waitFor('Hot.OsrLoop on-stack replaced', async () => {
    const f = await fn(srv, 'StackTarget.Hot.OsrLoop(');
    return f && f.tiers.some((t) => t.tier === 'Tier1-OSR') && f;
  }, { timeoutMs: 60000, everyMs: 200 });
  // no samples before a profile: 0 everywhere, no profile
  const none = (await srv.api(`/api/sessions/1/functions/${work.function_id}/code`)).body;
  assert.equal(none.profile, null);
  assert.ok(none.versions.every((v) => v.samples === 0 && v.instructions.every((i) => i.samples === 0)));
  assert.equal((await srv.api(`/api/sessions/1/functions/${work.function_id}/code?profile=1`)).status, 404,
    'no profile 1 yet');

  await cpuProfileFor(srv, pid);
  // read the code while live (the stopped session serves what was read then)
  for (const f of [work, osr]) {
    const r = await srv.api(`/api/sessions/1/functions/${f.function_id}/code`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const workCode = await checkHot(srv, work.function_id, 'Hot.Work', 'Tier1', workRange, 1);
  await checkCaller(srv, workCode);
  const osrCode = await checkHot(srv, osr.function_id, 'Hot.OsrLoop', 'Tier1-OSR', osrRange, 1);
  assert.equal(workCode.profile.mode, 'cpu');
  assert.equal((await srv.api(`/api/sessions/1/functions/${work.function_id}/code?profile=1&refresh=0`)).status, 200);
  assert.equal((await srv.api(`/api/sessions/1/functions/${work.function_id}/code?profile=2&refresh=0`)).status, 404,
    'only the newest profile is kept');
  assert.equal((await srv.api(`/api/sessions/1/functions/${work.function_id}/code?profile=x`)).status, 400);

  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  await waitFor('its snapshot committed', async () => (await srv.api('/api/config')).body.storage.snapshots >= 1, { timeoutMs: 60000, everyMs: 100 });
  await srv.stop();
  const again = await startServer(['serve', '--data', data, '--port', '0']);
  for (const [f, before] of [[work, workCode], [osr, osrCode]]) {
    const back = (await again.api(`/api/sessions/1/functions/${f.function_id}/code`)).body;
    assert.deepEqual(back.profile, before.profile, 'the same profile');
    assert.deepEqual(back.versions.map((v) => v.instructions.map((i) => [i.samples, i.self_samples])),
      before.versions.map((v) => v.instructions.map((i) => [i.samples, i.self_samples])),
      `${f.name}: every instruction's samples as before the restart`);
  }
  await again.stop();
});

test('wall samples on the instructions too: the hot line, the caller\'s call', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', STACK_DLL, 'hotline']);
  await waitFor('StackTarget READY', () => READY.test(srv.stdout), { timeoutMs: 60000 });
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
  const range = ilRange(srv.stdout, 'Work', hotLines().Work.line);
  const work = await waitFor('Hot.Work at Tier1', async () => {
    const f = await fn(srv, 'StackTarget.Hot.Work(');
    return f && f.tiers.some((t) => t.tier === 'Tier1') && f;
  }, { timeoutMs: 60000, everyMs: 200 });
  const start = await post(srv, '/api/sessions/1/profile', { hz: 99, mode: 'wall' });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  // 40: at the 2% budget's lowest rates (a loaded machine stretches each
  // suspension) 100 took longer than two minutes
  await waitFor('40 wall samples in Hot.Work\'s Tier1 code', async () => {
    const c = (await srv.api(`/api/sessions/1/functions/${work.function_id}/code`)).body;
    return c.versions && c.versions.some((v) => v.tier === 'Tier1' && v.self_samples >= 40);
  }, { timeoutMs: 300000, everyMs: 500 });
  assert.equal((await post(srv, '/api/sessions/1/profile/stop', {})).status, 200);
  const code = await checkHot(srv, work.function_id, 'Hot.Work (wall)', 'Tier1', range, 1, 40);
  assert.equal(code.profile.mode, 'wall');
  await checkCaller(srv, code);
  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  await srv.stop();
});
