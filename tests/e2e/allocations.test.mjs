// allocations.test.mjs -- sampled allocations by type and allocating stack
// (agent/allocations.h, server/allocsites.h): E2eTarget `allocs 500 wait`
// (tests/apps/E2eTarget/Allocs.cs) allocates 500 MB a round, about 70% of the
// bytes as byte[] from Allocs.AllocArrays and 30% as AllocNode from
// Allocs.AllocNodes, and prints the bytes each method allocated as the
// runtime counted them (the truth). jitscope's estimated shares of the two
// types must be within 5 points of the truth, on .NET 10 (AllocationSampled),
// 9 and 8 (AllocationTick), in startup mode with JITSCOPE_ALLOCATIONS=1; the
// allocating stacks must name the method of each type; `go tool pprof` must
// read the pprof export; stored and read back, the same. Attached (on each
// runtime), the records are off until POST .../allocations turns them on.
// Per second: ?series=second holds every sample in some second, and the live
// stream's allocation_second events close each of those seconds, the last one
// too (the agent's tick once its second is over), with no more samples than
// the series has for it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from '../node_modules/ws/index.js';
import { checkWsMessage } from './openapi.mjs';
import { E2E_DLL, RUNTIME_APPS, startServer, startTarget, serveAttached, stopAll, waitFor, tempDataDir,
  storageCaughtUp } from './lib.mjs';

after(stopAll);

const A = 'JitscopeE2e.Allocs.';
const ARRAYS = 'System.Byte[]', NODES = 'JitscopeE2e.AllocNode';
const ROUND = /^allocated arrays (\d+) nodes (\d+)$/m;

const RUNTIMES = [
  { name: '.NET 10', cmd: ['dotnet', E2E_DLL], source: 'sampled', target: { dll: E2E_DLL } },
  ...Object.values(RUNTIME_APPS).map((app) => ({ name: `.NET ${app.tfm.replace(/^net(\d+)\..*$/, '$1')}`,
    cmd: [app.e2e], source: 'tick', target: { exe: app.e2e } })),
];

const allocations = async (srv, id, query = '') => (await srv.api(`/api/sessions/${id}/allocations${query}`)).body;

// The share of byte[] among the two types, in percent, from the server's estimate.
function estimatedShare(body) {
  const bytes = (t) => (body.types.find((x) => x.type === t) || { bytes: 0 }).bytes;
  return (100 * bytes(ARRAYS)) / (bytes(ARRAYS) + bytes(NODES));
}

// The node of the tree reached by the path of names (root's children first).
function nodeAt(tree, name) {
  let found = null;
  const walk = (n) => { if (n.name === name && !found) found = n; n.children.forEach(walk); };
  walk(tree);
  return found;
}

function checkPprof(bytes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-allocpprof-'));
  const file = path.join(dir, 'alloc.pb.gz');
  fs.writeFileSync(file, bytes);
  const top = spawnSync('go', ['tool', 'pprof', '-top', '-sample_index=alloc_space', file], {
    encoding: 'utf8', timeout: 120000, env: { ...process.env, GOCACHE: dir, HOME: dir, GOFLAGS: '-mod=mod' },
  });
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(top.status, 0, `go tool pprof: ${top.stderr}`);
  assert.match(top.stdout, /^Type: alloc_space$/m, top.stdout);
  const rows = top.stdout.split('\n').filter((l) => /^\s*[\d.]+[kMG]?B\s/.test(l));
  assert.ok(rows[0] && rows[0].includes(ARRAYS), `the most bytes (flat) are ${ARRAYS}:\n${top.stdout}`);
  assert.match(top.stdout, new RegExp(`${A.replace(/\./g, '\\.')}AllocNodes\\(int\\)`), 'the stacks hold the methods');
}

