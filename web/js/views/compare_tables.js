// compare_tables.js -- the Compare page's tables (compare.js): the method lists
// (only in A, only in B, in both: sorted and paged by the server, a column click
// asks it again through the view's sort state) and the module tables (every
// module with its deltas; the modules loaded in only one session), with the
// cells they share (a JIT-time delta, a count delta, where a module was loaded).
import { h } from '../dom.js';
import { fmtInt, fmtNs } from '../format.js';
import { methodName } from '../mname.js';
import { tierPill } from '../tiers.js';
import { DataTable } from './table.js';

const methodCell = (name) => methodName(name);
const moduleCell = (r) => h('span', { title: r.module || '' }, r.module);

// A signed JIT-time difference: more time in B is a regression (amber), less an improvement.
export function deltaCell(ns) {
  if (ns == null) return '–';
  if (ns === 0) return h('span', { class: 'faint' }, '0');
  return h(
    'span',
    {
      class: ns > 0 ? 'delta-up' : 'delta-down',
      title: `B − A: ${ns > 0 ? '+' : ''}${fmtInt(ns)} ns`,
    },
    `${ns > 0 ? '+' : '−'}${fmtNs(Math.abs(ns))}`,
  );
}

function deltaInt(n) {
  if (!n) return h('span', { class: 'faint' }, '0');
  return h(
    'span',
    { class: n > 0 ? 'delta-up' : 'delta-down' },
    `${n > 0 ? '+' : '−'}${fmtInt(Math.abs(n))}`,
  );
}

function inPill(m) {
  if (m.in === 'both') return h('span', { class: 'pill pill-off' }, 'both');
  return h(
    'span',
    {
      class: `pill ${m.in === 'b' ? 'pill-warn' : 'pill-catchup'}`,
      title: `loaded only in ${m.in.toUpperCase()}`,
    },
    `only ${m.in.toUpperCase()}`,
  );
}
const IN_COLUMN = { key: 'in', title: 'Loaded in', width: '84px', render: inPill };

const tierCell = (t) =>
  t
    ? tierPill(t)
    : h(
        'span',
        { class: 'faint', title: 'no live compilation (known from the attach-time catch-up)' },
        '–',
      );

function sortable(view, list) {
  return (key, desc) => {
    view.sort[list] = { key, desc };
    view.offset = 0;
    view.loadList();
  };
}

export function oneSideTable(view, side) {
  const S = side.toUpperCase();
  return new DataTable({
    rowKey: (r) => `${r.module}\n${r.name}`,
    emptyText: 'Loading…',
    sort: view.sort[side],
    onSort: sortable(view, side),
    columns: [
      { key: 'module', title: 'Module', cls: 'mono clip', width: '15%', render: moduleCell },
      {
        key: 'name',
        title: 'Method',
        cls: 'mono clip',
        width: '38%',
        render: (r) => methodCell(r.name),
      },
      {
        key: `${side}_jit_ns`,
        title: `JIT time in ${S}`,
        num: true,
        width: '110px',
        render: (r) => fmtNs(r[`${side}_jit_ns`]),
      },
      {
        key: `${side}_compilations`,
        title: 'JITs',
        num: true,
        width: '56px',
        tip: 'compilations (tier-up and OSR add more)',
      },
      {
        key: 'tier',
        title: 'Tier',
        width: '84px',
        sort: false,
        render: (r) => tierCell(r[`${side}_tier`]),
      },
      {
        key: 'il',
        title: 'IL size',
        num: true,
        width: '70px',
        sort: false,
        render: (r) => fmtInt(r[`${side}_il_size`]),
      },
      {
        key: 'native',
        title: 'Native',
        num: true,
        width: '70px',
        sort: false,
        render: (r) => fmtInt(r[`${side}_native_size`]),
      },
    ],
  });
}

export function bothTable(view) {
  return new DataTable({
    rowKey: (r) => `${r.module}\n${r.name}`,
    emptyText: 'Loading…',
    sort: view.sort.both,
    onSort: sortable(view, 'both'),
    columns: [
      { key: 'module', title: 'Module', cls: 'mono clip', width: '13%', render: moduleCell },
      {
        key: 'name',
        title: 'Method',
        cls: 'mono clip',
        width: '30%',
        render: (r) => methodCell(r.name),
      },
      {
        key: 'a_jit_ns',
        title: 'JIT A',
        num: true,
        width: '86px',
        render: (r) => fmtNs(r.a_jit_ns),
      },
      {
        key: 'b_jit_ns',
        title: 'JIT B',
        num: true,
        width: '86px',
        render: (r) => fmtNs(r.b_jit_ns),
      },
      {
        key: 'delta_jit_ns',
        title: 'Δ JIT',
        num: true,
        width: '96px',
        tip: 'B − A',
        render: (r) => deltaCell(r.delta_jit_ns),
      },
      { key: 'a_compilations', title: 'JITs A', num: true, width: '60px' },
      { key: 'b_compilations', title: 'JITs B', num: true, width: '60px' },
      {
        key: 'a_tier',
        title: 'Tier A',
        width: '80px',
        sort: false,
        render: (r) => tierCell(r.a_tier),
      },
      {
        key: 'b_tier',
        title: 'Tier B',
        width: '80px',
        sort: false,
        render: (r) => tierCell(r.b_tier),
      },
    ],
  });
}

