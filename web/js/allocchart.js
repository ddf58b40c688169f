// allocchart.js -- the Allocations tab's rate chart on a canvas: three lanes
// on one time axis. On top, the estimated bytes allocated in each second (GET
// .../allocations?series=second, then the stream's allocation_second events);
// in the middle, every garbage collection of the same span as a bar (x its
// start, width its duration, at least 2 px; height its pause; colour the
// highest generation it collected), from the session's PauseTimeline
// (timeline.js, which the GC tab draws too); below, the heap after each
// collection (GET .../timeline's `heap`, the runtime's GCHeapStats): each
// generation's size stacked (gen 0 at the bottom, then 1, 2, LOH, POH), held
// until the next collection. The span runs from the first second or heap
// entry to the end of the last; GCs outside it are not drawn. The mouse reads
// out the second, the GC and the heap under it.
import { fmtBytes, fmtNs } from './format.js';
import { C, niceStep, tickText, prepCanvas, readout, label, gridLine } from './chart.js';
import { GEN_COLORS, gcGen } from './gcchart.js';

const PAD = { l: 64, r: 14, t: 10, b: 24 };
const GAP = 14;
export const HEAP_COLORS = ['#3f9fd8', '#d9a33a', '#f26a61', '#9b7fe0', '#4fb58a']; // gen 0, 1, 2, LOH, POH
const HEAP_NAMES = ['gen 0', 'gen 1', 'gen 2', 'LOH', 'POH'];

// ms on the session's clock, "+12 s" (whole seconds) or "+1.5 s"
function relText(ms, base) {
  const s = (ms - base) / 1000;
  return `+${Number.isInteger(Math.round(s * 10) / 10) ? Math.round(s) : s.toFixed(1)} s`;
}

export class AllocRateChart {
  constructor(canvas) {
    this.canvas = canvas;
    this.seconds = []; // {t (unix ms, the second's start), bytes}, oldest first
    this.gcs = []; // {t, ns, gens}: the timeline's, as they are
    this.heaps = []; // {t, sizes: [5]}, oldest first
    this.baseMs = 0; // session start, for "+s" texts
    this.mouse = null;
    this.onChange = null;
    canvas.addEventListener('mousemove', (e) => {
      this.mouse = { x: e.offsetX, y: e.offsetY };
      this.onChange && this.onChange();
    });
    canvas.addEventListener('mouseleave', () => {
      this.mouse = null;
      this.onChange && this.onChange();
    });
  }

  setData(seconds, gcs, heaps, baseMs) {
    this.seconds = seconds;
    this.gcs = gcs;
    this.heaps = heaps;
    this.baseMs = baseMs;
  }

  // [from, to] in unix ms: the seconds' and the heap entries'; null while both are empty.
  span() {
    let from = Infinity,
      to = -Infinity;
    if (this.seconds.length) {
      from = this.seconds[0].t;
      to = this.seconds[this.seconds.length - 1].t + 1000;
    }
    if (this.heaps.length) {
      from = Math.min(from, this.heaps[0].t);
      to = Math.max(to, this.heaps[this.heaps.length - 1].t + 1);
    }
    return Number.isFinite(from) ? { from, to: Math.max(to, from + 1000) } : null;
  }

