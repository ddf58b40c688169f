// allocations.js -- the session's Allocations tab (GET /allocations, docs/API.md):
// the runtime's allocation samples scaled to estimated bytes and objects, the
// top types as a table, and the allocating stacks as a flame graph (root at the
// top, each stack's type its last frame, width = estimated bytes). Off until
// turned on: the switch sends POST /allocations. Above them, the bytes
// allocated per second beside the GC pauses on one time axis (allocchart.js):
// the series is read once (?series=second) and then continued by the live
// stream's allocation_second events, the pauses are the session's timeline
// (the GC tab's), and below them the heap's generations after each collection
// (GET .../timeline's `heap`: the newest 4,096 at first, then from a little
// before the newest held). Those events also ask for the types, stacks and
// heap again, at most every few seconds while the tab is shown.
import { h, fill } from '../dom.js';
import { api, describeError } from '../api.js';
import { fmtInt, fmtBytes, fmtPct } from '../format.js';
import { schedule } from '../frame.js';
import { FlameGraph } from '../flame.js';
import { AllocRateChart } from '../allocchart.js';
import { DataTable } from './table.js';
import { notice, sectionHead } from './common.js';

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
    this.seconds = new Map(); // unix ms of a second -> {t, bytes}
    this.seriesLoaded = false;
    this.heaps = new Map(); // unix ms -> {t, sizes}
    this.pending = null;
    this.rateCanvas = h('canvas', { class: 'alloc-rate-canvas' });
    this.rate = new AllocRateChart(this.rateCanvas);
    this.rateTask = () => this.drawRate();
    this.rate.onChange = () => schedule(this.rateTask);
    this.lastTimeline = -1;
    this.flame = new FlameGraph({ unit: 'bytes (est.)', fmtValue: fmtBytes });
    this.drawTask = () => this.flame.draw();
    this.flame.requestDraw = () => schedule(this.drawTask);
    this.el = h(
      'div',
      { class: 'tab-page allocations-tab' },
      sectionHead('Allocations', this.meta, this.toggle),
      this.msg,
      this.totals,
      h(
        'h3',
        { class: 'startup-h' },
        'Bytes allocated per second (estimated), the GC pauses, the heap after each GC',
      ),
      h('div', { class: 'alloc-rate' }, this.rateCanvas),
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
    clearTimeout(this.pending);
    this.pending = null;
  }

  // Live events: a closed second continues the series; a GC redraws; new
  // seconds and GCs ask for the types, stacks and heap again (at most every
  // RELOAD_MS).
  onEvents(events) {
    let seconds = 0;
    for (const e of events) {
      if (e.type !== 'allocation_second') continue;
      this.addSecond(e.time_ms, e.bytes);
      seconds++;
    }
    if (!this.active) return;
    const gcs = events.some((e) => e.type === 'gc');
    if (seconds || gcs) schedule(this.rateTask);
    if ((seconds || gcs) && !this.pending)
      this.pending = setTimeout(() => {
        this.pending = null;
        if (this.active) this.load();
      }, RELOAD_MS);
  }

  // the session's GC timeline moved (session.js calls it while the tab is shown)
  timelineChanged() {
    schedule(this.rateTask);
  }

  addSecond(t, bytes) {
    const had = this.seconds.get(t);
    // the REST series may hold a late sample the event left out: keep the larger
    this.seconds.set(t, { t, bytes: had ? Math.max(had.bytes, bytes) : bytes });
  }

  drawRate() {
    const list = [...this.seconds.values()].sort((a, b) => a.t - b.t);
    const tl = this.session.timeline;
    const heaps = [...this.heaps.values()].sort((a, b) => a.t - b.t);
    this.rate.setData(
      list,
      tl ? tl.gcs : [],
      heaps,
      this.session.baseTime ? this.session.baseTime() : 0,
    );
    this.rate.draw();
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
    const base = `/api/sessions/${this.session.id}/allocations`;
    // the series once; after it the stream's events carry it on
    const series = !this.seriesLoaded;
    let newestHeap = -Infinity;
    for (const t of this.heaps.keys()) newestHeap = Math.max(newestHeap, t);
    const heapQuery = Number.isFinite(newestHeap)
      ? `from_ms=${Math.floor(newestHeap - 5000)}`
      : 'limit=4096';
    const [r, s, tl] = await Promise.all([
      api(series ? `${base}?series=second` : base),
      api(`${base}?group=stack`),
      api(`/api/sessions/${this.session.id}/timeline?${heapQuery}`),
    ]);
    if (!this.active) return;
    if (tl.ok && tl.data && tl.data.heap)
      for (const e of tl.data.heap) this.heaps.set(e.time_ms, { t: e.time_ms, sizes: e.sizes });
    if (!r.ok || !s.ok) {
      fill(this.msg, notice('error', describeError('The allocations', r.ok ? s : r)));
      return;
    }
    const d = r.data;
    if (series && d.per_second) {
      this.seriesLoaded = true;
      for (const p of d.per_second) this.addSecond(p.time_ms, p.bytes);
    }
    schedule(this.rateTask);
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
