// pdb.test.mjs -- source lines (issue 38, item 2): GET .../functions/{fid}/source
// maps IL offsets to file:line from the method's portable PDB (server/pdb.c,
// pefile.c, symfile.c). The oracle is tests/apps/PdbDump, which reads the same
// PDB with System.Reflection.Metadata: for EVERY method of E2eTarget and Demo
// the session knows, jitscope's sequence points (IL offset, hidden, line,
// column, end line, end column, file) must equal PdbDump's, with the PDB beside
// the assembly (E2eTarget, Demo) and embedded in it (DemoEmbedded: Demo built
// with DebugType embedded). Then: a PDB that does not match its assembly is
// refused and said so, --symbols DIR is searched, a bad --symbols is exit 2,
// the files of a process in a container are read through /proc/PID/root,
// and, with StackTarget's hotline mode under a CPU profile, the line with the
// most samples of Hot.Work is its HOT LINE (the app's own marker), and that
// line's text is the source's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD, DEMO_DLL, E2E_DLL, ROOT, STACK_DLL, JITSCOPE, startServer, stopAll, waitFor, functionsOf,
  runSync, attach, caughtUp } from './lib.mjs';
import { startContainer, stopContainers } from './containers.mjs';

after(async () => { await stopContainers(); await stopAll(); });

const PDBDUMP_DLL = path.join(BUILD, 'apps/PdbDump/PdbDump.dll');
const DEMO_EMBEDDED_DLL = path.join(BUILD, 'apps/DemoEmbedded/DemoEmbedded.dll');

// PdbDump's sequence points by token.
function oracle(dll) {
  const r = runSync('dotnet', [PDBDUMP_DLL, dll]);
  assert.equal(r.status, 0, r.stderr);
  const dump = JSON.parse(r.stdout);
  return { embedded: dump.embedded, byToken: new Map(dump.methods.map((m) => [m.token, m.points])) };
}

// jitscope's points in PdbDump's shape (a point's file is the method's unless it says).
function shaped(body) {
  return body.sequence_points.map((p) => {
    const o = { il_offset: p.il_offset, hidden: p.hidden };
    if (!p.hidden) Object.assign(o, { line: p.line, column: p.column, end_line: p.end_line, end_column: p.end_column });
    o.file = p.file ?? body.file;
    return o;
  });
}

// Every method of the app's module the session knows, compared with the oracle.
async function compareAll(srv, dll, embedded) {
  const want = oracle(dll);
  assert.equal(want.embedded, embedded, `${dll}: its PDB is ${embedded ? '' : 'not '}embedded`);
  const name = path.basename(dll, '.dll'); // the assembly's name: the module's
  const fns = (await functionsOf(srv, 1, `&module=${encodeURIComponent(name)}`)).filter((f) => f.module === name);
  let withLines = 0, without = 0;
  for (const f of fns) {
    const r = await srv.api(`/api/sessions/1/functions/${f.function_id}/source?code=0`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const points = want.byToken.get(Number(r.body.token));
    assert.equal(r.body.token, f.token, `${f.name}: the function's token`);
    if (!points) {
      assert.equal(r.body.file, null, `${f.name}: no sequence points in the PDB, none from jitscope`);
      assert.deepEqual(r.body.sequence_points ?? [], [], f.name);
      without++;
      continue;
    }
    assert.deepEqual(shaped(r.body), points, `${f.name} (token ${f.token}): sequence points as System.Reflection.Metadata reads them`);
    assert.equal(r.body.pdb.embedded, embedded, f.name);
    if (points.some((p) => !p.hidden)) {
      const lines = points.filter((p) => !p.hidden && p.file === r.body.file).map((p) => p.line);
      assert.equal(r.body.lines[0].line, Math.min(...lines), `${f.name}: lines from the method's first`);
      assert.ok(r.body.lines.every((l, i) => l.line === r.body.lines[0].line + i), `${f.name}: every line in order`);
      assert.equal(r.body.text_readable, true, `${f.name}: its source file ${r.body.file} is readable`);
    }
    withLines++;
  }
  console.log(`${name}: ${withLines} methods' sequence points equal the oracle's, ${without} without any (of ${fns.length})`);
  assert.ok(withLines >= 10, `${name}: at least 10 methods with sequence points compared (${withLines})`);
  return fns;
}

test('every E2eTarget method: sequence points from the PDB beside the assembly equal the oracle\'s', async () => {
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', E2E_DLL, 'serve']);
  await waitFor('E2eTarget READY', () => /^READY$/m.test(srv.stdout), { timeoutMs: 60000 });
  await waitFor('its methods named', async () =>
    (await functionsOf(srv, 1, '&module=E2eTarget')).length >= 20, { timeoutMs: 30000, everyMs: 200 });
  await compareAll(srv, E2E_DLL, false);
  // a method out of range, a bad parameter
  assert.equal((await srv.api('/api/sessions/1/functions/0x1/source')).status, 404);
  assert.equal((await srv.api('/api/sessions/1/functions/0x1/source?code=5')).status, 400);
  await srv.stop();
});

for (const [label, dll, embedded] of [['Demo', DEMO_DLL, false], ['DemoEmbedded', DEMO_EMBEDDED_DLL, true]]) {
  test(`every ${label} method: sequence points (PDB ${embedded ? 'embedded' : 'beside'}) equal the oracle's`, async () => {
    const srv = await startServer(['run', '--port', '0', '--', 'dotnet', dll, '--seconds', '60']);
    await waitFor(`${label}: three waves`, () => (srv.stdout.match(/^wave /gm) || []).length >= 3, { timeoutMs: 60000 });
    await compareAll(srv, dll, embedded);
    await srv.stop();
  });
}

// E2eTarget's files (with its plugin) in a directory of the test's own.
function copyApp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-pdb-'));
  const from = path.dirname(E2E_DLL);
  for (const f of fs.readdirSync(from)) if (fs.statSync(path.join(from, f)).isFile()) fs.copyFileSync(path.join(from, f), path.join(dir, f));
  return dir;
}

