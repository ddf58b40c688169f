// gcview.js -- the session's "GC & pauses" tab: the garbage collections and
// runtime suspensions of the whole session (live: up to now; ended or read
// back from storage: start to end) from the session's PauseTimeline
// (timeline.js, which holds what GET /timeline and the stream gave), drawn by
// GcChart (gcchart.js) with zoom and pan, totals for what is in view, and the
// list of the collections in view (time, generation, reason, duration, the
// runtime suspension that went with it), sortable, at most LIST_MAX rows.
// Clicking a row zooms the chart to that collection; clicking a collection on
// the chart selects its row.
import { h, fill, setText } from '../dom.js';
import { schedule } from '../frame.js';
import { fmtInt, fmtNs, fmtMs, fmtClock, fmtDateTime, fmtRel } from '../format.js';
import { GcChart, gcGen, GEN_COLORS } from '../gcchart.js';
import { gensText } from '../pausechart.js';
import { TIMELINE_CAP } from '../timeline.js';
import { DataTable } from './table.js';
import { notice, emptyMark, sectionHead } from './common.js';

const LIST_MAX = 1000;
// A collection's reason (docs/API.md, GcReason): the runtime's own, from its
// GC events, or, where those did not come (an older agent, JITSCOPE_GC_REASONS=0),
// the profiling API's induced / other. [label, tooltip]
const GC_REASONS = {
  alloc_soh: ['allocation', 'small-object allocations used up the gen 0 budget'],
  alloc_loh: ['large allocation', 'large-object (85,000 B+) allocations used up their budget'],
  induced: ['induced', 'asked for by code (GC.Collect, GC.AddMemoryPressure...) or a tool'],
  induced_not_forced: [
    'induced (not forced)',
    'GC.Collect that let the runtime choose a background collection',
  ],
  induced_compacting: ['induced (compacting)', 'GC.Collect asking for a compacting collection'],
  induced_aggressive: [
    'induced (aggressive)',
    'GC.Collect in aggressive mode: the heap given back as far as it can',
  ],
  low_memory: ['low memory', 'the OS reported low memory'],
  low_memory_blocking: [
    'low memory (blocking)',
    'the OS reported low memory; a blocking collection',
  ],
  low_memory_host: ['low memory (host)', 'the host reported low memory'],
  low_memory_host_blocking: [
    'low memory (host, blocking)',
    'the host reported low memory; a blocking collection',
  ],
  oos_soh: ['out of space', 'the small-object heap ran out of space in its segment or region'],
  oos_loh: ['out of space (LOH)', 'the large-object heap ran out of space'],
  empty: ['empty', 'the runtime\'s "empty" reason'],
  gc_stress: ['GC stress', 'GC stress testing (DOTNET_GCStress)'],
  pm_full_gc: ['provisional full GC', 'provisional mode asked for a full collection'],
  bgc_tuning_soh: ['BGC tuning', 'background GC tuning (small-object heap)'],
  bgc_tuning_loh: ['BGC tuning (LOH)', 'background GC tuning (large-object heap)'],
  bgc_stepping: ['BGC stepping', 'background GC stepping'],
  other: [
    'other',
    "the runtime decided (an allocation budget was used up, low memory, ...); the runtime's own reason was not reported (its GC events were off), and the profiling API tells only induced from other",
  ],
};
const gcReason = (name) => GC_REASONS[name] || [name, name];

