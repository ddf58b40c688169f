// srclines.test.mjs -- file:line on every frame jitscope shows (issue 38, item 2):
// stack snapshot frames, the profile's call tree split by line, the speedscope
// export's frames and the pprof export read by the real `go tool pprof -lines`
// and `-list`. The oracle is tests/apps/StackTarget's "hotline" mode (Hot.cs):
// the app prints each method's sequence points from its own PDB (System.
// Reflection.Metadata: "SEQ <method> <IL offset> <line>"), so a frame's line is
// checked against the point at or before its IL offset, not against jitscope's
// own PDB reader; Hot.Work and Hot.OsrLoop spend nearly all their CPU time on
// their "HOT LINE", and Hot.WorkCaller's frame is on the line of its call to
// Work. A method of the runtime's own library (no PDB beside it) has no line
// and says why.
//
// Deterministic under load: the profile runs until both hot threads had a given
// CPU time (from /proc), not for a wall time; snapshots are taken until one has
// Work as hotwork's leaf.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, STACK_DLL, startServer, stopAll, waitFor, functionsOf } from './lib.mjs';
import { cpuProfileFor, hotLines } from './stacktarget.mjs';

after(stopAll);

const READY = /^READY pid=(\d+)$/m;
const HOT_CS = path.join(ROOT, 'tests/apps/StackTarget/Hot.cs');
const HIDDEN = 0xFEEFEE;

const post = (srv, p, body) => srv.api(p, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
});