// The /source answer (code=0) for E2eTarget's Main, run from dir with the server's args.
async function mainSource(dir, args = []) {
  const srv = await startServer(['run', '--port', '0', ...args, '--', 'dotnet', path.join(dir, 'E2eTarget.dll'), 'serve']);
  await waitFor('E2eTarget READY', () => /^READY$/m.test(srv.stdout), { timeoutMs: 60000 });
  const main = await waitFor('Main named', async () =>
    (await functionsOf(srv, 1, '&q=JitscopeE2e.Program.Main(')).find((f) => f.name.startsWith('JitscopeE2e.Program.Main(')),
  { timeoutMs: 30000, everyMs: 200 });
  const r = await srv.api(`/api/sessions/1/functions/${main.function_id}/source?code=0`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  srv.proc.stdin.write('exit\n');
  await srv.stop();
  return r.body;
}

test('a PDB that does not match its assembly is refused; --symbols DIR is searched; a bad --symbols is exit 2', async () => {
  const bad = runSync(JITSCOPE, ['serve', '--port', '0', '--symbols', '/nonexistent/jitscope-symbols']);
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /--symbols wants a directory/);

  const dir = copyApp();
  const symbols = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-symbols-'));
  try {
    fs.renameSync(path.join(dir, 'E2eTarget.pdb'), path.join(symbols, 'E2eTarget.pdb'));
    fs.copyFileSync(DEMO_DLL.replace(/\.dll$/, '.pdb'), path.join(dir, 'E2eTarget.pdb')); // another build's PDB
    let body = await mainSource(dir);
    assert.equal(body.file, null);
    assert.match(body.reason, /E2eTarget\.pdb does not match the assembly .*refused/, body.reason);

    body = await mainSource(dir, ['--symbols', symbols]); // the right one in DIR, the wrong one beside
    assert.equal(body.pdb.path, path.join(fs.realpathSync(symbols), 'E2eTarget.pdb'));
    assert.match(body.file, /E2eTarget\/Program\.cs$/);

    fs.rmSync(path.join(dir, 'E2eTarget.pdb'));
    body = await mainSource(dir);
    assert.equal(body.file, null);
    assert.match(body.reason, /no PDB for .*E2eTarget\.dll/, body.reason);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(symbols, { recursive: true, force: true });
  }
});

