// exceptions.test.mjs -- every managed exception, by throw site (agent/exceptions.h,
// server/excsites.h): E2eTarget `throws` (tests/apps/E2eTarget/Throws.cs) throws
// known numbers of known types from known methods, caught at known places, one of
// them rethrown (`throw;`) and caught again; `throws child` then runs the app again
// as `unhandled`, whose background thread throws an exception nothing catches.
// jitscope's counts must be exact per site, in startup mode and attached, on .NET 10
// (the SDK's runtime), 9 and 8 (self-contained, tests/apps/apps.mk apps-runtimes).
// The IL offsets are those of the `throw` instructions in the C# compiler's IL of
// Throws.cs (ldstr, ldarga, call, call, newobj, throw: 22; ldstr, newobj, throw: 10).
// Each site's source line (from the app's portable PDB, server/srcline.c srcline_at_il) is the
// line of Throws.cs that declares its throwing method (an expression body: `=> throw`).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { E2E_DLL, ROOT, RUNTIME_APPS, startServer, startTarget, serveAttached, stopAll, waitFor,
  tempDataDir, storageCaughtUp } from './lib.mjs';

after(stopAll);

const T = 'JitscopeE2e.Throws.';
const SOURCE = fs.readFileSync(path.join(ROOT, 'tests/apps/E2eTarget/Throws.cs'), 'utf8').split('\n');
const lineOf = (method) => {
  const at = SOURCE.findIndex((l) => l.includes(`static void ${method}(`) && l.includes('=> throw new'));
  assert.ok(at >= 0, `Throws.cs declares ${method} as a throw`);
  return at + 1;
};
const EXPECTED = [
  { type: 'System.InvalidOperationException', method: `${T}ThrowInvalid(int)`, il_offset: 22, line: lineOf('ThrowInvalid'), message: 'invalid 0',
    count: 100, caught: 100, caught_in: { [`${T}CatchInvalid()`]: 100 } },
  { type: 'System.ArgumentException', method: `${T}ThrowArgument()`, il_offset: 10, line: lineOf('ThrowArgument'), message: 'bad argument',
    count: 37, caught: 37, caught_in: { [`${T}CatchArgument()`]: 37 } },
  { type: 'System.FormatException', method: `${T}ThrowFormat()`, il_offset: 10, line: lineOf('ThrowFormat'), message: 'format',
    count: 5, caught: 5, caught_in: { [`${T}Middle()`]: 5, [`${T}Outer()`]: 5 } },
];
const THROWN = 142; // what a round's catches add up to (its stdout says so)

// The sites of our own code (the runtime's own exceptions, if any, are left out),
// in EXPECTED's shape, times `rounds`.
const ours = (body) => body.sites.filter((s) => s.method && s.method.startsWith(T)).map((s) => ({
  type: s.type, method: s.method, il_offset: s.il_offset, line: s.line, message: s.message, count: s.count, caught: s.caught,
  caught_in: Object.fromEntries(s.caught_in.map((c) => [c.method, c.count])),
})).sort((a, b) => b.count - a.count);
const times = (n) => EXPECTED.map((e) => ({ ...e, count: e.count * n, caught: e.caught * n,
  caught_in: Object.fromEntries(Object.entries(e.caught_in).map(([k, v]) => [k, v * n])) }));
const ourTotal = (body) => ours(body).reduce((n, s) => n + s.count, 0);
const exceptions = async (srv, id, query = '') => (await srv.api(`/api/sessions/${id}/exceptions${query}`)).body;

const RUNTIMES = [
  { name: '.NET 10', cmd: ['dotnet', E2E_DLL], target: { dll: E2E_DLL } },
  ...Object.values(RUNTIME_APPS).map((app) => ({ name: `.NET ${app.tfm.replace(/^net(\d+)\..*$/, '$1')}`,
    cmd: [app.e2e], target: { exe: app.e2e } })),
];

