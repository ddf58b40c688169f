// report.test.mjs -- the CI report (issue 34): `jitscope run --exit --report
// FILE.json --report FILE.md -- dotnet test` on the xUnit project
// tests/trees/TestMe writes what the run did (per process named as on the
// dashboard: JITs, JIT time, the slowest JITs, first own code, ReadyToRun use,
// drops), as JSON that matches the OpenAPI document's Report and as Markdown;
// a later run with --baseline and --fail-on passes when no condition holds and
// exits 4 when one does; GET /api/sessions/{id}/report serves the same report
// of the stored run; and what run is told wrongly (a malformed baseline or
// condition, a report it cannot write) is a usage error, exit 2, before the
// app starts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, JITSCOPE, startServer, stopAll, tempDataDir, withEnv } from './lib.mjs';
import { checkSchema } from './openapi.mjs';

const NUGET_FOLDER = '/opt/nuget/packages';
let work, project;

// `jitscope ARGS` to its end, in the project's directory.
function jitscope(args, cwd = project) {
  return new Promise((resolve) => {
    const proc = spawn(JITSCOPE, args, { cwd, env: withEnv({ DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' }), stdio: ['ignore', 'pipe', 'pipe'] });
    const r = { stdout: '', stderr: '' };
    proc.stdout.on('data', (d) => { r.stdout += d; });
    proc.stderr.on('data', (d) => { r.stderr += d; });
    proc.on('close', (code, signal) => resolve({ ...r, code, signal }));
  });
}
const file = (name) => path.join(work, name);
const read = (name) => JSON.parse(fs.readFileSync(file(name), 'utf8'));
const byProgram = (report, program) => report.processes.find((p) => p.program === program);

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-report-'));
  project = path.join(work, 'TestMe');
  fs.cpSync(path.join(ROOT, 'tests/trees/TestMe'), project, { recursive: true });
  fs.writeFileSync(path.join(work, 'NuGet.config'), `<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="machine" value="${NUGET_FOLDER}" />
  </packageSources>
</configuration>
`);
});

after(async () => {
  await stopAll();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('what run is told wrongly is a usage error before the app starts', async () => {
  const marker = file('started');
  const app = ['--', 'touch', marker];
  fs.writeFileSync(file('broken.json'), '{"report_version": 1, "processes": [');
  fs.writeFileSync(file('notreport.json'), '{"hello": "world"}');
  fs.writeFileSync(file('newer.json'), '{"report_version": 99, "processes": []}');
  fs.writeFileSync(file('mistyped.json'), '{"report_version": 1, "processes": [{"program": "testhost", "jit": {"count": "many"}}]}');
  const cases = [
    [['--report', file('r.txt')], /--report .*r\.txt: name a \.json or \.md file, or say which: json:FILE or md:FILE/],
    [['--report', '/no/such/dir/r.json'], /--report \/no\/such\/dir\/r\.json: cannot be written/],
    [['--fail-on', 'jit_time>20%'], /--fail-on condition 'jit_time>20%': a percentage is relative to the baseline: write \+20% or -20%/],
    [['--fail-on', 'jit_tme>1'], /unknown metric 'jit_tme'/],
    [['--fail-on', 'jit_time>1,,drops>0'], /empty/],
    [['--fail-on', 'jit_count>5ms'], /jit_count is a count: no unit/],
    [['--fail-on', 'jit_time>+20%'], /a relative threshold .* give --baseline FILE\.json/],
    [['--baseline', file('broken.json'), '--fail-on', 'jit_time>+20%'], /--baseline .*broken\.json: not JSON \(line 1, column \d+/],
    [['--baseline', file('notreport.json'), '--fail-on', 'jit_time>+20%'], /notreport\.json: not a jitscope report: no report_version/],
    [['--baseline', file('newer.json'), '--fail-on', 'jit_time>+20%'], /newer\.json: report_version 99 is newer than this jitscope reads \(1\)/],
    [['--baseline', file('mistyped.json'), '--fail-on', 'jit_time>+20%'], /mistyped\.json: processes\[0\]\.jit\.time_ms: not a number/],
    [['--baseline', file('nothere.json'), '--fail-on', 'jit_time>+20%'], /nothere\.json: No such file or directory/],
    [['--baseline', file('notreport.json')], /--baseline is for --report or --fail-on/],
    [['--report', file('a.json'), '--report', file('b.json')], /--report twice: one JSON and one Markdown/],
    [['--fail-on'], /--fail-on wants a value/],
  ];
  for (const [opts, re] of cases) {
    const r = await jitscope(['run', '--exit', '--port', '0', '--data', 'none', ...opts, ...(opts[0] === '--fail-on' && opts.length === 1 ? [] : app)], work);
    assert.equal(r.code, 2, `${opts.join(' ')}: exit 2\n${r.stderr}`);
    assert.match(r.stderr, re, opts.join(' '));
    assert.doesNotMatch(r.stderr, /started pid|dashboard at/, `${opts.join(' ')}: nothing started`);
    assert.ok(!fs.existsSync(marker), `${opts.join(' ')}: the app did not run`);
  }
});

test('run --exit --report: what dotnet test did, as JSON and Markdown', async () => {
  const r = await jitscope(['run', '--exit', '--port', '0', '--data', 'none', '--report', file('base.json'), '--report', `md:${file('summary')}`, '--', 'dotnet', 'test']);
  assert.equal(r.code, 0, r.stdout.slice(-2000) + r.stderr);
  assert.match(r.stdout, /Passed!.*Passed:\s+3/);
  assert.match(r.stderr, new RegExp(`report written to ${file('base.json')}`));
  const report = read('base.json');
  checkSchema('Report', report);
  assert.equal(report.report_version, 1);
  assert.equal(report.program, 'dotnet test');
  assert.equal(report.exit_code, 0);
  assert.equal(report.verdict, null, 'no conditions, no verdict');
  for (const program of ['dotnet test', 'vstest.console', 'testhost']) assert.ok(byProgram(report, program), `${program} is in the report`);
  assert.equal(report.processes[0].program, 'dotnet test', 'the launched process first');
  assert.equal(report.totals.processes, report.processes.length);
  assert.equal(report.totals.jit_count, report.processes.reduce((n, p) => n + p.jit.count, 0));
  assert.ok(Math.abs(report.totals.jit_time_ms - report.processes.reduce((n, p) => n + p.jit.time_ms, 0)) < 0.01);
  for (const p of report.processes) {
    assert.ok(p.pid > 0 && p.jit.count > 0 && p.jit.time_ms > 0, `${p.program} JIT-compiled`);
    assert.ok(p.slowest.length === 10, `${p.program}: its 10 slowest JITs`);
    for (let i = 1; i < p.slowest.length; i++) assert.ok(p.slowest[i - 1].jit_ms >= p.slowest[i].jit_ms, 'slowest first');
    assert.equal(p.ready_to_run.known, true, 'run sees ReadyToRun use from the start');
    assert.ok(p.ready_to_run.methods_used > 0, `${p.program} ran ReadyToRun code of the framework`);
    assert.equal(p.drops.total, 0, `${p.program}: nothing lost`);
    const byOrigin = Object.values(p.jit.by_origin).reduce((n, o) => n + o.methods, 0);
    assert.equal(byOrigin, p.jit.methods, `${p.program}: every method has one origin`);
  }
  const host = byProgram(report, 'testhost');
  assert.ok(host.jit.by_origin.app.methods > 0, 'the test host JIT-compiled the app\'s own code');
  assert.ok(host.first_own_code.ms > 0 && host.first_own_code.method, 'when its own code first ran');
  const cli = byProgram(report, 'dotnet test');
  assert.equal(cli.first_own_code.ms, null, 'the SDK runs no code of the app');
  assert.match(cli.first_own_code.why, /no method of its own code/);
  const md = fs.readFileSync(file('summary'), 'utf8');
  assert.match(md, /^## jitscope: `dotnet test`\n/);
  assert.match(md, /^\| Process \| pid \| JITs \| JIT time \|/m);
  assert.match(md, new RegExp(`^\\| testhost \\| ${host.pid} \\| [\\d,]+ \\| `, 'm'));
  assert.match(md, /<details><summary>testhost \(pid \d+\)<\/summary>/);
});

test('--baseline with --fail-on: a run that stays within its conditions passes (exit 0)', async () => {
  const r = await jitscope(['run', '--exit', '--port', '0', '--data', 'none', '--report', file('pass.json'), '--report', file('pass.md'),
    '--baseline', file('base.json'), '--fail-on', 'testhost:jit_count>+100000,jit_time>+100000%', '--fail-on', 'drops>0', '--', 'dotnet', 'test']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /--fail-on 'testhost:jit_count>\+100000': did not hold/);
  const report = read('pass.json');
  checkSchema('Report', report);
  assert.equal(report.verdict, 'pass');
  assert.deepEqual(report.conditions.map((c) => c.held), [false, false, false]);
  const base = read('base.json');
  const c0 = report.conditions[0];
  assert.equal(c0.baseline, byProgram(base, 'testhost').jit.count);
  assert.equal(c0.limit, c0.baseline + 100000);
  assert.equal(report.baseline.file, file('base.json'));
  const row = report.comparison.find((x) => x.scope === 'testhost' && x.metric === 'jit_count');
  assert.ok(row && row.baseline === c0.baseline && row.value === byProgram(report, 'testhost').jit.count);
  assert.match(fs.readFileSync(file('pass.md'), 'utf8'), /— ✅ no condition held \(3\)/);
});

test('--baseline with --fail-on: a regression exits 4, the report says which condition held', async () => {
  // more than half the baseline's JITs in the test host: true of any run like it
  const r = await jitscope(['run', '--exit', '--port', '0', '--data', 'none', '--report', file('fail.json'), '--report', file('fail.md'),
    '--baseline', file('base.json'), '--fail-on', 'testhost:jit_count>-50%,testhost:jit_count>+100000', '--', 'dotnet', 'test']);
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /--fail-on 'testhost:jit_count>-50%': HELD: a regression/);
  assert.match(r.stderr, /1 of 2 --fail-on conditions held \(exit code 4/);
  assert.match(r.stdout, /Passed!/, 'the tests themselves passed');
  const report = read('fail.json');
  checkSchema('Report', report);
  assert.equal(report.verdict, 'fail');
  assert.deepEqual(report.conditions.map((c) => c.held), [true, false]);
  assert.equal(report.conditions[0].limit, byProgram(read('base.json'), 'testhost').jit.count * 0.5);
  const md = fs.readFileSync(file('fail.md'), 'utf8');
  assert.match(md, /— ❌ 1 of 2 conditions held/);
  assert.match(md, /^\| `testhost:jit_count>-50%` \| [\d,]+ \| [\d,]+ \| [\d,]+ \| ❌ held: regression \|$/m);
});

test('GET /api/sessions/{id}/report serves the stored run\'s report', async () => {
  const data = tempDataDir();
  const r = await jitscope(['run', '--exit', '--port', '0', '--data', data, '--report', file('stored.json'), '--', 'dotnet', 'test']);
  assert.equal(r.code, 0, r.stderr);
  const srv = await startServer(['serve', '--port', '0', '--data', data]);
  const api = (await srv.api('/api/sessions/1/report')).body; // checked against the document
  const written = read('stored.json');
  assert.equal(api.session_id, 1);
  assert.deepEqual(api.processes.map((p) => [p.session_id, p.pid, p.program]), written.processes.map((p) => [p.session_id, p.pid, p.program]));
  for (const [i, p] of api.processes.entries()) {
    const w = written.processes[i];
    assert.deepEqual(p.jit, w.jit, `${p.program}: the same JITs read back`);
    assert.deepEqual(p.slowest, w.slowest, `${p.program}: the same slowest JITs`);
    assert.deepEqual(p.first_own_code, w.first_own_code);
    assert.deepEqual(p.ready_to_run, w.ready_to_run);
  }
  const child = api.processes.find((p) => p.program === 'testhost');
  const one = (await srv.api(`/api/sessions/${child.session_id}/report`)).body;
  assert.deepEqual(one.processes.map((p) => p.program), ['testhost'], 'a child session\'s report is its own');
  const res = await fetch(`${srv.url}/api/sessions/1/report?format=md`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/markdown/);
  assert.match(await res.text(), /^## jitscope: `dotnet test`\n/);
  await srv.stop();
});