export class GcTab {
  constructor(session) {
    this.session = session;
    this.tl = session.timeline;
    this.active = false;
    this.sort = { key: 'ordinal', desc: false };
    this.listSig = '';
    this.drawTask = () => this.draw();

    this.outBtn = h(
      'button',
      {
        class: 'btn btn-small gc-zoom-out',
        type: 'button',
        title: 'Zoom out (−; or the mouse wheel)',
        onclick: () => this.zoom(1.5),
      },
      '− Zoom out',
    );
    this.inBtn = h(
      'button',
      {
        class: 'btn btn-small gc-zoom-in',
        type: 'button',
        title: 'Zoom in around the middle (+; or the mouse wheel over the chart)',
        onclick: () => this.zoom(1 / 1.5),
      },
      '+ Zoom in',
    );
    this.allBtn = h(
      'button',
      {
        class: 'btn btn-small gc-whole',
        type: 'button',
        title: 'Show the whole session (0, or double-click the chart)',
        onclick: () => this.chart.reset(),
      },
      'Whole session',
    );
    this.rangeInfo = h('span', { class: 'gc-range' });
    this.toolbar = h(
      'div',
      { class: 'toolbar gc-toolbar' },
      this.outBtn,
      this.inBtn,
      this.allBtn,
      this.rangeInfo,
      h('span', { class: 'spacer' }),
      h(
        'span',
        { class: 'hint' },
        'wheel: zoom · drag: pan · double-click: whole session · click a GC: find it in the list',
      ),
    );
    this.statsEl = h('div', { class: 'p-stats gc-stats' });
    this.msg = h('div', { class: 'p-msg' });

    this.canvas = h('canvas', {
      class: 'gc-chart',
      role: 'img',
      'aria-label':
        'Garbage collections (a bar each: its duration) and the time the runtime was suspended per second, over the whole session or the part zoomed to',
    });
    this.chart = new GcChart(this.canvas, this.tl);
    this.chart.ordinalOf = (g) => this.ordinal(g);
    this.chart.onChange = () => schedule(this.drawTask);
    this.chart.onView = () => {
      this.listSig = '';
    };
    this.chart.onPick = (g) => this.pick(g);
    this.chartBox = h('div', { class: 'gc-box' }, this.canvas);

    this.table = new DataTable({
      rowKey: (r) => r.ordinal,
      className: 'gc-table',
      emptyText: 'No garbage collection in this session yet.',
      sort: this.sort,
      onSort: (key, desc) => {
        this.sort = { key, desc };
        this.listSig = '';
        schedule(this.drawTask);
      },
      onRowClick: (r) => {
        this.pick(r.gc);
        this.chart.focus(r.gc);
      },
      columns: [
        {
          key: 'ordinal',
          title: '#',
          num: true,
          width: '64px',
          tip: "the collection's number in the session, in order",
          render: (r) => fmtInt(r.ordinal),
        },
        {
          key: 't',
          title: 'Time',
          width: '120px',
          tip: 'when it started (local time)',
          render: (r) => h('span', { title: fmtDateTime(r.t) }, fmtClock(r.t)),
        },
        {
          key: 'rel',
          title: 'Since start',
          num: true,
          width: '96px',
          sort: false,
          tip: 'seconds since the session started',
          render: (r) => `${fmtRel(r.t, this.baseMs())} s`,
        },
        {
          key: 'gen',
          title: 'Generation',
          width: '130px',
          tip: 'the highest generation collected (a gen 2 collection also collects 0 and 1); LOH: the large object heap, POH: the pinned object heap',
          render: (r) =>
            h(
              'span',
              {
                class: 'gc-gen',
                title: `collected generations: ${r.gens.map((x) => (x === 3 ? 'LOH' : x === 4 ? 'POH' : x)).join(', ') || 'not reported'}`,
              },
              h('i', { class: 'gc-swatch', style: { background: GEN_COLORS[r.gen] } }),
              gensText(r.gens),
            ),
        },
        {
          key: 'reason',
          title: 'Reason',
          width: '150px',
          tip: "why it happened, as the runtime's GC events say it (induced: asked for by code or a tool)",
          render: (r) => h('span', { title: gcReason(r.reason)[1] }, gcReason(r.reason)[0]),
        },
        {
          key: 'ns',
          title: 'Duration',
          num: true,
          width: '100px',
          tip: "from the GC's start to its finish, on the app's clock",
          render: (r) =>
            r.complete
              ? fmtNs(r.ns)
              : emptyMark(
                  'its finish was never seen: the next collection started first (records lost), so its duration is unknown',
                ),
        },
        {
          key: 'susp',
          title: 'Runtime suspended',
          num: true,
          width: '140px',
          tip: 'the runtime suspension for this collection (from suspending the threads to resuming them): the time the app stood still',
          render: (r) =>
            r.susp
              ? fmtNs(r.susp.ns)
              : emptyMark(
                  'no GC suspension around it is known: its records were lost, or it is older than the newest suspensions kept',
                ),
        },
      ],
    });
    this.listMeta = h('span', { class: 'meta' });
    this.listNote = h('div');
    this.el = h(
      'div',
      { class: 'gc-view' },
      this.toolbar,
      this.statsEl,
      this.msg,
      this.chartBox,
      h(
        'div',
        { class: 'tab-page gc-list' },
        sectionHead('Collections', this.listMeta),
        this.listNote,
        this.table.el,
      ),
    );
    this.resizeObs = new ResizeObserver(() => schedule(this.drawTask));
    this.resizeObs.observe(this.chartBox);
  }

  show() {
    this.active = true;
    this.listSig = '';
    schedule(this.drawTask);
  }
  hide() {
    this.active = false;
    clearTimeout(this.timer);
    this.timer = null;
  }
  destroy() {
    this.hide();
    this.resizeObs.disconnect();
  }

