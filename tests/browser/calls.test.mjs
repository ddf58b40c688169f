// calls.test.mjs -- the Code tab in real headless Chromium with calls that the
// code does not name (E2eTarget's "calls" mode): a delegate's Invoke through a
// register, named from the IL call at its IL offset, shows that name (not a
// link: no code of it in the session; its tooltip says where the name came
// from), as the REST reply names it.
//   node --test tests/browser/calls.test.mjs
// Screenshot: build/screenshots/calls-il-names.png (and a copy in /tmp).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, waitFor, waitForOutput, apiGet, BUILD, openLiveSession, closeAll, screenshotCopy } from './helpers.mjs';

const E2E = path.join(BUILD, 'apps/E2eTarget/E2eTarget.dll');

describe('Code tab: calls named from the IL', { timeout: 180000 }, () => {
  let srv, browser, page, fn;

  before(async () => {
    srv = await startServer({ dll: E2E, appArgs: ['calls'], stdin: true });
    await waitForOutput(srv, /^READY$/m, 60000);
    await waitFor('CallDelegate compiled', async () => {
      fn = (await apiGet(srv, '/api/sessions/1/functions?q=CallWork.CallDelegate')).body.functions[0];
      return fn && fn.tiers.length > 0;
    }, { timeoutMs: 60000 });
    ({ browser, page } = await openLiveSession(srv, '#/sessions/1/live', { width: 1440, height: 900 }));
  });

  after(async () => {
    await closeAll(browser, srv);
  });

  it('a delegate\'s Invoke through a register is named, not linked, with where the name came from', async () => {
    await page.evaluate((fid) => { location.hash = `#/sessions/1/code/${fid}`; }, fn.function_id);
    await page.locator('.code-tab[data-state="done"]').waitFor({ timeout: 20000 });
    const rest = (await apiGet(srv, `/api/sessions/1/functions/${fn.function_id}/code?refresh=0`)).body;
    const fromIl = rest.versions[0].instructions.filter((i) => i.target && i.target.named_from === 'il');
    assert.ok(fromIl.length >= 2, 'the REST reply names both Invoke calls from the IL');
    const first = page.locator('.code-col').first();
    const named = first.locator('.code-named-il');
    await waitFor('the named calls shown', async () => (await named.count()) === fromIl.length);
    assert.match(await named.first().textContent(), /Invoke\(int\)/);
    assert.match(await named.first().getAttribute('title'), /^System\.Func<int, int>\.Invoke\(int\)\nnamed from the IL call at this IL offset \(qword ptr \[\w+ \+ 0x18\]\)$/);
    assert.equal(await first.locator('a.code-target', { hasText: 'Invoke' }).count(), 0, 'no link: the session has no code of it');
    await screenshotCopy(page, 'calls-il-names.png');
  });
});
