// tabs.js -- the session view's table tabs: slowest JITs, per-tier and
// per-module totals (PerfView JITStats style), modules, threads. Each loads from REST when
// shown and refreshes on a timer while it is the active tab.
import { h, fill } from '../dom.js';
import { api, describeError } from '../api.js';
import { fmtInt, fmtNs, fmtRel, fmtBytes, fmtPct, fmtMs } from '../format.js';
import { methodName } from '../mname.js';
import { DataTable } from './table.js';
import { notice, emptyMark, sectionHead } from './common.js';
import { TierTotals } from './tiertotals.js';
import { NO_MODULE } from '../buffer.js';

const methodCell = (name) => methodName(name);

class TabBase {
  constructor(session, { refreshMs }) {
    this.session = session;
    this.refreshMs = refreshMs;
    this.timer = null;
    this.active = false;
    this.loading = false;
    this.loadedFinal = false; // loaded after the session ended: nothing will change
    this.msg = h('div');
    this.meta = h('span', { class: 'meta' });
  }
  show() {
    this.active = true;
    this.tick();
  }
  hide() {
    this.active = false;
    clearTimeout(this.timer);
  }
  destroy() {
    this.hide();
  }
  async tick() {
    clearTimeout(this.timer);
    if (!this.active) return;
    if (!this.loading && !this.loadedFinal) {
      this.loading = true;
      const final = this.session.isFinal();
      try {
        const ok = await this.load();
        if (ok && final) this.loadedFinal = true;
      } finally {
        this.loading = false;
      }
    }
    if (this.active) this.timer = setTimeout(() => this.tick(), this.refreshMs);
  }
  error(what, r) {
    fill(
      this.msg,
      notice('error', describeError(what, r), h('span', { class: 'dim' }, ' — retrying.')),
    );
  }
  // GETs /api/sessions/<id>/<path>: the answer with the message cleared, or
  // null with the error shown (what: the name the error gives the request).
  async request(path, what) {
    const r = await api(`/api/sessions/${this.session.id}/${path}`);
    if (!r.ok) {
      this.error(what, r);
      return null;
    }
    fill(this.msg);
    return r;
  }
  // The same for a list: the array the answer holds under `key`, or null.
  async requestList(path, what, key) {
    const r = await this.request(path, what);
    return r ? r.data[key] || [] : null;
  }
  section(title, ...body) {
    return h('div', { class: 'tab-page' }, sectionHead(title, this.meta), this.msg, body);
  }
}

// The Catch-up column of the modules and threads tables: a pill on what the
// attach-time enumeration found; `seenLive` tells how the others were seen.
function catchupColumn(seenLive) {
  return {
    key: 'catchup',
    title: 'Catch-up',
    width: '84px',
    sort: (x) => (x.catchup ? 1 : 0),
    render: (x) =>
      x.catchup
        ? h(
            'span',
            { class: 'pill pill-catchup', title: 'known from the attach-time enumeration' },
            'catch-up',
          )
        : emptyMark(seenLive),
  };
}