// Hot.cs's lines: each HOT LINE marker's (stacktarget.mjs), and WorkCaller's call to Work.
function sourceLines() {
  const hot = hotLines();
  const at = { Work: hot.Work.line, OsrLoop: hot.OsrLoop.line };
  at.call = fs.readFileSync(HOT_CS, 'utf8').split('\n').findIndex((l) => /s \+= Work\(/.test(l)) + 1;
  assert.ok(at.call > 0, 'WorkCaller calls Work on one line');
  return at;
}

// The app's sequence points by method, IL offsets ascending.
function sequencePoints(out) {
  const by = {};
  for (const m of out.matchAll(/^SEQ (\w+) (\d+) (\d+)$/gm))
    (by[m[1]] ||= []).push({ il: Number(m[2]), line: Number(m[3]) });
  for (const k of Object.keys(by)) by[k].sort((a, b) => a.il - b.il);
  assert.ok(by.Work && by.OsrLoop, 'the app printed its sequence points');
  return by;
}

// The oracle's line of an IL offset: the point at or before it (null: hidden).
function oracleLine(points, il) {
  let at = null;
  for (const p of points) if (p.il <= il) at = p;
  assert.ok(at, `a sequence point at or before IL ${il}`);
  return at.line === HIDDEN ? null : at.line;
}


async function fn(srv, q) {
  const list = await functionsOf(srv, 1, `&q=${encodeURIComponent(q)}`);
  return list.find((f) => f.name.startsWith(q));
}

const isWork = (name) => name.startsWith('StackTarget.Hot.Work(');
const isOsr = (name) => name.startsWith('StackTarget.Hot.OsrLoop(');
const isCaller = (name) => name.startsWith('StackTarget.Hot.WorkCaller(');

// Every frame of Hot's methods has the oracle's line at its IL offset; the
// runtime's own frames have none and say why. Returns the frames checked.
function checkFrames(snapshot, seq, src) {
  let checked = 0, corelib = 0;
  for (const t of snapshot.threads) {
    for (const f of t.frames) {
      if (f.native) {
        assert.equal(f.line, null);
        continue;
      }
      if (isWork(f.name) || isOsr(f.name) || isCaller(f.name)) {
        assert.equal(typeof f.il_offset, 'number', `${f.name}: an IL offset: ${JSON.stringify(f)}`);
        const want = isCaller(f.name) ? src.call : oracleLine(isWork(f.name) ? seq.Work : seq.OsrLoop, f.il_offset);
        assert.equal(f.line, want, `${f.name} at IL ${f.il_offset}: line ${want}: ${JSON.stringify(f)}`);
        if (want !== null) assert.equal(f.file, HOT_CS, JSON.stringify(f));
        else assert.match(f.line_reason, /hidden/);
        checked++;
      } else if (f.module === 'System.Private.CoreLib') {
        assert.equal(f.line, null, `${f.name}: no PDB, no line`);
        assert.equal(f.file, null);
        assert.match(f.line_reason, /^no PDB for .*System\.Private\.CoreLib\.dll/);
        corelib++;
      }
    }
  }
  return { checked, corelib };
}

test('file:line on stack frames, the split flame graph, speedscope and go tool pprof -lines', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', STACK_DLL, 'hotline']);
  await waitFor('StackTarget READY', () => READY.test(srv.stdout), { timeoutMs: 60000 });
  await waitFor('live', async () => (await srv.api('/api/sessions/1')).body.state === 'live', { timeoutMs: 30000 });
  const pid = Number(READY.exec(srv.stdout)[1]);
  const src = sourceLines();
  const seq = sequencePoints(srv.stdout);
  await waitFor('Hot.Work at Tier1', async () => {
    const f = await fn(srv, 'StackTarget.Hot.Work(');
    return f && f.tiers.some((t) => t.tier === 'Tier1') && f;
  }, { timeoutMs: 60000, everyMs: 200 });
  await waitFor('Hot.OsrLoop on-stack replaced', async () => {
    const f = await fn(srv, 'StackTarget.Hot.OsrLoop(');
    return f && f.tiers.some((t) => t.tier === 'Tier1-OSR') && f;
  }, { timeoutMs: 60000, everyMs: 200 });

  // stack snapshots: until one has Work as hotwork's leaf (under WorkCaller)
  let total = { checked: 0, corelib: 0 };
  const snap = await waitFor('a snapshot with Hot.Work as hotwork\'s leaf', async () => {
    const r = await post(srv, '/api/sessions/1/stacks', {});
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const s = r.body.snapshot;
    const c = checkFrames(s, seq, src);
    total = { checked: total.checked + c.checked, corelib: total.corelib + c.corelib };
    const work = s.threads.find((t) => t.name === 'hotwork');
    return work && work.frames.length > 1 && isWork(work.frames[0].name) && isCaller(work.frames[1].name) && s;
  }, { timeoutMs: 60000, everyMs: 300 });
  const hotwork = snap.threads.find((t) => t.name === 'hotwork');
  assert.equal(hotwork.frames[1].line, src.call, 'WorkCaller\'s frame is on its call to Work');
  assert.ok(total.checked >= 2 && total.corelib >= 1, JSON.stringify(total));
  const text = await srv.api(`/api/sessions/1/stacks/${snap.id}?format=text`);
  assert.ok(text.body.includes(`in ${HOT_CS}:line ${src.call}`), text.body);
  const none = (await srv.api(`/api/sessions/1/stacks/${snap.id}?lines=0`)).body.snapshot;
  assert.ok(none.threads.every((t) => t.frames.every((f) => f.line === null)), 'lines=0: no lines');

  // a CPU profile until each hot thread had 1.5 s of CPU time
  await cpuProfileFor(srv, pid);

  // the call tree split by line: Work's samples on its hot line
  const tree = (await srv.api('/api/sessions/1/profile?lines=2')).body.tree;
  const nodes = [];
  const walk = (n) => { nodes.push(n); n.children.forEach(walk); };
  walk(tree);
  for (const [is, line, name] of [[isWork, src.Work, 'Work'], [isOsr, src.OsrLoop, 'OsrLoop']]) {
    const mine = nodes.filter((n) => is(n.name));
    const all = mine.reduce((s, n) => s + n.self, 0);
    const hot = mine.filter((n) => n.split && n.line === line).reduce((s, n) => s + n.self, 0);
    assert.ok(all >= 100 && hot >= 0.85 * all, `${name}: ${hot} of ${all} self samples on line ${line}`);
    assert.ok(mine.every((n) => n.file === HOT_CS), `${name}: every node names Hot.cs`);
    console.log(`tree: ${name} ${hot} of ${all} self samples on Hot.cs:${line}`);
  }
  const plain = (await srv.api('/api/sessions/1/profile')).body.tree;
  assert.equal(plain.children.some((n) => 'file' in n), false, 'lines=0 (the default): no file');

  // speedscope: lines=1 (the default) the method's file and first line; lines=2 a frame per line
  const firstLine = Math.min(...seq.Work.filter((p) => p.line !== HIDDEN).map((p) => p.line));
  const ss1 = (await srv.api('/api/sessions/1/profile?format=speedscope')).body;
  const w1 = ss1.shared.frames.filter((f) => isWork(f.name));
  assert.equal(w1.length, 1, JSON.stringify(w1));
  assert.deepEqual([w1[0].file, w1[0].line], [HOT_CS, firstLine]);
  const ss2 = (await srv.api('/api/sessions/1/profile?format=speedscope&lines=2')).body;
  const w2 = ss2.shared.frames.filter((f) => isWork(f.name) && f.line === src.Work);
  assert.equal(w2.length, 1, JSON.stringify(ss2.shared.frames.filter((f) => isWork(f.name))));
  assert.equal(w2[0].file, HOT_CS);
  const at = ss2.shared.frames.indexOf(w2[0]);
  const hotwork2 = ss2.profiles.find((p) => p.name.includes('hotwork'));
  const onHot = hotwork2.samples.reduce((s, st, i) => s + (st[st.length - 1] === at ? hotwork2.weights[i] : 0), 0);
  const onWork = hotwork2.samples.reduce((s, st, i) => s + (isWork(ss2.shared.frames[st[st.length - 1]].name) ? hotwork2.weights[i] : 0), 0);
  assert.ok(onHot >= 0.85 * onWork && onWork >= 100, `speedscope: ${onHot} of Work's ${onWork} leaf samples on its hot line`);

  // pprof: go tool pprof -lines -top names a hot line first; -list shows it
  const res = await fetch(`${srv.url}/api/sessions/1/profile?format=pprof`);
  assert.equal(res.status, 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-lines-'));
  const file = path.join(dir, 'cpu.pb.gz');
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  const env = { ...process.env, GOCACHE: dir, HOME: dir, GOFLAGS: '-mod=mod' };
  const pprof = (args) => {
    const r = spawnSync('go', ['tool', 'pprof', ...args, file], { encoding: 'utf8', timeout: 120000, env });
    assert.equal(r.status, 0, `go tool pprof ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    const top = pprof(['-lines', '-top', '-nodecount=5']);
    const rows = top.split('\n').filter((l) => /^\s*[\d.]+m?s\s/.test(l));
    const hot = [`${HOT_CS}:${src.Work}`, `${HOT_CS}:${src.OsrLoop}`];
    assert.ok(rows.length >= 2, top);
    assert.ok(hot.some((h) => rows[0].trimEnd().endsWith(h)), `the hottest line first:\n${top}`);
    assert.ok(hot.every((h) => rows.slice(0, 2).some((r) => r.trimEnd().endsWith(h))), `both hot lines first:\n${top}`);
    console.log(rows.slice(0, 2).join('\n'));
    const list = pprof(['-list', 'StackTarget.Hot.Work']);
    const row = list.split('\n').find((l) => l.includes('// HOT LINE Work'));
    assert.ok(row && /^\s*[\d.]+m?s\s/.test(row), `-list shows samples on the hot line:\n${list}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  srv.proc.stdin.write('exit\n');
  await waitFor('app exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 30000 });
  await srv.stop();
});
