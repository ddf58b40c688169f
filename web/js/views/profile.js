// profile.js -- the session's Profile tab: start / stop the sampling profiler in
// either mode, wall clock (the agent's suspended walks of every thread) or CPU
// time (the server samples the threads that run, nothing suspended), its
// status, a small chart of samples per second (with, in wall-clock mode, the
// suspension each sample cost; drag on it to pick a time range), and the
// graph: the flame graph, inverted or as callers and callees of one frame,
// refetched from GET /profile?format=json every second while sampling runs
// and the page is visible, and on the stream's `profile` events. The page
// says what the profile measures (its `mode`) and why CPU mode fell back to
// wall clock when it did (`fallback`). Its parts, one job each:
// profilecontrols.js (the toolbar: start, stop, exports), profilestats.js (the
// statistics, one builder for both modes), profilegraph.js (search, thread,
// what the graph shows, the flame graphs), samplechart.js (the chart). This
// file holds the profile's state and the fetches that keep it.
import { h, fill } from '../dom.js';
import { api, isMissingRoute, describeError } from '../api.js';
import { schedule, isVisible } from '../frame.js';
import { SampleChart } from '../samplechart.js';
import { notice } from './common.js';
import { ProfileControls } from './profilecontrols.js';
import { ProfileGraph } from './profilegraph.js';
import { profileStats } from './profilestats.js';

const REFRESH_MS = 1000;

export class ProfileTab {
  constructor(session) {
    this.session = session;
    this.active = false;
    this.status = null; // ProfileStatus
    this.cpuMode = null; // GET /profile's cpu_mode: can a CPU profile start here?
    this.threads = []; // [{thread_key, thread_id, name, samples, jitscope, counted}] of the whole profile
    this.bins = new Map(); // t_ms -> samples (the profile's timeline)
    this.thread = ''; // thread filter ('' = all, 'key:N' a thread_key, else ?thread=)
    this.range = null; // {from, to} unix ms
    this.missing = false; // the server has no /profile route
    this.none = false; // no profile in this session yet
    this.req = { tree: {}, info: {} }; // per kind of fetch: {busy, again}
    this.timer = null;
    this.loadedOnce = false;
    this.drawTask = () => this.draw();
    this.statusTask = () => this.renderStatus();

    this.controls = new ProfileControls(this);
    this.statsEl = h('div', { class: 'p-stats' });
    this.chartCanvas = h('canvas', {
      class: 'sample-chart',
      role: 'img',
      'aria-label':
        'Samples per second (and, sampling wall clock, the runtime suspension of each sample); drag to pick a time range',
    });
    this.chart = new SampleChart(this.chartCanvas);
    this.chart.onChange = () => schedule(this.drawTask);
    this.chart.onRange = (from, to) => this.setRange(from == null ? null : { from, to });
    this.chartBox = h('div', { class: 'sample-box' }, this.chartCanvas);
    this.graph = new ProfileGraph(this);
    this.msg = h('div', { class: 'p-msg' });
    this.el = h(
      'div',
      { class: 'profile-view' },
      this.controls.el,
      this.statsEl,
      this.msg,
      this.chartBox,
      ...this.graph.els,
    );
    this.resizeObs = new ResizeObserver(() => schedule(this.drawTask));
    this.resizeObs.observe(this.graph.body);
    this.resizeObs.observe(this.chartBox);
    this.onVisible = () => {
      if (isVisible() && this.active) this.tick();
    };
    document.addEventListener('visibilitychange', this.onVisible);
    this.renderStatus();
  }

  // The graph drawn now (tests and the status line look at it).
  get flame() {
    return this.graph.main() || this.graph.callees || this.graph.flame;
  }

  get rawTree() {
    return this.graph.rawTree;
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

  // The query of a fetch or an export: the thread, the time range and what
  // the graph shows ("&..." or "").
  query({ range = true, exports = false } = {}) {
    const p = new URLSearchParams();
    if (this.thread.startsWith('key:')) p.set('thread_key', this.thread.slice(4));
    else if (this.thread) p.set('thread', this.thread);
    if (range && this.range) {
      p.set('from_ms', String(this.range.from));
      p.set('to_ms', String(this.range.to));
    }
    this.graph.params(p, { exports });
    const s = p.toString();
    return s ? `&${s}` : '';
  }

  // What the graph shows changed: the graph again (and, with a range, the
  // whole profile's threads and timeline too).
  refetch() {
    this.fetch('tree');
    if (this.range) this.fetch('info');
    this.controls.renderLinks();
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
    const q = this.query({ range: kind === 'tree' });
    const thread = this.thread,
      range = this.range;
    const r = await api(`/api/sessions/${this.session.id}/profile?format=json${q}`);
    slot.busy = false;
    if (q === this.query({ range: kind === 'tree' }))
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
    if (tree) this.graph.apply(d);
    this.graph.renderThreads(this.threads, this.thread, (t) => this.threadLabel(t));
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

  // A profile started (ProfileControls): a new time axis, the graph from its root.
  started(status) {
    this.setStatus(status);
    this.none = false;
    this.bins.clear();
    this.range = null;
    this.graph.renderRange(null);
    this.graph.zoomTo(null);
    this.tick(); // fetches at once
  }

  focusSearch() {
    this.graph.searchBox.focus();
  }

  clearSearch(keepFocus) {
    return this.graph.searchBox.clear(keepFocus);
  }

  setThread(id) {
    this.thread = id;
    if (this.graph.threadSel.value !== id) this.graph.threadSel.value = id;
    this.bins.clear();
    this.fetch('tree');
    this.fetch('info'); // the thread's own timeline when a range is set
    this.controls.renderLinks();
  }

  setRange(r) {
    this.range = r;
    this.graph.renderRange(r);
    this.fetch('tree');
    this.controls.renderLinks();
    schedule(this.drawTask);
  }

  // Esc: clear the search, else zoom out one level.
  onEscape() {
    if (this.clearSearch(false)) return true;
    return this.graph.zoomOut();
  }

  // ---- rendering ----
  renderStatus() {
    this.controls.render();
    const parts = profileStats(this.status, {
      running: this.running(),
      missing: this.missing,
      none: this.none,
    });
    const sig = parts.map((p) => p.textContent).join('|');
    if (this.statsEl._sig !== sig) {
      this.statsEl._sig = sig;
      fill(this.statsEl, parts);
    }
  }

  draw() {
    if (!this.active) return;
    // time chart: samples / s and, sampling wall clock, jitscope's suspensions
    const s = this.status;
    this.chart.suspLane = !s || s.mode !== 'cpu';
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
      const susp =
        tl && s.mode !== 'cpu'
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
    let empty;
    if (this.missing) empty = 'Profiling is not available on this server.';
    else if (!s || this.none) empty = 'No profile yet: press “Start profiling”.';
    else if (this.range || this.thread) empty = 'No samples for this thread / time range.';
    else empty = this.running() ? 'Waiting for the first samples…' : 'This profile has no samples.';
    this.graph.draw(empty);
  }

  stats() {
    return {
      state: this.status && this.status.state,
      samples: this.status && this.status.samples,
      ...this.graph.stats(),
    };
  }
}