for (const rt of RUNTIMES) {
  test(`${rt.name}, startup: the estimated shares of byte[] and AllocNode within 5 points of the truth, the stacks name their methods`, async () => {
    const data = rt.name === '.NET 10' ? tempDataDir() : 'none';
    const srv = await startServer(['run', '--port', '0', '--data', data, '--', ...rt.cmd, 'allocs', '500', 'wait'],
      { env: { JITSCOPE_ALLOCATIONS: '1' } });
    await waitFor('the app waits', () => /^waiting$/m.test(srv.stdout), { timeoutMs: 60000 });
    srv.proc.stdin.write('go\n');
    await waitFor('the round', () => ROUND.test(srv.stdout), { timeoutMs: 120000 });
    srv.proc.stdin.write('exit\n');
    await waitFor('the session ended', async () => {
      const s = (await srv.api('/api/sessions/1')).body;
      return s.state === 'exited';
    }, { timeoutMs: 60000 });
    const [, arrays, nodes] = ROUND.exec(srv.stdout).map(Number);
    const truth = (100 * arrays) / (arrays + nodes);
    const body = await allocations(srv, 1);
    assert.equal(body.source, rt.source);
    assert.ok(body.samples >= 500, `enough samples: ${body.samples}`);
    const share = estimatedShare(body);
    assert.ok(Math.abs(share - truth) <= 5, `byte[]: ${share.toFixed(1)}% estimated, ${truth.toFixed(1)}% allocated`);
    assert.ok(body.bytes >= (arrays + nodes) * 0.8 && body.bytes <= (arrays + nodes) * 1.25,
      `the estimated total ${body.bytes} near the ${arrays + nodes} bytes allocated`);
    assert.deepEqual(body.types.slice(0, 2).map((t) => t.type), [ARRAYS, NODES], 'sorted by bytes');

    const { tree } = await allocations(srv, 1, '?group=stack');
    const inArrays = nodeAt(tree, `${A}AllocArrays(int)`), inNodes = nodeAt(tree, `${A}AllocNodes(int)`);
    assert.ok(inArrays && inNodes, 'both methods are allocating frames');
    assert.deepEqual(inArrays.children.map((c) => [c.name, c.kind]), [[ARRAYS, 'type']]);
    assert.deepEqual(inNodes.children.map((c) => [c.name, c.kind]), [[NODES, 'type']]);
    // each amount rounded on its own: a caller's sum may be 1 byte short of its callees'
    assert.ok(nodeAt(tree, `${A}Round(int)`).bytes + 2 >= inArrays.bytes + inNodes.bytes, 'a caller holds its callees');

    if (rt.name === '.NET 10') {
      const res = await fetch(`${srv.url}/api/sessions/1/allocations?format=pprof`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-disposition') || '', /filename="jitscope-session-1\.alloc\.pb\.gz"/);
      checkPprof(Buffer.from(await res.arrayBuffer()));
      const ss = (await srv.api('/api/sessions/1/allocations?format=speedscope')).body;
      const p = ss.profiles[0], names = ss.shared.frames.map((f) => f.name);
      const weightOf = (type) => p.samples.reduce((n, st, i) => n + (names[st[st.length - 1]] === type ? p.weights[i] : 0), 0);
      assert.equal(p.unit, 'bytes');
      assert.ok(Math.abs(weightOf(ARRAYS) - body.types[0].bytes) <= p.samples.length, 'speedscope: byte[] weighs its estimated bytes');
      assert.ok(p.samples.some((st) => names[st[st.length - 2]] === `${A}AllocNodes(int)` && names[st[st.length - 1]] === NODES),
        'speedscope: AllocNode allocated in AllocNodes, root first');
    }
    if (data !== 'none') {
      const series = (await allocations(srv, 1, '?series=second')).per_second;
      assert.ok(series.length >= 1, 'seconds with samples');
      await storageCaughtUp(srv);
      await srv.stop();
      const again = await startServer(['serve', '--port', '0', '--data', data]);
      assert.deepEqual(await allocations(again, 1), body, 'read back from storage: the same estimates');
      assert.deepEqual((await allocations(again, 1, '?series=second')).per_second, series, 'and the same seconds');
      await again.stop();
    } else {
      await srv.stop();
    }
  });
}

for (const rt of RUNTIMES) test(`${rt.name}, attached: off until POST .../allocations turns them on; the switch takes {"enabled": bool} only`, async () => {
  const t = await startTarget(['allocs', '200', 'wait'], { ready: /^waiting$/m, ...rt.target });
  const { srv, id } = await serveAttached(t.pid);
  let body = await allocations(srv, id);
  assert.deepEqual([body.enabled, body.samples, body.types, body.source], [false, 0, [], undefined]);
  for (const bad of ['', '{}', '{"enabled": 1}', '{"enabled": true, "x": 1}']) {
    const r = await srv.api(`/api/sessions/${id}/allocations`, { method: 'POST', body: bad });
    assert.equal(r.status, 400, bad);
  }
  for (const bad of ['?group=thread', '?format=folded']) {
    assert.equal((await srv.api(`/api/sessions/${id}/allocations${bad}`)).status, 400, bad);
  }
  t.send('go');
  await t.waitLine(ROUND, 60000);
  assert.equal((await allocations(srv, id)).samples, 0, 'nothing while off');
  const r = await srv.api(`/api/sessions/${id}/allocations`, { method: 'POST', body: '{"enabled": true}' });
  assert.deepEqual([r.status, r.body], [202, { enabled: true }]);
  t.send('go');
  body = await waitFor('samples of the second round', async () => {
    const b = await allocations(srv, id);
    return b.types.some((x) => x.type === ARRAYS) && b;
  }, { timeoutMs: 60000 });
  assert.equal(body.enabled, true);
  assert.equal(body.source, rt.source);
  const metrics = (await srv.api('/metrics')).body;
  const line = new RegExp(`^jitscope_session_allocated_bytes_estimated\\{session="${id}"[^}]*\\} (\\d+)$`, 'm');
  assert.ok(Number((line.exec(metrics) || [])[1]) > 0, '/metrics: the estimated bytes');
  t.send('exit');
  await srv.stop();
});

test('.NET 10: bytes per second as a series (?series=second) and as allocation_second events on the live stream', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'allocs', '300', 'wait'],
    { env: { JITSCOPE_ALLOCATIONS: '1' } });
  await waitFor('the app waits', () => /^waiting$/m.test(srv.stdout), { timeoutMs: 60000 });
  const port = (await srv.api('/api/config')).body.ws_port;
  const events = [];
  const ws = await new Promise((resolve, reject) => {
    const w = new WebSocket(`ws://127.0.0.1:${port}/`, 'jitscope');
    w.on('message', (d) => {
      const m = JSON.parse(d.toString());
      checkWsMessage(m); // an undocumented message or event throws
      if (m.type === 'events') events.push(...m.events.filter((e) => e.type === 'allocation_second'));
    });
    w.on('open', () => resolve(w));
    w.on('error', reject);
  });
  ws.send(JSON.stringify({ subscribe: 1, after: 0 }));
  for (let round = 0; round < 2; round++) {
    srv.proc.stdin.write('go\n');
    await waitFor(`round ${round + 1}`, () => srv.stdout.match(new RegExp(ROUND.source, 'gm'))?.length === round + 1,
      { timeoutMs: 120000 });
  }
  const body = await allocations(srv, 1, '?series=second');
  const series = body.per_second;
  assert.ok(series.length >= 1 && body.seconds_evicted === 0, `seconds: ${series.length}`);
  assert.equal(series.reduce((n, p) => n + p.samples, 0), body.samples, 'every sample in one second');
  assert.ok(series.every((p, i) => i === 0 || p.time_ms > series[i - 1].time_ms), 'oldest first');
  assert.equal(series.reduce((n, p) => n + p.unsent, 0), body.unsent, 'every sample not sent in one second');
  // each second scaled by its own samples not sent: a sample of .NET 10 stands for (mean - 1) + (size -
  // offset) bytes (mean 102,400), so each second's bytes per sample (sent or not) are at least mean - 1, and
  // in the rounds' seconds (at least 100 samples, nearly all objects of 1,024 bytes or less) within 10% of it
  for (const p of series) {
    const per = p.bytes / (p.samples + p.unsent);
    assert.ok(per >= 102399 - 1 && (p.samples < 100 || per <= 102400 * 1.1), `${JSON.stringify(p)}: ${per} bytes a sample`);
  }
  assert.ok(series.some((p) => p.samples >= 100), 'a round in a second');
  await waitFor('an event for each second, the last one too', () =>
    series.every((p) => events.some((e) => e.time_ms === p.time_ms)), { timeoutMs: 30000 });
  for (const e of events) {
    const p = series.find((x) => x.time_ms === e.time_ms);
    assert.ok(p && e.samples >= 1 && e.samples <= p.samples, `event ${JSON.stringify(e)}`);
  }
  ws.close();
  srv.proc.stdin.write('exit\n');
  await srv.stop();
});

