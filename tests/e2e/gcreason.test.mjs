// gcreason.test.mjs -- why each collection happened, as the runtime says it
// (agent/gcreason.h): E2eTarget `gcs N large` makes N collections the runtime
// decides on from small allocations, N more from large-object allocations,
// and one GC.Collect(). The profiling API alone tells only induced from other;
// the agent's GC session gives the runtime's own reason, in the timeline, the
// stream's gc events and a stored session read back. JITSCOPE_GC_REASONS=0
// leaves the session off: induced or other only.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { E2E_DLL, startServer, stopAll, waitFor, tempDataDir } from './lib.mjs';

after(stopAll);

const N = 20;
const count = (gcs) => gcs.reduce((m, g) => ({ ...m, [g.reason]: (m[g.reason] || 0) + 1 }), {});

async function run(env, data = 'none') {
  const srv = await startServer(['run', '--port', '0', '--data', data, '--', 'dotnet', E2E_DLL, 'gcs', String(N), 'large'], { env });
  await waitFor('the app exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 120000 });
  assert.match(srv.stdout, /^gcs done$/m);
  const timeline = (await srv.api('/api/sessions/1/timeline')).body;
  const events = (await srv.api('/api/sessions/1/events?limit=10000')).body.events.filter((e) => e.type === 'gc');
  return { srv, timeline, events };
}

test('each collection carries the runtime\'s own reason: allocations small and large, and the induced one', async () => {
  const data = tempDataDir();
  const { srv, timeline, events } = await run({}, data);
  const reasons = count(timeline.gcs);
  assert.ok(reasons.alloc_soh >= N, `small-object allocations: ${JSON.stringify(reasons)}`);
  assert.ok(reasons.alloc_loh >= 1, `large-object allocations: ${JSON.stringify(reasons)}`);
  assert.ok(reasons.induced >= 1, `GC.Collect(): ${JSON.stringify(reasons)}`);
  assert.equal(reasons.other, undefined, 'none left unexplained');
  for (const g of timeline.gcs) assert.equal(g.induced, g.reason.startsWith('induced'), `${g.reason}: the profiling API agrees`);
  assert.deepEqual(count(events), count(timeline.gcs.filter((g) => g.complete)), 'the stream says the same');
  await srv.stop();
  const again = await startServer(['serve', '--port', '0', '--data', data]);
  assert.deepEqual(count((await again.api('/api/sessions/1/timeline')).body.gcs), reasons, 'and so does the stored session');
  await again.stop();
});

test('JITSCOPE_GC_REASONS=0: no GC session, the profiling API\'s induced or other', async () => {
  const { srv, timeline } = await run({ JITSCOPE_GC_REASONS: '0' });
  const reasons = count(timeline.gcs);
  assert.deepEqual(Object.keys(reasons).sort(), ['induced', 'other'], JSON.stringify(reasons));
  assert.ok(reasons.other >= 2 * N);
  await srv.stop();
});
