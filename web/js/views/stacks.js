// stacks.js -- the session's Stacks tab: take a snapshot of every managed
// thread's stack (POST /api/sessions/{id}/stacks, like dotnet-stack), browse
// the earlier ones (GET /stacks, /stacks/{n}), per thread (name, OS id, walk
// result, frames leaf first, collapsible) or merged: threads with identical
// stacks grouped with their count ("parallel stacks"). The search filters the
// threads and highlights the frames that match. A failed walk is shown with
// its HRESULT, never hidden; a truncated stack says so.
import { h, fill, setText } from '../dom.js';
import { SearchBox } from '../searchbox.js';
import { api, isMissingRoute, describeError } from '../api.js';
import { schedule } from '../frame.js';
import { fmtInt, fmtNs, fmtClock, fmtDateTime, plural, splitMethod } from '../format.js';
import { toast } from '../ui.js';
import { notice } from './common.js';

const CACHE = 8; // snapshots kept in the page (the list itself is small)
const EXPAND_THREADS = 40; // snapshots with more threads start collapsed
const CARDS_STEP = 300; // threads (or groups) put in the page at a time; "Show more" adds as many

export function hresultText(hr, name) {
  if (hr == null || hr === 0) return '';
  const hex =
    typeof hr === 'number'
      ? `0x${(hr >>> 0).toString(16).toUpperCase().padStart(8, '0')}`
      : String(hr);
  return name ? `${name} (${hex})` : hex;
}

// [start, end) of every case-insensitive occurrence of `q` (lower case) in text.
function matchRanges(text, q) {
  const out = [];
  if (!q) return out;
  const low = text.toLowerCase();
  for (let i = low.indexOf(q); i >= 0; i = low.indexOf(q, i + q.length))
    out.push([i, i + q.length]);
  return out;
}

// text[from, to) with the parts inside `ranges` (offsets in the whole text) in <mark>.
function markSlice(text, ranges, from = 0, to = text.length) {
  const out = [];
  let at = from;
  for (const [a, b] of ranges) {
    const s = Math.max(a, from),
      e = Math.min(b, to);
    if (e <= s) continue;
    if (s > at) out.push(text.slice(at, s));
    out.push(h('mark', null, text.slice(s, e)));
    at = e;
  }
  if (at < to) out.push(text.slice(at, to));
  return out;
}

// Text with every case-insensitive occurrence of `q` (lower case) in <mark>.
export function marked(text, q) {
  return q ? markSlice(text, matchRanges(text, q)) : text;
}

