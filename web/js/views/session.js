// session.js -- one session: header (state, agent health, detach), and the
// tabs Live / Slowest / By tier / module / Modules / Threads / Stacks / Profile
// / GC & pauses. The session's GC / suspension timeline (timeline.js) is shared
// by the live feed's pause chart, the Profile tab and the GC & pauses tab.
import { h, fill, setText } from '../dom.js';
import { api, isMissingRoute, describeError, downloadExport } from '../api.js';
import { fmtInt, fmtMs, fmtClock } from '../format.js';
import { toast, confirmDialog, setConnection } from '../ui.js';
import { schedule, isVisible } from '../frame.js';
import { SessionStream } from '../stream.js';
import { LiveFeed } from './feed.js';
import { SlowestTab, ByModuleTab, ModulesTab, ThreadsTab } from './tabs.js';
import { StacksTab } from './stacks.js';
import { ProfileTab } from './profile.js';
import { GcTab } from './gcview.js';
import { CodeTab } from './code.js';
import { StartupTab } from './startup.js';
import { ExceptionsTab } from './exceptions.js';
import { AllocationsTab } from './allocations.js';
import { sessionDetails, sessionStats } from './sessionhead.js';
import { PauseTimeline } from '../timeline.js';
import {
  stateBadge,
  isFinal,
  sessionHref,
  notice,
  previousRun,
  compareHref,
  outsideNotice,
} from './common.js';

const SUMMARY_MS = 1000;
const FLASH_MS = 6000;
// The tab registry: one row a tab, in the order of the tab bar (keys 1..9).
// `view` is its class, made with this SessionView; it has `el`, show(), hide()
// and destroy(), and may have open(arg) (a FunctionID from the URL),
// onEvents(events) (each batch of live events) and sessionChanged() (the
// session's state moved). The live feed is the view's own.
export const TABS = [
  { key: 'live', title: 'Live JITs' },
  { key: 'slowest', title: 'Slowest JITs', view: SlowestTab },
  { key: 'bymodule', title: 'By tier / module', view: ByModuleTab },
  { key: 'modules', title: 'Modules', view: ModulesTab },
  { key: 'threads', title: 'Threads', view: ThreadsTab },
  { key: 'stacks', title: 'Stacks', view: StacksTab },
  { key: 'profile', title: 'Profile', view: ProfileTab },
  { key: 'gc', title: 'GC & pauses', view: GcTab },
  { key: 'exceptions', title: 'Exceptions', view: ExceptionsTab },
  { key: 'allocations', title: 'Allocations', view: AllocationsTab },
  { key: 'code', title: 'Code', view: CodeTab },
  { key: 'startup', title: 'Start-up', view: StartupTab },
];
// tabs that show the timeline (the sampler's suspensions come only through polls)
const TIMELINE_TABS = new Set(['live', 'profile', 'gc']);

export class SessionView {
  constructor(app, id, tab, arg) {
    this.app = app;
    this.id = id;
    this.tab = null;
    this.summary = null;
    this.stopped = false;
    this.threads = new Map(); // thread_key -> {name, os_thread_id, thread_id}: one per thread (a ThreadID is reused)
    this.detachState = null; // {phase: 'asking'|'requested'|'done'|'refused'|'error', text}
    // a word the page that opened this one left for it (home.js: an attach), shown
    // in the notice line for FLASH_MS
    this.flash = app.flash && app.flash.sessionId === id ? app.flash.text : null;
    if (this.flash) {
      app.flash = null;
      this.flashTimer = setTimeout(() => {
        this.flash = null;
        if (!this.stopped && this.summary) this.renderMessage();
      }, FLASH_MS);
    }
    this.summaryErrors = 0;
    this.renderHeaderTask = () => {
      if (!this.stopped && this.summary) this.renderHeader();
    };
    this.liveCountTask = () => this.setTabCount('live', this.feed.buf.total);

    this.timeline = new PauseTimeline(id, {
      onChange: () => {
        schedule(this.feed.drawChart);
        if (this.tab === 'profile') schedule(this.tabs.profile.drawTask);
        if (this.tab === 'gc') schedule(this.tabs.gc.drawTask);
        const shown = this.tabs && this.tabs[this.tab];
        if (shown && shown.timelineChanged) shown.timelineChanged();
      },
    });
    this.feed = new LiveFeed({
      threadLabel: (key) => this.threadLabel(key),
      baseTime: () => (this.summary ? this.summary.created_ms : 0),
      timeline: this.timeline,
      sessionId: id,
    });
    this.tabs = {
      live: {
        el: this.feed.el,
        show: () => {},
        hide: () => {},
        destroy: () => this.feed.destroy(),
      },
    };
    for (const t of TABS) if (t.view) this.tabs[t.key] = new t.view(this);
    this.feed.onPauseChartClick = () => this.app.navigate(sessionHref(this.id, 'gc'));
    // The sampler's suspensions are only in GET /timeline: poll it while a
    // profile runs and one of the charts that show them is on screen.
    this.timelineTimer = setInterval(() => {
      if (this.stopped || !isVisible() || !TIMELINE_TABS.has(this.tab)) return;
      if (this.tabs.profile.sampling()) this.timeline.poll();
    }, 1000);
    this.buildHeader();
    this.body = h('div', { class: 'tab-body' });
    this.el = h('div', { class: 'session' }, this.head, this.body);
    this.setTab(tab || 'live', arg);
  }

