// samplechart.js -- the Profile tab's small time chart on a canvas: thread
// samples (stacks taken) per second (the profile's `timeline`) as bars, and below them the time the
// runtime stood still for each sample (jitscope's own suspensions) as dots with
// their median: a lane a CPU profile does not have (suspLane false: nothing is
// suspended, the bars take the whole height). Dragging across it picks a time
// range (onRange(from_ms, to_ms)); a click without dragging clears it (onRange(null)).
import { fmtInt, fmtClock, fmtNs } from './format.js';
import { C, niceStep, tickText, prepCanvas, readout, label, twoLanes } from './chart.js';
import { PAUSE_COLORS } from './pausechart.js';

const PAD = { l: 56, r: 12, t: 22, b: 18 };
const GAP = 10; // between the two lanes

export class SampleChart {
  constructor(canvas) {
    this.canvas = canvas;
    this.data = null;
    this.hoverX = null;
    this.drag = null; // {from, to} in ms while dragging (the axis grows under it while sampling runs)
    this.onRange = null;
    this.onChange = null; // redraw wanted (hover, drag)
    this.suspLane = true; // the lane of the runtime's suspensions (wall-clock profiles)
    canvas.addEventListener('mousemove', (e) => {
      this.hoverX = e.offsetX;
      if (this.drag) this.drag.to = this.msAt(this.clampX(e.offsetX));
      this.onChange && this.onChange();
    });
    canvas.addEventListener('mouseleave', () => {
      this.hoverX = null;
      this.onChange && this.onChange();
    });
    canvas.addEventListener('mousedown', (e) => {
      if (e.button !== 0 || !this.data) return;
      e.preventDefault();
      const x = this.clampX(e.offsetX);
      this.drag = { from: this.msAt(x), to: this.msAt(x), x0: x };
      const up = (ev) => {
        window.removeEventListener('mouseup', up);
        const d = this.drag;
        this.drag = null;
        if (!d || !this.data) return;
        const r = this.canvas.getBoundingClientRect();
        const x1 = this.clampX(ev.clientX - r.left);
        d.to = this.msAt(x1);
        if (Math.abs(x1 - d.x0) < 4) {
          if (this.onRange) this.onRange(null);
        } // a click
        else if (this.onRange)
          this.onRange(Math.floor(Math.min(d.from, d.to)), Math.ceil(Math.max(d.from, d.to)));
        this.onChange && this.onChange();
      };
      window.addEventListener('mouseup', up);
    });
  }

  // data: {startMs, endMs, bins: [{t_ms, samples}], susp: [{t, ns}], p50: ns|null, range: {from, to}|null}
  setData(data) {
    this.data = data;
  }

  clampX(x) {
    const W = this.canvas.clientWidth;
    return Math.min(Math.max(x, PAD.l), W - PAD.r);
  }

  msAt(x) {
    const d = this.data,
      W = this.canvas.clientWidth;
    const pw = W - PAD.l - PAD.r;
    return d.startMs + ((x - PAD.l) / pw) * (d.endMs - d.startMs);
  }

  xAt(ms) {
    const d = this.data,
      W = this.canvas.clientWidth;
    const pw = W - PAD.l - PAD.r;
    return PAD.l + ((ms - d.startMs) / Math.max(1, d.endMs - d.startMs)) * pw;
  }

