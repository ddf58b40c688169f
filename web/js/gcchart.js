// gcchart.js -- the GC tab's timeline on a canvas, over the whole session
// (its start to its end, or now while it is live) or the part of it zoomed
// to. Two lanes on one time axis: above, every garbage collection as a bar
// (x its start, width its duration, height its duration, colour its
// generation); below, how long the runtime stood suspended, in ms per second
// of each bin (bins about 3 px wide, so their length follows the zoom),
// stacked by who suspended it (the GC, jitscope, other). A thin bar at the
// bottom shows where the view lies in the session.
//
// Wheel: zoom around the pointer; drag: pan; double-click: the whole session;
// a click on a collection picks it (onPick). Keys while focused: + and -
// zoom, arrows pan, 0 the whole session. The owner calls setDomain() with
// the session's span and draw() from the frame scheduler; onChange asks for
// a redraw, onView says the view moved (the owner's list follows it).
import { fmtInt, fmtClock, fmtNs, fmtMs, fmtRel } from './format.js';
import { C, niceStep, tickText, prepCanvas, readout, label, fitParts, twoLanes } from './chart.js';
import { PAUSE_COLORS, gensText } from './pausechart.js';

export const GEN_COLORS = ['#3f9fd8', '#d9a33a', '#f26a61']; // highest generation collected: 0, 1, 2
const KINDS = ['gc', 'jitscope', 'other'];
const KIND_LABEL = { gc: 'by GC', jitscope: 'by jitscope', other: 'other' };
const PAD = { l: 58, r: 14, t: 26, b: 30 };
const GAP = 12; // between the lanes
const MIN_SPAN_MS = 2; // the deepest zoom
const BIN_PX = 3;
// time axis steps, ms: a label at most every ~100 px
const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5,
  36e5, 72e5, 216e5, 432e5, 864e5,
];

// The highest generation a collection collected (0, 1, 2); LOH and POH count as 2.
export function gcGen(g) {
  let top = 0;
  for (const x of g.gens) top = Math.max(top, Math.min(x, 2));
  return top;
}

