// stacks.js -- the session's Stacks tab: take a snapshot of every managed
// thread's stack (POST /api/sessions/{id}/stacks, like dotnet-stack), browse
// the earlier ones (GET /stacks, /stacks/{n}), per thread (name, OS id, walk
// result, frames leaf first, collapsible) or merged: threads with identical
// stacks grouped with their count ("parallel stacks"). The search filters the
// threads and highlights the frames that match. This file keeps the snapshots,
// the list and the toolbar; stackcards.js draws a snapshot.
import { h, fill, setText } from '../dom.js';
import { SearchBox } from '../searchbox.js';
import { api, isMissingRoute, describeError } from '../api.js';
import { schedule } from '../frame.js';
import { fmtInt, fmtNs, fmtClock, plural } from '../format.js';
import { toast } from '../ui.js';
import { notice } from './common.js';
import { CARDS_STEP, StackCards } from './stackcards.js';

const CACHE = 8; // snapshots kept in the page (the list itself is small)
const EXPAND_THREADS = 40; // snapshots with more threads start collapsed

export class StacksTab {
  constructor(session) {
    this.session = session;
    this.active = false;
    this.list = []; // [{id, time_ms, suspend_ns, threads, frames}], newest last
    this.listMissing = false;
    this.cache = new Map(); // id -> Snapshot
    this.groupCache = new WeakMap(); // Snapshot -> its merged groups
    this.selectedId = null;
    this.busy = false; // a POST is under way
    this.result = null; // {kind, text} of the last Snapshot now
    this.mode = 'threads'; // 'threads' | 'merged'
    this.query = '';
    this.open = new Map(); // thread or group key -> expanded?
    this.searchOpen = new Map(); // the same, while a search is active (matches start expanded)
    this.openVersion = 0;
    this.cardLimit = CARDS_STEP;
    this.cards = new StackCards(this);
    this.loadingId = null;
    this.renderTask = () => this.render();
    this.listTimer = null;

    // ---- toolbar ----
    this.snapBtn = h('button', {
      class: 'btn btn-primary snap-btn',
      type: 'button',
      onclick: () => this.snapshot(),
    });
    this.snapInfo = h('span', { class: 'snap-info', role: 'status' });
    this.searchBox = new SearchBox({
      placeholder: 'Find frames: method or module',
      label: 'Find frames by method or module substring',
      onInput: (text) => this.setQuery(text),
    });
    this.search = this.searchBox.el;
    this.modeBtns = {
      threads: h(
        'button',
        {
          class: 'btn seg',
          type: 'button',
          'aria-pressed': 'true',
          title: 'Every thread with its own stack',
          onclick: () => this.setMode('threads'),
        },
        'Threads',
      ),
      merged: h(
        'button',
        {
          class: 'btn seg',
          type: 'button',
          'aria-pressed': 'false',
          title: 'Threads with identical stacks grouped, with their count (parallel stacks)',
          onclick: () => this.setMode('merged'),
        },
        'Merged',
      ),
    };
    this.expandBtn = h(
      'button',
      {
        class: 'btn',
        type: 'button',
        title: 'Expand every stack',
        onclick: () => this.expandAll(true),
      },
      'Expand all',
    );
    this.collapseBtn = h(
      'button',
      {
        class: 'btn',
        type: 'button',
        title: 'Collapse every stack to its header',
        onclick: () => this.expandAll(false),
      },
      'Collapse all',
    );
    this.textLink = h(
      'a',
      {
        class: 'btn text-link',
        target: '_blank',
        rel: 'noopener',
        title: 'This snapshot as plain text (one block per thread), in a new tab',
      },
      'Plain text ↗',
    );
    this.toolbar = h(
      'div',
      { class: 'toolbar' },
      this.snapBtn,
      this.snapInfo,
      this.search,
      h(
        'span',
        { class: 'segmented', role: 'group', 'aria-label': 'Stack layout' },
        this.modeBtns.threads,
        this.modeBtns.merged,
      ),
      this.expandBtn,
      this.collapseBtn,
      this.textLink,
    );

    // ---- body: snapshot list | selected snapshot ----
    this.listEl = h('nav', { class: 'snap-list', 'aria-label': 'Snapshots, newest first' });
    this.listHead = h('div', { class: 'pane-head' }, 'Snapshots');
    this.summaryEl = h('div', { class: 'snap-summary' });
    this.msg = h('div');
    this.threadsEl = h('div', { class: 'stack-list' });
    this.main = h('div', { class: 'snap-main' }, this.msg, this.summaryEl, this.threadsEl);
    this.el = h(
      'div',
      { class: 'stacks-view' },
      this.toolbar,
      h(
        'div',
        { class: 'stacks-body' },
        h('div', { class: 'snap-pane' }, this.listHead, this.listEl),
        this.main,
      ),
    );
    this.updateButton();
    this.render();
  }

