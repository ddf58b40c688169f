// codeheat.test.mjs -- the Code tab's heat in real headless Chromium (issue 38,
// item 1): StackTarget's "hotline" mode (Hot.Work spends nearly all its time on
// one line, Hot.cs) under a CPU profile; the Code tab of Hot.Work shades the
// rows that were sampled, gives each version its samples, and lists the
// hottest ranges with the Tier1 version's hot line on top (its IL offset
// among the line's, which the app prints from its PDB); a click on a range
// brings its rows into view, marked. Versions stay side by side.
//   node --test tests/browser/codeheat.test.mjs
// Screenshots: build/screenshots/codeheat-*.png (and copies in /tmp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  waitFor, apiGet, openLiveSession, closeAll, screenshotCopy, unexpectedConsoleErrors,
} from './helpers.mjs';
import { hotLines, serveHotWork } from '../e2e/stacktarget.mjs';

describe('Code tab: heat', { timeout: 300000 }, () => {
  let srv, browser, page, work, range;

  before(async () => {
    ({ srv, work } = await serveHotWork({
      what: '1,000 samples in Hot.Work',
      enough: async (server, f) => {
        const c = (await apiGet(server, `/api/sessions/1/functions/${f.function_id}/code`)).body;
        return c.versions && c.versions.reduce((n, v) => n + v.self_samples, 0) >= 1000;
      },
    }));
    // the hot line's IL offsets, from the app's own PDB
    const line = hotLines().Work.line;
    const seq = [...srv.stdout.matchAll(/^SEQ Work (\d+) (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])])
      .sort((x, y) => x[0] - y[0]);
    const i = seq.findIndex((q) => q[1] === line);
    range = [seq[i][0], seq[i + 1][0]];
    ({ browser, page } = await openLiveSession(srv, `#/sessions/1/code/${work.function_id}`, { width: 1440, height: 900 }));
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('shades the sampled rows, gives each version its samples, the hot line on top of the hottest ranges', async () => {
    await page.locator('.code-tab[data-state="done"]').waitFor({ timeout: 30000 });
    const rest = (await apiGet(srv, `/api/sessions/1/functions/${work.function_id}/code?refresh=0`)).body;
    const cols = await page.locator('.code-col').evaluateAll((els) => els.map((e) => ({
      tier: e.dataset.tier,
      samples: e.querySelector('.code-samples b') ? e.querySelector('.code-samples b').textContent : null,
      hot: e.querySelectorAll('.code-row.is-hot').length,
      shaded: [...e.querySelectorAll('.code-row')].filter((r) => r.style.background.startsWith('rgba')).length,
    })));
    assert.deepEqual(cols.map((c) => c.tier), rest.versions.map((v) => v.tier), 'the versions side by side, as REST says');
    assert.deepEqual(cols.map((c) => Number((c.samples || '').replace(/,/g, ''))), rest.versions.map((v) => v.self_samples),
      'each version its samples');
    rest.versions.forEach((v, k) => {
      const n = v.instructions.filter((x) => x.self_samples > 0).length;
      assert.equal(cols[k].hot, n, `${v.tier}: a row marked per sampled instruction`);
      assert.equal(cols[k].shaded, n, `${v.tier}: and shaded`);
    });
    const first = page.locator('.code-hot-range').first();
    const text = await first.textContent();
    const il = /IL_([0-9A-F]{4})/.exec(text);
    assert.ok(/Tier1/.test(text) && il, `the hottest range is Tier1's: ${text}`);
    assert.ok(parseInt(il[1], 16) >= range[0] && parseInt(il[1], 16) < range[1],
      `its IL offset is on the hot line (IL ${range[0]}..${range[1]}): ${text}`);
    assert.ok(parseFloat(/([\d.]+)%/.exec(text)[1]) >= 50, `it holds most of the version's samples: ${text}`);
    assert.match(await page.locator('.code-hot-head').textContent(), /profile 1 \(CPU time, stopped\)/);
    await first.click();
    await waitFor('the range marked', async () => (await page.locator('.code-row.is-picked').count()) > 0);
    assert.ok(await page.locator('.code-row.is-picked').first().isVisible(), 'its rows in view');
    await screenshotCopy(page, 'codeheat-tier1.png');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
