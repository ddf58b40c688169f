// table.js -- small sortable DOM table for the non-virtualised views (sessions,
// processes, modules, threads, per-module totals, slowest JITs). Rows are
// keyed; a row's DOM is rebuilt only when its data changed, so periodic
// refreshes keep hover and focus. With `tree`, rows that name a parent row are
// listed under it (one level), collapsed until the parent's toggle opens them.
import { h, fill, setText } from '../dom.js';
import { emptyMark } from './common.js';

export class DataTable {
  // columns: [{key, title, num, cls, tip, sort: row => value | false, render: row => string|Node|array, width,
  //   empty: why a cell of this column can be empty (string or row => string)}]: a cell whose
  //   value is null or "–" shows a dash with that reason as its tooltip (emptyMark)
  // tree: {parentOf: row => parent key | null, describe: children => {text, title}}: a row whose
  //   parent is listed goes under it; the parent's first cell gets a toggle showing describe().
  //   tree.expanded: the Set of opened parents' keys, when it should outlive the table.
  // onSort(key, desc): the rows come sorted from elsewhere (a server-side sort of a paged
  //   list): a header click calls it instead of sorting here, and setRows keeps the order given.
  // groups: [{title, span, tip}] in column order: a header row above the columns' that
  //   says what each run of columns counts (e.g. which time window); setGroupTitles renames.
  constructor({
    columns,
    rowKey,
    onRowClick,
    emptyText = 'Nothing here yet.',
    sort,
    footer,
    className = '',
    tree = null,
    onSort = null,
    groups = null,
  }) {
    this.onSort = onSort;
    this.columns = columns;
    this.tree = tree;
    this.expanded = (tree && tree.expanded) || new Set(); // keys of parents whose children are shown
    this.rowKey = rowKey;
    this.onRowClick = onRowClick;
    this.emptyText = emptyText;
    this.sortKey = sort ? sort.key : null;
    this.sortDesc = sort ? !!sort.desc : false;
    this.footer = footer; // rows => [cells] | null
    this.rows = [];
    this.trs = new Map();
    this.groupThs = (groups || []).map((g) =>
      h(
        'th',
        { colspan: String(g.span), scope: 'colgroup', title: g.tip || null, class: g.cls || null },
        g.title,
      ),
    );
    this.thead = h(
      'thead',
      null,
      groups ? h('tr', { class: 'groups' }, this.groupThs) : null,
      h(
        'tr',
        { class: 'cols' },
        columns.map((c) => this.makeTh(c)),
      ),
    );
    this.tbody = h('tbody');
    this.tfoot = h('tfoot');
    this.table = h(
      'table',
      { class: `grid ${className}` },
      this.colgroup(),
      this.thead,
      this.tbody,
      this.tfoot,
    );
    this.el = h('div', { class: 'table-wrap' }, this.table);
    this.updateHead();
  }

  colgroup() {
    return h(
      'colgroup',
      null,
      this.columns.map((c) => h('col', c.width ? { style: { width: c.width } } : null)),
    );
  }

  makeTh(c) {
    const sortable = c.sort !== false;
    const th = h(
      'th',
      {
        class: `${c.num ? 'num' : ''}${sortable ? ' sortable' : ''}`,
        title: c.tip || null,
        scope: 'col',
      },
      c.title,
    );
    if (sortable) {
      th.addEventListener('click', () => {
        if (this.sortKey === c.key) this.sortDesc = !this.sortDesc;
        else {
          this.sortKey = c.key;
          this.sortDesc = !!c.num;
        }
        this.updateHead();
        if (this.onSort) this.onSort(this.sortKey, this.sortDesc);
        else this.setRows(this.rows, true);
      });
    }
    th._col = c;
    return th;
  }

  setGroupTitles(titles) {
    titles.forEach((t, i) => {
      if (this.groupThs[i] && this.groupThs[i].textContent !== t) this.groupThs[i].textContent = t;
    });
  }

  updateHead() {
    for (const th of this.thead.lastChild.children) {
      const on = th._col.key === this.sortKey;
      th.classList.toggle('sorted', on);
      th.classList.toggle('asc', on && !this.sortDesc);
    }
  }

  setEmptyText(text) {
    this.emptyText = text;
    if (!this.rows.length) this.setRows([], true);
  }