  show() {
    this.active = true;
    this.loadList();
    schedule(this.renderTask);
  }
  hide() {
    this.active = false;
    clearTimeout(this.listTimer);
  }
  destroy() {
    this.hide();
  }

  // ---- state from the session ----
  sessionChanged() {
    this.updateButton();
  }

  // stream events: another snapshot finished (taken here or by anyone else)
  onEvents(events) {
    for (const ev of events) {
      if (ev.type !== 'stack_snapshot') continue;
      const id = ev.snapshot_id;
      if (id != null && !this.list.some((s) => s.id === id)) {
        this.list.push({
          id,
          time_ms: ev.time_ms,
          suspend_ns: ev.suspend_ns,
          threads: ev.threads,
          frames: null,
        });
        this.list.sort((a, b) => a.id - b.id);
        this.session.setTabCount('stacks', this.list.length);
        schedule(this.renderTask);
      }
      // the list's frame counts come from the server
      if (this.active) {
        clearTimeout(this.listTimer);
        this.listTimer = setTimeout(() => this.loadList(), 300);
      }
    }
  }

  liveReason() {
    const s = this.session.summary;
    if (!s) return 'Session not loaded yet.';
    if (s.state === 'live') return null;
    return `No live agent: the session is ${s.state}. Snapshots need a running agent; earlier ones stay browsable.`;
  }

  updateButton() {
    const reason = this.liveReason();
    this.snapBtn.disabled = !!reason || this.busy;
    this.snapBtn.title =
      reason || 'Suspend the runtime for a moment, walk every managed thread and resume it (s)';
    fill(this.snapBtn, this.busy ? 'Walking stacks…' : 'Snapshot now', h('kbd', null, 's'));
    this.snapBtn.setAttribute('aria-busy', String(this.busy));
    if (reason && !this.busy) {
      fill(this.snapInfo, h('span', { class: 'why' }, reason));
    } else if (this.result) {
      fill(
        this.snapInfo,
        h(
          'span',
          { class: this.result.kind, title: this.result.tip || this.result.text },
          this.result.text,
        ),
      );
    } else {
      fill(
        this.snapInfo,
        h(
          'span',
          { class: 'dim' },
          'Suspends the runtime briefly and walks every managed thread (like dotnet-stack).',
        ),
      );
    }
  }

  // ---- data ----
  async loadList() {
    const r = await api(`/api/sessions/${this.session.id}/stacks`);
    if (!r.ok) {
      if (isMissingRoute(r)) {
        this.listMissing = true;
        schedule(this.renderTask);
        return;
      }
      fill(this.msg, notice('error', describeError('Snapshots', r)));
      return;
    }
    fill(this.msg);
    this.list = (r.data && r.data.snapshots) || [];
    this.session.setTabCount('stacks', this.list.length || null);
    if (this.selectedId == null || !this.list.some((s) => s.id === this.selectedId)) {
      if (this.list.length) this.select(this.list[this.list.length - 1].id);
    }
    schedule(this.renderTask);
  }

  async select(id) {
    if (id !== this.selectedId) this.cardLimit = CARDS_STEP;
    this.selectedId = id;
    schedule(this.renderTask);
    if (this.cache.has(id)) return;
    this.loadingId = id;
    const r = await api(`/api/sessions/${this.session.id}/stacks/${id}`);
    if (this.loadingId === id) this.loadingId = null;
    if (!r.ok) {
      fill(this.msg, notice('error', describeError(`Snapshot #${id}`, r)));
      return;
    }
    this.remember(r.data.snapshot);
    schedule(this.renderTask);
  }

  remember(snap) {
    this.cache.delete(snap.id);
    this.cache.set(snap.id, snap);
    while (this.cache.size > CACHE) this.cache.delete(this.cache.keys().next().value);
  }