for (const rt of RUNTIMES) {
  test(`${rt.name}, startup: exact counts per throw site, where each was caught, the unhandled one of a child`, async () => {
    const data = rt.name === '.NET 10' ? tempDataDir() : 'none';
    const srv = await startServer(['run', '--port', '0', '--data', data, '--', ...rt.cmd, 'throws', 'child']);
    await waitFor('the child exited', () => /^child exited \d+$/m.test(srv.stdout), { timeoutMs: 120000 });
    assert.match(srv.stdout, new RegExp(`^thrown ${THROWN}$`, 'm'));
    const body = await waitFor('every exception folded', async () => {
      const b = await exceptions(srv, 1);
      return ourTotal(b) >= 142 && b;
    });
    assert.deepEqual(ours(body), EXPECTED);
    for (const s of body.sites.filter((x) => x.method && x.method.startsWith(T))) {
      assert.equal(s.unhandled, 0, `${s.method}: every one caught`);
      assert.equal(s.series.reduce((a, b) => a + b, 0), s.count, 'the per-second series holds them all');
    }
    // the child: one session of its own, ended by its unhandled exception
    const child = await waitFor('the child session ended', async () => {
      const list = (await srv.api('/api/sessions')).body.sessions;
      const c = list.find((s) => s.id !== 1 && s.root_id === 1);
      return c && c.state === 'exited' && c;
    }, { timeoutMs: 30000 });
    const unhandled = await exceptions(srv, child.id);
    const site = unhandled.sites.find((s) => s.type === 'System.NotSupportedException');
    assert.ok(site, JSON.stringify(unhandled));
    assert.equal(site.method, `${T}ThrowInBackground()`);
    assert.equal(site.line, lineOf('ThrowInBackground'), 'the unhandled one\'s line');
    assert.deepEqual([site.count, site.caught, site.unhandled, site.caught_in], [1, 0, 1, []]);
    // one site's recent exceptions, the first ones with their stacks
    const detail = (await srv.api(`/api/sessions/1/exceptions/${body.sites.find((s) => s.method === `${T}ThrowFormat()`).site}`)).body;
    assert.equal(detail.recent.length, 5);
    for (const r of detail.recent) {
      assert.equal(r.outcome, 'caught');
      assert.equal(r.caught_in, `${T}Outer()`, 'the last catch of the rethrown exception');
      assert.deepEqual(r.stack.slice(0, 3).map((f) => f.method), [`${T}ThrowFormat()`, `${T}Middle()`, `${T}Outer()`]);
    }
    // the stream's events: one per exception sent one by one, one per counts record
    // (agent/exccount.h) for the rest, each with its site's count then: the last one
    // of each site says its whole count
    const events = (await srv.api('/api/sessions/1/events?limit=10000')).body.events.filter((e) => e.type === 'exception');
    const lastCount = {};
    for (const e of events.filter((x) => x.method && x.method.startsWith(T)))
      lastCount[e.method] = Math.max(lastCount[e.method] || 0, e.count);
    assert.deepEqual(lastCount, Object.fromEntries(EXPECTED.map((e) => [e.method, e.count])));
    srv.proc.stdin.write('exit\n');
    await waitFor('the app exited', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 60000 });
    if (data !== 'none') {
      await storageCaughtUp(srv);
      await srv.stop();
      const again = await startServer(['serve', '--port', '0', '--data', data]);
      assert.deepEqual(ours(await exceptions(again, 1)), EXPECTED, 'read back from storage');
      const c = (await exceptions(again, child.id)).sites.find((s) => s.type === 'System.NotSupportedException');
      assert.equal(c.unhandled, 1, 'the unhandled one too');
      await again.stop();
    } else {
      await srv.stop();
    }
  });

  test(`${rt.name}, attached: exact counts per throw site, twice`, async () => {
    const t = await startTarget(['throws', 'wait'], { ...rt.target, ready: /^waiting$/m });
    const { srv, id } = await serveAttached(t.pid);
    for (const round of [1, 2]) {
      t.send('go');
      await t.waitLine(new RegExp(`(^thrown ${THROWN}$[^]*){${round}}`, 'm'), 60000);
      const body = await waitFor(`round ${round} folded`, async () => {
        const b = await exceptions(srv, id);
        return ourTotal(b) >= 142 * round && b;
      });
      assert.deepEqual(ours(body), times(round));
    }
    const byRate = await exceptions(srv, id, '?sort=rate');
    assert.ok(byRate.sites.every((s, i) => i === 0 || byRate.sites[i - 1].per_second >= s.per_second), 'sorted by rate');
    const future = await exceptions(srv, id, `?since=${Date.now() + 3600000}`);
    assert.deepEqual(future.sites, [], 'nothing threw since a time to come');
    const metrics = (await srv.api('/metrics')).body;
    const line = new RegExp(`^jitscope_session_exceptions_total\\{session="${id}",[^}]*type="System.ArgumentException"\\} 74$`, 'm');
    assert.match(metrics, line, '/metrics counts by type');
    t.send('exit');
    await srv.stop();
  });
}

test('the switch: POST .../exceptions takes {"enabled": bool} only, and says what it asked for', async () => {
  const t = await startTarget(['throws', 'wait'], { ready: /^waiting$/m });
  const { srv, id } = await serveAttached(t.pid);
  for (const bad of ['', '{}', '{"enabled": 1}', '{"enabled": true, "x": 1}']) {
    const r = await srv.api(`/api/sessions/${id}/exceptions`, { method: 'POST', body: bad });
    assert.equal(r.status, 400, bad);
  }
  let r = await srv.api(`/api/sessions/${id}/exceptions`, { method: 'POST', body: '{"enabled": false}' });
  assert.deepEqual([r.status, r.body], [202, { enabled: false }]);
  assert.equal((await exceptions(srv, id)).enabled, false);
  r = await srv.api(`/api/sessions/${id}/exceptions`, { method: 'POST', body: '{"enabled": true}' });
  assert.deepEqual([r.status, r.body], [202, { enabled: true }]);
  assert.equal((await srv.api(`/api/sessions/${id}/exceptions/1`)).status, 404, 'no site yet');
  t.send('exit');
  await srv.stop();
});
