// frame.js -- one render pass per animation frame for the whole page.
// Views call schedule(fn); fn runs once in the next frame no matter how often
// it was scheduled. While the tab is hidden nothing renders: the tasks wait and
// run in the first frame after the tab becomes visible again.

const tasks = new Set();
let pending = false;
const errorHandlers = new Set();

export function onRenderError(fn) {
  errorHandlers.add(fn);
}

export function schedule(fn) {
  tasks.add(fn);
  kick();
}

function kick() {
  if (pending || tasks.size === 0 || document.visibilityState !== 'visible') return;
  pending = true;
  requestAnimationFrame(flush);
}

function flush(now) {
  pending = false;
  if (document.visibilityState !== 'visible') return; // resumes on visibilitychange
  const list = [...tasks];
  tasks.clear();
  for (const fn of list) {
    try {
      fn(now);
    } catch (e) {
      for (const h of errorHandlers) h(e);
    }
  }
}

document.addEventListener('visibilitychange', kick);

export function isVisible() {
  return document.visibilityState === 'visible';
}
