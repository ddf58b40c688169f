// startup.js -- the session's Start-up tab (GET /startup, docs/API.md): the
// JIT time spent in the first seconds of the process, per module and per
// method, most first: the methods a ReadyToRun (crossgen) build would spare
// the JIT. Per module, what the runtime's ReadyToRun searches said: methods
// that ran precompiled code, methods JIT-compiled although their module is
// precompiled (no precompiled code for them, or it was rejected). Searches
// are seen in startup mode only: after an attach those columns say so.
import { h, fill } from '../dom.js';
import { api, describeError } from '../api.js';
import { fmtInt, fmtNs } from '../format.js';
import { DataTable } from './table.js';
import { notice, sectionHead } from './common.js';
import { codeHref, shortName } from './code.js';

const WINDOWS = [
  [5, '5 s'],
  [10, '10 s'],
  [30, '30 s'],
  [60, '1 min'],
  [600, '10 min'],
];
const NOT_SEEN =
  'not known: the ReadyToRun searches are seen in startup mode only (the runtime refuses them after an attach)';

export class StartupTab {
  constructor(session) {
    this.session = session;
    this.windowS = 10;
    this.active = false;
    this.meta = h('span', { class: 'meta' }, 'JIT time at start-up: what ReadyToRun could save');
    this.pick = h(
      'select',
      {
        class: 'startup-window',
        'aria-label': 'start-up window',
        onchange: () => {
          this.windowS = Number(this.pick.value);
          this.modules.setGroupTitles(['', this.windowTitle()]);
          fill(this.methodsHead, this.methodsTitle());
          this.load();
        },
      },
      WINDOWS.map(([s, label]) =>
        h('option', { value: String(s), selected: s === this.windowS }, `first ${label}`),
      ),
    );
    this.msg = h('div');
    this.totals = h('div', { class: 'startup-totals' });
    const nullable = (v) => (v == null ? null : fmtInt(v));
    // Two time windows, said over the columns: the first N seconds (JIT time,
    // JITs, methods, of them JIT-compiled in a precompiled module) and the whole
    // session (what the runtime's ReadyToRun searches said of the module).
    this.modules = new DataTable({
      rowKey: (m) => m.module_id,
      emptyText: 'No JIT at start-up.',
      sort: { key: 'startup_jit_ns', desc: true },
      groups: [
        { title: '', span: 1 },
        { title: this.windowTitle(), span: 4, tip: 'counted from the session start' },
        {
          title: 'whole session',
          span: 3,
          tip: 'what the runtime said of the module from its start to now (or its end)',
        },
      ],
      columns: [
        {
          key: 'module',
          title: 'Module',
          cls: 'mono clip',
          render: (m) => m.module || m.module_id,
        },
        {
          key: 'startup_jit_ns',
          title: 'JIT time',
          num: true,
          width: '100px',
          render: (m) => fmtNs(m.startup_jit_ns),
          tip: 'JIT time in the window, all its methods',
        },
        {
          key: 'startup_compilations',
          title: 'JITs',
          num: true,
          width: '70px',
          render: (m) => fmtInt(m.startup_compilations),
          tip: 'compilations in the window (a tier-up or OSR is one more)',
        },
        {
          key: 'startup_methods',
          title: 'Methods',
          num: true,
          width: '80px',
          render: (m) => nullable(m.startup_methods),
          tip: 'methods compiled in the window',
        },
        {
          key: 'startup_jitted_in_precompiled',
          title: 'JIT in R2R module',
          num: true,
          width: '130px',
          render: (m) => nullable(m.startup_jitted_in_precompiled),
          empty: (m) => (m.precompiled === false ? 'the module is not precompiled' : NOT_SEEN),
          tip: 'methods compiled in the window although their module is precompiled: no ReadyToRun code for them (generic instantiations, methods crossgen could not compile), or the runtime rejected it',
        },
        {
          key: 'precompiled',
          title: 'ReadyToRun',
          width: '96px',
          render: (m) => (m.precompiled == null ? null : m.precompiled ? 'yes' : 'no'),
          empty: NOT_SEEN,
          tip: 'the module has precompiled (ReadyToRun) code: the runtime found some for its methods',
        },
        {
          key: 'ready_to_run_methods',
          title: 'Ran R2R',
          num: true,
          width: '80px',
          render: (m) => fmtInt(m.ready_to_run_methods),
          tip: 'methods that ran their ReadyToRun code, over the whole session (a hot one is JIT-compiled later at Tier1)',
        },
        {
          key: 'ready_to_run_rejected',
          title: 'R2R rejected',
          num: true,
          width: '100px',
          render: (m) => fmtInt(m.ready_to_run_rejected),
          tip: 'ReadyToRun code found but not used (its fixups failed), over the whole session',
        },
      ],
    });
    this.methods = new DataTable({
      rowKey: (f) => f.function_id,
      emptyText: 'No JIT at start-up.',
      sort: { key: 'jit_ns', desc: true },
      onRowClick: (f) => this.session.app.navigate(codeHref(this.session.id, f.function_id)),
      columns: [
        {
          key: 'name',
          title: 'Method',
          cls: 'mono clip',
          render: (f) => h('span', { title: f.name || '' }, shortName(f.name) || f.function_id),
        },
        {
          key: 'module',
          title: 'Module',
          cls: 'mono',
          width: '200px',
          render: (f) => f.module || '(dynamic)',
        },
        {
          key: 'jit_ns',
          title: 'JIT time',
          num: true,
          width: '100px',
          render: (f) => fmtNs(f.jit_ns),
        },
        {
          key: 'compilations',
          title: 'JITs',
          num: true,
          width: '60px',
          render: (f) => fmtInt(f.compilations),
        },
        {
          key: 'ready_to_run',
          title: 'ReadyToRun',
          width: '100px',
          render: (f) => (f.ready_to_run === 'unknown' ? null : f.ready_to_run),
          empty: NOT_SEEN,
        },
      ],
    });
    this.el = h(
      'div',
      { class: 'tab-page startup-tab' },
      sectionHead('Start-up', this.meta, this.pick),
      this.msg,
      this.totals,
      h('h3', { class: 'startup-h' }, 'Modules'),
      this.modules.el,
      (this.methodsHead = h('h3', { class: 'startup-h' }, this.methodsTitle())),
      this.methods.el,
    );
  }