// ---- slowest JITs: GET /functions?sort=jit_time&limit=20 ----
export class SlowestTab extends TabBase {
  constructor(session) {
    super(session, { refreshMs: 3000 });
    this.table = new DataTable({
      rowKey: (f) => f.function_id,
      onRowClick: (f) => session.filterFeed(f.name || '', ''),
      emptyText: 'No JITs yet.',
      sort: { key: 'jit_total_ns', desc: true },
      columns: [
        { key: 'rank', title: '#', num: true, width: '40px', sort: false },
        // the method keeps a third of the width; the module gives way first
        {
          key: 'name',
          title: 'Method',
          cls: 'mono clip',
          width: '34%',
          render: (f) => methodCell(f.name),
        },
        {
          key: 'module',
          title: 'Module',
          cls: 'mono clip',
          width: '13%',
          render: (f) => h('span', { title: f.module || '' }, f.module || '(dynamic)'),
        },
        {
          key: 'jit_total_ns',
          title: 'Total JIT time',
          num: true,
          width: '110px',
          render: (f) => fmtNs(f.jit_total_ns),
          tip: 'all compilations of this method',
        },
        {
          key: 'jit_count',
          title: 'Compilations',
          num: true,
          width: '96px',
          tip: 'compilations of this method in this session (a tier-up or OSR is one more)',
        },
        {
          key: 'jit_ns',
          title: 'Last JIT',
          num: true,
          width: '86px',
          render: (f) => fmtNs(f.jit_ns),
          tip: 'JIT time of its last compilation',
        },
        {
          key: 'versions',
          title: 'Code versions',
          num: true,
          width: '100px',
          tip: 'native code versions the runtime has for this method: one per compilation, plus ReadyToRun code it started with',
        },
        {
          key: 'il_size',
          title: 'IL size',
          num: true,
          width: '70px',
          render: (f) => fmtInt(f.il_size),
        },
        {
          key: 'native_size',
          title: 'Native',
          num: true,
          width: '70px',
          render: (f) => fmtInt(f.native_size),
        },
        {
          key: 'first_jit_ms',
          title: 'First JIT (s)',
          num: true,
          width: '90px',
          render: (f) => fmtRel(f.first_jit_ms, session.baseTime()),
          empty:
            'compiled before jitscope attached (known from the catch-up): its first JIT was not seen',
        },
      ],
    });
    this.meta.textContent =
      'top 20 by total JIT time · refreshed every 3 s · click a row to find it in the live feed';
    this.el = this.section('Slowest JITs', this.table.el);
  }
  async load() {
    const fns = await this.requestList(
      'functions?sort=jit_time&order=desc&limit=20',
      'Slowest JITs',
      'functions',
    );
    if (!fns) return false;
    this.table.setRows(fns.map((f, i) => ({ ...f, rank: i + 1 })));
    return true;
  }
}

