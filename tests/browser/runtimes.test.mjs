// runtimes.test.mjs -- the runtime a process runs on, on the dashboard, in real
// headless Chromium: a self-contained .NET 8 app is listed with its runtime
// version, and once attached its session header names that runtime; a .NET Core
// 3.1 app (older than jitscope supports) is listed with the reason, and a click
// on Attach says why it cannot be attached. No console errors. Screenshots:
// build/screenshots/runtimes-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { RUNTIME_APPS, OLD_RUNTIME_EXE, startServer, startTarget, stopAll } from '../e2e/lib.mjs';
import { launchBrowser, openDashboard, goto, screenshot, unexpectedConsoleErrors } from './helpers.mjs';

let browser;
after(async () => { if (browser) await browser.close(); await stopAll(); });

test('a .NET 8 session names its runtime in the header; a .NET Core 3.1 process says why it cannot be attached', async () => {
  const app = RUNTIME_APPS['net8.0'];
  const config = JSON.parse(fs.readFileSync(path.join(app.dir, 'E2eTarget.runtimeconfig.json'), 'utf8'));
  const version = config.runtimeOptions.includedFrameworks.find((f) => f.name === 'Microsoft.NETCore.App').version;
  const net8 = await startTarget(['serve'], { exe: app.e2e });
  const old = await startTarget([], { exe: OLD_RUNTIME_EXE, ready: /^READY pid=\d+$/m });
  const srv = await startServer(['serve', '--port', '0']);
  browser = await launchBrowser();
  const page = await openDashboard(browser, srv);

  const oldRow = page.locator('tr', { has: page.locator(`button.attach-btn[data-pid="${old.pid}"]`) });
  await oldRow.waitFor({ timeout: 15000 });
  assert.match(await oldRow.innerText(), /older than \.NET 5/, 'the old runtime\'s row says why it has no details');
  const net8Row = page.locator('tr', { has: page.locator(`button.attach-btn[data-pid="${net8.pid}"]`) });
  assert.match(await net8Row.innerText(), new RegExp(version.replace(/\./g, '\\.')), `the .NET 8 row shows ${version}`);
  await oldRow.locator('button.attach-btn').click();
  await oldRow.locator('.row-error').waitFor({ timeout: 15000 });
  assert.match(await oldRow.locator('.row-error').innerText(),
    new RegExp(`Cannot attach to pid ${old.pid}: process ${old.pid} runs a \\.NET runtime older than \\.NET 5, which jitscope needs`));
  await screenshot(page, 'runtimes-home.png');

  await net8Row.locator('button.attach-btn').click();
  await page.waitForFunction(() => /^#\/sessions\/\d+/.test(location.hash), null, { timeout: 20000 });
  await page.locator('.s-head .badge-live').waitFor({ timeout: 15000 });
  await page.locator('.s-head', { hasText: `runtime CoreCLR ${version}` }).waitFor({ timeout: 15000 });
  await screenshot(page, 'runtimes-session.png');
  await goto(page, '#/');
  // Chromium logs every HTTP error status; the refused attach is the one expected
  const refused = `/api/processes/${old.pid}/attach`;
  assert.deepEqual(unexpectedConsoleErrors(page).filter((e) => !(e.url.endsWith(refused) && / 422 /.test(e.text))), [],
    'no console errors');
  await srv.stop();
});
