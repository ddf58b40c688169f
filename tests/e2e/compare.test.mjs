// compare.test.mjs -- GET /api/compare against two real .NET runs that JIT different
// methods: E2eTarget "pair" starts "variant a" and then "variant b" under one
// `jitscope run`, so the server holds a session for each (2 and 3, after the
// launched process's 1). Checks the exact methods only in A and only in B, the
// methods in both with both sides' JIT times, tiers and deltas, per-module totals,
// the modules loaded in only one, paging, the CSV export and the error statuses;
// then, after a restart of the server on the same data directory, the same answer
// from storage.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { E2E_DLL, startServer, waitFor, stopAll, storageCaughtUp, tempDataDir } from './lib.mjs';

after(stopAll);

const ONLY_A = ['JitscopeE2e.Variant.OnlyInA()', 'JitscopeE2e.Variant.OnlyInAHelper(long)'];
const ONLY_B = ['JitscopeE2e.Program.CallPlugin()', 'JitscopeE2e.Variant.OnlyInB(string)',
  'JitscopePlugin.PluginEntry.UniquePluginMethod()'];

const names = (page) => page.rows.map((r) => r.name).sort();

test('compare: two runs of E2eTarget that JIT different methods', async () => {
  const data = tempDataDir();
  const srv = await startServer(['run', '--data', data, '--port', '0', '--', 'dotnet', E2E_DLL, 'pair']);
  try {
    // every session of the run has ended: nothing changes any more
    await waitFor('three ended sessions', async () => {
      const list = (await srv.api('/api/sessions')).body.sessions;
      return list.length === 3 && list.every((s) => s.state === 'exited') && list;
    }, { timeoutMs: 90000 });
    const a = (await srv.api('/api/sessions/2')).body, b = (await srv.api('/api/sessions/3')).body;
    assert.match(a.command_line, / variant a$/);
    assert.match(b.command_line, / variant b$/);

    const all = await srv.api('/api/compare?a=2&b=3&limit=10000');
    assert.equal(all.status, 200);
    const c = all.body;
    assert.equal(c.a.id, 2);
    assert.equal(c.b.id, 3);
    assert.equal(c.summary.a.functions, a.counters.functions, 'A: the session\'s functions');
    assert.equal(c.summary.b.functions, b.counters.functions);
    assert.equal(c.summary.a.jit_time_total_ns, a.counters.jit_time_total_ns);
    assert.equal(c.summary.delta_jit_ns, b.counters.jit_time_total_ns - a.counters.jit_time_total_ns);
    assert.equal(c.summary.methods.only_a, c.methods.only_a.total);
    assert.equal(c.summary.methods.only_b, c.methods.only_b.total);
    assert.equal(c.summary.methods.both, c.methods.both.total);

    // the app's own methods: exactly what the two variants differ in
    const mine = (list) => names({ rows: list.rows.filter((r) => /^Jitscope/.test(r.name)) });
    assert.deepEqual(mine(c.methods.only_a), ONLY_A);
    assert.deepEqual(mine(c.methods.only_b), ONLY_B);
    for (const r of c.methods.only_a.rows) {
      assert.equal(r.in, 'a');
      assert.ok(r.a_jit_ns > 0 && r.b_jit_ns === null && r.b_tier === null, `${r.name}: A only`);
      assert.equal(r.delta_jit_ns, -r.a_jit_ns);
    }
    const shared = c.methods.both.rows.find((r) => r.name === 'JitscopeE2e.Variant.Shared(int)');
    assert.ok(shared, 'Variant.Shared(int) in both');
    assert.equal(shared.module, 'E2eTarget');
    assert.ok(shared.a_jit_ns > 0 && shared.b_jit_ns > 0, 'JIT time on both sides');
    assert.equal(shared.delta_jit_ns, shared.b_jit_ns - shared.a_jit_ns);
    assert.equal(shared.a_compilations, 1);
    assert.equal(shared.b_compilations, 1);
    assert.equal(shared.a_tier, 'Tier0');
    assert.equal(shared.b_tier, 'Tier0');
    assert.equal(shared.a_il_size, shared.b_il_size, 'the same IL on both sides');
    const plugin = c.methods.only_b.rows.find((r) => r.name === 'JitscopePlugin.PluginEntry.UniquePluginMethod()');
    assert.equal(plugin.module, 'E2ePlugin');
    assert.ok(c.methods.both.rows.some((r) => r.name === 'JitscopeE2e.Program.Main(string[])'));

    // modules: the plugin only in B, the collection assembly only in A
    const mods = c.modules.rows;
    assert.deepEqual(mods.filter((m) => m.in === 'a').map((m) => m.module), ['System.Collections.Specialized']);
    assert.deepEqual(mods.filter((m) => m.in === 'b').map((m) => m.module), ['E2ePlugin']);
    assert.equal(c.summary.modules.only_a, 1);
    assert.equal(c.summary.modules.only_b, 1);
    const app = mods.find((m) => m.module === 'E2eTarget');
    assert.equal(app.in, 'both');
    assert.equal(app.only_a_methods, 2);
    assert.equal(app.only_b_methods, 2);
    assert.equal(app.a_loads, 1);
    assert.match(app.a_path, /\/E2eTarget\.dll$/);
    const sum = (side) => c.methods[side].rows.concat(c.methods.both.rows)
      .filter((r) => r.module === 'E2eTarget').reduce((t, r) => t + r[`${side.slice(-1)}_jit_ns`], 0);
    assert.equal(app.a_jit_ns, sum('only_a'), 'E2eTarget in A: the sum of its methods');
    assert.equal(app.b_jit_ns, sum('only_b'), 'E2eTarget in B: the sum of its methods');
    const plug = mods.find((m) => m.module === 'E2ePlugin');
    assert.equal(plug.a_jit_ns, 0);
    assert.equal(plug.b_methods, 1);
    assert.equal(plug.delta_jit_ns, plug.b_jit_ns);

    // one list, filtered, sorted and paged
    const pageB = (await srv.api('/api/compare?a=2&b=3&section=methods&only=b&q=jitscope&sort=name')).body;
    assert.deepEqual(pageB.methods.rows.map((r) => r.name), ONLY_B);
    assert.equal(pageB.summary, undefined);
    const page2 = (await srv.api('/api/compare?a=2&b=3&section=methods&only=b&q=jitscope&sort=name&limit=1&offset=1')).body;
    assert.deepEqual(page2.methods.rows.map((r) => r.name), [ONLY_B[1]]);
    assert.equal(page2.methods.total, 3);
    const byModule = (await srv.api('/api/compare?a=2&b=3&section=methods&only=all&module=E2ePlugin')).body;
    assert.deepEqual(names(byModule.methods), ['JitscopePlugin.PluginEntry.UniquePluginMethod()']);
    const onlyMods = (await srv.api('/api/compare?a=2&b=3&section=modules&only=a')).body;
    assert.deepEqual(onlyMods.modules.rows.map((m) => m.module), ['System.Collections.Specialized']);

    // CSV of one list
    const csv = await fetch(`${srv.url}/api/compare?a=2&b=3&section=methods&only=a&q=Jitscope&sort=name&format=csv`);
    assert.equal(csv.status, 200);
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(csv.headers.get('content-disposition'), 'attachment; filename="jitscope-compare-2-3-methods-a.csv"');
    const lines = (await csv.text()).split('\r\n');
    assert.equal(lines[0].split(',').slice(0, 4).join(','), 'module,name,in,a_jit_ns');
    assert.deepEqual(lines.slice(1, 3).map((l) => l.split(',')[1]), ONLY_A);
    assert.equal(lines[3], '');

    // the other way round: A and B swap
    const rev = (await srv.api('/api/compare?a=3&b=2&section=summary')).body;
    assert.equal(rev.summary.methods.only_a, c.summary.methods.only_b);
    assert.equal(rev.summary.delta_jit_ns, -c.summary.delta_jit_ns);

    // errors
    for (const [q, status, re] of [
      ['', 400, /needs two sessions/], ['?a=2', 400, /needs two sessions/], ['?a=2&b=zz', 400, /session ids/],
      ['?a=2&b=77', 404, /no such session: 77/], ['?a=2&b=3&section=methods&only=x', 400, /only must be/],
      ['?a=2&b=3&format=csv', 400, /section=methods or section=modules/], ['?a=2&b=3&sort=x', 400, /sort must be/]]) {
      const r = await srv.api(`/api/compare${q}`);
      assert.equal(r.status, status, q);
      assert.match(r.body.error, re, q);
    }

    // across a restart: a new server on the same directory compares the stored sessions
    await storageCaughtUp(srv);
    await srv.stop();
    const again = await startServer(['serve', '--data', data, '--port', '0']);
    try {
      const stored = await again.api('/api/compare?a=2&b=3&limit=10000');
      assert.equal(stored.status, 200);
      assert.deepEqual(stored.body.summary, c.summary, 'the same summary from storage');
      assert.deepEqual(stored.body.methods, c.methods, 'the same methods from storage');
      assert.deepEqual(stored.body.modules, c.modules, 'the same modules from storage');
      assert.equal(stored.body.b.command_line, b.command_line);
    } finally {
      await again.stop();
    }
  } finally {
    await srv.stop();
  }
});