  // ---- header ----
  buildHeader() {
    this.badgeBox = h('span');
    this.titleEl = h('h1', null, `Session #${this.id}`);
    this.pidEl = h('span', { class: 'pid' });
    this.detachBtn = h(
      'button',
      {
        class: 'btn btn-danger btn-small detach-btn hidden',
        type: 'button',
        title: 'Remove the profiler from the process (d)',
        onclick: () => this.askDetach(),
      },
      'Detach',
      h('kbd', null, 'd'),
    );
    this.deleteBtn = h(
      'button',
      {
        class: 'btn btn-small delete-btn hidden',
        type: 'button',
        title: 'Remove this ended session from the server and its storage',
        onclick: () => this.askDelete(),
      },
      'Delete',
    );
    this.exportMenu = this.buildExportMenu();
    this.compareBtn = h(
      'button',
      {
        class: 'btn btn-small compare-btn',
        type: 'button',
        title:
          'Compare this session with the previous run of the same command (pick another on the next page)',
        onclick: () => this.openCompare(),
      },
      'Compare…',
    );
    this.sub = h('div', { class: 's-sub' });
    this.statsEl = h('div', { class: 's-stats' });
    this.msg = h('div', { class: 's-msg' });
    this.tabBtns = {};
    const tabs = TABS.map((t, i) => {
      const count = h('span', { class: 'count' });
      const key = i < 9 ? String(i + 1) : null; // keys 1..9
      const b = h(
        'button',
        {
          class: 'tab',
          type: 'button',
          role: 'tab',
          'data-tab': t.key,
          title: key ? `${t.title} (key ${key})` : t.title,
          onclick: () => this.app.navigate(sessionHref(this.id, t.key)),
        },
        t.title,
        count,
        key ? h('kbd', null, key) : null,
      );
      this.tabBtns[t.key] = { b, count };
      return b;
    });
    this.head = h(
      'div',
      { class: 's-head' },
      h(
        'div',
        { class: 's-title' },
        this.badgeBox,
        this.titleEl,
        this.pidEl,
        h('span', { class: 'spacer' }),
        this.compareBtn,
        this.exportMenu,
        this.deleteBtn,
        this.detachBtn,
      ),
      this.sub,
      this.statsEl,
      this.msg,
      h('div', { class: 'tabs', role: 'tablist' }, tabs),
    );
  }

  // "Export": the session's functions, modules, threads and events as CSV or
  // JSON files (the list routes with ?format=, docs/API.md)
  buildExportMenu() {
    const lists = [
      ['functions', 'Functions', '&sort=jit_time'],
      ['modules', 'Modules', ''],
      ['threads', 'Threads', ''],
      ['events', 'Events', ''],
    ];
    const status = h('span', { class: 'export-status dim' });
    const item = (list, label, extra, format) =>
      h(
        'button',
        {
          class: 'btn btn-small export-item',
          type: 'button',
          'data-export': `${list}.${format}`,
          onclick: async () => {
            status.textContent = '…';
            const r = await downloadExport(
              `/api/sessions/${this.id}/${list}?format=${format}&limit=10000${extra}`,
            );
            status.textContent = r.ok ? `saved ${r.filename}` : `export failed: ${r.error}`;
          },
        },
        `${label} ${format.toUpperCase()}`,
      );
    const panel = h(
      'div',
      { class: 'export-panel hidden', role: 'menu' },
      lists.map(([l, label, extra]) =>
        h(
          'div',
          { class: 'export-row' },
          item(l, label, extra, 'csv'),
          item(l, label, extra, 'json'),
        ),
      ),
      status,
    );
    const btn = h(
      'button',
      {
        class: 'btn btn-small export-btn',
        type: 'button',
        title: "Save this session's lists as CSV or JSON files",
        'aria-haspopup': 'menu',
        onclick: () => panel.classList.toggle('hidden'),
      },
      'Export ▾',
    );
    return h('span', { class: 'export-menu' }, btn, panel);
  }