async function hotWork(srv) {
  await waitFor('StackTarget READY', () => /^READY pid=\d+$/m.test(srv.stdout), { timeoutMs: 60000 });
  return waitFor('Hot.Work named', async () =>
    (await functionsOf(srv, 1, '&q=StackTarget.Hot.Work(')).find((f) => f.name.startsWith('StackTarget.Hot.Work(')),
  { timeoutMs: 60000, everyMs: 200 });
}

test('StackTarget hotline under a CPU profile: Hot.Work\'s HOT LINE has the most samples in /source', async () => {
  const hotCs = fs.readFileSync(path.join(ROOT, 'tests/apps/StackTarget/Hot.cs'), 'utf8').split('\n');
  const hotLine = hotCs.findIndex((l) => /\/\/ HOT LINE Work$/.test(l)) + 1;
  const srv = await startServer(['run', '--port', '0', '--', 'dotnet', STACK_DLL, 'hotline']);
  const work = await hotWork(srv);
  await waitFor('Hot.Work at Tier1', async () =>
    (await functionsOf(srv, 1, '&q=StackTarget.Hot.Work(')).some((f) => f.name.startsWith('StackTarget.Hot.Work(') &&
      f.tiers.some((t) => t.tier === 'Tier1')), { timeoutMs: 60000, everyMs: 200 });
  const start = await srv.api('/api/sessions/1/profile', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hz: 999, mode: 'cpu' }),
  });
  assert.equal(start.status, 202, JSON.stringify(start.body));
  const body = await waitFor('300 samples of Hot.Work on its lines', async () => {
    const r = await srv.api(`/api/sessions/1/functions/${work.function_id}/source`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.lines.reduce((n, l) => n + l.self_samples, 0) >= 300 && r.body;
  }, { timeoutMs: 120000, everyMs: 500 });
  const top = [...body.lines].sort((a, b) => b.self_samples - a.self_samples)[0];
  const all = body.lines.reduce((n, l) => n + l.self_samples, 0);
  console.log(`Hot.Work: line ${top.line} has ${top.self_samples} of ${all} samples on its lines (${body.unattributed.self_samples} unattributed)`);
  assert.equal(top.line, hotLine, `the hottest line is the HOT LINE (${hotLine}): ${JSON.stringify(top)}`);
  assert.equal(top.text, hotCs[hotLine - 1], 'its text is the source file\'s');
  assert.ok(Object.values(top.instructions).some((n) => n > 0), 'instructions of a version are on it');
  assert.ok(top.samples >= top.self_samples);
  srv.proc.stdin.write('exit\n');
  await srv.stop();
});

test('a container: its PDB through /proc/PID/root, its source file not in it (no text)', { timeout: 240000 }, async () => {
  assert.ok(!fs.existsSync('/app/E2eTarget.dll'), 'the container\'s path is not the host\'s');
  const c = await startContainer(['serve']);
  const srv = await startServer(['serve', '--port', '0']);
  const r = await attach(srv, c.pid);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.session.id;
  await caughtUp(srv, id);
  const alpha = (await functionsOf(srv, id, '&q=UniqueAlpha'))[0];
  assert.ok(alpha, 'a method of the app');
  const s = (await srv.api(`/api/sessions/${id}/functions/${alpha.function_id}/source?code=0`)).body;
  assert.equal(s.module, '/app/E2eTarget.dll');
  assert.equal(s.pdb && s.pdb.path, '/app/E2eTarget.pdb', JSON.stringify(s));
  assert.deepEqual(shaped(s), oracle(E2E_DLL).byToken.get(Number(s.token)), 'the sequence points');
  assert.equal(s.text_readable, false, 'the build tree is not in the container');
  assert.ok(s.lines.length > 0 && s.lines.every((l) => l.text === null), 'lines without text');
  // ended, its files are out of reach: not looked for on the server's own paths
  await c.stop();
  await waitFor('the session ended', async () => (await srv.api(`/api/sessions/${id}`)).body.state === 'exited',
    { timeoutMs: 30000, everyMs: 100 });
  const gone = (await srv.api(`/api/sessions/${id}/functions/${alpha.function_id}/source?code=0`)).body;
  assert.equal(gone.file, null);
  assert.match(gone.reason, /ran in a container and has ended/, gone.reason);
  await srv.stop();
});
