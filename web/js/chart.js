// chart.js -- JIT rate chart on a canvas: compilations per second as bars and
// JIT time per second as a line, over the last `span` seconds. No animation:
// draw() paints one frame from columnar arrays; the caller decides when.
import { fmtInt, fmtClock } from './format.js';

export const C = {
  bg: '#151920',
  grid: '#242a35',
  axis: '#5f6878',
  text: '#8c95a5',
  strong: '#d8dde6',
  bar: '#3f82dc',
  barHot: '#6aa6f5',
  line: '#d9a33a',
  cursor: '#8c95a5',
};

// A "nice" tick step so that 4 steps cover v (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten).
export function niceStep(v, integer) {
  const raw = Math.max(v, 1e-9) / 4;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    const step = Number((m * p).toPrecision(3));
    if (step >= raw && (!integer || Number.isInteger(step))) return step;
  }
  return 10 * p;
}

export function tickText(v, step) {
  if (Number.isInteger(step)) return fmtInt(v);
  const decimals = Math.min(3, (String(step).split('.')[1] || '').length);
  return v.toFixed(decimals);
}

// Sizes a canvas's backing store to its CSS size times the device pixel ratio
// and returns {g, W, H} (CSS px, transform set), or null while it has no size.
export function prepCanvas(cv) {
  const dpr = window.devicePixelRatio || 1;
  const W = cv.clientWidth,
    H = cv.clientHeight;
  if (!W || !H) return null;
  if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) {
    cv.width = Math.round(W * dpr);
    cv.height = Math.round(H * dpr);
  }
  const g = cv.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.fillStyle = C.bg; // every chart starts from a cleared background and the same label font
  g.fillRect(0, 0, W, H);
  g.font = '11px system-ui, "DejaVu Sans", sans-serif';
  g.textBaseline = 'middle';
  return { g, W, H };
}

// Draws one line of chart text and records its box in `boxes` (CSS px:
// {text, x0, x1, y0, y1}); the charts hand their boxes to the canvas as
// `canvas.labelBoxes`, so tests can check that no two overlap and that each
// lies inside the canvas. Uses the current font, textAlign and middle baseline.
export function label(g, boxes, text, x, y, align = 'left') {
  if (!text) return 0;
  g.textAlign = align;
  g.fillText(text, x, y);
  const w = g.measureText(text).width;
  const x0 = align === 'left' ? x : align === 'right' ? x - w : x - w / 2;
  boxes.push({ text, x0, x1: x0 + w, y0: y - 6, y1: y + 6 });
  return w;
}

// Keeps the parts (strings) of a summary that fit in `room` px, joined by " · ".
export function fitParts(g, parts, room) {
  let line = '';
  for (const part of parts) {
    if (!part) continue;
    const next = line ? `${line} · ${part}` : part;
    if (g.measureText(next).width > room) break;
    line = next;
  }
  return line;
}

// One horizontal grid line at k quarters of the plot height (k = 0: the
// bottom); returns its y for the tick label beside it.
export function gridLine(g, padL, pw, padT, ph, k) {
  const y = Math.round(padT + ph - (ph * k) / 4) + 0.5;
  g.beginPath();
  g.moveTo(padL, y);
  g.lineTo(padL + pw, y);
  g.stroke();
  return y;
}

// A span of seconds in words: "2 min", "45 s".
export function spanText(span) {
  return span % 60 === 0 ? `${span / 60} min` : `${span} s`;
}

// The time axis under a chart of the last `span` seconds, at height y: a label
// every 30 s (every minute when narrow; for a short span, every 1, 2, 5 or
// 10 s: an ended session's charts span the session), the newest one reading
// `endLabel`.
export function timeAxis(g, boxes, padL, pw, y, span, endLabel) {
  g.fillStyle = C.text;
  const labels = Math.max(2, Math.floor(pw / 70)); // at most one label per 70 px
  const every =
    span > 60 ? (pw < 300 ? 60 : 30) : [1, 2, 5, 10, 15, 30, 60].find((e) => span / e <= labels);
  for (let s = 0; s <= span; s += every) {
    const xx = padL + pw - (pw * s) / span;
    const m = Math.floor(s / 60),
      r = s % 60;
    const text = s === 0 ? endLabel : `−${m}:${String(r).padStart(2, '0')}`;
    label(g, boxes, text, Math.min(Math.max(xx, padL + 14), padL + pw - 12), y, 'center');
  }
}

// Splits a two-lane chart (W x H, padding `pad`, `gap` px between the lanes)
// into an upper lane of 55% of the height and a lower one below the gap.
export function twoLanes(W, H, pad, gap) {
  const pw = W - pad.l - pad.r,
    inner = H - pad.t - pad.b - gap;
  const hA = Math.round(inner * 0.55);
  return { pw, inner, hA, hB: inner - hA, yA: pad.t, yB: pad.t + hA + gap };
}

// A hover read-out box at the top of the plot area, kept inside [left, right].
export function readout(g, text, x, top, left, right) {
  g.font = '11px ui-monospace, "DejaVu Sans Mono", monospace';
  const w = g.measureText(text).width + 12;
  const bx = Math.min(Math.max(x - w / 2, left), right - w);
  g.fillStyle = 'rgba(14,16,20,.92)';
  g.fillRect(bx, top + 2, w, 18);
  g.strokeStyle = '#3a4250';
  g.lineWidth = 1;
  g.strokeRect(bx + 0.5, top + 2.5, w - 1, 17);
  g.fillStyle = C.strong;
  g.textAlign = 'left';
  g.textBaseline = 'middle';
  g.fillText(text, bx + 6, top + 11);
}

