// code.mjs -- issue 24's numbers: what the code view costs.
//  1. JITInlining on the JIT storm: the app's wall time with the agent
//     recording every inlining (the default), with JITSCOPE_INLINING=0 (the
//     callback returns at once) and without jitscope, rotating the arms each
//     round and dividing each by that round's plain run (floor-relative, as
//     endtoend.mjs); the storm as `make bench` runs it (tiered: Tier0 inlines
//     nothing) and with DOTNET_TieredCompilation=0 (every method optimised,
//     so every call site is an inlining candidate): the worst case. Per JIT:
//     the median over rounds of (with records - without) in the same round,
//     wall and CPU time (user + system, every thread of the app: the JIT
//     thread's ring writes and the sender's naming and forwarding) / JITs,
//     and the CPU per record. The callback alone (its ring write) is timed in
//     tests/unit/test_sidebyside_events.c's jit_info.
//  2. The agent's cost per code request (its time under the runtime lock:
//     runtime calls and copies, as it reports it) and the REST latency of
//     GET .../code for E2eTarget's CodeHot with its 3 versions.
//  3. Click to code in Chromium: from the click on "code" in the live feed's
//     detail strip to the Code tab showing the 3 columns.
// Knobs: RUNS (default 7), JIT_METHODS (10000), REQUESTS (40), CLICKS (10).
/* global document, location */ // in the functions page.evaluate runs in the browser
import { spawnSync } from 'node:child_process';
import { E2E_DLL, ROOT, startServer, waitFor, functionsOf, stopAll } from '../tests/e2e/lib.mjs';
import { launchBrowser, openDashboard } from '../tests/browser/helpers.mjs';
import { median, pct, f1, f2 } from './stats.mjs';

const RUNS = Number(process.env.RUNS || 7);
const N = Number(process.env.JIT_METHODS || 10000);
const REQUESTS = Number(process.env.REQUESTS || 40);
const CLICKS = Number(process.env.CLICKS || 10);

// wall time, and the process's CPU time (user + system, all its threads: bash's
// `time`, from getrusage, to the millisecond), which other jobs on the machine
// disturb less than the wall
const wrapper = (env) => `TIMEFORMAT="cpu %3U %3S"; s=$(date +%s%N); time ${env} dotnet ${E2E_DLL} jitstorm ${N} >/dev/null; e=$(date +%s%N); echo "elapsed $((e - s))" >&2`;
const times = (text) => {
  const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(text);
  return { ms: Number(/elapsed (\d+)/.exec(text)[1]) / 1e6, cpu: (Number(cpu[1]) + Number(cpu[2])) * 1000 };
};

function plain(env) {
  return times(spawnSync('bash', ['-c', wrapper(env)], { encoding: 'utf8', cwd: ROOT }).stderr);
}

async function withAgent(env, agentEnv) {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'bash', '-c', wrapper(env)], { env: agentEnv });
  await waitFor('exit', async () => (await srv.api('/api/sessions/1')).body.state === 'exited', { timeoutMs: 180000 });
  const list = (await srv.api('/api/sessions')).body.sessions;
  const child = list.find((x) => x.root_id !== x.id && x.command_line.includes(' jitstorm '));
  const s = await waitFor('the dotnet session ended', async () => {
    const x = (await srv.api(`/api/sessions/${child.id}`)).body;
    return x.state === 'exited' && x;
  }, { timeoutMs: 30000 });
  await srv.stop();
  return { ...times(srv.stderr), s };
}

async function inliningCost(label, env) {
  const ratios = { on: [], off: [] }, walls = { plain: [], on: [], off: [] };
  const paired = { wall: [], cpu: [] }; // on - off in the same round (ms)
  let records = 0, jits = 0;
  plain(env);
  for (let i = 0; i < RUNS; i++) {
    const arms = ['plain', 'on', 'off'];
    const order = arms.slice(i % 3).concat(arms.slice(0, i % 3));
    const got = {};
    for (const a of order) {
      if (a === 'plain') got.plain = plain(env).ms;
      else {
        const r = await withAgent(env, a === 'off' ? { JITSCOPE_INLINING: '0' } : {});
        got[a] = r.ms;
        got[`${a}Cpu`] = r.cpu;
        if (a === 'on') { records = r.s.code.inline_records; jits = r.s.counters.jit_compilations; }
      }
    }
    for (const a of arms) walls[a].push(got[a]);
    ratios.on.push(got.on / got.plain);
    ratios.off.push(got.off / got.plain);
    paired.wall.push(got.on - got.off);
    paired.cpu.push(got.onCpu - got.offCpu);
  }
  // per JIT: the median of the rounds' paired differences (records on - off)
  const wallUs = (median(paired.wall) * 1000) / jits, cpuUs = (median(paired.cpu) * 1000) / jits;
  console.log(`| ${label} | ${f1(median(walls.plain))} | ${f2(median(ratios.on))} | ${f2(median(ratios.off))} | ${jits} | ${records} | ${f2(wallUs)} | ${f2(cpuUs)} | ${records ? f1((median(paired.cpu) * 1e6) / records) : '–'} |`);
}

