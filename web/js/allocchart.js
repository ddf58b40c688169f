// allocchart.js -- the Allocations tab's rate chart on a canvas: two lanes on
// one time axis. Above, the estimated bytes allocated in each second (GET
// .../allocations?series=second, then the stream's allocation_second events);
// below, every garbage collection of the same span as a bar (x its start,
// width its duration, at least 2 px; height its pause; colour the highest
// generation it collected), from the session's PauseTimeline (timeline.js,
// which the GC tab draws too). The span is the allocation series' (its first
// second to the end of its last); GCs outside it are not drawn. The mouse
// reads out the second under it and the GC there.
import { fmtBytes, fmtNs } from './format.js';
import { C, niceStep, tickText, prepCanvas, readout, label, gridLine, twoLanes } from './chart.js';
import { GEN_COLORS, gcGen } from './gcchart.js';

const PAD = { l: 64, r: 14, t: 10, b: 24 };
const GAP = 14;

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

  setData(seconds, gcs, baseMs) {
    this.seconds = seconds;
    this.gcs = gcs;
    this.baseMs = baseMs;
  }

  // [from, to] in unix ms: the series' seconds; null while it is empty.
  span() {
    if (!this.seconds.length) return null;
    return { from: this.seconds[0].t, to: this.seconds[this.seconds.length - 1].t + 1000 };
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
      label(g, boxes, 'No allocation sampled yet.', W / 2, H / 2, 'center');
      cv.dataset.seconds = '0';
      cv.dataset.gcs = '0';
      return;
    }
    const { pw, hA, hB, yA, yB } = twoLanes(W, H, PAD, GAP);
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

    // bytes per second
    const bw = Math.max(1, pw / ((span.to - span.from) / 1000) - 1);
    g.fillStyle = C.bar;
    for (const s of this.seconds) {
      const h = (s.bytes / topB) * hA;
      g.fillRect(x(s.t), yA + hA - h, bw, h);
    }
    // GC pauses
    for (const e of gcs) {
      const h = Math.max(1, ((e.ns / 1e6) / topP) * hB);
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
      g.strokeStyle = C.cursor;
      g.beginPath();
      g.moveTo(Math.round(this.mouse.x) + 0.5, yA);
      g.lineTo(Math.round(this.mouse.x) + 0.5, yB + hB);
      g.stroke();
      readout(g, parts.join(' · '), this.mouse.x, yA, PAD.l, PAD.l + pw);
    }
    cv.dataset.seconds = String(this.seconds.length);
    cv.dataset.gcs = String(gcs.length);
    cv.dataset.maxBytes = String(maxBytes);
  }
}
