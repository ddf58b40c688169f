// profile.js -- the session's Profile tab: start / stop the sampling profiler
// (POST /api/sessions/{id}/profile, /profile/stop) in either mode: wall clock
// (the agent's suspended walks of every thread) or CPU time (the server samples
// the threads that run, nothing suspended; offered where GET /profile's
// `cpu_mode` says it is allowed, else greyed out with the reason), its status
// (rate, samples, time the runtime stood still or, in CPU mode, how many
// stacks are whole, drops), a small chart
// of samples per second with the suspension each sample cost (drag on it to
// pick a time range), and the flame graph (flame.js), refetched from
// GET /profile?format=json every second while sampling runs and the page is
// visible, and on the stream's `profile` events. Search (counted in the whole
// graph and under the zoomed frame; Enter / the arrows jump from match to
// match), thread filter, zoom, hiding failed walks and idle waits
// (flamefilter.js), speedscope, folded-stacks and pprof downloads. The page says
// what the profile measures: the profile's `mode` (wall or cpu), and why CPU mode
// fell back to wall clock when it did (`fallback`).
import { h, fill, setText } from '../dom.js';
import { SearchBox } from '../searchbox.js';
import { api, isMissingRoute, describeError, getApiKey } from '../api.js';
import { schedule, isVisible } from '../frame.js';
import { fmtInt, fmtNs, fmtMs, fmtPct, fmtClock } from '../format.js';
import { toast } from '../ui.js';
import { FlameGraph } from '../flame.js';
import { filterTree } from '../flamefilter.js';
import { SampleChart } from '../samplechart.js';
import { notice } from './common.js';

const REFRESH_MS = 1000;

// What a profile measures, by its `mode`.
const MODES = {
  wall: {
    text: 'wall clock',
    sub: 'every thread, running or waiting',
    tip: 'Each sample walks every managed thread, whether it runs or waits: a wide frame can be time spent waiting (a lock, I/O, an idle thread pool). "Hide idle waits" leaves the waiting out.',
  },
  cpu: {
    text: 'CPU time',
    sub: 'threads on a CPU only',
    tip: 'The kernel samples each thread while it runs on a CPU (perf events), once per 1/rate s of its CPU time, managed and native frames alike; waiting threads get no samples. The runtime is never suspended.',
  },
};
export function profileMode(status) {
  const key = status && typeof status.mode === 'string' ? status.mode : 'wall';
  return MODES[key] || { text: key, sub: '', tip: `the profile measures ${key}` };
}

// The thread filter's value for a profile thread: its thread_key (one thread,
// though the runtime reuses ThreadIDs), else its ThreadID, else (a CPU
// profile's native thread) its OS id.
const threadOption = (t) =>
  t.thread_key != null ? `key:${t.thread_key}` : t.thread_id || String(t.os_thread_id);