  // The compare page with this session as B and its previous run (if any) as A.
  async openCompare() {
    const r = await api('/api/sessions');
    const prev = r.ok && this.summary ? previousRun(this.summary, r.data.sessions || []) : null;
    this.app.navigate(compareHref(prev ? prev.id : null, this.id));
  }

  crumbs() {
    const s = this.summary;
    const out = [h('a', { href: '#/' }, 'Sessions'), h('span', { class: 'sep' }, '›')];
    if (s && s.root_id && s.root_id !== s.id)
      // a child process of a run: its run first
      out.push(
        h(
          'a',
          { href: sessionHref(s.root_id), title: 'the session of the process this run launched' },
          `run #${s.root_id}`,
        ),
        h('span', { class: 'sep' }, '›'),
      );
    out.push(h('span', { class: 'cur' }, `#${this.id}${s ? ' · pid ' + s.pid : ''}`));
    return out;
  }

  mount(container) {
    fill(container, this.el);
    this.pollSummary();
  }

  // Starts the event stream once the session is known to exist.
  startStream() {
    this.stream = new SessionStream(this.id, {
      capacity: this.feed.buf.cap,
      onEvents: (evs) => this.onEvents(evs),
      onSession: (s) => {
        const changed = this.summary && s.state && s.state !== this.summary.state;
        this.setSummary({ ...(this.summary || {}), ...s });
        // the stream's summary has no link details: fetch them now, not at the next poll
        if (changed) this.pollSummary();
      },
      onMode: (kind, text) => setConnection(kind, text),
      onNotice: (text, kind) => toast(text, { kind }),
      onGone: (r) => {
        if (this.summary) toast(describeError(`Session #${this.id} events`, r), { kind: 'error' });
      },
    });
    this.stream.start();
    this.timeline.load();
    api(`/api/sessions/${this.id}/threads`).then((r) => {
      if (r.ok) this.learnThreads(r.data.threads || []);
    });
  }

  unmount() {
    this.stopped = true;
    clearTimeout(this.summaryTimer);
    clearTimeout(this.flashTimer);
    clearInterval(this.timelineTimer);
    if (this.stream) this.stream.stop();
    for (const t of Object.values(this.tabs)) t.destroy();
  }

  // arg: what the tab opens (the Code tab: a FunctionID), from the URL
  setTab(key, arg) {
    if (!this.tabs[key]) key = 'live';
    if (arg && this.tabs[key].open) this.tabs[key].open(arg);
    if (this.tab === key) return;
    if (this.tab) this.tabs[this.tab].hide();
    this.tab = key;
    for (const [k, { b }] of Object.entries(this.tabBtns)) {
      b.classList.toggle('active', k === key);
      b.setAttribute('aria-selected', String(k === key));
    }
    fill(this.body, this.tabs[key].el);
    this.tabs[key].show();
    if (key === 'live') this.feed.shown();
  }

  setTabCount(key, n) {
    const t = this.tabBtns && this.tabBtns[key]; // tabs may report before the header exists
    if (t) setText(t.count, n == null ? '' : typeof n === 'number' ? fmtInt(n) : n);
  }

  isFinal() {
    return !!(this.summary && isFinal(this.summary.state));
  }
  baseTime() {
    return this.summary ? this.summary.created_ms : 0;
  }

  // ---- data ----
  onEvents(events) {
    let threadsChanged = false;
    for (const ev of events) {
      if (
        (ev.type === 'thread_start' || ev.type === 'thread_name' || ev.type === 'thread_end') &&
        ev.thread_key != null
      ) {
        const t = this.threads.get(ev.thread_key) || { thread_id: ev.thread_id };
        if (ev.name) t.name = ev.name;
        if (ev.os_thread_id) t.os_thread_id = ev.os_thread_id;
        this.threads.set(ev.thread_key, t);
        threadsChanged = true;
      }
    }
    this.feed.ingest(events);
    this.timeline.ingest(events);
    for (const t of Object.values(this.tabs)) if (t.onEvents) t.onEvents(events);
    if (threadsChanged) this.feed.vt.invalidateRows();
    schedule(this.liveCountTask);
  }