// What the charts of the last `span` seconds share: their canvas, their data,
// the end label ('now' | 'end') and the mouse's x (the owner's onHover, when
// set, is called whenever it moves).
export class SpanChart {
  constructor(canvas, span) {
    this.canvas = canvas;
    this.span = span;
    this.hoverX = null;
    this.data = null;
    this.label = 'now';
    canvas.addEventListener('mousemove', (e) => {
      this.hoverX = e.offsetX;
      this.onHover && this.onHover();
    });
    canvas.addEventListener('mouseleave', () => {
      this.hoverX = null;
      this.onHover && this.onHover();
    });
  }

  // The bin (of n across the plot padL, padT, pw x ph) under the mouse, with the
  // cursor line drawn through its middle at x: {k, x}, or null when it is elsewhere.
  hoverBin(g, padL, padT, pw, ph, n) {
    if (this.hoverX == null || this.hoverX < padL || this.hoverX >= padL + pw) return null;
    const bw = pw / n;
    const k = Math.min(n - 1, Math.floor((this.hoverX - padL) / bw));
    const x = Math.round(padL + (k + 0.5) * bw) + 0.5;
    g.strokeStyle = C.cursor;
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(x, padT);
    g.lineTo(x, padT + ph);
    g.stroke();
    return { k, x };
  }
}

export class RateChart extends SpanChart {
  constructor(canvas, { span = 120 } = {}) {
    super(canvas, span);
  }

  // data: {xs (unix seconds), ys (JITs/s), ts (JIT ns/s)}; endLabel: 'now' | 'end'
  setData(data, endLabel) {
    this.data = data;
    this.label = endLabel;
  }

  draw() {
    const c = prepCanvas(this.canvas);
    if (!c) return;
    const { g, W, H } = c;

    const padL = 48,
      padR = 56,
      padT = 22,
      padB = 18;
    const pw = W - padL - padR,
      ph = H - padT - padB;
    const d = this.data;
    const n = d ? d.xs.length : this.span;
    let maxY = 0,
      maxT = 0,
      sum = 0,
      sumT = 0;
    if (d)
      for (let k = 0; k < n; k++) {
        maxY = Math.max(maxY, d.ys[k]);
        maxT = Math.max(maxT, d.ts[k]);
        sum += d.ys[k];
        sumT += d.ts[k];
      }
    const yStep = niceStep(Math.max(maxY, 4), true);
    const yMax = yStep * 4;
    const tStep = niceStep(Math.max(maxT / 1e6, 0.4), false); // ms of JIT per second
    const tMax = tStep * 4;

    // title row: the title, the line's legend, then as much of the summary as fits
    const boxes = [];
    g.fillStyle = C.strong;
    let x = padL + label(g, boxes, 'JIT compilations / s', padL, 10) + 12;
    g.fillStyle = C.line;
    x += label(g, boxes, '— JIT time (ms / s)', x, 10) + 16;
    g.fillStyle = C.text;
    let last5 = 0;
    if (d) for (let k = Math.max(0, n - 5); k < n; k++) last5 += d.ys[k];
    const summary = fitParts(
      g,
      [
        `last 5 s: ${fmtInt(last5 / 5)}/s`,
        `peak: ${fmtInt(maxY)}/s`,
        `${spanText(this.span)}: ${fmtInt(sum)} JITs, ${fmtInt(sumT / 1e6)} ms`,
      ],
      W - padR - x,
    );
    label(g, boxes, summary, W - padR, 10, 'right');

    // grid + y labels
    g.strokeStyle = C.grid;
    g.lineWidth = 1;
    for (let k = 0; k <= 4; k++) {
      const y = gridLine(g, padL, pw, padT, ph, k);
      g.fillStyle = C.text;
      label(g, boxes, fmtInt(yStep * k), padL - 6, y, 'right');
      g.fillStyle = C.line;
      label(g, boxes, tickText(tStep * k, tStep), padL + pw + 6, y, 'left');
    }
    // x labels every 30 s (every minute when narrow)
    timeAxis(g, boxes, padL, pw, H - padB / 2, this.span, this.label);
    this.canvas.labelBoxes = boxes;
    if (!d) return;

    // bars
    const bw = pw / n;
    g.fillStyle = C.bar;
    for (let k = 0; k < n; k++) {
      const v = d.ys[k];
      if (!v) continue;
      const bh = Math.max(1, (v / yMax) * ph);
      g.fillRect(
        padL + k * bw + (bw > 3 ? 0.5 : 0),
        padT + ph - bh,
        Math.max(1, bw - (bw > 3 ? 1 : 0)),
        bh,
      );
    }
    // JIT time line
    g.strokeStyle = C.line;
    g.lineWidth = 1.25;
    g.beginPath();
    for (let k = 0; k < n; k++) {
      const x = padL + (k + 0.5) * bw;
      const y = padT + ph - Math.min(1, d.ts[k] / 1e6 / tMax) * ph;
      if (k === 0) g.moveTo(x, y);
      else g.lineTo(x, y);
    }
    g.stroke();

    // hover read-out
    const hover = this.hoverBin(g, padL, padT, pw, ph, n);
    if (hover) {
      const k = hover.k;
      const text = `${fmtClock(d.xs[k] * 1000, false)}  ${fmtInt(d.ys[k])} JITs  ${(d.ts[k] / 1e6).toFixed(1)} ms JIT`;
      readout(g, text, hover.x, padT, padL, padL + pw);
    }
  }
}
