// main.js -- the jitscope dashboard: hash router, global keyboard shortcuts,
// error reporting to the page. Views: HomeView (#/), SessionView (#/sessions/ID[/tab[/0xFID]]:
// the Code tab opens that method),
// CompareView (#/compare, #/compare/A/B; either id may be empty).
import { fill } from './dom.js';
import { onAuthRequired, setApiKey } from './api.js';
import { onRenderError } from './frame.js';
import { toast, showHelp, isDialogOpen, closeDialog, askApiKey, setConnection } from './ui.js';
import { HomeView } from './views/home.js';
import { SessionView } from './views/session.js';
import { CompareView } from './views/compare.js';

class App {
  constructor() {
    this.root = document.getElementById('app');
    this.crumbsEl = document.getElementById('crumbs');
    this.view = null;
    this.openRuns = new Set(); // runs whose child sessions the home page shows (kept across pages)
    window.addEventListener('hashchange', () => this.route());
    document.addEventListener('keydown', (e) => this.onKey(e));
    document.getElementById('help-btn').addEventListener('click', () => showHelp());
    onRenderError((e) => this.reportError(e));
    window.addEventListener('error', (e) => this.reportError(e.error || e.message));
    window.addEventListener('unhandledrejection', (e) => this.reportError(e.reason));
    onAuthRequired((msg) =>
      askApiKey(msg, (key) => {
        setApiKey(key);
        this.route(true);
      }),
    );
    this.route();
  }

  navigate(hash) {
    if (location.hash === hash) this.route();
    else location.hash = hash;
  }

  route(force = false) {
    const hash = location.hash || '#/';
    const m = /^#\/sessions\/(\d+)(?:\/([a-z]+)(?:\/(0x[0-9a-f]+))?)?\/?$/.exec(hash);
    const cmp = /^#\/compare(?:\/(\d*)\/(\d*))?\/?$/.exec(hash);
    if (cmp) {
      const a = Number(cmp[1]) || null,
        b = Number(cmp[2]) || null;
      if (!force && this.view instanceof CompareView && this.view.a === a && this.view.b === b)
        return;
      this.show(new CompareView(this, a, b));
    } else if (m) {
      const id = Number(m[1]);
      if (!force && this.view instanceof SessionView && this.view.id === id) {
        this.view.setTab(m[2] || 'live', m[3]);
        return;
      }
      this.show(new SessionView(this, id, m[2], m[3]));
    } else {
      if (!force && this.view instanceof HomeView) return;
      if (hash !== '#/' && hash !== '#' && hash !== '') history.replaceState(null, '', '#/');
      this.show(new HomeView(this));
    }
  }

  show(view) {
    if (this.view) this.view.unmount();
    this.view = view;
    view.mount(this.root);
    this.updateCrumbs();
  }

  updateCrumbs() {
    fill(this.crumbsEl, this.view.crumbs());
  }

  setConnection(kind, text) {
    setConnection(kind, text);
  }

  onKey(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    const typing =
      t instanceof HTMLElement &&
      (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
    if (isDialogOpen()) return; // <dialog> handles Esc and its own buttons
    if (e.key === 'Escape') {
      if (this.view && this.view.onKey && this.view.onKey(e)) e.preventDefault();
      if (typing) t.blur();
      return;
    }
    if (typing) return;
    if (e.key === '?') {
      e.preventDefault();
      showHelp();
      return;
    }
    if (e.key === 'g') {
      e.preventDefault();
      this.navigate('#/');
      return;
    }
    if (this.view && this.view.onKey && this.view.onKey(e)) e.preventDefault();
  }

  reportError(err) {
    const msg = err && err.message ? err.message : String(err);
    toast(`Dashboard error: ${msg}`, { kind: 'error' });
  }
}

const app = new App();
// Read-only handle for the browser tests and for debugging from the console.
window.__jitscope = {
  app,
  stats: () => (app.view && app.view.stats ? app.view.stats() : null),
  closeDialog,
};