  setRows(rows, force = false) {
    this.rows = rows;
    let sorted = rows;
    const col = this.onSort ? null : this.columns.find((c) => c.key === this.sortKey);
    if (col) {
      const get = typeof col.sort === 'function' ? col.sort : (r) => r[col.key];
      const dir = this.sortDesc ? -1 : 1;
      sorted = rows.slice().sort((a, b) => {
        const x = get(a),
          y = get(b);
        if (x == null && y == null) return 0;
        if (x == null) return 1;
        if (y == null) return -1;
        if (typeof x === 'string' || typeof y === 'string')
          return dir * String(x).localeCompare(String(y));
        return dir * (x - y);
      });
    }
    if (sorted.length === 0) {
      this.trs.clear();
      fill(
        this.tbody,
        h(
          'tr',
          null,
          h('td', { class: 'empty', colspan: String(this.columns.length) }, this.emptyText),
        ),
      );
      fill(this.tfoot);
      return;
    }
    const next = new Map();
    const out = [];
    for (const { row, children, depth } of this.arrange(sorted)) {
      const key = this.rowKey(row);
      const open = !!children && this.expanded.has(key);
      const sig = `${JSON.stringify(row)}|${depth}|${open}|${children ? JSON.stringify(this.tree.describe(children)) : ''}`;
      let tr = this.trs.get(key);
      if (!tr || tr._sig !== sig || force)
        tr = this.makeTr(row, sig, tr, { children, depth, open });
      next.set(key, tr);
      out.push(tr);
    }
    this.trs = next;
    // reorder / replace children only where needed
    const kids = this.tbody.children;
    let same = kids.length === out.length;
    for (let i = 0; same && i < out.length; i++) if (kids[i] !== out[i]) same = false;
    if (!same) this.tbody.replaceChildren(...out);
    const foot = this.footer ? this.footer(rows) : null;
    if (foot) {
      const sig = JSON.stringify(foot.map((c) => (c instanceof Node ? c.textContent : c)));
      if (this.tfoot._sig !== sig) {
        this.tfoot._sig = sig;
        fill(
          this.tfoot,
          h(
            'tr',
            null,
            foot.map((c, i) =>
              h(
                'td',
                { class: this.cellClass(this.columns[i]) },
                c === '–' ? emptyMark('nothing to total yet') : c,
              ),
            ),
          ),
        );
      }
    } else fill(this.tfoot);
  }

  // Rows in display order: without a tree, as sorted; with one, each top row
  // followed by its children (in the same order) when it is expanded. A row
  // whose parent is not listed stands on its own.
  arrange(sorted) {
    if (!this.tree) return sorted.map((row) => ({ row, children: null, depth: 0 }));
    const keys = new Set(sorted.map((r) => this.rowKey(r)));
    const kids = new Map();
    const top = [];
    for (const row of sorted) {
      const parent = this.tree.parentOf(row);
      if (parent != null && parent !== this.rowKey(row) && keys.has(parent)) {
        if (!kids.has(parent)) kids.set(parent, []);
        kids.get(parent).push(row);
      } else top.push(row);
    }
    const out = [];
    for (const row of top) {
      const key = this.rowKey(row);
      const children = kids.get(key) || null;
      out.push({ row, children, depth: 0 });
      if (children && this.expanded.has(key))
        for (const c of children) out.push({ row: c, children: null, depth: 1 });
    }
    return out;
  }

  toggle(key) {
    if (this.expanded.has(key)) this.expanded.delete(key);
    else this.expanded.add(key);
    this.setRows(this.rows);
  }

  cellClass(c) {
    return `${c.num ? 'num' : ''}${c.cls ? ' ' + c.cls : ''}`;
  }

  makeTr(row, sig, old, { children = null, depth = 0, open = false } = {}) {
    const tr =
      old && old.children.length === this.columns.length && !old.querySelector('td.empty')
        ? old
        : h('tr');
    tr._sig = sig;
    tr._row = row;
    tr.classList.toggle('tree-child', depth > 0);
    tr.classList.toggle('tree-parent', !!children);
    if (this.onRowClick) {
      tr.classList.add('clickable');
      if (!tr._bound) {
        tr._bound = true;
        tr.addEventListener('click', (e) => {
          if (e.target.closest('button, a, input, select')) return;
          this.onRowClick(tr._row, e);
        });
      }
    }
    const cells = this.columns.map((c) => {
      const v = c.render ? c.render(row) : row[c.key];
      const td = h('td', { class: this.cellClass(c) });
      if (v instanceof Node || Array.isArray(v)) fill(td, v);
      else if (v == null || v === '–' || v === '—') fill(td, emptyMark(whyEmpty(c, row)));
      else setText(td, v);
      if (c.title_of) td.title = c.title_of(row) || '';
      return td;
    });
    if (children) {
      const key = this.rowKey(row);
      const { text, title } = this.tree.describe(children);
      cells[0].prepend(
        h(
          'button',
          {
            class: 'tree-toggle',
            type: 'button',
            'aria-expanded': String(open),
            title,
            onclick: (e) => {
              e.stopPropagation();
              this.toggle(key);
            },
          },
          h('span', { class: 'tree-caret', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
          ` ${text}`,
        ),
      );
    } else if (depth > 0) {
      cells[0].prepend(h('span', { class: 'tree-branch', 'aria-hidden': 'true' }, '└ '));
    }
    if (tr === old) {
      // only the cells that changed are replaced: one that did not stays the same element
      // (a live run's first cell, its toggle, while its counters change at every poll), so
      // a click whose press and release straddle a refresh still lands on it
      const prev = [...tr.children];
      cells.forEach((td, i) => {
        if (prev[i].outerHTML !== td.outerHTML) prev[i].replaceWith(td);
      });
    } else tr.replaceChildren(...cells);
    return tr;
  }
}

// The tooltip of an empty cell: the column's reason, else a plain one.
function whyEmpty(c, row) {
  const why = typeof c.empty === 'function' ? c.empty(row) : c.empty;
  return why || `no ${String(c.title || 'value').toLowerCase()} reported for this row`;
}
