// codesource.test.mjs -- the Code tab's source lines in real headless Chromium
// (issue 38, item 2): StackTarget's "hotline" mode under a CPU profile; the
// Code tab of Hot.Work shows the method's lines from its PDB (GET .../source)
// with their text, the HOT LINE (Hot.cs's marker) shaded as the hottest, and
// each instruction row its line in the Source column, as REST maps it.
//   node --test tests/browser/codesource.test.mjs
// Screenshots: build/screenshots/codesource-*.png (and copies in /tmp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  apiGet, openLiveSession, closeAll, screenshotCopy, unexpectedConsoleErrors,
} from './helpers.mjs';
import { hotLines, serveHotWork } from '../e2e/stacktarget.mjs';

describe('Code tab: source lines', { timeout: 300000 }, () => {
  let srv, browser, page, work, hotLine, hotText;

  before(async () => {
    ({ line: hotLine, text: hotText } = hotLines().Work);
    ({ srv, work } = await serveHotWork({
      what: '500 samples on Hot.Work\'s lines',
      enough: async (server, f) => {
        const s = (await apiGet(server, `/api/sessions/1/functions/${f.function_id}/source`)).body;
        return s.lines && s.lines.reduce((n, l) => n + l.self_samples, 0) >= 500;
      },
    }));
    ({ browser, page } = await openLiveSession(srv, `#/sessions/1/code/${work.function_id}`, { width: 1440, height: 900 }));
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('lists the method\'s lines with their text, the hot line hottest, each row\'s line', async () => {
    await page.locator('.code-tab[data-state="done"]').waitFor({ timeout: 30000 });
    await page.locator('.code-source-panel .code-src-line').first().waitFor({ timeout: 30000 });
    const src = (await apiGet(srv, `/api/sessions/1/functions/${work.function_id}/source?refresh=0`)).body;
    const lines = await page.locator('.code-src-line').evaluateAll((els) => els.map((e) => ({
      line: Number(e.dataset.line),
      text: e.querySelector('.code-src-text').textContent,
      hot: e.classList.contains('is-hot'),
      shade: e.style.background,
    })));
    assert.deepEqual(lines.map((l) => l.line), src.lines.map((l) => l.line), 'every line REST gives, in order');
    assert.deepEqual(lines.map((l) => l.hot), src.lines.map((l) => l.self_samples > 0), 'marked where samples were');
    const hot = lines.find((l) => l.line === hotLine);
    assert.ok(hot && hot.hot && hot.text === hotText, `the HOT LINE ${hotLine} with its text: ${JSON.stringify(hot)}`);
    const alpha = (l) => Number((/rgba\([^)]*,\s*([\d.]+)\)/.exec(l.shade) || [0, 0])[1]);
    assert.ok(lines.every((l) => alpha(l) <= alpha(hot)), 'shaded the most');
    assert.match(await page.locator('.code-src-head').textContent(), /Hot\.cs/);
    // the Source column: each row's line as the sequence points map its IL offset
    const code = (await apiGet(srv, `/api/sessions/1/functions/${work.function_id}/code?refresh=0`)).body;
    const tier1 = code.versions.findIndex((v) => v.tier === 'Tier1');
    const cells = await page.locator('.code-col').nth(tier1).locator('.code-row .code-src')
      .evaluateAll((els) => els.map((e) => e.textContent));
    const pts = src.sequence_points;
    const want = code.versions[tier1].instructions.slice(0, cells.length).map((ins) => {
      if (typeof ins.il_offset !== 'number') return '';
      const p = [...pts].reverse().find((x) => x.il_offset <= ins.il_offset);
      return p && !p.hidden && !p.file ? String(p.line) : '';
    });
    assert.deepEqual(cells, want, 'the Source column');
    assert.ok(cells.includes(String(hotLine)), 'rows on the hot line');
    await page.locator(`.code-src-line[data-line="${hotLine}"]`).scrollIntoViewIfNeeded();
    await screenshotCopy(page, 'codesource-hotline.png');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
