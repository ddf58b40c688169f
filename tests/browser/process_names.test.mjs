// process_names.test.mjs -- issue 26, item 3, in real headless Chromium: the
// sessions of a run are named by what they run (the program first, the whole
// command line after it and in the tooltip), a build that went to build
// servers the run did not start gets a notice with how to see them (on the
// sessions page and the run's page), and a child whose exit code nobody told
// us says why instead of "code ?".
//
// The run is a stand-in `dotnet build` (a script named dotnet) that starts a
// real .NET child (E2eTarget sleep, which loads the agent) and waits for a
// line; the build server outside the run is a shell named VBCSCompiler that
// spins (the watcher knows build servers by their arguments).
// Screenshots: build/screenshots/names-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, stopAll, E2E_DLL } from '../e2e/lib.mjs';
import { launchBrowser, openDashboard, goto, waitFor, screenshot, unexpectedConsoleErrors } from './helpers.mjs';

let browser;
const leftovers = new Set();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jitscope-names-'));
after(async () => {
  if (browser) await browser.close();
  for (const pid of leftovers) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  await stopAll();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('sessions are named by their program, build servers outside the run get a notice, an unknown exit code says why', async () => {
  const outside = spawn('bash', ['-c', 'while :; do :; done'], { argv0: 'VBCSCompiler', stdio: 'ignore' });
  leftovers.add(outside.pid);
  const fake = path.join(dir, 'dotnet');
  fs.writeFileSync(fake, `#!/bin/bash\ndotnet ${E2E_DLL} sleep 300 &\necho "child $!"\nread -r line\n`, { mode: 0o755 });
  const srv = await startServer(['run', '--port', '0', '--', fake, 'build'], { env: { MSBUILDDISABLENODEREUSE: undefined } });
  const child = Number((await waitFor('the child started', async () => /^child (\d+)$/m.exec(srv.stdout), { timeoutMs: 60000 }))[1]);
  leftovers.add(child);
  await waitFor('the child\'s session and the report', async () => {
    const l = (await srv.api('/api/sessions')).body.sessions;
    // (other build servers of this user that work meanwhile, another build's, are listed too)
    return l.length === 2 && l[1].state === 'live' && l[0].build_servers_outside.some((o) => o.pid === outside.pid);
  }, { timeoutMs: 60000 });

  browser = await launchBrowser();
  const page = await openDashboard(browser, srv);
  const note = page.locator('.outside-note[data-run="1"]');
  await note.waitFor({ timeout: 15000 });
  const text = await note.textContent();
  assert.match(text, /^Run #1 \(dotnet build\): the build went to (a process|processes) this run did not start: (.*, )?VBCSCompiler \(pid \d+, \d+\.\d s of CPU\)/);
  assert.ok(text.includes(`VBCSCompiler (pid ${outside.pid},`), text);
  assert.ok(text.includes(`MSBUILDDISABLENODEREUSE=1 UseSharedCompilation=false DOTNET_CLI_USE_MSBUILD_SERVER=0 jitscope run -- ${fake} build`), text);

  // the run's row: its program first, its command line after it and in the tooltip
  const rows = page.locator('.home .section').first().locator('tbody tr');
  const cmdCell = (row) => rows.nth(row).locator('td.clip');
  assert.equal(await cmdCell(0).locator('.prog').textContent(), 'dotnet build');
  assert.equal(await cmdCell(0).getAttribute('title'), `${fake} build`);
  // the run's row is drawn again at each poll (its build servers' CPU time grows): a
  // click whose press and release straddle such a refresh still opens it
  const box = await page.locator('button.tree-toggle').boundingBox();
  const drawn = () => page.evaluate(() => document.querySelector('.home .section tbody tr')._sig);
  const before = await drawn();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await waitFor('the run\'s row drawn again', async () => (await drawn()) !== before);
  await page.mouse.up();
  await waitFor('the child row', async () => (await rows.count()) === 2);
  assert.equal(await cmdCell(1).locator('.prog').textContent(), 'E2eTarget');
  assert.equal(await cmdCell(1).getAttribute('title'), `dotnet ${E2E_DLL} sleep 300`);
  assert.match(await cmdCell(1).textContent(), /^E2eTarget dotnet .*E2eTarget\.dll sleep 300$/);
  await screenshot(page, 'names-home.png');

  // the run's own page says it too
  await goto(page, '#/sessions/1');
  await page.locator('.outside-note').waitFor({ timeout: 15000 });
  assert.match(await page.locator('.outside-note').textContent(), new RegExp(`^the build went to (a process|processes) this run did not start: .*VBCSCompiler \\(pid ${outside.pid},`));
  await screenshot(page, 'names-run.png');

  // the child ends: not ours, so its exit code is unknown, and the page says why
  process.kill(child, 'SIGKILL');
  leftovers.delete(child);
  await waitFor('the child exited', async () => (await srv.api('/api/sessions/2')).body.state === 'exited', { timeoutMs: 30000 });
  await goto(page, '#/sessions/2');
  const exited = page.locator('.notice', { hasText: 'Process exited' });
  await exited.waitFor({ timeout: 15000 });
  assert.equal(await exited.textContent(), 'Process exited; its exit code is unknown: jitscope did not start it, and only a process\'s parent is told its exit code (jitscope saw it end through /proc). Everything recorded stays browsable.');
  assert.doesNotMatch(await page.locator('body').textContent(), /code \?/);
  await screenshot(page, 'names-child-exited.png');
  await goto(page, '#/');
  await page.locator('button.tree-toggle').waitFor({ timeout: 15000 });
  const badge = rows.nth(1).locator('.badge');
  await waitFor('the child\'s badge', async () => (await badge.getAttribute('data-state')) === 'exited');
  assert.match(await badge.getAttribute('title'), /^exited; exit code unknown: jitscope did not start it/);
  assert.deepEqual(unexpectedConsoleErrors(page), []);
  srv.proc.stdin.write('done\n');
});