  windowTitle() {
    const w = WINDOWS.find(([s]) => s === this.windowS);
    return `first ${w ? w[1] : `${this.windowS} s`}`;
  }

  methodsTitle() {
    return [
      `Methods by JIT time in the ${this.windowTitle()}`,
      h('span', { class: 'dim' }, ' — click one for its code'),
    ];
  }

  show() {
    this.active = true;
    this.load();
  }
  hide() {
    this.active = false;
  }
  destroy() {
    this.hide();
  }

  async load() {
    const r = await api(
      `/api/sessions/${this.session.id}/startup?window_ms=${this.windowS * 1000}&limit=500`,
    );
    if (!this.active) return;
    if (!r.ok) {
      fill(this.msg, notice('error', describeError('The start-up view', r)));
      return;
    }
    const d = r.data;
    fill(
      this.msg,
      d.cache_searches
        ? null
        : notice(
            'warn',
            d.mode === 'attach'
              ? 'Attached after start-up: the start-up JIT was not seen, and the runtime gives an attached profiler no ReadyToRun searches, so precompiled code cannot be told apart here. Run the app with jitscope run for this view.'
              : 'No ReadyToRun search was reported (the runtime found no precompiled code, or ReadyToRun is off).',
          ),
    );
    fill(
      this.totals,
      h('span', null, 'JIT time ', h('b', null, fmtNs(d.jit_ns))),
      h(
        'span',
        null,
        h('b', null, fmtInt(d.compilations)),
        ' compilations of ',
        h('b', null, fmtInt(d.methods)),
        ' methods',
      ),
      d.cache_searches
        ? h('span', null, h('b', null, fmtInt(d.ready_to_run_used)), ' methods ran ReadyToRun code')
        : null,
    );
    this.modules.setRows(d.modules);
    this.methods.setRows(d.top_methods);
    this.el.dataset.state = 'done';
  }
}
