// ended.test.mjs -- an ended session's page says it has ended, at 1,024, 1,440
// and 1,920 px: no "N alive of M" threads (how many the process ran), no Pause
// or Follow buttons on its feed (nothing more comes), and its charts span the
// session when it lasted less than their two minutes, instead of squeezing it
// into their right edge. Against a run of E2eTarget `run` (a second or two).
// Screenshots: build/screenshots/ended-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, openDashboard, waitFor, apiGet, screenshot, closeAll, E2E_DLL,
} from './helpers.mjs';

const WIDTHS = [1024, 1440, 1920];
let srv, browser, session;

before(async () => {
  srv = await startServer({ dll: E2E_DLL, appArgs: ['run'] });
  session = await waitFor('the run ended', async () => {
    const s = (await apiGet(srv, '/api/sessions/1')).body;
    return s.state === 'exited' && s;
  }, { timeoutMs: 60000 });
  browser = await launchBrowser();
});
after(() => closeAll(browser, srv));

// The time-axis labels of a chart canvas (chart.js records every label it draws).
const axisLabels = (page, sel) => page.evaluate((s) => (document.querySelector(s).labelBoxes || [])
  .map((b) => b.text).filter((t) => t === 'end' || /^−\d+:\d\d$/.test(t)), sel);

for (const width of WIDTHS) {
  test(`${width} px: an ended session shows no live-only controls or counts, and its charts span it`, async () => {
    const page = await openDashboard(browser, srv, { hash: '#/sessions/1/live', width, height: 900 });
    try {
      await page.locator('.s-head .badge', { hasText: /exited/i }).waitFor({ timeout: 20000 });
      const threads = page.locator('.stat', { hasText: 'Threads' });
      await waitFor('the threads counter', async () => (await threads.textContent()).includes(String(session.counters.threads)));
      const parts = await threads.locator('div').allTextContents();
      assert.deepEqual(parts.map((t) => t.trim()), ['Threads', String(session.counters.threads)], 'how many it ran, not how many are alive');
      assert.doesNotMatch(await page.locator('.tabs').textContent(), /\d+ of \d+/, 'no "N of M" threads tab count');
      assert.equal(await page.locator('button', { hasText: /Pause|Resume/ }).isVisible(), false, 'no Pause');
      assert.equal(await page.locator('button', { hasText: /Following newest|Jump to newest/ }).isVisible(), false, 'no Follow');
      // the run lasted a second or two: both charts span ten seconds, not two minutes
      const lasted = (session.ended_ms - session.created_ms) / 1000;
      assert.ok(lasted < 60, `the run lasted ${lasted} s`);
      for (const sel of ['canvas.rate-chart', 'canvas.pause-chart']) {
        const labels = await waitFor(`${sel}'s axis`, async () => { const l = await axisLabels(page, sel); return l.length >= 2 && l; });
        assert.equal(labels[0], 'end', `${sel}: the newest label is the session's end`);
        const oldest = labels.at(-1).slice(1).split(':').map(Number);
        const back = oldest[0] * 60 + oldest[1];
        assert.ok(back <= Math.max(10, Math.ceil(lasted) + 1), `${sel} spans the session: its oldest label is ${labels.at(-1)} (${labels.join(', ')})`);
      }
      await screenshot(page, `ended-live-${width}.png`);
    } finally {
      await page.context().close();
    }
  });
}

// Chromium keeps answered sockets open (and opens some ahead): the server
// closes them at its 10 s deadline without a word on stderr (defect 11: it
// used to log each as "sent no whole request", which read like an attack).
test('Chromium\'s idle sockets are closed at the deadline without a word', async () => {
  const page = await openDashboard(browser, srv, { hash: '#/sessions/1/live', width: 1440, height: 900 });
  try {
    await page.locator('.s-head .badge', { hasText: /exited/i }).waitFor({ timeout: 20000 });
    const idle = async () => Number(/^jitscope_http_connections_closed_total\{reason="idle"\} (\d+)$/m
      .exec(await (await fetch(`${srv.url}/metrics`)).text())[1]);
    await waitFor('an idle browser socket closed by the server', async () => (await idle()) >= 1, { timeoutMs: 30000, everyMs: 500 });
    assert.doesNotMatch(srv.stderr, /HTTP connection/, 'nothing said of them');
  } finally {
    await page.context().close();
  }
});
