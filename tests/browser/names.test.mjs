// names.test.mjs -- method names where space is short (web/js/mname.js): at
// 1,024, 1,440 and 1,920 px, in the live feed and the Slowest JITs table of a
// Demo session, every name gives way in one order, each part entirely before
// the next is touched: the namespace (cut from its start), then the parameter
// list, then the declaring type, the method's own name last. So a narrow
// column never shows "S…AddWithResize" or a method without its type while
// there is room for the type. Screenshots: build/screenshots/names-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer, launchBrowser, openDashboard, pressTab, waitFor, screenshot, closeAll,
} from './helpers.mjs';

const WIDTHS = [1024, 1440, 1920];
let srv, browser;

before(async () => {
  srv = await startServer({});
  browser = await launchBrowser();
});
after(() => closeAll(browser, srv));

// Every shown .mname under root, checked: returns what breaks the order, and
// how many names were looked at (and how many showed their type).
function nameOrderProblems(page, root) {
  return page.evaluate((sel) => {
    const cut = (el) => el.scrollWidth > el.clientWidth + 0.5; // an ellipsis is showing
    const shown = (el) => el.getBoundingClientRect().width >= 1;
    const out = [];
    let names = 0, typed = 0;
    for (const m of document.querySelectorAll(`${sel} .mname`)) {
      const box = m.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      const ns = m.querySelector('.m-ns'), type = m.querySelector('.m-type');
      const meth = m.querySelector('.m-meth'), params = m.querySelector('.m-params');
      if (!ns || !type || !meth || !params) { out.push(`"${m.title}" is not in four parts`); continue; }
      names++;
      const full = m.title;
      if (ns.textContent + type.textContent + meth.textContent + params.textContent !== full) out.push(`"${full}" is not its parts`);
      const later = [[ns, [type, meth, params]], [params, [type, meth]], [type, [meth]]];
      for (const [first, rest] of later) {
        if (first.textContent && shown(first) && rest.some((p) => p.textContent && cut(p))) {
          out.push(`"${full}": ${first.className} still shows while a later part is cut`);
        }
      }
      // room for the type and the method: the type shows (in part at least)
      if (type.textContent && meth.scrollWidth + 24 < box.width) {
        if (shown(type)) typed++;
        else out.push(`"${full}": no type although the cell has room (${Math.round(box.width)} px)`);
      }
    }
    return { problems: out, names, typed };
  }, root);
}

for (const width of WIDTHS) {
  test(`${width} px: names in the live feed and the slowest JITs give way namespace first, method last`, async () => {
    const page = await openDashboard(browser, srv, { hash: '#/sessions/1', width, height: 900 });
    try {
      await waitFor('200 JITs in the feed', async () => (await page.evaluate(() => window.__jitscope.stats().inBuffer)) >= 200, { timeoutMs: 60000 });
      // drawn in a later frame than the buffer filled (a loaded machine: one
      // run found 200 JITs in the buffer and none drawn yet)
      const feed = await waitFor('10 names drawn in the feed', async () => {
        const f = await nameOrderProblems(page, '.vt-rows');
        return f.names >= 10 && f;
      }, { timeoutMs: 60000 });
      assert.deepEqual(feed.problems, [], 'the feed');
      await screenshot(page, `names-feed-${width}.png`);
      await pressTab(page, 2);
      await page.locator('.grid .mname').first().waitFor({ timeout: 60000 });
      const slow = await nameOrderProblems(page, '.grid');
      assert.ok(slow.names >= 10 && slow.typed > 0, JSON.stringify(slow));
      assert.deepEqual(slow.problems, [], 'the slowest JITs');
      // the method column is the widest; the module gives way
      const widths = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.grid th')]
        .map((x) => [x.textContent.replace(/[▾▴]/g, '').trim(), Math.round(x.getBoundingClientRect().width)])));
      assert.ok(widths.Method >= 250 && Object.values(widths).every((w) => w <= widths.Method), JSON.stringify(widths));
      await screenshot(page, `names-slowest-${width}.png`);
    } finally {
      await page.context().close();
    }
  });
}
