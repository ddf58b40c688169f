// dashboard.mjs -- the dashboard's frame times in headless Chromium (Debian's, through
// playwright-core, as the browser tests): the gaps between animation frames while the
// Demo app's JIT events stream into the live table, and while a synthetic flood of
// 5,000 events a second goes through the page's own ingest path. The browser tests
// check what the page promises (one render pass per frame, bounded buffer and rows,
// input served under a flood); how long its frames take is measured here.
import { startServer, stopServer, launchBrowser, openDashboard, feedStats, waitFor } from '../tests/browser/helpers.mjs';
import { pct, f1 } from './stats.mjs';

const STREAM_MS = Number(process.env.FRAME_MS || 5000);
const FLOOD_PER_SEC = 5000;

// The gaps between requestAnimationFrame callbacks in the page for ms.
function frameGaps(page, ms) {
  return page.evaluate((dur) => new Promise((resolve) => {
    const gaps = [];
    let last = null;
    const end = performance.now() + dur;
    function tick(t) {
      if (last !== null) gaps.push(t - last);
      last = t;
      if (t < end) requestAnimationFrame(tick); else resolve(gaps);
    }
    requestAnimationFrame(tick);
  }), ms);
}

// Frame gaps over ms, and the events per second that reached the page meanwhile.
async function measure(page, ms) {
  const s0 = await feedStats(page);
  const t0 = Date.now();
  const gaps = await frameGaps(page, ms);
  const s1 = await feedStats(page);
  return { gaps, rate: (s1.total - s0.total) / ((Date.now() - t0) / 1000) };
}

const srv = await startServer();
const browser = await launchBrowser();
const rows = [];
try {
  const page = await openDashboard(browser, srv, { hash: '#/sessions/1' });
  await waitFor('rows streaming', async () => { const s = await feedStats(page); return s && s.total > 100; }, { timeoutMs: 60000 });
  rows.push(['real Demo app streaming', await measure(page, STREAM_MS)]);
  await page.evaluate((perSec) => {
    const v = window.__jitscope.app.view;
    let seq = 1e9;
    window.__flood = setInterval(() => {
      const evs = [];
      for (let i = 0; i < perSec / 50; i++, seq++) {
        evs.push({ seq, type: 'jit', time_ms: Date.now(), name: `Stress.Synthetic<T${seq % 97}>.Method${seq % 4000}`, module: 'Stress',
          jit_ns: 20000 + (seq % 200) * 1000, il_size: 40, native_size: 120, versions: 1, thread_id: '0x1', function_id: `0xs${seq % 6000}` });
      }
      v.onEvents(evs);
    }, 20);
  }, FLOOD_PER_SEC);
  rows.push([`synthetic flood through the page's own ingest path (target ${FLOOD_PER_SEC.toLocaleString('en')}/s)`, await measure(page, STREAM_MS)]);
  await page.evaluate(() => clearInterval(window.__flood));
} finally {
  await browser.close();
  await stopServer(srv);
}
const load = (await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ');
console.log('### Dashboard frame times (headless Chromium)');
console.log('');
console.log(`Load average at the end: ${load}.`);
console.log('');
console.log('| load | events/s reaching the page | frames | p50 (ms) | p95 (ms) | max (ms) |');
console.log('|---|---|---|---|---|---|');
for (const [what, m] of rows)
  console.log(`| ${what} | ${Math.round(m.rate).toLocaleString('en')} | ${m.gaps.length} | ${f1(pct(m.gaps, 50))} | ${f1(pct(m.gaps, 95))} | ${f1(Math.max(...m.gaps))} |`);