// ---- per-module totals of all functions, summed by the server (PerfView JITStats spirit) ----
export class ByModuleTab extends TabBase {
  constructor(session) {
    super(session, { refreshMs: 5000 });
    this.totalNs = 0;
    const share = (m) => (this.totalNs ? m.jit_ns / this.totalNs : 0);
    this.table = new DataTable({
      rowKey: (m) => m.module,
      onRowClick: (m) => session.filterFeed('', m.module ?? NO_MODULE), // null: dynamic methods
      emptyText: 'No JITed methods yet.',
      sort: { key: 'jit_ns', desc: true },
      columns: [
        {
          key: 'module',
          title: 'Module',
          cls: 'mono',
          render: (m) => m.module || '(dynamic methods)',
        },
        {
          key: 'methods',
          title: 'Methods JITed',
          num: true,
          width: '110px',
          render: (m) => fmtInt(m.methods),
        },
        {
          key: 'jits',
          title: 'Compilations',
          num: true,
          width: '100px',
          render: (m) => fmtInt(m.jits),
          tip: "every compilation, a method's second and later ones (tier-up, OSR) included",
        },
        {
          key: 'rejit',
          title: 'Recompiled',
          num: true,
          width: '90px',
          render: (m) => fmtInt(m.rejit),
          tip: 'methods with more than one compilation or code version (tier-up, OSR; ReadyToRun code replaced by a JIT)',
        },
        {
          key: 'jit_ns',
          title: 'Total JIT time',
          num: true,
          width: '190px',
          cls: 'cell-bar',
          render: (m) => [
            h('div', { class: 'bar', style: { width: `${(share(m) * 100).toFixed(1)}%` } }),
            h('span', null, fmtNs(m.jit_ns)),
          ],
        },
        {
          key: 'share',
          title: '% of JIT',
          num: true,
          width: '74px',
          render: (m) => fmtPct(share(m)),
          sort: (m) => m.jit_ns,
        },
        {
          key: 'avg',
          title: 'Avg JIT',
          num: true,
          width: '84px',
          render: (m) => fmtNs(m.jits ? m.jit_ns / m.jits : null),
          sort: (m) => (m.jits ? m.jit_ns / m.jits : 0),
        },
        { key: 'il', title: 'IL bytes', num: true, width: '90px', render: (m) => fmtBytes(m.il) },
        {
          key: 'native',
          title: 'Native bytes',
          num: true,
          width: '100px',
          render: (m) => fmtBytes(m.native),
        },
      ],
      footer: (rows) => {
        const t = rows.reduce(
          (a, m) => ({
            methods: a.methods + m.methods,
            jits: a.jits + m.jits,
            rejit: a.rejit + m.rejit,
            jit_ns: a.jit_ns + m.jit_ns,
            il: a.il + m.il,
            native: a.native + m.native,
          }),
          { methods: 0, jits: 0, rejit: 0, jit_ns: 0, il: 0, native: 0 },
        );
        return [
          `Total (${rows.length} modules)`,
          fmtInt(t.methods),
          fmtInt(t.jits),
          fmtInt(t.rejit),
          fmtNs(t.jit_ns),
          rows.length ? '100%' : '–',
          fmtNs(t.jits ? t.jit_ns / t.jits : null),
          fmtBytes(t.il),
          fmtBytes(t.native),
        ];
      },
    });
    this.meta.textContent =
      'every JITed method of the session, summed per module · click a module to filter the live feed';
    this.tiers = new TierTotals(session.id);
    this.tiers.update(session.summary);
    this.el = this.section('JIT by module', this.table.el);
    this.el.prepend(this.tiers.el);
  }
  // Summed on the server (GET .../modules/totals, one pass over the session's
  // functions), one row per module name.
  async load() {
    const totals = await this.requestList('modules/totals', 'Per-module totals', 'modules');
    if (!totals) return false;
    const rows = totals.map((m) => ({ ...m, module: m.module || '' }));
    this.totalNs = rows.reduce((a, m) => a + m.jit_ns, 0);
    this.table.setRows(rows.map((m) => ({ ...m, _total: this.totalNs })));
    this.session.setTabCount('bymodule', rows.length);
    return true;
  }
}

// ---- modules ----
export class ModulesTab extends TabBase {
  constructor(session) {
    super(session, { refreshMs: 2000 });
    this.table = new DataTable({
      rowKey: (m) => m.module_id,
      emptyText: 'No modules loaded yet.',
      sort: { key: 'loaded_ms', desc: false },
      columns: [
        {
          key: 'assembly',
          title: 'Assembly',
          cls: 'mono',
          width: '260px',
          render: (m) => m.assembly || h('span', { class: 'faint' }, '(unknown)'),
        },
        {
          key: 'loaded',
          title: 'State',
          width: '130px',
          render: (m) =>
            m.loaded
              ? h('span', { class: 'pill pill-ok' }, 'loaded')
              : h(
                  'span',
                  { class: 'pill pill-off', title: 'unloaded' },
                  `unloaded +${fmtRel(m.unloaded_ms, session.baseTime())} s`,
                ),
          sort: (m) => (m.loaded ? 1 : 0),
        },
        {
          key: 'loaded_ms',
          title: 'Loaded (s)',
          num: true,
          width: '90px',
          render: (m) => fmtRel(m.loaded_ms, session.baseTime()),
          tip: 'seconds since the session started',
        },
        catchupColumn('seen loading while jitscope watched, not from the attach-time catch-up'),
        {
          key: 'path',
          title: 'Path',
          cls: 'mono clip',
          title_of: (m) => m.path,
          render: (m) => m.path || '–',
          empty: 'the runtime gave no file path (a module built in memory, or dynamic)',
        },
        { key: 'module_id', title: 'Module ID', cls: 'mono faint', width: '140px' },
      ],
    });
    this.el = this.section('Modules', this.table.el);
  }
  async load() {
    const mods = await this.requestList('modules', 'Modules', 'modules');
    if (!mods) return false;
    this.session.setTabCount('modules', mods.length);
    this.table.setRows(mods);
    const loaded = mods.filter((m) => m.loaded).length;
    this.meta.textContent = `${mods.length} modules, ${loaded} loaded, ${mods.length - loaded} unloaded`;
    return true;
  }
}

