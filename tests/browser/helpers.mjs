// helpers.mjs -- building blocks for the dashboard's browser tests: start the
// real jitscope server with a .NET app, drive Debian's Chromium through
// playwright-core (never a downloaded browser), wait for things on the page.
// Every process started here is killed by stopServer()/the test's after hook.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  BUILD, DEMO_DLL, fetchChecked, JITSCOPE, ROOT, sleep, tempDataDir, waitFor,
} from '../e2e/lib.mjs';

// where things are, fetch checked against the OpenAPI document, storage caught up, waiting for a
// condition (waitFor(what, fn, { timeoutMs, everyMs })): the e2e tests'
export {
  BUILD, DEMO_DLL, E2E_DLL, fetchChecked, JITSCOPE, ROOT, sleep, STACK_DLL, storageCaughtUp, waitFor,
} from '../e2e/lib.mjs';
export const SCREENSHOTS = path.join(BUILD, 'screenshots');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// Builds the server, agent and test apps when something is missing.
export function ensureBuilt(dll = DEMO_DLL) {
  if (fs.existsSync(JITSCOPE) && fs.existsSync(path.join(BUILD, 'libjitscope_agent.so')) && fs.existsSync(DEMO_DLL) && fs.existsSync(dll)) return;
  const r = spawnSync('make', ['-C', ROOT, 'all', 'apps'], { stdio: 'inherit', timeout: 300000 });
  if (r.status !== 0) throw new Error(`make all apps failed (${r.status})`);
}

// Each server gets its own data directory (tests/e2e/lib.mjs removes them when the tests end).
export { tempDataDir } from '../e2e/lib.mjs';

// Starts `jitscope run --port 0 -- dotnet <dll> <appArgs>`; resolves once it printed its URL.
// stdin: true gives the app (which inherits the server's stdin) a pipe: srv.send(line).
// The app's stdout goes to the server's, so srv.stdout also holds the app's lines.
// serve: true starts `jitscope serve` (no app) instead. prefix: a command that runs jitscope.
// env: more environment for it (and the app).
export async function startServer({ dll = DEMO_DLL, args = [], appArgs = [], stdin = false, serve = false, prefix = [], env = {} } = {}) {
  ensureBuilt(dll);
  const data = args.includes('--data') ? [] : ['--data', tempDataDir()];
  const argv = [...prefix.slice(1), ...(prefix.length ? [JITSCOPE] : []), ...(serve ? ['serve', '--port', '0', ...data, ...args]
    : ['run', '--port', '0', ...data, ...args, '--', 'dotnet', dll, ...appArgs])];
  const proc = spawn(prefix[0] || JITSCOPE, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], detached: true });
  const srv = { proc, stdout: '', stderr: '', exit: null };
  srv.send = (line) => { if (!stdin) throw new Error('startServer: no stdin pipe (stdin: true)'); proc.stdin.write(`${line}\n`); };
  if (stdin) proc.stdin.on('error', () => { /* the app is gone */ });
  proc.stdout.on('data', (d) => { srv.stdout += d; });
  proc.stderr.on('data', (d) => { srv.stderr += d; });
  srv.exited = new Promise((resolve) => proc.on('exit', (code, signal) => {
    srv.exit = { code, signal };
    // a server that ends before stopServer asks it to: what it said last (a test that kills
    // it on purpose sees this line too)
    if (!srv.stopping) console.log(`jitscope (pid ${proc.pid}) ended without stopServer: ${JSON.stringify(srv.exit)}; its stderr ends: ${srv.stderr.slice(-1500)}`);
    resolve(srv.exit);
  }));
  try {
    await waitFor('the server to print its dashboard URL',
      () => srv.exit || /dashboard at (https?:\/\/(?:127\.0\.0\.1|\[::1\]):\d+)\//.exec(srv.stdout), { timeoutMs: 30000, everyMs: 50 });
  } catch (e) {
    await stopServer(srv);
    throw e;
  }
  if (srv.exit) throw new Error(`jitscope exited early: ${JSON.stringify(srv.exit)}\n${srv.stderr}`);
  srv.url = /dashboard at (https?:\/\/(?:127\.0\.0\.1|\[::1\]):\d+)\//.exec(srv.stdout)[1];
  return srv;
}

// Stops the server and everything it started (its process group): SIGTERM, then SIGKILL.
export async function stopServer(srv) {
  if (!srv || srv.exit) return;
  srv.stopping = true;
  const pgid = srv.proc.pid;
  try { process.kill(-pgid, 'SIGTERM'); } catch { /* gone */ }
  const done = await Promise.race([srv.exited.then(() => true), sleep(5000).then(() => false)]);
  try { process.kill(-pgid, 'SIGKILL'); } catch { /* all gone */ }
  if (!done) await Promise.race([srv.exited, sleep(2000)]);
}

// Waits until the server's (or the app's) stdout matches re; returns the match.
export function waitForOutput(srv, re, timeoutMs = 30000) {
  return waitFor(`output ${re}`, () => re.exec(srv.stdout), { timeoutMs, everyMs: 50 });
}