// The heap after each collection (agent/gcheap.h): the runtime's GCHeapStats in GET .../timeline,
// one per collection at most (on .NET 8 and 9 the allocation session receives the event too: the
// agent drops the second copy), gen 0 nearly empty after a collection of it, and on .NET 10 read
// back the same from storage.
for (const rt of [RUNTIMES[0], RUNTIMES.find((r) => r.name === '.NET 9')].filter(Boolean)) {
  test(`${rt.name}: the heap's generations after each GC in GET .../timeline, once each`, async () => {
    const data = rt.name === '.NET 10' ? tempDataDir() : 'none';
    const srv = await startServer(['run', '--port', '0', '--data', data, '--', ...rt.cmd, 'allocs', '300', 'wait'],
      { env: { JITSCOPE_ALLOCATIONS: '1' } });
    await waitFor('the app waits', () => /^waiting$/m.test(srv.stdout), { timeoutMs: 60000 });
    srv.proc.stdin.write('go\n');
    await waitFor('the round', () => ROUND.test(srv.stdout), { timeoutMs: 120000 });
    srv.proc.stdin.write('exit\n');
    await waitFor('the session ended', async () => (await srv.api('/api/sessions/1')).body.state === 'exited',
      { timeoutMs: 60000 });
    const tl = (await srv.api('/api/sessions/1/timeline')).body;
    const complete = tl.gcs.filter((g) => g.complete).length;
    assert.ok(tl.heap.length >= 1, `heap statistics: ${tl.heap.length} for ${tl.gcs.length} GCs`);
    assert.ok(tl.heap.length <= tl.gcs.length + 1, `at most one per GC: ${tl.heap.length} for ${tl.gcs.length} GCs (${complete} complete)`);
    for (const h of tl.heap) {
      assert.equal(h.sizes.length, 5);
      assert.ok(h.sizes[2] > 0 || h.sizes[0] > 0 || h.sizes[1] > 0, `a heap holds something: ${JSON.stringify(h)}`);
    }
    console.log(`${rt.name}: ${tl.heap.length} heap statistics, ${tl.gcs.length} GCs (${complete} complete)`);
    const first = tl.gcs[0].start_ms;
    assert.ok(tl.heap.every((h) => h.time_ms >= first), 'each after a GC began');
    assert.ok(tl.heap.some((h) => h.sizes[0] < 64 << 20), 'gen 0 small after a collection');
    if (data !== 'none') {
      await storageCaughtUp(srv);
      await srv.stop();
      const again = await startServer(['serve', '--port', '0', '--data', data]);
      assert.deepEqual((await again.api('/api/sessions/1/timeline')).body.heap, tl.heap, 'read back from storage');
      await again.stop();
    } else {
      await srv.stop();
    }
  });
}
