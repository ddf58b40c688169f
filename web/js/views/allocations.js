// allocations.js -- the session's Allocations tab (GET /allocations, docs/API.md):
// the runtime's allocation samples scaled to estimated bytes and objects, the
// top types as a table, and the allocating stacks as a flame graph (root at the
// top, each stack's type its last frame, width = estimated bytes). Off until
// turned on: the switch sends POST /allocations. While the tab is shown the
// data is read again every few seconds.
import { h, fill } from '../dom.js';
import { api, describeError } from '../api.js';
import { fmtInt, fmtBytes, fmtPct } from '../format.js';
import { schedule } from '../frame.js';
import { FlameGraph } from '../flame.js';
import { DataTable } from './table.js';
import { notice } from './common.js';

const RELOAD_MS = 3000;

// The server's tree (bytes per node) as the flame graph's (value per node).
function flameTree(n) {
  return {
    name: n.name,
    value: n.bytes,
    kind: n.kind === 'root' || n.kind === 'method' ? undefined : n.kind,
    children: n.children.map(flameTree),
  };
}

export class AllocationsTab {
  constructor(session) {
    this.session = session;
    this.active = false;
    this.enabled = false;
    this.timer = null;
    this.meta = h('span', { class: 'meta' }, 'sampled allocations, by type and allocating stack');
    this.toggle = h(
      'button',
      { class: 'btn alloc-toggle', onclick: () => this.setEnabled(!this.enabled) },
      'Turn on',
    );
    this.msg = h('div');
    this.totals = h('div', { class: 'alloc-totals' });
    this.total = 0;
    this.table = new DataTable({
      rowKey: (t) => t.type,
      emptyText: 'No allocation sampled yet.',
      sort: { key: 'bytes', desc: true },
      columns: [
        {
          key: 'type',
          title: 'Type',
          cls: 'mono clip',
          render: (t) => h('span', { title: t.type }, t.type),
        },
        {
          key: 'bytes',
          title: 'Bytes (est.)',
          num: true,
          width: '120px',
          render: (t) => fmtBytes(t.bytes),
        },
        {
          key: 'share',
          title: 'Share',
          num: true,
          width: '80px',
          sort: (t) => t.bytes,
          render: (t) => fmtPct(this.total ? t.bytes / this.total : 0),
        },
        {
          key: 'objects',
          title: 'Objects (est.)',
          num: true,
          width: '120px',
          render: (t) => fmtInt(t.objects),
        },
        {
          key: 'samples',
          title: 'Samples',
          num: true,
          width: '90px',
          render: (t) => fmtInt(t.samples),
        },
      ],
    });
    this.flame = new FlameGraph({ unit: 'bytes (est.)', fmtValue: fmtBytes });
    this.drawTask = () => this.flame.draw();
    this.flame.requestDraw = () => schedule(this.drawTask);
    this.el = h(
      'div',
      { class: 'tab-page allocations-tab' },
      h(
        'div',
        { class: 'section-head' },
        h('h2', null, 'Allocations'),
        this.meta,
        h('span', { class: 'spacer' }),
        this.toggle,
      ),
      this.msg,
      this.totals,
      this.table.el,
      h('h3', { class: 'startup-h' }, 'Allocating stacks (width: estimated bytes)'),
      h('div', { class: 'alloc-flame' }, this.flame.el),
    );
  }

  show() {
    this.active = true;
    this.load();
  }
  hide() {
    this.active = false;
    clearTimeout(this.timer);
    this.timer = null;
  }
  destroy() {
    this.hide();
  }

  async setEnabled(on) {
    const r = await api(`/api/sessions/${this.session.id}/allocations`, {
      method: 'POST',
      body: { enabled: on },
    });
    if (!r.ok) {
      fill(this.msg, notice('error', describeError('The allocation switch', r)));
      return;
    }
    this.load();
  }

  async load() {
    clearTimeout(this.timer);
    const base = `/api/sessions/${this.session.id}/allocations`;
    const [r, s] = await Promise.all([api(base), api(`${base}?group=stack`)]);
    if (!this.active) return;
    this.timer = setTimeout(() => this.active && this.load(), RELOAD_MS);
    if (!r.ok || !s.ok) {
      fill(this.msg, notice('error', describeError('The allocations', r.ok ? s : r)));
      return;
    }
    const d = r.data;
    this.enabled = d.enabled || d.samples > 0;
    fill(this.toggle, this.enabled ? 'Turn off' : 'Turn on');
    fill(
      this.msg,
      this.enabled
        ? null
        : notice(
            'info',
            'Allocation sampling is off for this session: turn it on to see what allocates, and from where.',
          ),
    );
    this.total = d.types.reduce((n, t) => n + t.bytes, 0);
    fill(
      this.totals,
      h('span', null, h('b', null, fmtBytes(d.bytes)), ' allocated (estimated)'),
      h('span', null, h('b', null, fmtInt(d.objects)), ' objects'),
      h('span', null, h('b', null, fmtInt(d.samples)), ' samples'),
      d.unsent ? h('span', { class: 'dim' }, `${fmtInt(d.unsent)} more counted, not sent`) : null,
      d.source
        ? h(
            'span',
            { class: 'dim' },
            d.source === 'sampled'
              ? 'from the runtime’s randomized allocation sampling'
              : 'from AllocationTick events (biased towards large objects)',
          )
        : null,
    );
    this.table.setRows(d.types);
    this.flame.setTree(flameTree(s.data.tree));
    schedule(this.drawTask);
    this.el.dataset.state = 'done';
  }
}