  baseMs() {
    const s = this.session.summary;
    return s ? s.connected_ms || s.created_ms : null;
  }

  // A collection's number in the session: those the server no longer keeps
  // and those this page let go come first. (Positions are indexed once per
  // change of the timeline: a list of 65,536 would otherwise cost n² looks.)
  ordinal(g) {
    const tl = this.tl;
    if (this.posVersion !== tl.version || !this.pos) {
      tl.sort();
      this.pos = new Map(tl.gcs.map((x, i) => [x, i]));
      this.posVersion = tl.version;
    }
    const i = this.pos.get(g);
    return i === undefined ? null : tl.evicted.gcs + tl.dropped.gcs + i + 1;
  }

  zoom(f) {
    const r = this.chart.range();
    if (r) this.chart.zoomBy(f, (r.from + r.to) / 2);
  }

  // A collection clicked on the chart: select it, and show its row (sorted by time).
  pick(g) {
    this.chart.selected = g;
    this.picked = g;
    this.listSig = '';
    schedule(this.drawTask);
  }

  // The session's span: its start (or its first entry, if earlier) to its end, or now.
  domain() {
    const s = this.session.summary;
    const tl = this.tl;
    tl.sort();
    let from = this.baseMs();
    const first = Math.min(
      tl.gcs.length ? tl.gcs[0].t : Infinity,
      tl.susp.length ? tl.susp[0].t : Infinity,
    );
    if (from == null || first < from) from = first;
    let to = s && (s.ended_ms || (s.detach && s.detach.finished_ms));
    if (!to || !this.session.isFinal()) to = Date.now();
    const last = Math.max(
      tl.gcs.length ? tl.gcs[tl.gcs.length - 1].t + tl.gcs[tl.gcs.length - 1].ns / 1e6 : -Infinity,
      tl.susp.length
        ? tl.susp[tl.susp.length - 1].t + tl.susp[tl.susp.length - 1].ns / 1e6
        : -Infinity,
    );
    return { from, to: Math.max(to, last) };
  }

  draw() {
    if (!this.active) return;
    const tl = this.tl;
    const d = this.domain();
    if (Number.isFinite(d.from)) this.chart.setDomain(d.from, d.to);
    this.chart.baseMs = this.baseMs();
    this.chart.draw();
    const r = this.chart.range();
    const live = !this.session.isFinal();
    if (live && !this.timer)
      this.timer = setTimeout(() => {
        this.timer = null;
        schedule(this.drawTask);
      }, 1000); // the live end moves
    this.outBtn.disabled = this.allBtn.disabled = !this.chart.zoomed();
    setText(
      this.rangeInfo,
      r
        ? `${this.chart.zoomed() ? 'view' : 'whole session'}: ${fmtClock(r.from, false)} – ${fmtClock(r.to, false)}${!this.chart.zoomed() && live ? ' (now)' : ''} · ${fmtMs(r.to - r.from)}`
        : '',
    );

    let note = null;
    if (tl.missing)
      note = notice('warn', 'This server has no GC / suspension timeline (GET /timeline).');
    else if (tl.error && !tl.loaded) note = notice('error', tl.error);
    const nsig = note ? note.textContent : '';
    if (this.msg._sig !== nsig) {
      this.msg._sig = nsig;
      fill(this.msg, note);
    }

    const sig = `${tl.version}|${r ? `${r.from}|${r.to}` : ''}|${this.sort.key}|${this.sort.desc}|${this.picked ? this.picked.t : ''}`;
    if (sig === this.listSig || !r) return;
    // while live and whole, the view grows every second: rebuild at most every second,
    // or every ten times as long as the last rebuild took (tens of thousands of GCs)
    const now = performance.now();
    if (
      this.listSig &&
      live &&
      !this.chart.zoomed() &&
      now - (this.listAt || 0) < Math.max(1000, 10 * (this.listCost || 0))
    )
      return;
    this.listSig = sig;
    this.listAt = now;
    this.renderStats(r);
    this.renderList(r);
    this.listCost = performance.now() - now;
  }

  // Collections that overlap the view (one that began before it may still run into it).
  inView(r) {
    return this.chart.inView(r);
  }