async function codeRequests() {
  const srv = await startServer(['run', '--port', '0', '--data', 'none', '--', 'dotnet', E2E_DLL, 'code']);
  const hot = await waitFor('CodeHot at Tier1', async () => {
    const f = (await functionsOf(srv, 1, '&q=CodeWork.CodeHot'))[0];
    return f && f.tiers.some((t) => t.tier === 'Tier1') && f;
  }, { timeoutMs: 60000 });
  srv.proc.stdin.write('stop\n');
  await waitFor('stopped', () => /^stopped$/m.test(srv.stdout), { timeoutMs: 30000 });
  const rest = [], agent = [];
  let versions = 0, bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const r = await srv.api(`/api/sessions/1/functions/${hot.function_id}/code`);
    rest.push(performance.now() - t0);
    agent.push(r.body.agent_ns / 1000);
    versions = r.body.versions.length;
    bytes = r.body.versions.reduce((n, v) => n + v.code_size, 0);
  }
  console.log(`Code requests for CodeHot (${versions} versions, ${bytes} bytes of code), ${REQUESTS} in a row:`);
  console.log('');
  console.log('| | p50 | p90 | max |');
  console.log('|---|---|---|---|');
  console.log(`| the agent's time per request (µs: runtime calls and copies, under its runtime lock) | ${f1(median(agent))} | ${f1(pct(agent, 90))} | ${f1(Math.max(...agent))} |`);
  console.log(`| GET .../code, answered (ms: command, agent, reply, disassembly, JSON) | ${f1(median(rest))} | ${f1(pct(rest, 90))} | ${f1(Math.max(...rest))} |`);
  console.log('');
  // click to code in Chromium
  const browser = await launchBrowser();
  const page = await openDashboard(browser, srv, { hash: '#/sessions/1/live', width: 1440, height: 900 });
  await page.fill('input.search', 'CodeHot');
  const clicks = [];
  for (let i = 0; i < CLICKS; i++) {
    await page.evaluate(() => { location.hash = '#/sessions/1/live'; });
    await page.locator('.vt-row .c-name', { hasText: 'CodeHot' }).first().click();
    const link = page.locator('.code-link');
    await link.waitFor();
    const t0 = performance.now();
    await link.click();
    await page.waitForFunction((n) => document.querySelector('.code-tab[data-state="done"]') && document.querySelectorAll('.code-col').length === n
      && location.hash.includes('/code/'), versions, { polling: 'raf' });
    clicks.push(performance.now() - t0);
    await page.evaluate(() => { document.querySelector('.code-tab').dataset.state = ''; });
  }
  console.log(`Click to code in Chromium (the "code" link of CodeHot in the live feed to its ${versions} columns drawn), ${CLICKS} clicks: median ${f1(median(clicks))} ms, max ${f1(Math.max(...clicks))} ms.`);
  await browser.close();
  await srv.stop();
}

console.log(`### The code view (issue 24): JITInlining on the JIT storm (jitstorm ${N}, ${RUNS} rounds, arms rotating)`);
console.log('');
console.log('| workload | plain wall (ms, median) | jitscope / plain | jitscope, JITSCOPE_INLINING=0 / plain | JITs | inlining records | wall per JIT, on - off (µs) | CPU per JIT, on - off (µs) | CPU per record (ns) |');
console.log('|---|---|---|---|---|---|---|---|---|');
await inliningCost('storm, tiered (default)', '');
await inliningCost('storm, DOTNET_TieredCompilation=0 (all optimised)', 'DOTNET_TieredCompilation=0');
console.log('');
await codeRequests();
await stopAll();
