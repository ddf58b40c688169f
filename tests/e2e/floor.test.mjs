// floor.test.mjs -- the floor, a null agent (JITSCOPE_NULL=1): the baseline
// every overhead figure of docs/BENCHMARKS.md is measured against. It must ask
// the runtime for exactly what a default agent asks (the same event masks, the
// same tier source), record nothing while the app JITs, and say what it is, so
// that the session shows a floor and not an empty app. In startup mode (the
// variable in the app's environment, through `jitscope run`) and after an attach
// (in the attaching server's environment, passed in the client data).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { E2E_DLL, startServer, startTarget, stopAll, waitFor, functionsOf, attach, detachAndWait, agentTrace } from './lib.mjs';

after(stopAll);

const STORM = 2000;

async function runStorm(env) {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'jitstorm', String(STORM)], { env });
  const s = await waitFor('the app exited', async () => {
    const x = (await srv.api('/api/sessions/1')).body;
    return x.state === 'exited' && x;
  }, { timeoutMs: 60000 });
  const fns = await functionsOf(srv, 1);
  await srv.stop();
  return { s, fns, out: srv.stdout };
}

test('run: the floor asks for the same events and tier source as the defaults, and records nothing while the app JITs', async () => {
  const defaults = await runStorm({});
  const floor = await runStorm({ JITSCOPE_NULL: '1' });
  for (const r of [defaults, floor]) assert.match(r.out, /^jitted$/m, 'the app ran its storm');

  assert.equal(defaults.s.agent.floor, false);
  assert.equal(floor.s.agent.floor, true, 'the session says it is a floor');
  assert.ok(defaults.s.agent.event_mask > 0, `the agent reported its mask: ${JSON.stringify(defaults.s.agent)}`);
  assert.equal(floor.s.agent.event_mask, defaults.s.agent.event_mask, 'the same event mask');
  assert.equal(floor.s.agent.event_mask_high, defaults.s.agent.event_mask_high, 'the same high event mask');
  assert.equal(defaults.s.tier_source.enabled, true);
  assert.equal(floor.s.tier_source.enabled, true, 'the same tier source, on');

  assert.ok(defaults.s.counters.jit_compilations >= STORM, `defaults: ${defaults.s.counters.jit_compilations} JITs`);
  assert.equal(floor.s.counters.jit_compilations, 0, 'the floor sent no JIT record');
  assert.equal(floor.fns.length, 0, 'and no function');
  assert.equal(floor.s.counters.modules, 0);
  assert.equal(floor.s.counters.threads, 0);
  assert.equal(floor.s.code.inline_records, 0, 'no inlining record');
  assert.equal(floor.s.code.ready_to_run_searches, 0, 'no ReadyToRun search');
  // its hello and its tier-source status, nothing else: no counters either
  assert.equal(floor.s.link.records, 2, `records from the floor: ${floor.s.link.records}`);
  assert.equal(floor.s.agent_cost.jit_callbacks, 0);
});

test('attach: a server with JITSCOPE_NULL=1 attaches a floor; it answers detach, and a normal attach asks for the same masks', async () => {
  const target = await startTarget(['serve']);
  const floorSrv = await startServer(['serve', '--port', '0'], { env: { JITSCOPE_NULL: '1' } });
  const r = await attach(floorSrv, target.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  const live = await waitFor('tier status', async () => {
    const x = (await floorSrv.api(`/api/sessions/${id}`)).body;
    return x.tier_source.enabled !== null && x;
  });
  assert.equal(live.agent.floor, true);
  assert.equal(live.tier_source.enabled, true);
  target.send('call 5');
  await target.waitLine(/^called 5 /m);
  // the floor walks and samples nothing: the server says so instead of waiting
  const stacks = await floorSrv.api(`/api/sessions/${id}/stacks`, { method: 'POST' });
  assert.equal(stacks.status, 409, JSON.stringify(stacks.body));
  assert.match(stacks.body.error, /floor/);
  const profile = await floorSrv.api(`/api/sessions/${id}/profile`, { method: 'POST', body: '{}' });
  assert.equal(profile.status, 409, JSON.stringify(profile.body));
  const cpu = await floorSrv.api(`/api/sessions/${id}/profile`, { method: 'POST', body: '{"mode":"cpu"}' });
  assert.equal(cpu.status, 409, `a CPU profile neither: ${JSON.stringify(cpu.body)}`);
  assert.match(cpu.body.error, /floor/);
  const d = await detachAndWait(floorSrv, id);
  assert.equal(d.catchup.count, 0, 'no catch-up from a floor');
  assert.equal(d.counters.jit_compilations, 0);
  assert.equal(d.counters.functions, 0);
  // hello, tier-source status, then the detach's two statuses (requested, succeeded)
  assert.equal(d.link.records, 4, `records from the floor: ${d.link.records}`);
  await waitFor('unloaded', () => !agentTrace(target.pid).mapped, { timeoutMs: 10000 });
  await floorSrv.stop();

  const srv = await startServer(['serve', '--port', '0']);
  const again = await attach(srv, target.pid);
  assert.equal(again.status, 201, JSON.stringify(again.body));
  const normal = await waitFor('catch-up', async () => {
    const x = (await srv.api(`/api/sessions/${again.body.session.id}`)).body;
    return x.catchup.count >= 1 && x;
  });
  assert.equal(normal.agent.floor, false);
  assert.equal(live.agent.event_mask, normal.agent.event_mask, 'the same event mask after attach');
  assert.equal(live.agent.event_mask_high, normal.agent.event_mask_high);
  assert.ok(normal.counters.functions > 0, 'a normal agent reports what was compiled');
  target.send('exit');
  await srv.stop();
});