  draw() {
    const cv = this.canvas;
    const p = prepCanvas(cv);
    if (!p) return;
    const { g, W, H } = p;
    const boxes = [];
    const span = this.span();
    cv.labelBoxes = boxes;
    if (!span) {
      g.fillStyle = C.text;
      label(g, boxes, 'No allocation sampled and no heap statistics yet.', W / 2, H / 2, 'center');
      cv.dataset.seconds = '0';
      cv.dataset.gcs = '0';
      cv.dataset.heaps = '0';
      return;
    }
    const pw = W - PAD.l - PAD.r,
      inner = H - PAD.t - PAD.b - 2 * GAP;
    const hA = Math.round(inner * 0.4),
      hB = Math.round(inner * 0.22),
      hC = inner - hA - hB;
    const yA = PAD.t,
      yB = yA + hA + GAP,
      yC = yB + hB + GAP;
    const x = (ms) => PAD.l + ((ms - span.from) / (span.to - span.from)) * pw;
    const gcs = this.gcs.filter((e) => e.t + e.ns / 1e6 >= span.from && e.t <= span.to);
    const maxBytes = Math.max(1, ...this.seconds.map((s) => s.bytes));
    const maxPauseMs = Math.max(0.001, ...gcs.map((e) => e.ns / 1e6));
    const stepB = niceStep(maxBytes),
      topB = stepB * 4;
    const stepP = niceStep(maxPauseMs),
      topP = stepP * 4;

    // grid and the lanes' scales
    g.strokeStyle = C.grid;
    g.lineWidth = 1;
    g.fillStyle = C.text;
    for (let k = 0; k <= 4; k++) {
      const ya = gridLine(g, PAD.l, pw, yA, hA, k);
      if (k % 2 === 0) label(g, boxes, `${fmtBytes(stepB * k)}/s`, PAD.l - 6, ya, 'right');
      const yb = gridLine(g, PAD.l, pw, yB, hB, k);
      if (k === 4) label(g, boxes, `${tickText(stepP * k, stepP)} ms`, PAD.l - 6, yb, 'right');
    }
    label(g, boxes, 'GC pause', PAD.l - 6, yB + hB - 6, 'right');
    this.drawHeaps(g, boxes, x, span, pw, yC, hC);

    // bytes per second
    const bw = Math.max(1, pw / ((span.to - span.from) / 1000) - 1);
    g.fillStyle = C.bar;
    for (const s of this.seconds) {
      const h = (s.bytes / topB) * hA;
      g.fillRect(x(s.t), yA + hA - h, bw, h);
    }
    // GC pauses
    for (const e of gcs) {
      const h = Math.max(1, (e.ns / 1e6 / topP) * hB);
      const x0 = Math.max(PAD.l, x(e.t));
      g.fillStyle = GEN_COLORS[gcGen(e)];
      g.fillRect(x0, yB + hB - h, Math.max(2, x(e.t + e.ns / 1e6) - x0), h);
    }

    // the shared time axis: the session's clock ("+12 s"), at both ends and between
    g.fillStyle = C.text;
    const secs = (span.to - span.from) / 1000;
    const every = niceStep(secs, true);
    for (let s = 0; s <= secs + 1e-9; s += every) {
      const ms = span.from + s * 1000;
      const xx = Math.min(Math.max(x(ms), PAD.l + 24), PAD.l + pw - 24);
      label(g, boxes, relText(ms, this.baseMs), xx, H - PAD.b / 2, 'center');
    }

    if (this.mouse && this.mouse.x >= PAD.l && this.mouse.x <= PAD.l + pw) {
      const ms = span.from + ((this.mouse.x - PAD.l) / pw) * (span.to - span.from);
      const sec = this.seconds.find((s) => ms >= s.t && ms < s.t + 1000);
      const gc = gcs.find((e) => Math.abs(x(e.t) - this.mouse.x) <= 3);
      const parts = [relText(ms, this.baseMs), sec ? `${fmtBytes(sec.bytes)} allocated` : 'none'];
      if (gc) parts.push(`GC gen ${gcGen(gc)}: ${fmtNs(gc.ns)}`);
      let heap = null;
      for (const hp of this.heaps) if (hp.t <= ms) heap = hp;
      if (heap)
        parts.push(
          `heap ${heap.sizes.map((b, i) => `${HEAP_NAMES[i]} ${fmtBytes(b)}`).join(', ')}`,
        );
      g.strokeStyle = C.cursor;
      g.beginPath();
      g.moveTo(Math.round(this.mouse.x) + 0.5, yA);
      g.lineTo(Math.round(this.mouse.x) + 0.5, yC + hC);
      g.stroke();
      readout(g, parts.join(' · '), this.mouse.x, yA, PAD.l, PAD.l + pw);
    }
    cv.dataset.seconds = String(this.seconds.length);
    cv.dataset.gcs = String(gcs.length);
    cv.dataset.maxBytes = String(maxBytes);
  }

  // The heap lane: each entry's sizes stacked, from its time to the next one's.
  drawHeaps(g, boxes, x, span, pw, y, h) {
    const heaps = this.heaps.filter((e) => e.t <= span.to);
    const total = (e) => e.sizes.reduce((n, b) => n + b, 0);
    const top = niceStep(Math.max(1, ...heaps.map(total))) * 4;
    g.strokeStyle = C.grid;
    g.fillStyle = C.text;
    for (let k = 0; k <= 4; k++) {
      const yy = gridLine(g, PAD.l, pw, y, h, k);
      if (k === 4) label(g, boxes, fmtBytes(top), PAD.l - 6, yy, 'right');
    }
    label(g, boxes, 'heap', PAD.l - 6, y + h - 6, 'right');
    for (let i = 0; i < heaps.length; i++) {
      const e = heaps[i];
      const x0 = Math.max(PAD.l, x(e.t));
      const x1 = Math.min(PAD.l + pw, i + 1 < heaps.length ? x(heaps[i + 1].t) : PAD.l + pw);
      if (x1 <= x0) continue;
      let base = y + h;
      for (let k = 0; k < 5; k++) {
        const hh = (e.sizes[k] / top) * h;
        g.fillStyle = HEAP_COLORS[k];
        g.fillRect(x0, base - hh, Math.max(1, x1 - x0), hh);
        base -= hh;
      }
    }
    // legend, top left inside the lane
    let lx = PAD.l + 6;
    for (let k = 0; k < 5; k++) {
      g.fillStyle = HEAP_COLORS[k];
      g.fillRect(lx, y + 4, 8, 8);
      g.fillStyle = C.strong;
      lx += 12 + label(g, boxes, HEAP_NAMES[k], lx + 12, y + 8) + 10;
    }
    this.canvas.dataset.heaps = String(heaps.length);
  }
}