// ---- threads ----
export class ThreadsTab extends TabBase {
  constructor(session) {
    super(session, { refreshMs: 2000 });
    this.table = new DataTable({
      rowKey: (t) => t.thread_key, // a ThreadID may be several threads, one after another
      emptyText: 'No threads seen yet.',
      sort: { key: 'created_ms', desc: false },
      columns: [
        {
          key: 'name',
          title: 'Name',
          cls: 'mono',
          width: '220px',
          render: (t) =>
            t.name
              ? t.name_source === 'os'
                ? h(
                    'span',
                    {
                      title:
                        'the OS thread’s name (at most 15 bytes): how the runtime names its own threads; a thread started without a name has its starter’s',
                    },
                    t.name,
                  )
                : t.name
              : h(
                  'span',
                  { class: 'faint' },
                  t.os_thread_id === session.summary?.pid ? '(main thread)' : '(unnamed)',
                ),
        },
        { key: 'os_thread_id', title: 'OS tid', num: true, width: '80px' },
        {
          key: 'alive',
          title: 'State',
          width: '80px',
          render: (t) =>
            t.alive
              ? h('span', { class: 'pill pill-ok' }, 'alive')
              : h('span', { class: 'pill pill-off' }, 'ended'),
          sort: (t) => (t.alive ? 1 : 0),
        },
        {
          key: 'created_ms',
          title: 'Started (s)',
          num: true,
          width: '90px',
          render: (t) => fmtRel(t.created_ms, session.baseTime()),
        },
        {
          key: 'ended_ms',
          title: 'Ended (s)',
          num: true,
          width: '90px',
          render: (t) => (t.ended_ms ? fmtRel(t.ended_ms, session.baseTime()) : '–'),
          empty: (t) =>
            t.alive ? 'still running' : 'its end was not seen (the session ended first)',
        },
        {
          key: 'life',
          title: 'Lifetime',
          num: true,
          width: '90px',
          render: (t) =>
            t.created_ms && (t.ended_ms || !session.isFinal())
              ? fmtMs((t.ended_ms || Date.now()) - t.created_ms)
              : '–',
          sort: (t) => (t.ended_ms || Date.now()) - t.created_ms,
          empty: (t) =>
            t.created_ms
              ? 'its end was not seen (the session ended first)'
              : 'its start was not seen',
        },
        {
          key: 'jits',
          title: 'JITs',
          num: true,
          width: '80px',
          tip: 'JIT events on this thread in the page’s buffer',
          render: (t) => fmtInt(t.jits),
        },
        catchupColumn('seen starting while jitscope watched, not from the attach-time catch-up'),
        {
          key: 'thread_id',
          title: 'Thread ID',
          cls: 'mono faint',
          tip: 'the runtime’s ThreadID: once a thread has ended, a later thread may get the same one (each thread is a row of its own)',
        },
      ],
    });
    this.el = this.section('Threads', this.table.el);
  }
  async load() {
    const threads = await this.requestList('threads', 'Threads', 'threads');
    if (!threads) return false;
    this.session.learnThreads(threads);
    const perThread = this.session.jitsPerThread();
    const now = Date.now();
    this.table.setRows(
      threads.map((t) => ({
        ...t,
        jits: perThread.get(t.thread_key) || 0,
        _now: t.alive ? Math.floor(now / 1000) : 0,
      })),
    );
    const alive = threads.filter((t) => t.alive).length;
    this.meta.textContent = `${threads.length} threads, ${alive} alive`;
    this.session.setTabCount('threads', `${alive} of ${threads.length}`);
    return true;
  }
}