  learnThreads(list) {
    let changed = false;
    for (const t of list) {
      const cur = this.threads.get(t.thread_key) || {};
      if ((t.name && cur.name !== t.name) || cur.os_thread_id !== t.os_thread_id) changed = true;
      this.threads.set(t.thread_key, {
        name: t.name || cur.name,
        os_thread_id: t.os_thread_id,
        thread_id: t.thread_id,
      });
    }
    if (changed) this.feed.vt.invalidateRows();
  }

  // A thread by its thread_key (the session's row of it; a number, or the
  // string the feed's buffer keeps).
  threadLabel(key) {
    if (key == null || key === '') return '–';
    const t = this.threads.get(Number(key));
    if (t && t.name) return t.name;
    if (t && this.summary && t.os_thread_id === this.summary.pid) return `main (${t.os_thread_id})`;
    if (t && t.os_thread_id) return `tid ${t.os_thread_id}`;
    return t && t.thread_id ? t.thread_id : `thread #${key}`;
  }

  jitsPerThread() {
    const buf = this.feed.buf;
    const counts = new Map();
    for (let r = buf.first; r < buf.total; r++) {
      const id = buf.thread[r % buf.cap];
      counts.set(id, (counts.get(id) || 0) + 1);
    }
    const out = new Map();
    for (const [id, n] of counts) {
      const key = buf.strings.get(id);
      if (key) out.set(Number(key), n);
    }
    return out;
  }

  filterFeed(text, module) {
    this.feed.setFilter(text, module);
    this.app.navigate(sessionHref(this.id, 'live'));
  }

  async pollSummary() {
    clearTimeout(this.summaryTimer);
    if (this.stopped) return;
    const r = await api(`/api/sessions/${this.id}`);
    if (this.stopped) return;
    if (r.ok) {
      this.summaryErrors = 0;
      this.lastUpdate = Date.now();
      this.setSummary(r.data);
      if (!this.stream) this.startStream();
    } else if (r.status === 404 && !this.summary) {
      this.showNotFound(r);
      return;
    } else {
      this.summaryErrors++;
      if (this.summaryErrors === 1) {
        fill(
          this.msg,
          notice(
            'error',
            describeError('Session status', r),
            h(
              'span',
              { class: 'dim' },
              ` — retrying; the data below (last updated ${this.lastUpdate ? fmtClock(this.lastUpdate, false) : 'never'}) stays browsable.`,
            ),
          ),
        );
        this.msg._sig = null;
      }
    }
    const wait = this.isFinal() ? 5000 : SUMMARY_MS;
    this.summaryTimer = setTimeout(() => this.pollSummary(), wait);
  }

  showNotFound(r) {
    fill(
      this.el,
      h(
        'div',
        { class: 'page' },
        h(
          'div',
          { class: 'empty-state' },
          h('b', null, `Session #${this.id} not found`),
          h('br'),
          `The server answered ${r.status} “${r.error}”. `,
          h('a', { href: '#/' }, 'Back to the sessions list'),
        ),
      ),
    );
    if (this.stream) this.stream.stop();
  }

  setSummary(s) {
    const prev = this.summary;
    this.summary = s;
    const final = isFinal(s.state);
    if (this.stream) this.stream.ended = final;
    this.feed.setEnded(
      final,
      s.ended_ms || (s.detach && s.detach.finished_ms) || null,
      !!(s.agent && s.agent.floor),
    );
    this.feed.setTierSource(s.tier_source || null); // why an unknown tier is unknown
    if (!prev) this.app.updateCrumbs();
    this.trackDetach(prev, s);
    if (!prev || prev.state !== s.state) {
      for (const t of Object.values(this.tabs)) if (t.sessionChanged) t.sessionChanged();
    }
    if (s.profile && (!prev || prev.profile !== s.profile)) this.tabs.profile.onSummary(s.profile);
    this.tabs.bymodule.tiers.update(s);
    schedule(this.renderHeaderTask);
  }