// GET against the server from node (not through the page), checked against
// the OpenAPI document like every e2e request (../e2e/openapi.mjs).
export async function apiGet(srv, p) {
  const res = await fetchChecked(srv.url + p);
  let body = null;
  try { body = await res.json(); } catch { /* not json */ }
  return { status: res.status, body };
}

export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (scripts/deps.sh test does it)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

// Opens the dashboard in a new page that records console errors and page errors.
// blockWebSocket: the page's WebSocket never connects (as with a blocked port).
export async function openDashboard(browser, srv, { hash = '#/', width = 1600, height = 1000, blockWebSocket = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
  if (blockWebSocket) {
    await context.addInitScript(() => {
      window.WebSocket = class BlockedWebSocket {
        constructor() { this.readyState = 3; setTimeout(() => this.onclose && this.onclose({ code: 1006, reason: '' }), 20); }
        send() { throw new Error('not connected'); }
        close() {}
      };
    });
  }
  const page = await context.newPage();
  page.consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') page.consoleErrors.push({ text: m.text(), url: (m.location() || {}).url || '' });
  });
  page.on('pageerror', (e) => page.consoleErrors.push({ text: `pageerror: ${e.message}`, url: '' }));
  await page.goto(srv.url + '/' + hash);
  await page.waitForFunction(() => window.__jitscope && window.__jitscope.app);
  return page;
}

export async function goto(page, hash) {
  await page.evaluate((h) => { location.hash = h; }, hash);
}

// Presses a session tab's shortcut digit and waits until that tab is the one
// shown: the key changes the URL's hash and the tab follows a moment later, so
// a look right after the key press could still see the tab before it.
export async function pressTab(page, digit) {
  await page.keyboard.press(String(digit));
  await page.locator(`.tabs .tab:nth-child(${digit})[aria-selected="true"]`).waitFor();
}

// The session view's numbers (buffer, shown rows, paused, new count, ...).
export function feedStats(page) {
  return page.evaluate(() => window.__jitscope.stats());
}

// Method names in the rows currently in the DOM of the live table, top to bottom.
export function visibleMethods(page) {
  return page.evaluate(() => [...document.querySelectorAll('.vt-row')]
    .sort((a, b) => a._y - b._y)
    .map((r) => r.querySelector('.c-name').textContent));
}

// Waits until a live-table row whose method contains `text` is in the DOM.
export async function waitForRow(page, text, timeoutMs = 20000) {
  await page.waitForFunction((t) => [...document.querySelectorAll('.vt-row .c-name')].some((c) => c.textContent.includes(t)),
    text, { timeout: timeoutMs, polling: 100 });
}

// All `jit` events of a session through REST, as seqs (up to seq `upTo`).
export async function serverJitSeqs(srv, id, upTo = Infinity) {
  const out = [];
  for (let after = 0; after < upTo;) {
    const res = await apiGet(srv, `/api/sessions/${id}/events?after=${after}&limit=10000`);
    if (!res.body.events.length) break;
    for (const e of res.body.events) if (e.type === 'jit' && e.seq <= upTo) out.push(e.seq);
    after = res.body.next_after;
  }
  return out;
}

export async function screenshot(page, name) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, name);
  await page.screenshot({ path: file });
  return file;
}

// A screenshot as screenshot() takes it, with a copy in /tmp (jitscope-<name>)
// to look at while the build directory is busy.
export async function screenshotCopy(page, name) {
  const file = await screenshot(page, name);
  fs.copyFileSync(file, path.join('/tmp', `jitscope-${name}`));
  return file;
}

// A browser with the dashboard open on hash, once the session's header says
// it is live; the browser is closed again when that does not happen.
export async function openLiveSession(srv, hash, { width = 1440, height = 900 } = {}) {
  const browser = await launchBrowser();
  try {
    const page = await openDashboard(browser, srv, { hash, width, height });
    await page.locator('.s-head .badge-live').waitFor({ timeout: 30000 });
    return { browser, page };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

// The end of a suite: its browser (when it got one), then its server.
export async function closeAll(browser, srv) {
  try { if (browser) await browser.close(); } finally { await stopServer(srv); }
}

// Console errors other than Chromium's "Failed to load resource: 404" for the
// given API routes (routes of docs/API.md this server does not implement yet).
export function unexpectedConsoleErrors(page, pendingRoutes = []) {
  return page.consoleErrors.filter((e) => !(
    /Failed to load resource: the server responded with a status of 404/.test(e.text)
    && pendingRoutes.some((r) => e.url.endsWith(r))));
}

// Dashes shown as values ("–", "—") that do not say why they are there: every
// one on the dashboard carries its reason as its tooltip (views/common.js,
// emptyMark). Returns the offenders, as "text in <where>".
export function dashesWithoutReason(page) {
  return page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('#app *')) {
      if (el.children.length || !/^[–—]$/.test(el.textContent.trim())) continue;
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      if (!(el.title || '').trim()) {
        const where = el.closest('td, th, .stat, .kv, .s-sub, div');
        out.push(`"${el.textContent.trim()}" in ${where ? `${where.tagName.toLowerCase()}.${where.className} "${where.textContent.trim().slice(0, 40)}"` : '?'}`);
      }
    }
    return out;
  });
}