// A table with a row a module; a click on one lists its methods.
function modulesTable(view, options) {
  return new DataTable({
    rowKey: (m) => m.module,
    onRowClick: (m) => view.setModule(m.module),
    ...options,
  });
}

export function moduleTable(view) {
  return modulesTable(view, {
    emptyText: 'Loading…',
    sort: { key: 'abs_delta', desc: true },
    columns: [
      { key: 'module', title: 'Module', cls: 'mono' },
      IN_COLUMN,
      {
        key: 'a_methods',
        title: 'Methods A',
        num: true,
        width: '84px',
        render: (m) => fmtInt(m.a_methods),
      },
      {
        key: 'b_methods',
        title: 'Methods B',
        num: true,
        width: '84px',
        render: (m) => fmtInt(m.b_methods),
      },
      {
        key: 'delta_methods',
        title: 'Δ',
        num: true,
        width: '60px',
        render: (m) => deltaInt(m.delta_methods),
      },
      {
        key: 'only_a_methods',
        title: 'Only A',
        num: true,
        width: '64px',
        tip: 'its methods JITed only in A',
        render: (m) => fmtInt(m.only_a_methods),
      },
      {
        key: 'only_b_methods',
        title: 'Only B',
        num: true,
        width: '64px',
        tip: 'its methods JITed only in B',
        render: (m) => fmtInt(m.only_b_methods),
      },
      {
        key: 'a_jit_ns',
        title: 'JIT A',
        num: true,
        width: '86px',
        render: (m) => fmtNs(m.a_jit_ns),
      },
      {
        key: 'b_jit_ns',
        title: 'JIT B',
        num: true,
        width: '86px',
        render: (m) => fmtNs(m.b_jit_ns),
      },
      {
        key: 'abs_delta',
        title: 'Δ JIT',
        num: true,
        width: '96px',
        tip: 'B − A (sorted by size)',
        render: (m) => deltaCell(m.delta_jit_ns),
        sort: (m) => Math.abs(m.delta_jit_ns),
      },
    ],
    footer: (rows) => {
      const t = (k) => rows.reduce((s, m) => s + (m[k] || 0), 0);
      return [
        `Total (${rows.length} modules)`,
        '',
        fmtInt(t('a_methods')),
        fmtInt(t('b_methods')),
        deltaInt(t('delta_methods')),
        fmtInt(t('only_a_methods')),
        fmtInt(t('only_b_methods')),
        fmtNs(t('a_jit_ns')),
        fmtNs(t('b_jit_ns')),
        deltaCell(t('delta_jit_ns')),
      ];
    },
  });
}

export function onlyModulesTable(view) {
  const side = (m, k) => m[`${m.in}_${k}`];
  return modulesTable(view, {
    emptyText: 'Both sessions loaded the same modules.',
    sort: { key: 'in', desc: true },
    columns: [
      { key: 'module', title: 'Module', cls: 'mono', width: '260px' },
      IN_COLUMN,
      {
        key: 'methods',
        title: 'Methods JITed',
        num: true,
        width: '110px',
        render: (m) => fmtInt(side(m, 'methods')),
        sort: (m) => side(m, 'methods'),
      },
      {
        key: 'jit',
        title: 'JIT time',
        num: true,
        width: '90px',
        render: (m) => fmtNs(side(m, 'jit_ns')),
        sort: (m) => side(m, 'jit_ns'),
      },
      {
        key: 'loads',
        title: 'Loads',
        num: true,
        width: '60px',
        tip: 'module instances (load contexts, paths)',
        render: (m) => fmtInt(side(m, 'loads')),
        sort: (m) => side(m, 'loads'),
      },
      {
        key: 'path',
        title: 'Path',
        cls: 'mono clip',
        render: (m) => side(m, 'path') || h('span', { class: 'faint' }, '(none)'),
        title_of: (m) => side(m, 'path') || '',
        sort: (m) => side(m, 'path'),
      },
    ],
  });
}