  renderHeader() {
    const s = this.summary;
    fill(this.badgeBox, stateBadge(s));
    setText(this.titleEl, s.command_line || `Session #${this.id}`);
    this.titleEl.title = s.command_line || '';
    const child = s.root_id && s.root_id !== s.id;
    setText(
      this.pidEl,
      `pid ${s.pid}${child ? ` · child of pid ${s.parent_pid || '?'} in run #${s.root_id}` : ` · ${s.mode || '?'}`}${s.container ? ` · container ${s.container.hostname || '?'}${s.container.id ? ` ${s.container.id.slice(0, 12)}` : ''} (pid ${s.container.pid} inside)` : ''} · session #${this.id}`,
    );
    this.detachBtn.classList.toggle('hidden', s.state !== 'live');
    this.deleteBtn.classList.toggle('hidden', !isFinal(s.state));
    this.detachBtn.disabled = !!(this.detachState && this.detachState.phase === 'requested');

    fill(this.sub, sessionDetails(s));

    const c = s.counters || {};
    fill(this.statsEl, ...sessionStats(s));
    if (!this.tabBtns.modules.count.textContent && c.modules != null)
      this.setTabCount('modules', c.modules);
    if (c.threads != null)
      this.setTabCount(
        'threads',
        isFinal(s.state) ? fmtInt(c.threads) : `${c.threads_alive} of ${c.threads}`,
      );
    this.renderMessage();
  }

  // ---- detach ----
  async askDetach() {
    const s = this.summary;
    if (!s || s.state !== 'live') {
      toast(
        s
          ? `Session #${this.id} is ${s.state}: there is no live agent to detach.`
          : 'Session not loaded yet.',
        { kind: 'warn' },
      );
      return;
    }
    const ok = await confirmDialog({
      title: `Detach from pid ${s.pid}?`,
      body: [
        h(
          'p',
          null,
          'jitscope asks the runtime to remove its profiler from ',
          h('code', null, s.command_line || `pid ${s.pid}`),
          '. The process keeps running.',
        ),
        h(
          'p',
          { class: 'dim' },
          'Everything recorded so far stays browsable here. The runtime may refuse (for example while a profiler callback is active).',
        ),
      ],
      confirmText: 'Detach',
      danger: true,
    });
    if (!ok || this.stopped) return;
    this.detachState = { phase: 'requested', at: Date.now() };
    this.renderHeader();
    const r = await api(`/api/sessions/${this.id}/detach`, { method: 'POST', body: {} });
    if (this.stopped) return;
    if (r.ok) {
      if (r.data && r.data.session) this.setSummary({ ...this.summary, ...r.data.session });
      this.pollSummary();
      return;
    }
    const text = isMissingRoute(r)
      ? `Detach is not available on this server (POST /api/sessions/${this.id}/detach: ${r.status} ${r.error}).`
      : r.status === 409
        ? `Cannot detach: ${r.error}.`
        : describeError('Detach failed', r);
    this.detachState = { phase: 'error', text };
    toast(text, { kind: 'error' });
    this.renderHeader();
  }

  async askDelete() {
    const s = this.summary;
    const ok = await confirmDialog({
      title: `Delete session #${this.id}?`,
      body: [
        h(
          'p',
          null,
          'Removes ',
          h('code', null, s.command_line || `pid ${s.pid}`),
          ' and everything recorded of it from this server and its storage.',
        ),
        h('p', { class: 'dim' }, 'This cannot be undone. Export what you want to keep first.'),
      ],
      confirmText: 'Delete',
      danger: true,
    });
    if (!ok || this.stopped) return;
    const r = await api(`/api/sessions/${this.id}`, { method: 'DELETE' });
    if (this.stopped) return;
    if (r.ok) {
      toast(`Session #${this.id} deleted.`);
      this.app.navigate('#/');
      return;
    }
    toast(r.status === 409 ? `Cannot delete: ${r.error}.` : describeError('Delete failed', r), {
      kind: 'error',
    });
  }

  trackDetach(prev, s) {
    const ds = this.detachState;
    if (s.state === 'detached') {
      if (!ds || ds.phase !== 'done') this.detachState = { phase: 'done' };
    } else if (
      ds &&
      ds.phase === 'requested' &&
      prev &&
      prev.state === 'detaching' &&
      s.state === 'live'
    ) {
      this.detachState = { phase: 'refused', text: s.error || 'the runtime refused to detach' };
      toast(`The runtime refused to detach: ${this.detachState.text}`, { kind: 'error' });
    } else if (
      ds &&
      ds.phase === 'requested' &&
      s.state === 'live' &&
      s.error &&
      Date.now() - ds.at > 1500
    ) {
      this.detachState = { phase: 'refused', text: s.error };
    }
  }