  renderStats(r) {
    const gcs = this.inView(r);
    const byGen = [0, 0, 0];
    let longest = 0,
      total = 0,
      induced = 0;
    for (const g of gcs) {
      byGen[gcGen(g)]++;
      longest = Math.max(longest, g.ns);
      total += g.ns;
      if (g.reason.startsWith('induced')) induced++;
    }
    const bins = this.tl.bins(r.from, r.to, 1);
    const susp = bins.ns.gc[0] + bins.ns.jitscope[0] + bins.ns.other[0];
    const span = r.to - r.from;
    const stat = (k, v, sub, tip) =>
      h(
        'div',
        { class: 'stat', title: tip || null },
        h('div', { class: 'k' }, k),
        h('div', { class: 'v' }, v, sub ? h('small', null, ` ${sub}`) : null),
      );
    const pct = (ns) => `${(ns / 1e4 / span).toFixed(2)}% of the time`;
    fill(
      this.statsEl,
      stat(
        'Collections',
        fmtInt(gcs.length),
        `gen 0: ${fmtInt(byGen[0])} · gen 1: ${fmtInt(byGen[1])} · gen 2: ${fmtInt(byGen[2])}`,
        'collections that started in view, by the highest generation collected',
      ),
      stat('Induced', fmtInt(induced), null, 'asked for by code (GC.Collect...) or a tool'),
      stat(
        'Longest',
        gcs.length ? fmtNs(longest) : emptyMark('no collection in view'),
        null,
        'the longest collection in view, start to finish',
      ),
      stat('GC time', fmtNs(total), pct(total), "the collections' durations added up"),
      stat(
        'Runtime suspended',
        fmtNs(susp),
        pct(susp),
        'all the time the runtime stood still in view: by the GC, by jitscope (its stack snapshots and profile samples), other',
      ),
      stat(
        'By jitscope',
        fmtNs(bins.ns.jitscope[0]),
        `${fmtInt(bins.cnt.jitscope[0])} suspensions`,
        "jitscope's own suspensions: stack snapshots and profile samples",
      ),
    );
  }

  renderList(r) {
    const tl = this.tl;
    const all = this.inView(r);
    // the sort key of each collection (its suspension is looked up for every one only
    // when that is the key), then the rows shown, at most LIST_MAX
    const key = this.sort.key,
      dir = this.sort.desc ? -1 : 1;
    const get = {
      gen: (g) => gcGen(g) * 8 + g.gens.length,
      reason: (g) => gcReason(g.reason)[0],
      ns: (g) => (g.complete ? g.ns : -1),
      susp: (g) => {
        const s = tl.suspensionOf(g);
        return s ? s.ns : -1;
      },
    }[key];
    const keyed = all.map((g) => ({ g, o: this.ordinal(g), k: get ? get(g) : 0 }));
    keyed.sort((a, b) =>
      a.k < b.k ? -dir : a.k > b.k ? dir : get ? a.o - b.o : dir * (a.o - b.o),
    );
    let shown = keyed.slice(0, LIST_MAX);
    const picked = this.picked && keyed.find((x) => x.g === this.picked);
    if (picked && !shown.includes(picked)) shown = [picked, ...shown.slice(0, LIST_MAX - 1)];
    this.table.setRows(
      shown.map(({ g, o }) => ({
        gc: g,
        ordinal: o,
        t: g.t,
        ns: g.ns,
        gens: g.gens,
        gen: gcGen(g),
        reason: g.reason,
        complete: g.complete,
        susp: tl.suspensionOf(g),
        _sel: g === this.picked,
      })),
    );
    for (const tr of this.table.tbody.children)
      tr.classList.toggle('sel', !!(tr._row && tr._row._sel));
    const sel = this.table.tbody.querySelector('tr.sel');
    if (sel && this.scrollPicked !== this.picked) {
      this.scrollPicked = this.picked;
      sel.scrollIntoView({ block: 'nearest' });
    }
    const total = tl.gcs.length + tl.evicted.gcs + tl.dropped.gcs;
    const parts = [`${fmtInt(total)} in the session`];
    if (this.chart.zoomed()) parts.push(`${fmtInt(all.length)} in view`);
    if (keyed.length > LIST_MAX)
      parts.push(`the first ${fmtInt(LIST_MAX)} listed (sorted); zoom in for the others`);
    parts.push('click a row to zoom to it · click a column to sort');
    this.listMeta.textContent = parts.join(' · ');
    this.table.table.dataset.rows = String(all.length);
    const lost = tl.evicted.gcs + tl.dropped.gcs;
    const lnote = lost
      ? notice(
          'warn',
          `${fmtInt(lost)} older collections are no longer kept (the newest ${fmtInt(TIMELINE_CAP)} are).`,
        )
      : null;
    const lsig = lnote ? lnote.textContent : '';
    if (this.listNote._sig !== lsig) {
      this.listNote._sig = lsig;
      fill(this.listNote, lnote);
    }
  }
}
