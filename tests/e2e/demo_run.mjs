// demo_run.mjs -- a stored session of the Demo app with what the filter tests
// look for (tests/e2e/filters.test.mjs, tests/browser/feed_filters.test.mjs):
// `jitscope run --exit --data DIR -- dotnet Demo.dll`, left running until its
// own code has tiered up to Tier1, compiled regexes have made dynamic methods
// and its plugin (loaded about 5 s in) has run (waited for, not timed: a
// loaded machine tiers up later), then the app is stopped and the run ends
// with its session stored.
import { DEMO_DLL, startServer, waitFor } from './lib.mjs';

export async function recordDemo(data) {
  const run = await startServer(['run', '--exit', '--port', '0', '--data', data, '--', 'dotnet', DEMO_DLL, '--wave-ms', '150']);
  const total = async (query) => (await run.api(`/api/sessions/1/functions?limit=1&${query}`)).body.total;
  await waitFor('the Demo\'s own code at Tier1, dynamic methods and its plugin', async () =>
    await total('origin=app&recompiled=true&tier=Tier1') > 0 && await total('origin=dynamic') > 0 &&
    await total('origin=app&module=DemoPlugin') > 0, { timeoutMs: 180000, everyMs: 250 });
  const pid = Number(/started pid (\d+)/.exec(run.stderr)[1]);
  process.kill(pid, 'SIGTERM');
  return run.exited;
}