export class GcChart {
  constructor(canvas, timeline) {
    this.canvas = canvas;
    this.tl = timeline;
    this.domain = null; // {from, to}: the session, unix ms
    this.view = null; // {from, to} once zoomed or panned; null: the whole session
    this.mouse = null; // {x, y} in CSS px
    this.drag = null;
    this.selected = null; // a GC entry of the timeline, outlined
    this.baseMs = null; // session start, for "+s" texts
    this.ordinalOf = null; // (gc) -> its number in the session
    this.onChange = null;
    this.onView = null;
    this.onPick = null;
    canvas.tabIndex = 0;
    canvas.addEventListener(
      'wheel',
      (e) => {
        if (!this.domain) return;
        e.preventDefault();
        const f = Math.exp(Math.max(-300, Math.min(300, e.deltaY)) * 0.002);
        this.zoomBy(f, this.msAt(e.offsetX));
      },
      { passive: false },
    );
    canvas.addEventListener('mousedown', (e) => {
      if (e.button !== 0 || !this.domain) return;
      e.preventDefault();
      canvas.focus({ preventScroll: true });
      const r = this.range();
      this.drag = { x0: e.clientX, from: r.from, to: r.to, moved: false };
      const move = (ev) => {
        const d = this.drag;
        if (!d) return;
        if (Math.abs(ev.clientX - d.x0) >= 3) d.moved = true;
        if (!d.moved) return;
        const msPerPx = (d.to - d.from) / this.plotWidth();
        this.setView(d.from - (ev.clientX - d.x0) * msPerPx, d.to - (ev.clientX - d.x0) * msPerPx);
      };
      const up = (ev) => {
        window.removeEventListener('mousemove', move);
        window.removeEventListener('mouseup', up);
        const d = this.drag;
        this.drag = null;
        if (d && !d.moved) {
          const rect = canvas.getBoundingClientRect();
          const g = this.gcAt(ev.clientX - rect.left);
          if (g && this.onPick) this.onPick(g);
        }
        this.changed();
      };
      window.addEventListener('mousemove', move);
      window.addEventListener('mouseup', up);
    });
    canvas.addEventListener('dblclick', () => this.reset());
    canvas.addEventListener('mousemove', (e) => {
      this.mouse = { x: e.offsetX, y: e.offsetY };
      this.changed();
    });
    canvas.addEventListener('mouseleave', () => {
      this.mouse = null;
      this.changed();
    });
    canvas.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || !this.domain) return;
      const r = this.range(),
        span = r.to - r.from;
      if (e.key === '+' || e.key === '=') this.zoomBy(1 / 1.5, (r.from + r.to) / 2);
      else if (e.key === '-' || e.key === '_') this.zoomBy(1.5, (r.from + r.to) / 2);
      else if (e.key === 'ArrowLeft') this.setView(r.from - span / 5, r.to - span / 5);
      else if (e.key === 'ArrowRight') this.setView(r.from + span / 5, r.to + span / 5);
      else if (e.key === '0') this.reset();
      else return;
      e.preventDefault(); // the page's shortcuts leave it alone
    });
  }

  changed() {
    if (this.onChange) this.onChange();
  }

  setDomain(from, to) {
    if (!Number.isFinite(from) || !Number.isFinite(to)) return;
    this.domain = { from, to: Math.max(to, from + MIN_SPAN_MS) };
  }

  // The span shown: the view, kept inside the session, or the whole session.
  range() {
    const d = this.domain;
    if (!d) return null;
    if (!this.view) return d;
    return { from: Math.max(d.from, this.view.from), to: Math.min(d.to, this.view.to) };
  }

  zoomed() {
    return !!this.view;
  }

  // Sets the view to [from, to] kept inside the session, at least MIN_SPAN_MS
  // wide; a view as wide as the session is the whole session (it follows the
  // live end again).
  setView(from, to) {
    const d = this.domain;
    if (!d) return;
    let span = Math.max(MIN_SPAN_MS, to - from);
    if (span >= d.to - d.from) {
      this.reset();
      return;
    }
    if (from < d.from) from = d.from;
    if (from + span > d.to) from = d.to - span;
    span = Math.min(span, d.to - from);
    this.view = { from, to: from + span };
    if (this.onView) this.onView();
    this.changed();
  }

  zoomBy(factor, atMs) {
    const r = this.range();
    if (!r) return;
    const at = Math.min(Math.max(atMs, r.from), r.to);
    this.setView(at - (at - r.from) * factor, at + (r.to - at) * factor);
  }

  reset() {
    const was = this.view;
    this.view = null;
    if (was && this.onView) this.onView();
    this.changed();
  }

  // Zooms to a window around one collection (at least 200 ms, 20 times its duration).
  focus(g) {
    const span = Math.max(200, (g.ns / 1e6) * 20);
    const mid = g.t + g.ns / 2e6;
    this.selected = g;
    this.setView(mid - span / 2, mid + span / 2);
  }

  plotWidth() {
    return Math.max(1, this.canvas.clientWidth - PAD.l - PAD.r);
  }

  msAt(x) {
    const r = this.range();
    return r.from + ((x - PAD.l) / this.plotWidth()) * (r.to - r.from);
  }

  xAt(ms) {
    const r = this.range();
    return PAD.l + ((ms - r.from) / Math.max(1e-9, r.to - r.from)) * this.plotWidth();
  }

  // The collection drawn under x: of those whose bar covers x the one drawn last
  // (on top: the latest to start), else the nearest within 4 px; or null.
  gcAt(x) {
    if (!this.domain || x < PAD.l - 4 || x > PAD.l + this.plotWidth() + 4) return null;
    const msPerPx = (this.range().to - this.range().from) / this.plotWidth();
    const at = this.msAt(x);
    let best = null,
      bestD = Infinity;
    for (const g of this.tl.gcsIn(at - 4 * msPerPx - this.longestGcMs(), at + 4 * msPerPx)) {
      const x0 = this.xAt(g.t),
        x1 = Math.max(x0 + 2, this.xAt(g.t + g.ns / 1e6));
      const dist = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
      if (dist <= 4 && dist <= bestD) {
        best = g;
        bestD = dist;
      } // in start order: a later one wins a tie
    }
    return best;
  }

  // The collections that overlap r (one that began before it may run into it).
  inView(r) {
    const list = this.tl.gcsIn(r.from - this.longestGcMs(), r.to);
    let k = 0;
    while (k < list.length && list[k].t + list[k].ns / 1e6 < r.from) k++; // only the first few can end before r
    const out = [];
    for (let i = k; i < list.length; i++)
      if (list[i].t + list[i].ns / 1e6 >= r.from) out.push(list[i]);
    return out;
  }

  longestGcMs() {
    if (this.tl.version !== this._lgVersion) {
      this._lgVersion = this.tl.version;
      this._lg = this.tl.gcs.reduce((m, g) => Math.max(m, g.ns / 1e6), 0);
    }
    return this._lg;
  }

  draw() {
    const c = prepCanvas(this.canvas);
    if (!c) return;
    const { g, W, H } = c;
    const { pw, inner, hA, hB, yA, yB } = twoLanes(W, H, PAD, GAP);
    const boxes = [];
    const r = this.range();

    // ---- what is in view ----
    const gcs = r ? this.inView(r) : [];
    let longest = 0;
    for (const x of gcs) longest = Math.max(longest, x.ns);
    const n = Math.max(1, Math.floor(pw / BIN_PX));
    const bins = r ? this.tl.bins(r.from, r.to, n) : null;
    let suspNs = 0,
      maxRate = 0;
    if (bins) {
      for (let k = 0; k < n; k++) {
        let tot = 0;
        for (const kind of KINDS) tot += bins.ns[kind][k];
        suspNs += tot;
        maxRate = Math.max(maxRate, tot / bins.binMs / 1e3); // ms per s
      }
    }
    const cd = this.canvas.dataset;
    cd.gcs = String(gcs.length);
    cd.longest = String(longest);
    cd.from = r ? String(r.from) : '';
    cd.to = r ? String(r.to) : '';
    cd.zoomed = String(!!this.view);

    // ---- title row: legend, then as much of the summary as fits ----
    g.fillStyle = C.strong;
    let x = PAD.l + label(g, boxes, 'Collections', PAD.l, 11) + 10;
    for (let gen = 0; gen <= 2; gen++) {
      g.fillStyle = GEN_COLORS[gen];
      g.fillRect(x, 7, 8, 8);
      g.fillStyle = C.text;
      x += 12 + label(g, boxes, `gen ${gen}`, x + 12, 11) + 10;
    }
    g.fillStyle = C.strong;
    x += 8 + label(g, boxes, 'Suspended', x + 8, 11) + 18;
    for (const kind of KINDS) {
      g.fillStyle = PAUSE_COLORS[kind];
      g.fillRect(x, 7, 8, 8);
      g.fillStyle = C.text;
      x += 12 + label(g, boxes, KIND_LABEL[kind], x + 12, 11) + 10;
    }
    if (r) {
      const span = r.to - r.from;
      const parts = [
        `${fmtInt(gcs.length)} GC${gcs.length === 1 ? '' : 's'}${gcs.length ? `, longest ${fmtNs(longest)}` : ''}`,
        `suspended ${fmtNs(suspNs)} (${(suspNs / 1e4 / span).toFixed(span > 0 && suspNs / 1e4 / span < 0.1 ? 2 : 1)}%)`,
        `${this.view ? 'view' : 'session'} ${fmtMs(span)}`,
      ];
      g.fillStyle = C.text;
      label(g, boxes, fitParts(g, parts, W - PAD.r - x - 8), W - PAD.r, 11, 'right');
    }

    // ---- lanes: frames, y scales ----
    const gcStepMs = niceStep(Math.max(longest / 1e6, 0.4), false);
    const gcMaxMs = gcStepMs * 4;
    const rateStep = niceStep(Math.max(maxRate, 0.4), false);
    const rateMax = rateStep * 4;
    g.strokeStyle = C.grid;
    g.lineWidth = 1;
    for (const [y0, hh] of [
      [yA, hA],
      [yB, hB],
    ]) {
      for (const k of [0, 2, 4]) {
        const y = Math.round(y0 + hh - (hh * k) / 4) + 0.5;
        g.beginPath();
        g.moveTo(PAD.l, y);
        g.lineTo(PAD.l + pw, y);
        g.stroke();
      }
    }
    g.fillStyle = C.text;
    label(g, boxes, tickText(gcMaxMs, gcStepMs), PAD.l - 6, yA + 5, 'right');
    label(g, boxes, `${tickText(gcMaxMs / 2, gcStepMs)}`, PAD.l - 6, yA + hA / 2, 'right');
    label(g, boxes, '0', PAD.l - 6, yA + hA - 4, 'right');
    label(g, boxes, tickText(rateMax, rateStep), PAD.l - 6, yB + 5, 'right');
    label(g, boxes, '0', PAD.l - 6, yB + hB - 4, 'right');

    if (!r) {
      g.textAlign = 'center';
      g.fillText('loading…', PAD.l + pw / 2, yA + inner / 2);
      this.canvas.labelBoxes = boxes;
      return;
    }

    g.save();
    g.beginPath();
    g.rect(PAD.l, PAD.t - 2, pw, inner + 4);
    g.clip();
    // suspended ms per second, stacked: GC at the bottom
    const bw = pw / n;
    for (let k = 0; k < n; k++) {
      let base = yB + hB;
      for (const kind of KINDS) {
        const v = bins.ns[kind][k] / bins.binMs / 1e3;
        if (!v) continue;
        const bh = Math.max(1.5, Math.min(hB, (v / rateMax) * hB));
        g.fillStyle = PAUSE_COLORS[kind];
        g.fillRect(PAD.l + k * bw, base - bh, Math.max(1, bw - 0.5), bh);
        base -= bh;
      }
    }
    // one bar per collection: incomplete ones (their end was never seen) as grey ticks.
    // Many to a pixel (a long session seen whole): the tallest of each generation per
    // pixel column is what shows, so only those are drawn (at most 3 per column).
    const scale = pw / (r.to - r.from);
    if (gcs.length > pw) {
      const top = [new Float32Array(pw + 2), new Float32Array(pw + 2), new Float32Array(pw + 2)];
      const open = new Uint8Array(pw + 2);
      for (const e of gcs) {
        const px = Math.min(pw + 1, Math.max(0, Math.floor((e.t - r.from) * scale)));
        if (!e.complete) {
          open[px] = 1;
          continue;
        }
        const bh = Math.max(2, Math.min(hA, (e.ns / 1e6 / gcMaxMs) * hA)),
          gen = gcGen(e);
        if (bh > top[gen][px]) top[gen][px] = bh;
      }
      // in each column the tallest behind, so every generation in it shows
      for (let px = 0; px < open.length; px++) {
        const order = [0, 1, 2]
          .filter((gen) => top[gen][px])
          .sort((a, b) => top[b][px] - top[a][px]);
        for (const gen of order) {
          g.fillStyle = GEN_COLORS[gen];
          g.fillRect(PAD.l + px, yA + hA - top[gen][px], 2, top[gen][px]);
        }
      }
      g.fillStyle = C.axis;
      for (let px = 0; px < open.length; px++)
        if (open[px]) g.fillRect(PAD.l + px, yA + hA * 0.6, 2, hA * 0.4);
    } else {
      for (const e of gcs) {
        const x0 = PAD.l + (e.t - r.from) * scale;
        const w = Math.max(2, (e.ns / 1e6) * scale);
        if (!e.complete) {
          g.fillStyle = C.axis;
          g.fillRect(x0, yA + hA * 0.6, 2, hA * 0.4);
          continue;
        }
        const bh = Math.max(2, Math.min(hA, (e.ns / 1e6 / gcMaxMs) * hA));
        g.fillStyle = GEN_COLORS[gcGen(e)];
        g.fillRect(x0, yA + hA - bh, w, bh);
      }
    }
    const sel = this.selected;
    if (sel && sel.t <= r.to && sel.t + sel.ns / 1e6 >= r.from) {
      const x0 = Math.round(this.xAt(sel.t)) + 0.5;
      g.strokeStyle = '#ffd166';
      g.setLineDash([3, 3]);
      g.beginPath();
      g.moveTo(x0, PAD.t);
      g.lineTo(x0, PAD.t + inner);
      g.stroke();
      g.setLineDash([]);
    }
    g.restore();

    // lane names, in the plots' top-left corners, on a backing so bars do not hide them
    for (const [text, y] of [
      ['GC duration, ms', yA + 8],
      ['runtime suspended, ms per second', yB + 8],
    ]) {
      g.fillStyle = 'rgba(21,25,32,.85)';
      g.fillRect(PAD.l + 2, y - 7, g.measureText(text).width + 8, 14);
      g.fillStyle = C.text;
      label(g, boxes, text, PAD.l + 6, y);
    }

    // ---- time axis: clock time, a tick every STEP ----
    this.drawAxis(g, boxes, r, pw, H);

    // ---- where the view lies in the session ----
    const d = this.domain,
      sy = H - 5;
    g.fillStyle = C.grid;
    g.fillRect(PAD.l, sy, pw, 3);
    g.fillStyle = this.view ? '#5aa2ff' : '#3a4250';
    const vx0 = PAD.l + ((r.from - d.from) / (d.to - d.from)) * pw;
    const vx1 = PAD.l + ((r.to - d.from) / (d.to - d.from)) * pw;
    g.fillRect(vx0, sy, Math.max(3, vx1 - vx0), 3);

    // ---- hover ----
    const m = this.mouse;
    if (m && !this.drag && m.x >= PAD.l && m.x <= PAD.l + pw) {
      const hit = this.gcAt(m.x);
      const cx = Math.round(hit ? this.xAt(hit.t) : m.x) + 0.5;
      g.strokeStyle = C.cursor;
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(cx, PAD.t);
      g.lineTo(cx, PAD.t + inner);
      g.stroke();
      const text = hit
        ? this.gcText(hit)
        : this.binText(bins, Math.min(n - 1, Math.floor((m.x - PAD.l) / bw)));
      readout(g, text, cx, PAD.t, PAD.l, PAD.l + pw);
      cd.readout = text;
    } else {
      cd.readout = '';
    }
    this.canvas.labelBoxes = boxes;
  }

  drawAxis(g, boxes, r, pw, H) {
    const span = r.to - r.from;
    g.font = '11px system-ui, "DejaVu Sans", sans-serif';
    // whole seconds while they are far enough apart, else milliseconds on the labels
    let sub = false;
    let step = STEPS.find(
      (s) => s >= 1000 && (s / span) * pw >= g.measureText('00:00:00').width + 24,
    );
    if (!step || (step === 1000 && (1000 / span) * pw > 400)) {
      sub = true;
      const room = g.measureText('00:00:00.000').width + 24;
      step = STEPS.find((s) => (s / span) * pw >= room) || STEPS[STEPS.length - 1];
      if (step >= 1000) sub = false;
    }
    // local-time ticks (whole minutes and hours in the viewer's zone)
    const offset = new Date(r.from).getTimezoneOffset() * 60000;
    const first = Math.ceil((r.from - offset) / step) * step + offset;
    g.fillStyle = C.text;
    g.strokeStyle = C.axis;
    const y = H - PAD.b + 11;
    for (let t = first; t <= r.to; t += step) {
      const x = this.xAt(t);
      g.beginPath();
      g.moveTo(Math.round(x) + 0.5, H - PAD.b);
      g.lineTo(Math.round(x) + 0.5, H - PAD.b + 3);
      g.stroke();
      const text = fmtClock(t, sub);
      const w = g.measureText(text).width;
      if (x - w / 2 < PAD.l - 6 || x + w / 2 > PAD.l + pw + PAD.r) continue; // no half labels at the edges
      label(g, boxes, text, x, y, 'center');
    }
  }

  gcText(e) {
    const s = this.tl.suspensionOf(e);
    const parts = [
      this.ordinalOf ? `GC #${fmtInt(this.ordinalOf(e))}` : 'GC',
      gensText(e.gens),
      e.reason,
      e.complete ? fmtNs(e.ns) : 'end not seen',
      `at ${fmtClock(e.t)}${this.baseMs != null ? ` (+${fmtRel(e.t, this.baseMs)} s)` : ''}`,
    ];
    if (s) parts.push(`runtime suspended ${fmtNs(s.ns)}`);
    return parts.join(' · ');
  }

  binText(bins, k) {
    const from = bins.fromMs + k * bins.binMs,
      to = from + bins.binMs;
    const sub = bins.binMs < 1000;
    const parts = [
      bins.binMs < 1
        ? `${fmtClock(from, true)} +${fmtMs(bins.binMs)}`
        : `${fmtClock(from, sub)}–${fmtClock(to, sub)}`,
    ];
    if (bins.gcN[k]) parts.push(`${bins.gcN[k]} GC${bins.gcN[k] > 1 ? 's' : ''} start here`);
    const stood = KINDS.filter((kind) => bins.ns[kind][k]).map(
      (kind) => `${fmtNs(bins.ns[kind][k])} ${KIND_LABEL[kind]}`,
    );
    parts.push(stood.length ? `suspended ${stood.join(', ')}` : 'no suspension');
    return parts.join(' · ');
  }
}