  renderMessage() {
    const s = this.summary;
    const ds = this.detachState;
    let n = null;
    if (s.state === 'detaching' || (ds && ds.phase === 'requested' && s.state === 'live')) {
      n = notice(
        'warn',
        h('b', null, 'Detaching…'),
        ' waiting for the runtime to remove the profiler.',
      );
    } else if (s.state === 'detached') {
      const ms = s.detach && s.detach.duration_ms;
      n = notice(
        '',
        h('b', null, ms != null ? `Detached in ${fmtMs(ms)}.` : 'Detached.'),
        ' The process keeps running without the profiler; everything recorded stays browsable.',
      );
    } else if (ds && (ds.phase === 'refused' || ds.phase === 'error')) {
      n = notice(
        'error',
        h('b', null, ds.phase === 'refused' ? 'Detach refused: ' : ''),
        ds.text,
        h(
          'button',
          {
            class: 'btn btn-small',
            type: 'button',
            style: { marginLeft: '10px' },
            onclick: () => {
              this.detachState = null;
              this.renderHeader();
            },
          },
          'Dismiss',
        ),
      );
    } else if (s.state === 'failed') {
      n = notice(
        'error',
        h('b', null, 'Session failed: '),
        s.error || 'no reason given',
        '. Data recorded before the failure stays browsable.',
      );
    } else if (s.state === 'exited') {
      const how = s.exit_signal
        ? `Process killed by signal ${s.exit_signal}${s.exit_signal_name ? ` (${s.exit_signal_name})` : ''}, exit code ${s.exit_code}.`
        : s.exit_code != null
          ? `Process exited with code ${s.exit_code}.`
          : 'Process exited; its exit code is unknown:';
      const why = s.exit_code == null && s.exit_code_unknown ? ` ${s.exit_code_unknown}.` : '';
      n = notice(
        s.exit_code ? 'warn' : '',
        h('b', null, how),
        why,
        ' Everything recorded stays browsable.',
      );
    } else if (s.state === 'interrupted') {
      n = notice(
        'warn',
        h('b', null, 'Interrupted.'),
        ' The server recording this session stopped while it was live; this is what it had written to storage, read-only.',
      );
    } else if (s.state === 'disconnected') {
      n = notice(
        'warn',
        h('b', null, 'Agent disconnected.'),
        ' The connection to the agent was lost; the data below stays browsable.',
        s.error ? ` (${s.error})` : '',
      );
    } else if (s.error && s.state === 'live') {
      n = notice('warn', s.error);
    } else if (this.flash) {
      n = notice('ok flash', h('b', null, this.flash));
    } else if (this.summaryErrors) {
      return; // keep the error notice set by pollSummary
    }
    const outside =
      s.build_servers_outside && s.build_servers_outside.length ? outsideNotice(s, false) : null;
    const sig = (n ? n.textContent : '') + (outside ? outside.textContent : '');
    if (this.msg._sig !== sig) {
      this.msg._sig = sig;
      fill(this.msg, n, outside);
    }
  }

  // ---- keys ----
  onKey(e) {
    const k = e.key;
    if (k === ' ' || k === 'Spacebar') {
      if (this.tab !== 'live') this.app.navigate(sessionHref(this.id, 'live'));
      this.feed.togglePause();
      return true;
    }
    if (k === '/') {
      if (this.tab === 'stacks' || this.tab === 'profile') {
        this.tabs[this.tab].focusSearch();
        return true;
      }
      if (this.tab !== 'live') this.app.navigate(sessionHref(this.id, 'live'));
      this.feed.focusSearch();
      return true;
    }
    if (k === 's') {
      if (this.tab !== 'stacks') this.app.navigate(sessionHref(this.id, 'stacks'));
      this.tabs.stacks.snapshot();
      return true;
    }
    if (k === 'f') {
      this.feed.followNow();
      return true;
    }
    if (k === 'd') {
      this.askDetach();
      return true;
    }
    if (k >= '1' && k <= '9' && Number(k) <= TABS.length) {
      this.app.navigate(sessionHref(this.id, TABS[Number(k) - 1].key));
      return true;
    }
    if (k === 'Escape') {
      if (this.tab === 'stacks') return this.tabs.stacks.clearSearch(false);
      if (this.tab === 'profile') return this.tabs.profile.onEscape();
      return this.feed.clearSearch(false);
    }
    return false;
  }

  stats() {
    return {
      ...this.feed.stats(),
      lastSeq: this.stream ? this.stream.lastSeq : 0,
      state: this.summary && this.summary.state,
    };
  }
}