export class ProfileTab {
  constructor(session) {
    this.session = session;
    this.active = false;
    this.status = null; // ProfileStatus
    this.threads = []; // [{thread_key, thread_id, name, samples}] of the whole profile
    this.bins = new Map(); // t_ms -> samples (the profile's timeline)
    this.thread = ''; // thread filter ('' = all, 'key:N' a thread_key, else ?thread=)
    this.range = null; // {from, to} unix ms
    this.query = '';
    this.missing = false; // the server has no /profile route
    this.none = false; // no profile in this session yet
    this.busy = null; // 'start' | 'stop' while a POST is under way
    this.req = { tree: {}, info: {} }; // per kind of fetch: {busy, again}
    this.timer = null;
    this.loadedOnce = false;
    this.drawTask = () => this.draw();
    this.statusTask = () => this.renderStatus();

    // ---- controls ----
    this.cpuMode = null; // GET /profile's cpu_mode: can a CPU profile start here?
    this.modeSel = h(
      'select',
      { id: `p-mode-${session.id}`, class: 'mode-select', 'aria-label': 'What to measure' },
      h('option', { value: 'wall' }, 'Wall clock'),
      h('option', { value: 'cpu' }, 'CPU time'),
    );
    this.modeSel.addEventListener('change', () => this.renderStatus());
    this.hzInput = h('input', {
      type: 'number',
      id: `p-hz-${session.id}`,
      class: 'num-input',
      min: '1',
      max: '1000',
      step: '1',
      value: '49',
      inputmode: 'numeric',
    });
    this.durInput = h('input', {
      type: 'number',
      id: `p-dur-${session.id}`,
      class: 'num-input',
      min: '1',
      max: '86400',
      step: '1',
      placeholder: '∞',
      inputmode: 'numeric',
      title: 'Stop by itself after this many seconds (empty: until you press Stop)',
    });
    for (const inp of [this.hzInput, this.durInput])
      inp.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.start();
      });
    this.startBtn = h(
      'button',
      { class: 'btn btn-primary start-btn', type: 'button', onclick: () => this.start() },
      '▶ Start profiling',
    );
    this.stopBtn = h(
      'button',
      { class: 'btn stop-btn', type: 'button', onclick: () => this.stop() },
      '■ Stop',
    );
    this.ctlInfo = h('span', { class: 'snap-info', role: 'status' });
    this.speedscopeLink = h(
      'a',
      {
        class: 'btn export-speedscope',
        title:
          'Download the profile as a speedscope file (one sampled profile per thread; open it at speedscope.app). The thread and time filters apply.',
      },
      '⤓ Export speedscope',
    );
    this.foldedLink = h(
      'a',
      {
        class: 'btn export-folded',
        title:
          'Download the profile as folded stacks (FlameGraph’s collapsed format). The thread and time filters apply.',
      },
      '⤓ Folded',
    );
    this.pprofLink = h(
      'a',
      {
        class: 'btn export-pprof',
        title:
          'Download the profile as a pprof file (gzip-compressed profile.proto: go tool pprof, Pyroscope, Grafana). The thread and time filters apply.',
      },
      '⤓ pprof',
    );
    for (const a of [this.speedscopeLink, this.foldedLink, this.pprofLink])
      a.addEventListener('click', (e) => this.download(e, a));
    this.controls = h(
      'div',
      { class: 'toolbar' },
      h('label', { class: 'field', for: this.modeSel.id }, 'Measure', this.modeSel),
      h(
        'label',
        { class: 'field', for: this.hzInput.id },
        'Rate',
        this.hzInput,
        h('span', { class: 'unit' }, 'Hz'),
      ),
      h(
        'label',
        { class: 'field', for: this.durInput.id },
        'Duration',
        this.durInput,
        h('span', { class: 'unit' }, 's'),
      ),
      this.startBtn,
      this.stopBtn,
      this.ctlInfo,
      this.speedscopeLink,
      this.foldedLink,
      this.pprofLink,
    );

    // ---- status ----
    this.statsEl = h('div', { class: 'p-stats' });

    // ---- time chart ----
    this.chartCanvas = h('canvas', {
      class: 'sample-chart',
      role: 'img',
      'aria-label':
        'Samples per second and the runtime suspension of each sample; drag to pick a time range',
    });
    this.chart = new SampleChart(this.chartCanvas);
    this.chart.onChange = () => schedule(this.drawTask);
    this.chart.onRange = (from, to) => this.setRange(from == null ? null : { from, to });
    this.chartBox = h('div', { class: 'sample-box' }, this.chartCanvas);

    // ---- filters ----
    this.searchBox = new SearchBox({
      placeholder: 'Highlight frames: method or module',
      label: 'Highlight frames by method or module substring',
      onInput: (text) => this.setQuery(text),
    });
    this.search = this.searchBox.el;
    this.searchBox.el.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      this.jump(e.shiftKey ? -1 : 1);
    });
    this.matchInfo = h('span', { class: 'match-info', 'aria-live': 'polite' });
    this.prevBtn = h(
      'button',
      {
        class: 'btn btn-small match-prev hidden',
        type: 'button',
        title: 'Zoom to the previous matching frame (Shift+Enter in the search box)',
        'aria-label': 'Previous match',
        onclick: () => this.jump(-1),
      },
      '‹',
    );
    this.nextBtn = h(
      'button',
      {
        class: 'btn btn-small match-next hidden',
        type: 'button',
        title: 'Zoom to the next matching frame, heaviest first (Enter in the search box)',
        'aria-label': 'Next match',
        onclick: () => this.jump(1),
      },
      '›',
    );
    this.hideUnknown = false;
    this.hideIdle = false;
    this.rawTree = null;
    this.hidden = { unknown: 0, idle: 0, total: 0 };
    const toggle = (cls, onChange) => {
      const box = h('input', { type: 'checkbox', class: cls });
      box.addEventListener('change', () => onChange(box.checked));
      return box;
    };
    this.unknownBox = toggle('hide-unknown', (on) => {
      this.hideUnknown = on;
      this.applyTree();
    });
    this.idleBox = toggle('hide-idle', (on) => {
      this.hideIdle = on;
      this.applyTree();
    });
    this.unknownShare = h('span', { class: 'share' });
    this.idleShare = h('span', { class: 'share' });
    this.hideBox = h(
      'span',
      { class: 'hide-toggles' },
      h(
        'label',
        {
          class: 'toggle',
          title:
            'Leave out the samples of threads whose stack could not be walked ([unknown]: the runtime refused the walk, often for its own threads)',
        },
        this.unknownBox,
        'Hide failed walks',
        this.unknownShare,
      ),
      h(
        'label',
        {
          class: 'toggle',
          title:
            "Leave out the samples of threads that were waiting: their deepest managed frame is a wait (Monitor.Wait, WaitHandle.Wait*, Thread.Sleep, SpinWait, Task.Wait, the thread pool's idle wait, the socket engine's wait for events). Lock contention and blocking reads stay. Exports keep every sample.",
        },
        this.idleBox,
        'Hide idle waits',
        this.idleShare,
      ),
    );
    this.threadSel = h(
      'select',
      { 'aria-label': 'Thread filter', title: 'Show the samples of one thread only' },
      h('option', { value: '' }, 'All threads'),
    );
    this.threadSel.addEventListener('change', () => this.setThread(this.threadSel.value));
    this.rangeInfo = h('span', { class: 'range-info' });
    this.clearRangeBtn = h(
      'button',
      { class: 'btn btn-small hidden', type: 'button', onclick: () => this.setRange(null) },
      'Clear range',
    );
    this.filters = h(
      'div',
      { class: 'toolbar filters' },
      this.search,
      this.prevBtn,
      this.nextBtn,
      this.matchInfo,
      h('span', { class: 'spacer' }),
      this.hideBox,
      this.rangeInfo,
      this.clearRangeBtn,
      this.threadSel,
    );

    // ---- flame graph ----
    this.crumbs = h('nav', { class: 'flame-crumbs', 'aria-label': 'Zoom path' });
    this.flame = new FlameGraph();
    this.flame.requestDraw = () => schedule(this.drawTask);
    this.flame.onZoom = () => {
      this.renderCrumbs();
      this.renderMatch();
      schedule(this.drawTask);
    };
    this.msg = h('div', { class: 'p-msg' });
    this.el = h(
      'div',
      { class: 'profile-view' },
      this.controls,
      this.statsEl,
      this.msg,
      this.chartBox,
      this.filters,
      this.crumbs,
      this.flame.el,
    );
    this.resizeObs = new ResizeObserver(() => schedule(this.drawTask));
    this.resizeObs.observe(this.flame.el);
    this.resizeObs.observe(this.chartBox);
    this.onVisible = () => {
      if (isVisible() && this.active) this.tick();
    };
    document.addEventListener('visibilitychange', this.onVisible);
    this.renderStatus();
    this.renderCrumbs();
  }

  show() {
    this.active = true;
    this.tick();
    schedule(this.drawTask);
  }
  hide() {
    this.active = false;
    clearTimeout(this.timer);
  }
  destroy() {
    this.hide();
    this.resizeObs.disconnect();
    document.removeEventListener('visibilitychange', this.onVisible);
  }

  running() {
    return !!(this.status && this.status.state === 'running');
  }

  // Running, or stopped a moment ago (the last samples' suspensions still arrive).
  sampling() {
    return this.running() || (this.stoppedSeenAt && performance.now() - this.stoppedSeenAt < 6000);
  }

  setStatus(next) {
    const was = this.running();
    this.status = next;
    if (was && !this.running()) this.stoppedSeenAt = performance.now();
  }

  // ---- refresh loop: every second while sampling runs, the tab is shown and the page visible ----
  // With a time range picked, the graph covers a past window and does not
  // change: only the status and the samples timeline are refreshed then.
  tick() {
    clearTimeout(this.timer);
    if (!this.active) return;
    if (isVisible()) {
      if (!this.loadedOnce || this.running()) this.fetch(this.range ? 'info' : 'tree');
      for (const kind of ['tree', 'info']) {
        // repeats held back while the page was hidden
        if (this.req[kind].again && !this.req[kind].busy) this.fetch(kind);
      }
    }
    this.timer = setTimeout(() => this.tick(), REFRESH_MS);
  }

  query_({ range = true } = {}) {
    const p = new URLSearchParams();
    if (this.thread.startsWith('key:')) p.set('thread_key', this.thread.slice(4));
    else if (this.thread) p.set('thread', this.thread);
    if (range && this.range) {
      p.set('from_ms', String(this.range.from));
      p.set('to_ms', String(this.range.to));
    }
    const s = p.toString();
    return s ? `&${s}` : '';
  }

  // kind 'tree': the graph with the thread and time filters (and, without a
  // range, everything else); 'info': status, threads and the timeline of the
  // whole profile (thread filter only). One request of each kind at a time;
  // an answer for filters no longer set is dropped. A repeat asked for while
  // one is under way goes after it, or, if the page is hidden by then, at the
  // first tick with the page visible and the tab shown: nothing is fetched
  // for a hidden page.
  async fetch(kind = 'tree') {
    if (kind === 'info' && !this.range) kind = 'tree';
    const slot = this.req[kind];
    if (slot.busy) {
      slot.again = true;
      return;
    }
    slot.busy = true;
    slot.again = false; // this request already asks with the filters set now
    const thread = this.thread,
      range = this.range;
    const r = await api(
      `/api/sessions/${this.session.id}/profile?format=json${this.query_({ range: kind === 'tree' })}`,
    );
    slot.busy = false;
    if (thread === this.thread && (kind === 'info' || range === this.range))
      this.apply(r, { thread, ranged: kind === 'tree' && !!range, tree: kind === 'tree' });
    if (slot.again && isVisible()) this.fetch(kind);
  }

  apply(r, { thread, ranged, tree }) {
    if (!r.ok) {
      if (isMissingRoute(r)) {
        this.missing = true;
        this.loadedOnce = true;
      } else if (r.status === 404) {
        this.none = true;
        this.loadedOnce = true;
        fill(this.msg);
      } else
        fill(
          this.msg,
          notice('error', describeError('Profile', r), h('span', { class: 'dim' }, ' — retrying.')),
        );
      schedule(this.statusTask);
      return;
    }
    const d = r.data || {};
    this.loadedOnce = true;
    this.missing = false;
    this.none = !d.profile || (d.profile.state === 'idle' && !d.profile.samples);
    fill(this.msg);
    if (d.profile) this.setStatus({ ...(this.status || {}), ...d.profile });
    if (d.cpu_mode) this.cpuMode = d.cpu_mode;
    if (!thread && !ranged && Array.isArray(d.threads)) this.threads = d.threads;
    if (!ranged && Array.isArray(d.timeline)) {
      // a ranged timeline has only the range (and cut seconds)
      this.bins.clear();
      // bounded: the newest day of seconds
      for (const b of d.timeline.length > 86400 ? d.timeline.slice(-86400) : d.timeline)
        this.bins.set(b.t_ms, b.samples);
    }
    if (tree) {
      this.rawTree = d.tree || null;
      this.applyTree();
    }
    this.renderThreads();
    schedule(this.statusTask);
    schedule(this.drawTask);
  }

  // stream: ProfileStatus changes (started, stopped, rate changed). The state
  // and rates are taken; the counters only when they are newer than ours
  // (an event's numbers are those of the moment it was logged).
  onEvents(events) {
    let changed = false;
    for (const ev of events) {
      if (ev.type !== 'profile') continue;
      const cur = this.status || {};
      const s = {};
      for (const k of [
        'state',
        'mode',
        'requested_hz',
        'effective_hz',
        'budget_pct',
        'started_ms',
        'stopped_ms',
        'error',
        'fallback',
      ])
        if (ev[k] !== undefined) s[k] = ev[k];
      const same = cur.started_ms != null && ev.started_ms === cur.started_ms;
      if (!same || (ev.samples || 0) >= (cur.samples || 0)) {
        for (const k of [
          'samples',
          'thread_samples',
          'suspended_ns_total',
          'suspend_ns_p50',
          'suspend_ns_max',
          'distinct_stacks',
          'dropped_samples',
          'dropped_stacks',
          'cpu',
        ])
          if (ev[k] !== undefined) s[k] = ev[k];
      }
      if (!same && cur.started_ms != null) this.bins.clear(); // a new profile
      this.setStatus({ ...cur, ...s });
      this.none = false;
      changed = true;
    }
    if (!changed) return;
    schedule(this.statusTask);
    // at most one extra fetch per half second (rate changes come about once a second)
    const now = performance.now();
    if (this.active && isVisible() && !(now - (this.eventFetchAt || 0) < 500)) {
      this.eventFetchAt = now;
      this.fetch(this.range ? 'info' : 'tree');
    }
  }

  sessionChanged() {
    schedule(this.statusTask);
  }

  // The session summary carries the ProfileStatus too (GET /api/sessions/{id}):
  // it keeps the tab's badge right while another tab is shown.
  onSummary(p) {
    if (!p || typeof p !== 'object') return;
    const cur = this.status;
    const isNew = !cur || p.state !== cur.state || p.started_ms !== cur.started_ms;
    if (!isNew && this.active) return; // the tab's own fetches are at least as fresh
    if (cur && cur.started_ms && p.started_ms !== cur.started_ms) this.bins.clear();
    this.setStatus({ ...(cur || {}), ...p });
    this.none = p.state === 'idle' && !p.samples;
    schedule(this.statusTask);
    if (isNew && this.active && isVisible()) this.fetch(this.range ? 'info' : 'tree');
  }

  threadLabel(t) {
    const known = (t.thread_key != null && this.session.threads.get(t.thread_key)) || {};
    const name = t.name || known.name;
    const os = t.os_thread_id ?? known.os_thread_id;
    const pid = this.session.summary && this.session.summary.pid;
    if (name) return os ? `${name} (${os})` : name;
    if (os && os === pid) return `main thread (${os})`;
    return os ? `tid ${os}` : t.thread_id;
  }

  // ---- actions ----
  liveReason() {
    const s = this.session.summary;
    if (!s) return 'Session not loaded yet.';
    if (s.state === 'live') return null;
    return `No live agent: the session is ${s.state}. Profiling needs a running agent; the last profile stays browsable.`;
  }

  async start() {
    const reason = this.liveReason();
    if (reason) {
      toast(reason, { kind: 'warn' });
      return;
    }
    if (this.busy || this.running()) return;
    const hz = Number(this.hzInput.value || 49);
    if (!Number.isInteger(hz) || hz < 1 || hz > 1000) {
      this.fail('Rate must be a whole number of samples per second from 1 to 1000.');
      this.hzInput.focus();
      return;
    }
    const body = { hz, mode: this.modeSel.value === 'cpu' && this.cpuAvailable() ? 'cpu' : 'wall' };
    if (this.durInput.value.trim()) {
      const dur = Number(this.durInput.value);
      if (!Number.isInteger(dur) || dur < 1 || dur > 86400) {
        this.fail('Duration must be empty (until stopped) or whole seconds from 1 to 86400.');
        this.durInput.focus();
        return;
      }
      body.duration_s = dur;
    }
    this.busy = 'start';
    this.error = null;
    this.renderStatus();
    const r = await api(`/api/sessions/${this.session.id}/profile`, { method: 'POST', body });
    this.busy = null;
    if (r.ok) {
      this.setStatus(
        r.data && r.data.profile
          ? r.data.profile
          : { state: 'running', requested_hz: hz, mode: body.mode },
      );
      if (this.status.fallback) toast(this.status.fallback, { kind: 'warn' });
      this.none = false;
      this.bins.clear();
      this.range = null; // a new profile: a new time axis
      this.clearRangeBtn.classList.add('hidden');
      setText(this.rangeInfo, '');
      this.flame.zoomTo(null);
      this.tick(); // fetches at once
    } else if (isMissingRoute(r)) this.fail('Profiling is not available on this server.');
    else if (r.status === 429)
      this.fail(`A profile is already running (${r.error}); stop it first.`);
    else if (r.status === 409) this.fail(`Cannot start: ${r.error}.`);
    else this.fail(describeError('Start profiling', r));
    this.renderStatus();
  }

  async stop() {
    if (this.busy) return;
    this.busy = 'stop';
    this.renderStatus();
    const r = await api(`/api/sessions/${this.session.id}/profile/stop`, { method: 'POST' });
    this.busy = null;
    if (r.ok) {
      if (r.data && r.data.profile) this.setStatus({ ...(this.status || {}), ...r.data.profile });
      this.fetch('tree');
      this.fetch('info');
    } else if (r.status === 409) {
      this.fail(`Nothing to stop: ${r.error}.`);
      this.fetch('tree');
    } else this.fail(describeError('Stop profiling', r));
    this.renderStatus();
  }

  fail(text) {
    this.error = text;
    toast(text, { kind: 'error' });
    this.renderStatus();
  }

  // Downloads through fetch when an API key must go along (a plain link cannot send it).
  async download(e, a) {
    if (a.getAttribute('aria-disabled') === 'true') {
      e.preventDefault();
      return;
    }
    if (!getApiKey()) return; // the browser follows the link itself
    e.preventDefault();
    const res = await fetch(a.href, { headers: { Authorization: `Bearer ${getApiKey()}` } }).catch(
      () => null,
    );
    if (!res || !res.ok) {
      toast(`Download failed: ${res ? res.status : 'server unreachable'}`, { kind: 'error' });
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const tmp = h('a', { href: url, download: a.getAttribute('download') });
    document.body.append(tmp);
    tmp.click();
    tmp.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // ---- filters ----
  // Applied in the next frame: keystrokes in between cost nothing.
  setQuery(text) {
    this.query = text;
    this.queryDirty = true;
    schedule(this.drawTask);
  }

  focusSearch() {
    this.searchBox.focus();
  }

  clearSearch(keepFocus) {
    return this.searchBox.clear(keepFocus);
  }

  setThread(id) {
    this.thread = id;
    if (this.threadSel.value !== id) this.threadSel.value = id;
    this.bins.clear();
    this.fetch('tree');
    this.fetch('info'); // the thread's own timeline when a range is set
    this.renderLinks();
  }

  setRange(r) {
    this.range = r;
    this.clearRangeBtn.classList.toggle('hidden', !r);
    setText(
      this.rangeInfo,
      r ? `${fmtClock(r.from, false)} – ${fmtClock(r.to, false)} (${fmtMs(r.to - r.from)})` : '',
    );
    this.fetch('tree');
    this.renderLinks();
    schedule(this.drawTask);
  }

  // Esc: clear the search, else zoom out one level.
  onEscape() {
    if (this.clearSearch(false)) return true;
    const z = this.flame.zoom;
    if (z && z._p) {
      this.zoomTo(z._p);
      return true;
    }
    return false;
  }

  zoomTo(node) {
    this.flame.zoomTo(node);
    this.renderCrumbs();
    this.renderMatch();
    schedule(this.drawTask);
  }

  // Zooms to the next (1) or previous (-1) matching frame.
  jump(dir) {
    if (this.queryDirty) {
      this.queryDirty = false;
      this.flame.setQuery(this.query);
    }
    if (this.flame.jumpMatch(dir)) {
      this.renderCrumbs();
      schedule(this.drawTask);
    }
    this.renderMatch();
  }

  // The graph from the server's tree, without what the toggles hide.
  applyTree() {
    const f = filterTree(this.rawTree, { unknown: this.hideUnknown, idle: this.hideIdle });
    this.hidden = f;
    this.flame.setTree(this.rawTree ? f.tree : null);
    const share = (n) => (f.total ? ` ${fmtPct(n / f.total)}` : '');
    setText(this.unknownShare, share(f.unknown));
    setText(this.idleShare, share(f.idle));
    this.unknownBox.closest('label').dataset.samples = String(f.unknown);
    this.idleBox.closest('label').dataset.samples = String(f.idle);
    this.renderMatch();
    this.renderCrumbs();
    schedule(this.drawTask);
  }

  // ---- rendering ----
  renderThreads() {
    const sig = this.threads.map((t) => `${threadOption(t)}:${t.samples}`).join(',');
    if (this.threadSel._sig === sig) return;
    this.threadSel._sig = sig;
    const total = this.threads.reduce((a, t) => a + (t.samples || 0), 0);
    const opts = [h('option', { value: '' }, `All threads (${fmtInt(this.threads.length)})`)];
    const sorted = this.threads.slice().sort((a, b) => (b.samples || 0) - (a.samples || 0));
    for (const t of sorted) {
      opts.push(
        h(
          'option',
          { value: threadOption(t) },
          `${this.threadLabel(t)} — ${fmtInt(t.samples)} samples (${fmtPct(total ? t.samples / total : 0)})`,
        ),
      );
    }
    if (this.thread && !this.threads.some((t) => threadOption(t) === this.thread))
      opts.push(h('option', { value: this.thread }, this.thread));
    this.threadSel.replaceChildren(...opts);
    this.threadSel.value = this.thread;
  }

  // Matches in the whole graph and, while zoomed, under the zoomed frame; after
  // a jump, which match is shown.
  renderMatch() {
    const m = this.flame.match;
    const searching = !!this.flame.query;
    this.prevBtn.classList.toggle('hidden', !searching);
    this.nextBtn.classList.toggle('hidden', !searching);
    this.prevBtn.disabled = this.nextBtn.disabled = !m.nodes;
    if (!searching) {
      setText(this.matchInfo, '');
      this.matchInfo.dataset.pct = '';
      this.matchInfo.dataset.zoomNodes = '';
      return;
    }
    const pct = m.total ? m.samples / m.total : 0;
    this.matchInfo.dataset.pct = String(pct);
    this.matchInfo.dataset.nodes = String(m.nodes);
    this.matchInfo.dataset.zoomNodes = String(m.zoomNodes);
    this.matchInfo.dataset.at = String(m.at);
    const z = this.flame.zoom;
    let text = 'no frame matches';
    if (m.nodes) {
      text = `${fmtInt(m.nodes)} frame${m.nodes > 1 ? 's' : ''} match · ${fmtPct(pct)} of samples`;
      if (m.at >= 0) text = `match ${fmtInt(m.at + 1)} of ${fmtInt(m.nodes)} · ${text}`;
      if (z && z._p) {
        const name = labelOf(z);
        text += m.zoomNodes
          ? ` · ${fmtInt(m.zoomNodes)} under ${name} (${fmtPct(m.zoomTotal ? m.zoomSamples / m.zoomTotal : 0)} of its samples)`
          : ` · none under ${name}: › or Enter jumps to them`;
      }
    }
    setText(this.matchInfo, text);
    this.matchInfo.title = m.nodes
      ? 'Enter (or ›) zooms to the next matching frame, Shift+Enter (or ‹) to the previous one, heaviest first'
      : '';
    this.matchInfo.classList.toggle('none', !m.nodes);
  }

  renderCrumbs() {
    const path = this.flame.zoomPath();
    const items = [];
    path.forEach((n, i) => {
      if (i) items.push(h('span', { class: 'sep', 'aria-hidden': 'true' }, '›'));
      const label = i === 0 ? 'all' : n.name;
      const last = i === path.length - 1;
      items.push(
        h(
          'button',
          {
            class: `crumb${last ? ' cur' : ''}`,
            type: 'button',
            title: last ? `${n.name} (zoomed)` : `Zoom out to ${label}`,
            'aria-current': last ? 'true' : null,
            onclick: () => this.zoomTo(n),
          },
          label,
        ),
      );
    });
    if (!path.length) items.push(h('span', { class: 'dim' }, 'flame graph'));
    else if (path.length === 1)
      items.push(h('span', { class: 'hint' }, 'click a frame to zoom in · hover for details'));
    else items.push(h('span', { class: 'hint' }, 'Esc or a frame above zooms out'));
    fill(this.crumbs, items);
  }

  renderLinks() {
    const base = `/api/sessions/${this.session.id}/profile`;
    const has = !!(this.status && this.status.samples);
    const links = [
      [this.speedscopeLink, 'speedscope', `jitscope-session-${this.session.id}.speedscope.json`],
      [this.foldedLink, 'folded', `jitscope-session-${this.session.id}.folded.txt`],
      [this.pprofLink, 'pprof', `jitscope-session-${this.session.id}.pb.gz`],
    ];
    for (const [a, fmt, name] of links) {
      if (has) {
        a.href = `${base}?format=${fmt}${this.query_()}`;
        a.setAttribute('download', name);
        a.removeAttribute('aria-disabled');
        a.classList.remove('disabled');
      } else {
        a.removeAttribute('href');
        a.setAttribute('aria-disabled', 'true');
        a.classList.add('disabled');
      }
    }
  }

  // CPU mode can start here (the last GET /profile said so).
  cpuAvailable() {
    return !!(this.cpuMode && this.cpuMode.available);
  }

  renderMode(running, reason) {
    const opt = this.modeSel.querySelector('option[value="cpu"]');
    const why =
      this.cpuMode && !this.cpuMode.available ? this.cpuMode.reason || 'not allowed here' : null;
    opt.disabled = !!why || !this.cpuMode;
    opt.textContent = why ? 'CPU time (not available)' : 'CPU time';
    opt.title = why ? `CPU profiles are not available here: ${why}` : MODES.cpu.tip;
    if (opt.disabled && this.modeSel.value === 'cpu') this.modeSel.value = 'wall';
    this.modeSel.disabled = running || !!reason;
    this.modeSel.title = why
      ? `CPU time is not available here: ${why}`
      : 'Wall clock: suspended walks of every managed thread, running or waiting. CPU time: the kernel samples the threads that run, nothing suspended.';
  }

  renderStatus() {
    const s = this.status;
    const running = this.running();
    const reason = this.liveReason();
    const cpuChosen = this.modeSel.value === 'cpu';
    this.renderMode(running, reason);
    this.startBtn.disabled = !!reason || running || !!this.busy || this.missing;
    this.stopBtn.disabled = !running || !!this.busy;
    this.hzInput.disabled = this.durInput.disabled = running || !!reason;
    this.startBtn.title =
      reason ||
      (running
        ? 'A profile is running: stop it first'
        : cpuChosen
          ? 'Start sampling the threads that run, at this rate of their CPU time (starting discards the previous profile)'
          : 'Start sampling every managed thread’s stack at this rate (starting discards the previous profile)');
    this.stopBtn.title = running ? 'Stop sampling (the profile stays)' : 'No profile is running';
    let info;
    if (this.missing)
      info = h('span', { class: 'why' }, 'Profiling is not available on this server.');
    else if (this.busy)
      info = h('span', { class: 'dim' }, this.busy === 'start' ? 'Starting…' : 'Stopping…');
    else if (reason) info = h('span', { class: 'why' }, reason);
    else if (this.error) info = h('span', { class: 'err' }, this.error);
    else if (s && s.error) info = h('span', { class: 'err' }, s.error);
    else if (s && s.fallback && running) info = h('span', { class: 'why fallback' }, s.fallback);
    else if (running) info = h('span', { class: 'ok' }, `Sampling… the graph grows every second`);
    else if (cpuChosen)
      info = h(
        'span',
        { class: 'dim' },
        'The kernel samples the threads that run; the runtime is never suspended.',
      );
    else
      info = h(
        'span',
        { class: 'dim' },
        'Suspends the runtime briefly per sample, kept under a budget of wall time.',
      );
    const isig = info.textContent + info.className;
    if (this.ctlInfo._sig !== isig) {
      this.ctlInfo._sig = isig;
      fill(this.ctlInfo, info);
    }
    this.renderLinks();

    if (running) this.session.setTabCount('profile', '● rec');
    else this.session.setTabCount('profile', s && s.samples ? fmtInt(s.samples) : null);

    const stat = (k, v, sub, cls, tip) =>
      h(
        'div',
        { class: `stat ${cls || ''}`, title: tip || null },
        h('div', { class: 'k' }, k),
        h('div', { class: 'v' }, v, sub ? h('small', null, ` ${sub}`) : null),
      );
    const parts = [];
    const mode = profileMode(s);
    const measures = stat('Measures', mode.text, mode.sub, 'p-mode', mode.tip);
    if (!s || this.none) {
      parts.push(
        stat('State', h('span', { class: 'badge badge-exited' }, this.missing ? 'n/a' : 'idle')),
      );
      if (!this.missing) parts.push(measures);
      parts.push(
        h(
          'div',
          { class: 'p-hint' },
          this.missing
            ? ''
            : 'No profile in this session yet. Start one. Wall clock: every sample suspends the runtime for a moment and walks every managed thread, running or waiting, like the snapshots of the Stacks tab. CPU time: the kernel samples the threads while they run, native frames included, and the runtime is never suspended.',
        ),
      );
    } else if (s.mode === 'cpu') {
      this.renderCpuStats(s, running, parts, stat, measures);
    } else {
      const end = s.stopped_ms || (running ? Date.now() : null);
      const wall = s.started_ms && end ? end - s.started_ms : null;
      const lowered =
        s.effective_hz != null && s.requested_hz != null && s.effective_hz < s.requested_hz;
      const badge = running
        ? h('span', { class: 'badge badge-live' }, 'running')
        : h('span', { class: 'badge badge-detached' }, s.state || '?');
      parts.push(
        stat('State', badge, wall != null ? `${running ? 'for' : 'lasted'} ${fmtMs(wall)}` : null),
      );
      parts.push(measures);
      parts.push(
        stat(
          'Rate',
          `${fmtHz(s.effective_hz ?? s.requested_hz)} Hz`,
          lowered
            ? `of ${fmtHz(s.requested_hz)} requested`
            : s.requested_hz != null
              ? 'as requested'
              : null,
          lowered ? 'warn' : '',
          lowered
            ? `The agent lowered the rate to keep suspensions within ${s.budget_pct ?? 2}% of wall time.`
            : 'samples per second',
        ),
      );
      parts.push(
        stat(
          'Samples',
          fmtInt(s.samples),
          s.thread_samples != null ? `${fmtInt(s.thread_samples)} thread stacks` : null,
        ),
      );
      const pctWall = wall ? s.suspended_ns_total / 1e6 / wall : null;
      parts.push(
        stat(
          'Runtime suspended',
          fmtNs(s.suspended_ns_total),
          pctWall != null ? `${fmtPct(pctWall)} of wall · budget ${s.budget_pct ?? 2}%` : null,
          pctWall != null && s.budget_pct && pctWall * 100 > s.budget_pct ? 'warn' : '',
          'total time the app stood still for the samples',
        ),
      );
      parts.push(
        stat(
          'Per sample',
          `p50 ${fmtNs(s.suspend_ns_p50)}`,
          `max ${fmtNs(s.suspend_ns_max)}`,
          '',
          'suspension per sample: median and maximum',
        ),
      );
      parts.push(stat('Distinct stacks', fmtInt(s.distinct_stacks)));
      const dropped = (s.dropped_samples || 0) + (s.dropped_stacks || 0);
      parts.push(
        stat(
          'Dropped',
          fmtInt(dropped),
          dropped
            ? `${fmtInt(s.dropped_samples || 0)} samples · ${fmtInt(s.dropped_stacks || 0)} stacks`
            : null,
          dropped ? 'warn' : '',
          'samples or distinct stacks the server could not keep (65,536 stacks, 1,048,576 samples per profile)',
        ),
      );
    }
    if (s && s.fallback)
      parts.push(
        stat('Fallback', 'wall clock', 'CPU mode was not available', 'warn fallback', s.fallback),
      );
    const sig = parts.map((p) => p.textContent).join('|');
    if (this.statsEl._sig !== sig) {
      this.statsEl._sig = sig;
      fill(this.statsEl, parts);
    }
  }

  // A CPU profile's status: what the kernel's samples cover, and how many
  // stacks are whole (the frame-pointer walk can lose frames: said per sample).
  renderCpuStats(s, running, parts, stat, measures) {
    const c = s.cpu || {};
    const end = s.stopped_ms || (running ? Date.now() : null);
    const wall = s.started_ms && end ? end - s.started_ms : null;
    const badge = running
      ? h('span', { class: 'badge badge-live' }, 'running')
      : h('span', { class: 'badge badge-detached' }, s.state || '?');
    parts.push(
      stat('State', badge, wall != null ? `${running ? 'for' : 'lasted'} ${fmtMs(wall)}` : null),
    );
    parts.push(measures);
    parts.push(
      stat(
        'Rate',
        `${fmtHz(s.requested_hz)} Hz`,
        c.period_ns ? `one sample per ${fmtNs(c.period_ns)} a thread runs` : null,
        '',
        'Each thread is sampled once per period of its own CPU time, whatever the other threads do.',
      ),
    );
    parts.push(
      stat('Samples', fmtInt(s.samples), c.cpu_ns != null ? `${fmtNs(c.cpu_ns)} of CPU` : null),
    );
    parts.push(
      stat(
        'Runtime suspended',
        'never',
        'the kernel samples the threads',
        'ok p-never',
        'CPU mode does not stop the runtime: the server reads the samples the kernel takes.',
      ),
    );
    const judged = c.samples || 0;
    const whole = judged ? c.complete / judged : null;
    parts.push(
      stat(
        'Whole stacks',
        whole != null ? fmtPct(whole) : '–',
        `${fmtInt(c.missing || 0)} with a frame missing · ${fmtInt(c.broken || 0)} cut short`,
        whole != null && whole < 0.8 ? 'warn p-whole' : 'p-whole',
        'The kernel follows frame pointers. A method without one (or a sample in its prolog, or in a stub, or in on-stack-replaced code) hides its caller: such samples carry a “[missing frame: …]” frame where it was lost. A chain that ends in managed code lost the frames toward the thread start: “[incomplete stack: …]”.',
      ),
    );
    parts.push(
      stat(
        'Threads',
        fmtInt(c.threads || 0),
        `${fmtInt(c.threads_seen || 0)} followed in all${c.threads_failed ? ` · ${fmtInt(c.threads_failed)} could not be` : ''}`,
        c.threads_failed ? 'warn' : '',
        'Threads of the process sampled now; new threads are followed as they start.',
      ),
    );
    parts.push(stat('Distinct stacks', fmtInt(s.distinct_stacks)));
    const dropped = (c.lost || 0) + (s.dropped_samples || 0) + (s.dropped_stacks || 0);
    parts.push(
      stat(
        'Lost',
        fmtInt(dropped),
        dropped
          ? `${fmtInt(c.lost || 0)} by the kernel · ${fmtInt(s.dropped_samples || 0)} samples · ${fmtInt(s.dropped_stacks || 0)} stacks`
          : null,
        dropped ? 'warn' : '',
        'samples the kernel could not deliver, or the server could not keep (65,536 stacks, 1,048,576 samples per profile)',
      ),
    );
    if (c.kernel === false)
      parts.push(
        h(
          'div',
          { class: 'p-hint' },
          'Time in the kernel is not sampled here (kernel.perf_event_paranoid is 2 and jitscope has no CAP_PERFMON): samples cover user-mode CPU time only.',
        ),
      );
  }

  draw() {
    if (!this.active) return;
    if (this.queryDirty) {
      this.queryDirty = false;
      this.flame.setQuery(this.query);
      this.renderMatch();
    }
    // time chart: samples / s and jitscope's suspensions since the profile started
    const s = this.status;
    if (s && s.started_ms && !this.none) {
      const running = this.running();
      const endMs =
        s.stopped_ms ||
        (running
          ? Date.now()
          : Math.max(s.started_ms + 1000, ...[...this.bins.keys()].map((t) => t + 1000)));
      const bins = [...this.bins]
        .map(([t_ms, samples]) => ({ t_ms, samples }))
        .sort((a, b) => a.t_ms - b.t_ms);
      const tl = this.session.timeline;
      const susp = tl
        ? tl.range(tl.susp, s.started_ms, endMs + 1).filter((x) => x.kind === 'jitscope')
        : [];
      this.chart.setData({
        startMs: s.started_ms,
        endMs: Math.max(endMs, s.started_ms + 1000),
        bins,
        susp,
        p50: s.suspend_ns_p50,
        range: this.range,
        running,
      });
    } else {
      this.chart.setData(null);
    }
    this.chart.draw();
    const empty = this.flame.empty;
    if (this.missing) setText(empty, 'Profiling is not available on this server.');
    else if (!s || this.none) setText(empty, 'No profile yet: press “Start profiling”.');
    else if (this.range || this.thread) setText(empty, 'No samples for this thread / time range.');
    else
      setText(
        empty,
        this.running() ? 'Waiting for the first samples…' : 'This profile has no samples.',
      );
    this.flame.draw();
  }

  stats() {
    const c = this.flame.canvas.dataset;
    return {
      state: this.status && this.status.state,
      samples: this.status && this.status.samples,
      drawn: Number(c.drawn || 0),
      matches: Number(c.matches || 0),
      zoom: c.zoom,
      total: Number(c.total || 0),
    };
  }
}

function fmtHz(v) {
  if (v == null) return '–';
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

// A frame's short name for the match text: "Type.Method(...)"
function labelOf(n) {
  const name = n.name || '?';
  const i = name.indexOf('(');
  const head = i < 0 ? name : name.slice(0, i);
  const parts = head.split('.');
  return parts.length > 2 ? `${parts.slice(-2).join('.')}${i < 0 ? '' : '()'}` : name;
}