function frameMatches(f, q) {
  return (
    !!q && ((f.name || '').toLowerCase().includes(q) || (f.module || '').toLowerCase().includes(q))
  );
}

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
    this.renderSummary(snap);
    const sig = `${snap.id}|${this.mode}|${this.query}|${this.openVersion}|${this.session.threads.size}|${this.cardLimit}`;
    if (this.threadsEl._sig === sig) return;
    this.threadsEl._sig = sig;
    // keep the keyboard focus on the same header across the rebuild
    const focused = this.threadsEl.contains(document.activeElement)
      ? document.activeElement.closest('.stack-card')
      : null;
    const focusKey = focused ? focused.dataset.key : null;
    if (this.mode === 'merged') this.renderMerged(snap);
    else this.renderThreads(snap);
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

  renderSummary(snap) {
    const threads = snap.threads || [];
    const failed = threads.filter((t) => t.hresult).length;
    const truncated = threads.filter((t) => t.truncated).length;
    const frames = threads.reduce((a, t) => a + (t.frames ? t.frames.length : 0), 0);
    const kv = (k, v, cls) => h('span', { class: cls || null }, `${k} `, h('b', null, v));
    const parts = [
      h('span', { class: 'ss-title' }, `Snapshot #${snap.id}`),
      kv(
        'at',
        `${fmtDateTime(snap.time_ms)}.${String(Math.floor(snap.time_ms % 1000)).padStart(3, '0')}`,
      ),
      kv(
        'threads',
        snap.threads_total != null && snap.threads_total !== threads.length
          ? `${fmtInt(threads.length)} of ${fmtInt(snap.threads_total)}`
          : fmtInt(threads.length),
      ),
      kv('frames', fmtInt(frames)),
      h(
        'span',
        { title: 'SuspendRuntime to ResumeRuntime: how long the app stood still' },
        'runtime suspended ',
        h('b', null, fmtNs(snap.suspend_ns)),
      ),
      kv('walk', fmtNs(snap.walk_ns)),
    ];
    if (snap.retries) parts.push(kv('suspend retries', fmtInt(snap.retries)));
    if (failed)
      parts.push(
        h(
          'span',
          {
            class: 'pill pill-err',
            title: 'threads whose walk returned an error HRESULT (listed with it below)',
          },
          `${failed} walk${failed > 1 ? 's' : ''} failed`,
        ),
      );
    if (truncated)
      parts.push(
        h(
          'span',
          { class: 'pill pill-warn', title: 'stacks deeper than 512 frames: the root end is cut' },
          `${truncated} truncated`,
        ),
      );
    if (snap.complete === false)
      parts.push(
        h(
          'span',
          {
            class: 'pill pill-warn',
            title: 'some thread records were lost (counted in the agent drops)',
          },
          'incomplete',
        ),
      );
    if (snap.hresult)
      parts.push(
        h('span', { class: 'pill pill-err' }, `suspend failed: ${hresultText(snap.hresult)}`),
      );
    const sig = parts.map((p) => p.textContent).join('|');
    if (this.summaryEl._sig !== sig) {
      this.summaryEl._sig = sig;
      fill(this.summaryEl, parts);
    }
  }

  renderThreads(snap) {
    const q = this.query;
    const threads = snap.threads || [];
    const out = [];
    let shown = 0,
      matchFrames = 0;
    for (const t of threads) {
      const frames = t.frames || [];
      const name = this.threadName(t);
      let hits = 0;
      if (q) for (const f of frames) if (frameMatches(f, q)) hits++;
      const nameHit = !!q && name.toLowerCase().includes(q);
      if (q && !hits && !nameHit) continue;
      shown++;
      matchFrames += hits;
      if (out.length >= this.cardLimit) continue; // counted, not built
      const key = this.threadKey(t);
      const open = this.isOpen(key, snap, hits > 0);
      out.push(
        this.card({
          key,
          open,
          frames,
          q,
          hits,
          truncated: t.truncated,
          hresult: t.hresult,
          hresultName: t.hresult_name,
          head: [
            h('span', { class: 'th-name' }, marked(name, q)),
            h(
              'span',
              { class: 'th-os', title: 'OS thread id' },
              t.os_thread_id ? `os ${t.os_thread_id}` : 'os ?',
            ),
            h('span', { class: 'th-id', title: 'runtime ThreadID' }, t.thread_id),
          ],
          walkNs: t.walk_ns,
          data: { thread: name, os: String(t.os_thread_id || '') },
        }),
      );
    }
    this.setResult(
      out,
      q
        ? `${shown} of ${plural(threads.length, 'thread')} match · ${plural(matchFrames, 'frame')}`
        : null,
      shown,
      matchFrames,
      `No thread has a frame or name containing “${this.search.value.trim()}”.`,
    );
  }

  renderMerged(snap) {
    const q = this.query;
    const groups = this.groups(snap);
    const out = [];
    let shown = 0,
      matchFrames = 0;
    for (const g of groups) {
      let hits = 0;
      if (q) for (const f of g.frames) if (frameMatches(f, q)) hits++;
      const names = g.threads.map((t) => this.threadName(t));
      const nameHit = !!q && names.some((n) => n.toLowerCase().includes(q));
      if (q && !hits && !nameHit) continue;
      shown++;
      matchFrames += hits;
      if (out.length >= this.cardLimit) continue; // counted, not built
      const open = this.isOpen(g.key, snap, hits > 0);
      const chips = g.threads
        .slice(0, 12)
        .map((t, i) =>
          h(
            'span',
            { class: 'chip', title: `${t.thread_id} · os ${t.os_thread_id || '?'}` },
            marked(names[i], q),
          ),
        );
      if (g.threads.length > 12)
        chips.push(h('span', { class: 'chip more' }, `+${g.threads.length - 12} more`));
      out.push(
        this.card({
          key: g.key,
          open,
          frames: g.frames,
          q,
          hits,
          truncated: g.truncated,
          hresult: g.hresult,
          hresultName: g.hresult_name,
          head: [
            h(
              'span',
              {
                class: 'count-badge',
                title: `${g.threads.length} threads have exactly this stack`,
              },
              `×${g.threads.length}`,
            ),
            h('span', { class: 'chips' }, chips),
          ],
          data: { count: String(g.threads.length), threads: names.join('\n') },
        }),
      );
    }
    this.setResult(
      out,
      `${plural(groups.length, 'distinct stack')} for ${plural((snap.threads || []).length, 'thread')}${q ? ` · ${shown} match` : ''}`,
      shown,
      matchFrames,
      `No stack has a frame or thread name containing “${this.search.value.trim()}”.`,
    );
  }

  setResult(cards, meta, shown, matchFrames, emptyText) {
    if (!cards.length) cards.push(h('div', { class: 'empty-state' }, emptyText));
    if (shown > cards.length) {
      const more = Math.min(CARDS_STEP, shown - cards.length);
      cards.push(
        h(
          'div',
          { class: 'more-row' },
          h(
            'button',
            {
              class: 'btn',
              type: 'button',
              onclick: () => {
                this.cardLimit += CARDS_STEP;
                schedule(this.renderTask);
              },
            },
            `Show ${fmtInt(more)} more`,
          ),
          h('span', { class: 'dim' }, ` ${fmtInt(cards.length)} of ${fmtInt(shown)} shown`),
        ),
      );
    }
    if (meta) cards.unshift(h('div', { class: 'list-meta' }, meta));
    fill(this.threadsEl, cards);
    this.threadsEl.dataset.threads = String(shown);
    this.threadsEl.dataset.matchFrames = String(matchFrames);
  }

  // One thread or group: a header button (expand / collapse) and its frames.
  card({ key, open, frames, q, hits, truncated, hresult, hresultName, head, walkNs, data }) {
    const failed = !!hresult;
    const leaf = frames.length ? frames[0] : null;
    const right = [];
    if (hits)
      right.push(h('span', { class: 'pill pill-match' }, `${hits} match${hits > 1 ? 'es' : ''}`));
    if (failed)
      right.push(
        h(
          'span',
          {
            class: 'pill pill-err',
            title: 'the runtime could not walk this thread (DoStackSnapshot failed)',
          },
          `walk failed: ${hresultText(hresult, hresultName)}`,
        ),
      );
    if (truncated)
      right.push(
        h(
          'span',
          {
            class: 'pill pill-warn',
            title: 'deeper than 512 frames: the frames toward the root are not kept',
          },
          'truncated',
        ),
      );
    right.push(
      h(
        'span',
        { class: 'th-depth' },
        failed && !frames.length
          ? 'no frames'
          : `${fmtInt(frames.length)}${truncated ? '+' : ''} frames`,
      ),
    );
    if (walkNs != null)
      right.push(
        h('span', { class: 'th-walk', title: 'time spent walking this thread' }, fmtNs(walkNs)),
      );
    const btn = h(
      'button',
      {
        class: 'th-head',
        type: 'button',
        'aria-expanded': String(open),
        onclick: () => this.toggle(key, !open),
      },
      h('span', { class: 'caret', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
      head,
      !open && leaf
        ? h(
            'span',
            { class: 'th-leaf' },
            'at ',
            leaf.native ? '[native]' : splitMethod(leaf.name || '')[1] || leaf.name,
          )
        : null,
      h('span', { class: 'spacer' }),
      right,
    );
    const card = h(
      'section',
      {
        class: `stack-card${failed ? ' failed' : ''}${open ? ' open' : ''}`,
        dataset: { key, ...data },
      },
      btn,
    );
    if (open) {
      if (frames.length) {
        card.append(
          h(
            'ol',
            { class: 'frames', start: '0' },
            frames.map((f, i) => this.frameRow(f, i, q)),
          ),
        );
      }
      if (truncated)
        card.append(
          h(
            'div',
            { class: 'trunc-note' },
            '⋯ stack truncated: deeper than 512 frames; the frames toward the root are not kept',
          ),
        );
      if (failed && !frames.length)
        card.append(
          h(
            'div',
            { class: 'fail-note' },
            `The runtime could not walk this thread: ${hresultText(hresult, hresultName)}. This happens for some threads (for example ones in native code without a managed frame).`,
          ),
        );
    }
    return card;
  }

  frameRow(f, i, q) {
    if (f.native) {
      return h(
        'li',
        { class: 'frame native', title: f.ip ? `unmanaged code at ${f.ip}` : 'unmanaged code' },
        h('span', { class: 'f-i' }, String(i)),
        h('span', { class: 'f-name' }, '[native]'),
        h('span', { class: 'f-mod' }, f.ip || ''),
      );
    }
    const name = f.name || f.function_id || '?';
    const hit = frameMatches(f, q);
    const [ns] = splitMethod(name);
    const ranges = matchRanges(name, q); // a match may run across the namespace / method split
    return h(
      'li',
      {
        class: `frame${hit ? ' hit' : ''}`,
        title: `${name}${f.module ? `  (${f.module})` : ''}${f.ip ? `  ip ${f.ip}` : ''}`,
      },
      h('span', { class: 'f-i' }, String(i)),
      h(
        'span',
        { class: 'f-name mname' },
        h('span', { class: 'm-ns' }, markSlice(name, ranges, 0, ns.length)),
        h('span', { class: 'm-leaf' }, markSlice(name, ranges, ns.length, name.length)),
      ),
      h('span', { class: 'f-mod' }, marked(f.module || '', q)),
    );
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
