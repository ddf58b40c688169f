// srclines.test.mjs -- file:line in the Profile tab's flame graph (issue 38,
// item 2), in real headless Chromium against the real server and StackTarget's
// "hotline" mode (Hot.cs: Hot.Work spends nearly all its CPU time on its
// "HOT LINE"): a method's tooltip names its source file and first line; the
// "Split by line" switch splits each method's frame by line, so Hot.Work's
// widest frame is its hot line, labelled and explained as Hot.cs:<line>; a
// method of the runtime's library (no PDB beside it) says it has no line. The
// Stacks tab shows each frame's file:line (WorkCaller's on its call to Work).
//   node --test tests/browser/srclines.test.mjs
// Screenshots: build/screenshots/srclines-*.png (and copies in /tmp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { waitFor, unexpectedConsoleErrors, openLiveSession, closeAll, screenshotCopy } from './helpers.mjs';
import { hotLines, serveStackTarget } from '../e2e/stacktarget.mjs';
import { ROOT } from '../e2e/lib.mjs';

const HOT_CS = path.join(ROOT, 'tests/apps/StackTarget/Hot.cs');
const WORK = 'StackTarget.Hot.Work(int, double, double)';
const HOT_LINE = hotLines().Work.line;

// The tab's model, read (never driven) from the page.
const tab = (page, fn, arg = null) =>
  page.evaluate(`(${fn})(window.__jitscope.app.view.tabs.profile, ${JSON.stringify(arg)})`);

// The widest drawn frame named exactly `name`: {x, y, node: {line, split, file}}.
const widest = (page, name) => tab(page, (t, want) => {
  let best = null;
  for (const row of t.flame.rows)
    for (const r of row.items)
      if (r.node.name === want && (!best || r.w > best.w))
        best = { x: r.x + r.w / 2, y: row.y + row.h / 2, w: r.w, node: { line: r.node.line, split: !!r.node.split, file: r.node.file } };
  return best;
}, name);

// The tooltip's source line once the mouse is over the frame at `at`.
async function tipSource(page, at) {
  const box = await page.locator('canvas.flame-canvas:visible').boundingBox();
  await page.mouse.move(box.x + at.x, box.y + at.y);
  await page.locator('.flame-tip:visible .tt-src').waitFor({ timeout: 10000 });
  return page.locator('.flame-tip:visible .tt-src').textContent();
}

describe('file:line in the flame graph', { timeout: 300000 }, () => {
  let srv, browser, page;

  before(async () => {
    assert.ok(HOT_LINE > 0, 'Hot.cs has the HOT LINE marker');
    srv = await serveStackTarget({ appArgs: ['hotline', '600'] });
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/profile', { width: 1440, height: 900 }));
    const cpu = page.locator('select.mode-select option[value="cpu"]');
    await waitFor('CPU mode offered', async () => !(await cpu.isDisabled()), { timeoutMs: 30000 });
    await page.locator('select.mode-select').selectOption('cpu');
    await page.locator('input#p-hz-1').fill('999');
    await page.locator('button.start-btn').click();
    await page.locator('.p-stats .badge-live').waitFor({ timeout: 60000 });
    await waitFor('Hot.Work sampled', () => tab(page, (t, w) => t.status && t.status.samples > 1000 && !!t.flame.locate(w), WORK),
      { timeoutMs: 90000 });
    await page.locator('button.stop-btn').click();
    await waitFor('stopped', () => tab(page, (t) => t.status && t.status.state === 'stopped'), { timeoutMs: 60000 });
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('a method\'s tooltip names its file and first line; the runtime\'s says it has none', async () => {
    const at = await waitFor('Hot.Work with its file', async () => {
      const w = await widest(page, WORK);
      return w && w.node.file === HOT_CS && !w.node.split && w;
    }, { timeoutMs: 60000 });
    assert.match(await tipSource(page, at), new RegExp(`^${HOT_CS.replace(/[.]/g, '\\.')} \\(from line \\d+\\)$`));
    const corelib = await widest(page, 'System.Threading.Thread.StartCallback()');
    assert.ok(corelib, 'the threads\' start is drawn');
    assert.equal(await tipSource(page, corelib), 'no source line: no PDB found for its module');
    await screenshotCopy(page, 'srclines-method.png');
  });

  it('split by line: Hot.Work\'s widest frame is its hot line, labelled and explained as Hot.cs:line', async () => {
    await page.locator('input.split-lines').check();
    const at = await waitFor('Hot.Work split by line', async () => {
      const w = await widest(page, WORK);
      return w && w.node.split && w;
    }, { timeoutMs: 60000 });
    assert.equal(at.node.line, HOT_LINE, `the widest Hot.Work frame is line ${HOT_LINE}`);
    const labels = await tab(page, (t, w) => {
      let best = null;
      for (const row of t.flame.rows) for (const r of row.items) if (r.node.name === w && (!best || r.w > best.w)) best = r;
      return best.node._l;
    }, WORK);
    assert.ok(labels.length && labels.every((l) => l.endsWith(`:${HOT_LINE}`)), `every label keeps the line: ${labels}`);
    assert.equal(await tipSource(page, at), `${HOT_CS}:${HOT_LINE}`);
    await screenshotCopy(page, 'srclines-split.png');
  });

  it('the Stacks tab shows each frame\'s file:line', async () => {
    const callLine = fs.readFileSync(HOT_CS, 'utf8').split('\n').findIndex((l) => /s \+= Work\(/.test(l)) + 1;
    assert.ok(callLine > 0, 'WorkCaller calls Work on one line');
    await page.evaluate(() => { location.hash = '#/sessions/1/stacks'; });
    const btn = page.locator('button.snap-btn');
    await waitFor('an enabled Snapshot now button', () => btn.isEnabled(), { timeoutMs: 30000 });
    await btn.click();
    const card = page.locator('.stack-card[data-thread="hotwork"]');
    await card.waitFor({ timeout: 30000 });
    const caller = card.locator('li.frame', { hasText: 'StackTarget.Hot.WorkCaller' });
    assert.equal((await caller.locator('.f-src').textContent()).trim(), `Hot.cs:${callLine}`);
    assert.match(await caller.getAttribute('title'), new RegExp(`\n${HOT_CS.replace(/[.]/g, '\\.')}:${callLine}$`));
    const start = card.locator('li.frame', { hasText: 'System.Threading.Thread.StartCallback' });
    assert.equal(await start.locator('.f-src').count(), 0);
    assert.match(await start.getAttribute('title'), /\nno source line: no PDB for .*System\.Private\.CoreLib\.dll/);
    await screenshotCopy(page, 'srclines-stacks.png');
    assert.deepEqual(unexpectedConsoleErrors(page), []);
  });
});
