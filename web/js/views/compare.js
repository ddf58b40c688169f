// compare.js -- two sessions side by side (#/compare/A/B, GET /api/compare): what B
// JITed that A did not (and the other way round), the methods both JITed with their
// JIT times and deltas, per-module totals with deltas, modules loaded in only one.
// The method lists are sorted, filtered and paged by the server (sessions can hold
// 100k+ functions); the module table is loaded whole and sorted here.
import { h, fill, setText } from '../dom.js';
import { api, describeError, downloadExport } from '../api.js';
import { fmtInt, fmtNs, fmtDateTime } from '../format.js';
import { toast } from '../ui.js';
import {
  deltaCell,
  oneSideTable,
  bothTable,
  moduleTable,
  onlyModulesTable,
} from './compare_tables.js';
import {
  stateBadge,
  isFinal,
  sessionHref,
  compareHref,
  notice,
  previousRun,
  programOf,
  sectionHead,
} from './common.js';

const PAGE = 100;
const REFRESH_MS = 3000; // while one of the two sessions is still running
const LISTS = [
  {
    key: 'b',
    title: 'Only in B',
    what: 'methods B JITed and A did not',
    empty: 'B JITed no method that A did not.',
  },
  {
    key: 'a',
    title: 'Only in A',
    what: 'methods A JITed and B did not',
    empty: 'A JITed no method that B did not.',
  },
  {
    key: 'both',
    title: 'In both',
    what: 'methods both JITed, side by side',
    empty: 'The two sessions have no JITed method in common.',
  },
];
// table column -> the server's sort key
const SORT_KEYS = {
  module: 'module',
  name: 'name',
  a_jit_ns: 'a_jit_time',
  b_jit_ns: 'b_jit_time',
  delta_jit_ns: 'delta',
  a_compilations: 'compilations',
  b_compilations: 'compilations',
};