  draw() {
    const c = prepCanvas(this.canvas);
    if (!c) return;
    const { g, W, H } = c;
    const lanes = twoLanes(W, H, PAD, GAP);
    const susp = this.suspLane;
    const { pw, inner: ph, yA: y1, yB: y2 } = lanes;
    const h1 = susp ? lanes.hA : ph + GAP,
      h2 = lanes.hB;
    const d = this.data;

    const boxes = [];
    this.canvas.labelBoxes = boxes;
    this.canvas.dataset.lanes = susp ? '2' : '1';
    g.fillStyle = C.strong;
    let tx = PAD.l + label(g, boxes, 'Thread samples / s', PAD.l, 9) + 16;
    if (susp) {
      g.fillStyle = PAUSE_COLORS.jitscope;
      g.fillRect(tx, 7, 5, 5);
      g.fillStyle = C.text;
      tx += 9 + label(g, boxes, 'runtime suspended per sample', tx + 9, 9) + 16;
    }
    // the hint, shortened to what fits
    const hints =
      d && d.range
        ? ['drag to pick another range · click to clear', 'drag: another range']
        : ['drag across the chart to keep only that time range', 'drag: pick a time range'];
    const hint = hints.find((t) => g.measureText(t).width <= W - PAD.r - tx);
    if (hint) label(g, boxes, hint, W - PAD.r, 9, 'right');
    if (!d || d.endMs <= d.startMs) {
      g.textAlign = 'center';
      g.fillText('no samples yet', PAD.l + pw / 2, y1 + ph / 2);
      return;
    }

    let maxS = 0;
    for (const b of d.bins) maxS = Math.max(maxS, b.samples);
    const sStep = niceStep(Math.max(maxS, 4), true);
    const sMax = sStep * 4;
    // suspensions on a log scale, whole decades from 10 µs up to the longest
    // (they run from tens of µs to tens of ms on a busy machine)
    let maxNs = d.p50 || 0;
    for (const s of d.susp) if (s.ns > maxNs) maxNs = s.ns;
    const lo = 4,
      hi = Math.max(lo + 2, Math.ceil(Math.log10(Math.max(maxNs, 1e5)))); // log10 ns
    const ySusp = (ns) =>
      y2 + h2 - Math.min(1, Math.max(0, (Math.log10(Math.max(ns, 1)) - lo) / (hi - lo))) * h2;

    // lanes: grid lines and labels
    g.strokeStyle = C.grid;
    g.lineWidth = 1;
    const laneList = [[y1, h1, tickText(sMax, sStep), '0']];
    if (susp) laneList.push([y2, h2, fmtNs(10 ** hi), fmtNs(10 ** lo)]);
    for (const [y, hh, top, bottom] of laneList) {
      g.beginPath();
      g.moveTo(PAD.l, Math.round(y) + 0.5);
      g.lineTo(PAD.l + pw, Math.round(y) + 0.5);
      g.stroke();
      g.beginPath();
      g.moveTo(PAD.l, Math.round(y + hh) + 0.5);
      g.lineTo(PAD.l + pw, Math.round(y + hh) + 0.5);
      g.stroke();
      g.fillStyle = C.text;
      g.textAlign = 'right';
      g.fillText(top, PAD.l - 6, y + 5);
      g.fillText(bottom, PAD.l - 6, y + hh - 4);
    }
    g.strokeStyle = '#1c2129';
    for (let e = lo + 1; susp && e < hi; e++) {
      const y = Math.round(ySusp(10 ** e)) + 0.5;
      g.beginPath();
      g.moveTo(PAD.l, y);
      g.lineTo(PAD.l + pw, y);
      g.stroke();
    }

    // samples per second (clipped to the plot: the first second starts before the profile)
    g.save();
    g.beginPath();
    g.rect(PAD.l, PAD.t, pw, ph + GAP);
    g.clip();
    const secW = (1000 / (d.endMs - d.startMs)) * pw;
    g.fillStyle = C.bar;
    for (const b of d.bins) {
      if (!b.samples) continue;
      const x = this.xAt(b.t_ms);
      const bh = Math.max(1, Math.min(h1, (b.samples / sMax) * h1));
      g.fillRect(
        x + (secW > 3 ? 0.5 : 0),
        y1 + h1 - bh,
        Math.max(1, secW - (secW > 3 ? 1 : 0)),
        bh,
      );
    }
    // suspension per sample
    g.fillStyle = PAUSE_COLORS.jitscope;
    for (const s of susp ? d.susp : []) {
      const x = this.xAt(s.t);
      if (x < PAD.l - 1 || x > PAD.l + pw + 1) continue;
      const y = ySusp(s.ns);
      g.fillRect(x - 1, y - 1, 2, 2);
    }
    if (susp && d.p50) {
      const y = Math.round(ySusp(d.p50)) + 0.5;
      g.strokeStyle = '#e6d2ff';
      g.setLineDash([4, 3]);
      g.beginPath();
      g.moveTo(PAD.l, y);
      g.lineTo(PAD.l + pw, y);
      g.stroke();
      g.setLineDash([]);
      const label = `p50 ${fmtNs(d.p50)}`;
      const ly = Math.max(y2 + 6, y - 7),
        lw = g.measureText(label).width;
      g.fillStyle = 'rgba(21,25,32,.85)';
      g.fillRect(PAD.l + pw - lw - 8, ly - 7, lw + 8, 14);
      g.fillStyle = '#e6d2ff';
      g.textAlign = 'right';
      g.fillText(label, PAD.l + pw - 4, ly);
    }
    g.restore();

    // time axis: start, end, a few ticks between
    g.fillStyle = C.text;
    g.textAlign = 'left';
    g.fillText(fmtClock(d.startMs, false), PAD.l, H - 7);
    g.textAlign = 'right';
    const endText = `${fmtClock(d.endMs, false)}${d.running ? ' (now)' : ''}`;
    g.fillText(endText, PAD.l + pw, H - 7);
    const keepL = PAD.l + g.measureText(fmtClock(d.startMs, false)).width + 30,
      keepR = PAD.l + pw - g.measureText(endText).width - 30;
    g.textAlign = 'center';
    const spanS = (d.endMs - d.startMs) / 1000;
    const stepS =
      [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].find(
        (s) => (spanS / s) * 70 <= pw - 140,
      ) || 7200;
    for (let s = stepS; s < spanS - stepS / 2; s += stepS) {
      const x = this.xAt(d.startMs + s * 1000);
      if (x < keepL || x > keepR) continue;
      g.fillText(
        `+${s >= 60 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}` : `${s} s`}`,
        x,
        H - 7,
      );
    }

    // selection (picked range or the one being dragged)
    let sel = null;
    const picked = this.drag
      ? { from: Math.min(this.drag.from, this.drag.to), to: Math.max(this.drag.from, this.drag.to) }
      : d.range;
    if (picked)
      sel = [this.xAt(picked.from), this.xAt(picked.to)].map((x) =>
        Math.min(Math.max(x, PAD.l), PAD.l + pw),
      );
    if (sel) {
      g.fillStyle = 'rgba(8,10,14,.62)';
      g.fillRect(PAD.l, PAD.t, sel[0] - PAD.l, ph + GAP);
      g.fillRect(sel[1], PAD.t, PAD.l + pw - sel[1], ph + GAP);
      g.strokeStyle = C.line;
      g.lineWidth = 1;
      for (const x of sel) {
        g.beginPath();
        g.moveTo(Math.round(x) + 0.5, PAD.t);
        g.lineTo(Math.round(x) + 0.5, PAD.t + ph + GAP);
        g.stroke();
      }
    }

    // hover read-out
    if (this.hoverX != null && !this.drag && this.hoverX >= PAD.l && this.hoverX <= PAD.l + pw) {
      const ms = this.msAt(this.hoverX);
      const sec = Math.floor(ms / 1000) * 1000;
      const bin = d.bins.find((b) => b.t_ms === sec);
      let n = 0,
        sum = 0,
        max = 0;
      for (const s of d.susp)
        if (s.t >= sec && s.t < sec + 1000) {
          n++;
          sum += s.ns;
          if (s.ns > max) max = s.ns;
        }
      const x = Math.round(this.hoverX) + 0.5;
      g.strokeStyle = C.cursor;
      g.beginPath();
      g.moveTo(x, PAD.t);
      g.lineTo(x, PAD.t + ph + GAP);
      g.stroke();
      const text = `${fmtClock(sec, false)}  ${fmtInt(bin ? bin.samples : 0)} thread samples${n ? `  suspended ${fmtNs(sum)} in ${n} (max ${fmtNs(max)})` : ''}`;
      readout(g, text, x, PAD.t, PAD.l, PAD.l + pw);
    }
  }
}