  async snapshot() {
    const reason = this.liveReason();
    if (reason) {
      toast(reason, { kind: 'warn' });
      return;
    }
    if (this.busy) return;
    this.busy = true;
    this.result = null;
    this.updateButton();
    const t0 = performance.now();
    const r = await api(`/api/sessions/${this.session.id}/stacks`, {
      method: 'POST',
      timeoutMs: 20000,
    });
    this.busy = false;
    if (r.ok && r.data && r.data.snapshot) {
      const s = r.data.snapshot;
      this.remember(s);
      const frames = (s.threads || []).reduce((a, t) => a + (t.frames ? t.frames.length : 0), 0);
      if (!this.list.some((x) => x.id === s.id))
        this.list.push({
          id: s.id,
          time_ms: s.time_ms,
          suspend_ns: s.suspend_ns,
          threads: (s.threads || []).length,
          frames,
        });
      else
        Object.assign(
          this.list.find((x) => x.id === s.id),
          { frames },
        );
      this.list.sort((a, b) => a.id - b.id);
      this.session.setTabCount('stacks', this.list.length);
      this.selectedId = s.id;
      this.result = {
        kind: 'ok',
        text: `Snapshot #${s.id}: ${plural((s.threads || []).length, 'thread')}, runtime suspended for ${fmtNs(s.suspend_ns)}`,
        tip: `answered in ${Math.round(performance.now() - t0)} ms`,
      };
    } else {
      let text;
      if (isMissingRoute(r)) text = 'Stack snapshots are not available on this server.';
      else if (r.status === 409) text = `No snapshot: ${r.error}.`;
      else if (r.status === 504)
        text = `No snapshot: the agent did not answer in time (${r.error}).`;
      else text = describeError('Snapshot failed', r);
      this.result = { kind: 'err', text };
      toast(text, { kind: 'error' });
    }
    this.updateButton();
    schedule(this.renderTask);
  }

  // ---- controls ----
  setMode(mode) {
    this.mode = mode;
    for (const [k, b] of Object.entries(this.modeBtns)) {
      b.classList.toggle('active', k === mode);
      b.setAttribute('aria-pressed', String(k === mode));
    }
    schedule(this.renderTask);
  }

  setQuery(text) {
    const q = text.trim().toLowerCase();
    if (q === this.query) return;
    this.query = q;
    this.searchOpen.clear();
    schedule(this.renderTask);
  }

  expandAll(on) {
    const snap = this.cache.get(this.selectedId);
    if (!snap) return;
    for (const key of this.keys(snap)) this.open.set(key, on);
    this.searchOpen.clear();
    if (this.query) for (const key of this.keys(snap)) this.searchOpen.set(key, on);
    this.openVersion++;
    schedule(this.renderTask);
  }

  toggle(key, on) {
    (this.query ? this.searchOpen : this.open).set(key, on);
    this.openVersion++;
    schedule(this.renderTask);
  }

  focusSearch() {
    this.searchBox.focus();
  }

  clearSearch(keepFocus) {
    return this.searchBox.clear(keepFocus);
  }

  // ---- model ----
  threadKey(t) {
    return t.thread_key != null ? `k:${t.thread_key}` : `t:${t.thread_id}`;
  }

  threadName(t) {
    if (t.name) return t.name;
    const known = t.thread_key != null ? this.session.threads.get(t.thread_key) : null;
    if (known && known.name) return known.name;
    const pid = this.session.summary && this.session.summary.pid;
    if (t.os_thread_id && t.os_thread_id === pid) return '(main thread)';
    return '(unnamed)';
  }

  // Threads with identical stacks (same frames, same walk result) as groups, most threads first.
  groups(snap) {
    const cached = this.groupCache.get(snap);
    if (cached) return cached;
    const by = new Map();
    for (const t of snap.threads || []) {
      const frames = t.frames || [];
      const sig = `${t.hresult || 0}|${t.truncated ? 1 : 0}|${frames.map((f) => (f.native ? '[native]' : `${f.function_id || ''}:${f.name}`)).join('\n')}`;
      let g = by.get(sig);
      if (!g)
        by.set(
          sig,
          (g = {
            key: `g:${sig.length}:${hashStr(sig)}`,
            threads: [],
            frames,
            hresult: t.hresult,
            hresult_name: t.hresult_name,
            native_only: !!t.native_only,
            truncated: t.truncated,
          }),
        );
      g.threads.push(t);
    }
    const out = [...by.values()].sort(
      (a, b) => b.threads.length - a.threads.length || b.frames.length - a.frames.length,
    );
    this.groupCache.set(snap, out);
    return out;
  }

  keys(snap) {
    return this.mode === 'merged'
      ? this.groups(snap).map((g) => g.key)
      : (snap.threads || []).map((t) => this.threadKey(t));
  }

  isOpen(key, snap, matched) {
    if (this.query) {
      const s = this.searchOpen.get(key);
      if (s != null) return s;
      if (matched) return true;
    }
    const v = this.open.get(key);
    if (v != null) return v;
    return (snap.threads || []).length <= EXPAND_THREADS;
  }