function sessionLabel(s) {
  const cmd = s.command_line || '';
  const args = cmd.replace(/^\S*dotnet\s+/, '').replace(/^\S*\//, '');
  return `#${s.id} · ${s.state} · ${args || programOf(cmd) || `pid ${s.pid}`}`;
}

export class CompareView {
  constructor(app, a, b) {
    this.app = app;
    this.a = a;
    this.b = b;
    this.stopped = false;
    this.timer = null;
    this.list = 'b';
    this.sort = {
      b: { key: 'b_jit_ns', desc: true },
      a: { key: 'a_jit_ns', desc: true },
      both: { key: 'delta_jit_ns', desc: true },
    };
    this.offset = 0;
    this.q = '';
    this.module = '';
    this.data = null; // {a, b, summary}
    this.page = null; // the method list's page
    this.modules = [];
    this.seq = 0; // answers to older requests are dropped

    this.pickA = h('select', {
      'aria-label': 'Session A',
      'data-pick': 'a',
      onchange: () => this.pick(),
    });
    this.pickB = h('select', {
      'aria-label': 'Session B',
      'data-pick': 'b',
      onchange: () => this.pick(),
    });
    this.sidesEl = h('div', { class: 'cmp-sides' });
    this.statsEl = h('div', { class: 's-stats cmp-stats' });
    this.msg = h('div', { class: 's-msg' });
    this.head = h(
      'div',
      { class: 's-head cmp-head' },
      h(
        'div',
        { class: 's-title' },
        h('h1', null, 'Compare sessions'),
        h('label', { class: 'cmp-pick' }, h('span', { class: 'cmp-letter' }, 'A'), this.pickA),
        h(
          'button',
          {
            class: 'btn btn-small',
            type: 'button',
            title: 'Swap A and B',
            onclick: () => this.swap(),
          },
          '⇄ Swap',
        ),
        h('label', { class: 'cmp-pick' }, h('span', { class: 'cmp-letter' }, 'B'), this.pickB),
        h('span', { class: 'spacer' }),
      ),
      this.sidesEl,
      this.statsEl,
      this.msg,
    );

    // ---- the three method lists (one shown at a time) ----
    this.listBtns = {};
    const listTabs = LISTS.map((l) => {
      const count = h('span', { class: 'count' });
      const b = h(
        'button',
        {
          class: 'tab',
          type: 'button',
          role: 'tab',
          'data-list': l.key,
          title: l.what,
          onclick: () => this.setList(l.key),
        },
        l.title,
        count,
      );
      this.listBtns[l.key] = { b, count };
      return b;
    });
    this.search = h('input', {
      type: 'search',
      placeholder: 'Filter methods…',
      'aria-label': 'Filter methods',
      class: 'cmp-search',
      oninput: () => this.onSearch(),
    });
    this.moduleChip = h('span', { class: 'cmp-chip hidden' });
    this.pager = h('span', { class: 'cmp-pager' });
    this.prevBtn = h(
      'button',
      { class: 'btn btn-small', type: 'button', onclick: () => this.turn(-1) },
      '‹ Prev',
    );
    this.nextBtn = h(
      'button',
      { class: 'btn btn-small', type: 'button', onclick: () => this.turn(1) },
      'Next ›',
    );
    this.listMeta = h('span', { class: 'meta' });
    this.listMsg = h('div');
    this.tables = {
      b: oneSideTable(this, 'b'),
      a: oneSideTable(this, 'a'),
      both: bothTable(this),
    };
    this.tableBox = h('div', { class: 'cmp-list' });
    this.methodsEl = h(
      'section',
      { class: 'section', 'data-section': 'methods' },
      sectionHead('Methods', this.listMeta),
      h('div', { class: 'tabs cmp-tabs', role: 'tablist' }, listTabs),
      h(
        'div',
        { class: 'cmp-toolbar' },
        this.search,
        this.moduleChip,
        h('span', { class: 'spacer' }),
        this.pager,
        this.prevBtn,
        this.nextBtn,
        h(
          'button',
          {
            class: 'btn btn-small',
            type: 'button',
            'data-export': 'methods',
            title: 'This list (filtered, sorted, up to 10,000 rows) as a CSV file',
            onclick: () => this.exportList(),
          },
          'CSV',
        ),
      ),
      this.listMsg,
      this.tableBox,
    );

    // ---- modules ----
    this.modTable = moduleTable(this);
    this.onlyTable = onlyModulesTable(this);
    this.modMeta = h('span', { class: 'meta' });
    this.modMsg = h('div');
    this.onlyMeta = h('span', { class: 'meta' });
    this.modulesEl = h(
      'section',
      { class: 'section', 'data-section': 'modules' },
      sectionHead(
        'JIT by module',
        this.modMeta,
        h(
          'button',
          {
            class: 'btn btn-small',
            type: 'button',
            'data-export': 'modules',
            onclick: () =>
              downloadExport(
                this.url('modules', { only: 'all', limit: 10000, format: 'csv' }),
              ).then((r) => {
                if (!r.ok) toast(`Export failed: ${r.error}`, { kind: 'error' });
              }),
          },
          'CSV',
        ),
      ),
      this.modMsg,
      this.modTable.el,
    );
    this.onlyEl = h(
      'section',
      { class: 'section', 'data-section': 'only-modules' },
      sectionHead('Modules loaded in only one', this.onlyMeta),
      this.onlyTable.el,
    );

    this.body = h('div', { class: 'page cmp-body' }, this.methodsEl, this.modulesEl, this.onlyEl);
    this.el = h('div', { class: 'session compare' }, this.head, this.body);
    this.setList('b', false);
  }

  // ---- page ----
  crumbs() {
    const out = [h('a', { href: '#/' }, 'Sessions'), h('span', { class: 'sep' }, '›')];
    out.push(
      h('span', { class: 'cur' }, this.a && this.b ? `Compare #${this.a} ↔ #${this.b}` : 'Compare'),
    );
    return out;
  }

  mount(container) {
    fill(container, this.el);
    this.loadSessions();
    if (this.a && this.b) this.refresh();
    else {
      this.app.setConnection('poll', 'REST');
      this.showPick();
    }
  }

  unmount() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.searchTimer);
  }

  stats() {
    return {
      a: this.a,
      b: this.b,
      list: this.list,
      offset: this.offset,
      q: this.q,
      module: this.module,
      total: this.page ? this.page.total : null,
      rows: this.page ? this.page.rows.length : 0,
      summary: this.data ? this.data.summary : null,
      modules: this.modules.length,
    };
  }

  url(section, params = {}) {
    const u = new URLSearchParams({ a: String(this.a), b: String(this.b), section });
    for (const [k, v] of Object.entries(params)) if (v !== '' && v != null) u.set(k, String(v));
    return `/api/compare?${u}`;
  }

  async loadSessions() {
    const r = await api('/api/sessions');
    if (this.stopped || !r.ok) return;
    this.sessions = (r.data.sessions || []).slice().sort((x, y) => y.id - x.id);
    for (const [sel, cur] of [
      [this.pickA, this.a],
      [this.pickB, this.b],
    ]) {
      fill(
        sel,
        h('option', { value: '' }, '— pick a session —'),
        this.sessions.map((s) =>
          h('option', { value: String(s.id), selected: s.id === cur }, sessionLabel(s)),
        ),
      );
      if (cur && !this.sessions.some((s) => s.id === cur))
        sel.append(h('option', { value: String(cur), selected: true }, `#${cur} (unknown)`));
    }
    if (!(this.a && this.b)) this.showPick();
  }

  pick() {
    const a = Number(this.pickA.value) || null,
      b = Number(this.pickB.value) || null;
    this.app.navigate(compareHref(a, b));
  }

  swap() {
    if (this.a || this.b) this.app.navigate(compareHref(this.b, this.a));
  }

  // Without two sessions: say how to pick, and suggest the newest session against its previous run.
  showPick() {
    this.methodsEl.classList.add('hidden');
    this.modulesEl.classList.add('hidden');
    this.onlyEl.classList.add('hidden');
    const list = this.sessions || [];
    const b = this.b ? list.find((s) => s.id === this.b) : list.find((s) => previousRun(s, list));
    const a = b && previousRun(b, list);
    fill(
      this.msg,
      notice(
        'info',
        h('b', null, 'Pick two sessions to compare'),
        ' (A is the baseline, B the run under question): which methods B JITed that A did not, and the other way round, with JIT times side by side.',
        a && b
          ? [
              ' ',
              h(
                'a',
                { href: compareHref(a.id, b.id), class: 'btn btn-small btn-primary' },
                `Compare #${b.id} with its previous run #${a.id}`,
              ),
            ]
          : null,
      ),
    );
  }

  async refresh() {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const st = await this.loadSummary();
    let loaded = true;
    if (st === 'ok') {
      // one after the other: the server computes two comparisons at a time
      loaded = await this.loadModules();
      loaded = (await this.loadList()) && loaded;
    }
    const running =
      st === 'ok' && (!loaded || !(isFinal(this.data.a.state) && isFinal(this.data.b.state)));
    if (st === 'ok')
      this.app.setConnection(
        'poll',
        running
          ? `REST polling every ${REFRESH_MS / 1000} s`
          : 'REST (both sessions ended: loaded once)',
      );
    else if (st === 'retry') this.app.setConnection('bad', 'server unreachable');
    if (!this.stopped && (running || st === 'retry'))
      this.timer = setTimeout(() => this.refresh(), REFRESH_MS);
  }

  // 'ok', 'retry' (the server did not answer), or 'bad' (400/404: other sessions are needed)
  async loadSummary() {
    const r = await api(this.url('summary'));
    if (this.stopped) return 'bad';
    const sections = [this.methodsEl, this.modulesEl, this.onlyEl];
    if (!r.ok) {
      const bad = r.status === 400 || r.status === 404; // else (unreachable, 429 busy, 503): retry
      fill(
        this.msg,
        notice(
          'error',
          describeError('Compare', r),
          h('span', { class: 'dim' }, bad ? ' — pick other sessions above.' : ' — retrying.'),
        ),
      );
      if (bad || !this.data) {
        this.sidesEl.replaceChildren();
        this.statsEl.replaceChildren();
        for (const el of sections) el.classList.add('hidden');
      }
      return bad ? 'bad' : 'retry';
    }
    fill(this.msg);
    for (const el of sections) el.classList.remove('hidden');
    this.data = r.data;
    this.renderHead();
    return 'ok';
  }

  renderHead() {
    const { a, b, summary: sm } = this.data;
    const side = (letter, s) =>
      h(
        'div',
        { class: 'cmp-side', 'data-side': letter },
        h('span', { class: 'cmp-letter' }, letter.toUpperCase()),
        stateBadge(s),
        h('a', { href: sessionHref(s.id), class: 'session-link' }, `#${s.id}`),
        h(
          'span',
          { class: 'mono clip cmp-cmd', title: s.command_line || '' },
          s.command_line || `pid ${s.pid}`,
        ),
        h('span', { class: 'dim nowrap' }, fmtDateTime(s.created_ms)),
      );
    fill(this.sidesEl, side('a', a), side('b', b));
    const stat = (k, v, sub, cls = '', tip = '') =>
      h(
        'div',
        { class: `stat ${cls}`, title: tip },
        h('div', { class: 'k' }, k),
        h('div', { class: 'v' }, v, sub ? h('small', null, ` ${sub}`) : null),
      );
    fill(
      this.statsEl,
      stat('JIT time A', fmtNs(sm.a.jit_time_total_ns), `${fmtInt(sm.a.compilations)} JITs`),
      stat('JIT time B', fmtNs(sm.b.jit_time_total_ns), `${fmtInt(sm.b.compilations)} JITs`),
      stat('Δ JIT time', deltaCell(sm.delta_jit_ns), null, '', 'B − A'),
      stat(
        'Methods A',
        fmtInt(sm.a.functions),
        sm.a.unnamed ? `${fmtInt(sm.a.unnamed)} unnamed` : null,
      ),
      stat(
        'Methods B',
        fmtInt(sm.b.functions),
        sm.b.unnamed ? `${fmtInt(sm.b.unnamed)} unnamed` : null,
      ),
      stat(
        'Only in B',
        fmtInt(sm.methods.only_b),
        fmtNs(sm.b.only_jit_ns),
        sm.methods.only_b ? 'warn' : '',
        'methods B JITed and A did not, and their JIT time',
      ),
      stat(
        'Only in A',
        fmtInt(sm.methods.only_a),
        fmtNs(sm.a.only_jit_ns),
        '',
        'methods A JITed and B did not, and their JIT time',
      ),
      stat('In both', fmtInt(sm.methods.both)),
      stat('Modules only A / B', `${fmtInt(sm.modules.only_a)} / ${fmtInt(sm.modules.only_b)}`),
    );
    setText(this.listBtns.b.count, fmtInt(sm.methods.only_b));
    setText(this.listBtns.a.count, fmtInt(sm.methods.only_a));
    setText(this.listBtns.both.count, fmtInt(sm.methods.both));
    this.app.updateCrumbs();
  }

  async loadModules() {
    const r = await api(this.url('modules', { only: 'all', limit: 10000, sort: 'abs_delta' }));
    if (this.stopped) return true;
    if (!r.ok) {
      fill(
        this.modMsg,
        notice('error', describeError('Modules', r), h('span', { class: 'dim' }, ' — retrying.')),
      );
      return false;
    }
    fill(this.modMsg);
    this.modules = r.data.modules.rows;
    this.modTable.setEmptyText('No modules.');
    this.modTable.setRows(this.modules);
    const only = this.modules.filter((m) => m.in !== 'both');
    this.onlyTable.setRows(only);
    const more =
      r.data.modules.total > this.modules.length
        ? ` (the ${fmtInt(this.modules.length)} with the largest Δ of ${fmtInt(r.data.modules.total)})`
        : '';
    this.modMeta.textContent = `per module, side by side${more} · click a module to filter the methods`;
    this.onlyMeta.textContent = only.length
      ? `${only.filter((m) => m.in === 'a').length} only in A, ${only.filter((m) => m.in === 'b').length} only in B`
      : '';
    return true;
  }

  setList(key, load = true) {
    this.list = key;
    this.offset = 0;
    for (const [k, { b }] of Object.entries(this.listBtns)) {
      b.classList.toggle('active', k === key);
      b.setAttribute('aria-selected', String(k === key));
    }
    fill(this.tableBox, this.tables[key].el);
    const l = LISTS.find((x) => x.key === key);
    this.listMeta.textContent = l.what;
    if (load && this.data) this.loadList();
  }

  setModule(module) {
    this.module = module || '';
    this.offset = 0;
    this.moduleChip.classList.toggle('hidden', !this.module);
    fill(
      this.moduleChip,
      this.module
        ? [
            'module: ',
            h('b', null, this.module),
            h(
              'button',
              {
                class: 'x',
                type: 'button',
                title: 'Show every module',
                onclick: () => this.setModule(''),
              },
              '×',
            ),
          ]
        : null,
    );
    this.loadList();
    if (this.module) this.methodsEl.scrollIntoView({ block: 'start' });
  }

  onSearch() {
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => {
      this.q = this.search.value.trim();
      this.offset = 0;
      this.loadList();
    }, 250);
  }

  turn(dir) {
    if (!this.page) return;
    const next = this.offset + dir * PAGE;
    if (next < 0 || next >= this.page.total) return;
    this.offset = next;
    this.loadList();
  }

  listParams(extra = {}) {
    const s = this.sort[this.list];
    return {
      only: this.list,
      sort: SORT_KEYS[s.key] || 'jit_time',
      order: s.desc ? 'desc' : 'asc',
      q: this.q,
      module: this.module,
      ...extra,
    };
  }

  async loadList() {
    if (!this.a || !this.b) return true;
    const seq = ++this.seq,
      list = this.list;
    const r = await api(this.url('methods', this.listParams({ limit: PAGE, offset: this.offset })));
    if (this.stopped || seq !== this.seq) return true;
    if (!r.ok) {
      fill(this.listMsg, notice('error', describeError('Methods', r)));
      return false;
    }
    fill(this.listMsg);
    this.page = r.data.methods;
    const l = LISTS.find((x) => x.key === list);
    const t = this.tables[list];
    t.setEmptyText(this.q || this.module ? 'No method matches the filter.' : l.empty);
    t.setRows(this.page.rows);
    const n = this.page.total,
      from = n ? this.offset + 1 : 0,
      to = this.offset + this.page.rows.length;
    setText(this.pager, n ? `${fmtInt(from)}–${fmtInt(to)} of ${fmtInt(n)}` : '0 methods');
    this.prevBtn.disabled = this.offset === 0;
    this.nextBtn.disabled = to >= n;
    this.tableBox.dataset.loaded = `${list}:${this.offset}:${this.q}:${this.module}:${this.sort[list].key}:${this.sort[list].desc}`;
    return true;
  }

  async exportList() {
    const r = await downloadExport(
      this.url('methods', this.listParams({ limit: 10000, format: 'csv' })),
    );
    if (!r.ok) toast(`Export failed: ${r.error}`, { kind: 'error' });
    else toast(`Saved ${r.filename}`, { kind: 'ok' });
  }
}
