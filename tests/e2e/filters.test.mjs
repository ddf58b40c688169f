// filters.test.mjs -- the functions query's filters beyond name and module
// (issue 34): recompiled, tier, origin ("my code", dynamic methods), against a
// real session: the Demo app (its own code, a plugin, compiled regexes and
// expression trees as dynamic methods, tier-ups) under `jitscope run --exit`
// until its own code reached Tier1 (demo_run.mjs), then read back by a server
// on the same data directory.
// Each filter's answer is compared, as a set of functions, with the whole list
// filtered here by the documented definitions; pages of a filtered query add up
// to its total; modules and JIT events carry the same origins; bad values are
// refused with a 400.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, stopAll, tempDataDir } from './lib.mjs';
import { recordDemo } from './demo_run.mjs';

let srv;
let all; // every function of the session, as GET .../functions lists them

async function functions(query) {
  const out = [];
  let total = null;
  for (let offset = 0; total === null || offset < total; offset += 10000) {
    const r = await srv.api(`/api/sessions/1/functions?limit=10000&offset=${offset}${query}`);
    assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
    total = r.body.total;
    out.push(...r.body.functions);
  }
  assert.equal(out.length, total);
  return out;
}
// function_key, not function_id: the runtime gives a collected dynamic method's ID to a new one
const ids = (list) => new Set(list.map((f) => f.function_key));
const recompiled = (f) => f.jit_count > 1 || f.versions > 1;
const hasTier = (f, tiers) => tiers.includes(f.tier) || f.tiers.some((c) => tiers.includes(c.tier));

before(async () => {
  const data = tempDataDir();
  await recordDemo(data);
  srv = await startServer(['serve', '--port', '0', '--data', data]);
  all = await functions('');
});

after(stopAll);

test('origin: my code is the app\'s and its plugin\'s methods, dynamic methods are the dynamic ones', async () => {
  const mine = await functions('&origin=app');
  assert.deepEqual(ids(mine), ids(all.filter((f) => f.origin === 'app')));
  assert.ok(mine.some((f) => f.name === 'JitscopeDemo.Program.Main(string[])'), 'Main is my code');
  assert.ok(mine.some((f) => f.module === 'DemoPlugin'), 'so is the plugin loaded from the app\'s directory');
  for (const f of mine) {
    assert.ok(['Demo', 'DemoPlugin'].includes(f.module), `${f.name} (${f.module}) is the app's`);
    assert.equal(f.dynamic, false);
  }
  const dynamic = await functions('&origin=dynamic');
  assert.ok(dynamic.length > 0, 'compiled regexes and expression trees are dynamic methods');
  assert.deepEqual(ids(dynamic), ids(all.filter((f) => f.dynamic)), 'origin=dynamic is the dynamic methods');
  const framework = await functions('&origin=framework');
  assert.ok(framework.some((f) => f.module === 'System.Private.CoreLib'));
  for (const f of framework) assert.match(f.module, /^(System|Microsoft)\.|^(System|netstandard|mscorlib)$/, f.name);
  const others = await functions('&origin=package,framework,sdk,in_memory,dynamic,unknown');
  assert.equal(others.length + mine.length, all.length, 'every function has one origin');
  assert.deepEqual(ids(await functions('&origin=app,dynamic')), ids([...mine, ...dynamic]));
});

test('recompiled: the methods compiled 2+ times or with 2+ code versions; pages add up', async () => {
  const yes = await functions('&recompiled=true');
  assert.ok(yes.length > 0, 'the Demo tiers methods up');
  assert.deepEqual(ids(yes), ids(all.filter(recompiled)));
  const no = await functions('&recompiled=false');
  assert.deepEqual(ids(no), ids(all.filter((f) => !recompiled(f))));
  assert.equal(yes.length + no.length, all.length);
  // in pages of 7, sorted by JIT time: the same functions, in order
  const pages = [];
  for (let offset = 0; offset < yes.length; offset += 7) {
    const r = await srv.api(`/api/sessions/1/functions?recompiled=true&sort=jit_time&limit=7&offset=${offset}`);
    assert.equal(r.body.total, yes.length);
    pages.push(...r.body.functions);
  }
  assert.deepEqual(ids(pages), ids(yes));
  for (let i = 1; i < pages.length; i++) assert.ok(pages[i - 1].jit_total_ns >= pages[i].jit_total_ns, 'sorted by JIT time');
});

test('tier: methods with a compilation at the tier; with origin and recompiled together', async () => {
  for (const tiers of [['Tier0'], ['Tier1'], ['Tier1', 'Tier1-OSR'], ['FullOpts'], ['Instrumented Tier0']]) {
    const got = await functions(`&tier=${encodeURIComponent(tiers.join(','))}`);
    assert.deepEqual(ids(got), ids(all.filter((f) => hasTier(f, tiers))), `tier=${tiers}`);
  }
  assert.ok((await functions('&tier=Tier1')).length > 0, 'some methods reached Tier1');
  const mineUp = await functions('&origin=app&recompiled=true&tier=tier1');
  assert.deepEqual(ids(mineUp), ids(all.filter((f) => f.origin === 'app' && recompiled(f) && hasTier(f, ['Tier1']))));
  assert.ok(mineUp.length > 0, 'the app\'s own hot methods tiered up');
  const named = await functions('&origin=app&q=vec2');
  assert.deepEqual(ids(named), ids(all.filter((f) => f.origin === 'app' && /vec2/i.test(f.name))));
});

test('modules and JIT events carry the same origins as the functions', async () => {
  const modules = (await srv.api('/api/sessions/1/modules')).body.modules;
  const originOf = new Map(modules.map((m) => [m.assembly, m.origin]));
  assert.equal(originOf.get('System.Private.CoreLib'), 'framework');
  assert.equal(originOf.get('Demo'), 'app');
  assert.equal(originOf.get('DemoPlugin'), 'app');
  const byKey = new Map(all.map((f) => [f.function_key, f]));
  let jits = 0;
  for (let after = 0; ;) {
    const r = (await srv.api(`/api/sessions/1/events?after=${after}&limit=10000`)).body;
    if (!r.events.length) break;
    for (const e of r.events.filter((x) => x.type === 'jit')) {
      jits++;
      assert.equal(e.origin, byKey.get(e.function_key).origin, `event ${e.seq} (${e.name})`);
    }
    after = r.next_after;
  }
  // one jit event per compilation (docs/API.md: jit_count counts them); a function whose JIT the
  // app's end cut short, or a ReadyToRun method never JITed, has none
  assert.equal(jits, all.reduce((n, f) => n + f.jit_count, 0), 'every compilation is a jit event');
});

test('bad filter values are refused with a 400 that says what is allowed', async () => {
  for (const [q, re] of [['recompiled=maybe', /recompiled must be true or false/], ['tier=Tier2', /tier must be a comma-separated list of Tier0/],
    ['tier=Tier0,', /tier must be/], ['origin=mine', /origin must be a comma-separated list of app, package/], ['origin=', /origin must be/]]) {
    const r = await srv.api(`/api/sessions/1/functions?${q}`);
    assert.equal(r.status, 400, q);
    assert.match(r.body.error, re);
  }
});