  // ---- drawing ----
  render() {
    this.renderList();
    const snap = this.selectedId != null ? this.cache.get(this.selectedId) : null;
    const hasSnap = !!snap;
    this.expandBtn.disabled = this.collapseBtn.disabled = !hasSnap;
    if (this.selectedId != null) {
      // the text works even when the JSON is too large
      this.textLink.href = `/api/sessions/${this.session.id}/stacks/${this.selectedId}?format=text`;
      this.textLink.removeAttribute('aria-disabled');
      this.textLink.classList.remove('disabled');
    } else {
      this.textLink.removeAttribute('href');
      this.textLink.setAttribute('aria-disabled', 'true');
      this.textLink.classList.add('disabled');
    }
    if (!hasSnap) {
      fill(this.summaryEl);
      let text;
      if (this.listMissing)
        text = [
          h('b', null, 'Stack snapshots are not available on this server'),
          h('br'),
          `(GET /api/sessions/${this.session.id}/stacks: no such route).`,
        ];
      else if (this.selectedId != null) text = `Loading snapshot #${this.selectedId}…`;
      else
        text = [
          h('b', null, 'No snapshot yet.'),
          h('br'),
          '“Snapshot now” suspends the runtime for a moment, walks the stack of every managed thread and resumes it. ',
          'Each thread is listed with its frames, leaf first; “Merged” groups the threads whose stacks are identical.',
        ];
      fill(this.threadsEl, h('div', { class: 'empty-state' }, text));
      this.threadsEl._sig = null;
      this.threadsEl.dataset.threads = '0';
      return;
    }
    this.cards.renderSummary(snap);
    const sig = `${snap.id}|${this.mode}|${this.query}|${this.openVersion}|${this.session.threads.size}|${this.cardLimit}`;
    if (this.threadsEl._sig === sig) return;
    this.threadsEl._sig = sig;
    // keep the keyboard focus on the same header across the rebuild
    const focused = this.threadsEl.contains(document.activeElement)
      ? document.activeElement.closest('.stack-card')
      : null;
    const focusKey = focused ? focused.dataset.key : null;
    if (this.mode === 'merged') this.cards.renderMerged(snap);
    else this.cards.renderThreads(snap);
    if (focusKey) {
      for (const c of this.threadsEl.children)
        if (c.dataset && c.dataset.key === focusKey) {
          c.querySelector('.th-head').focus();
          break;
        }
    }
  }

  renderList() {
    const items = [];
    for (let i = this.list.length - 1; i >= 0; i--) {
      const s = this.list[i];
      const sel = s.id === this.selectedId;
      items.push(
        h(
          'button',
          {
            class: `snap-item${sel ? ' sel' : ''}`,
            type: 'button',
            'aria-current': sel ? 'true' : null,
            'data-id': String(s.id),
            onclick: () => this.select(s.id),
          },
          h(
            'span',
            { class: 'si-top' },
            h('b', null, `#${s.id}`),
            h('span', { class: 'si-time' }, fmtClock(s.time_ms)),
            h('span', { class: 'si-susp', title: 'runtime suspended' }, fmtNs(s.suspend_ns)),
          ),
          h(
            'span',
            { class: 'si-sub' },
            `${plural(s.threads || 0, 'thread')}${s.frames != null ? ` · ${fmtInt(s.frames)} frames` : ''}`,
          ),
        ),
      );
    }
    if (!items.length)
      items.push(h('div', { class: 'si-empty' }, this.listMissing ? 'not available' : 'none yet'));
    const sig = `${this.selectedId}|${this.list.map((s) => `${s.id}:${s.frames}`).join(',')}`;
    if (this.listEl._sig !== sig) {
      this.listEl._sig = sig;
      fill(this.listEl, items);
    }
    setText(this.listHead, this.list.length ? `Snapshots (${this.list.length})` : 'Snapshots');
  }

  // For tests and the status line.
  stats() {
    const snap = this.cache.get(this.selectedId);
    return {
      snapshots: this.list.length,
      selected: this.selectedId,
      threads: snap ? (snap.threads || []).length : 0,
      mode: this.mode,
      busy: this.busy,
    };
  }
}

function hashStr(s) {
  let x = 2166136261;
  for (let i = 0; i < s.length; i++) {
    x ^= s.charCodeAt(i);
    x = Math.imul(x, 16777619);
  }
  return (x >>> 0).toString(36);
}
