// pausechart.js -- GC and runtime-suspension chart on a canvas, drawn next to
// the JIT-rate chart with the same time axis (per-second bins, last `span`
// seconds): time the runtime was suspended per second as stacked bars, by who
// suspended it (the GC, jitscope itself, something else), and a diamond above
// each second in which a collection ran. It shows the last `span` seconds only,
// like the rate chart beside it: a click on it opens the GC tab (gcview.js),
// which covers the whole session. No animation: draw() paints one frame.
import { fmtInt, fmtClock, fmtNs } from './format.js';
import {
  C,
  niceStep,
  tickText,
  prepCanvas,
  readout,
  label,
  fitParts,
  gridLine,
  timeAxis,
  spanText,
  SpanChart,
} from './chart.js';

export const PAUSE_COLORS = {
  gc: '#2fb39a',
  jitscope: '#b48cf2',
  other: '#7d8799',
  marker: '#5fe0c8',
};
const KINDS = ['gc', 'jitscope', 'other'];
const PAD = { l: 44, r: 12, t: 30, b: 18 };
const LABEL = { gc: 'GC', jitscope: 'jitscope', other: 'other' };
const BY = { gc: 'by the GC', jitscope: 'by jitscope', other: 'by others' };

// A collection's generation as the GC tab and the hover texts name it: the
// highest generation it collected ("gen 2": generations 0 to 2), and the large
// and pinned object heaps (3, 4) when it collected them too ("gen 2 + LOH").
export function gensText(gens) {
  const small = gens.filter((x) => x <= 2),
    big = [];
  if (gens.includes(3)) big.push('LOH');
  if (gens.includes(4)) big.push('POH');
  let text = small.length ? `gen ${Math.max(...small)}` : 'gen ?';
  if (big.length) text += ` + ${big.join(' + ')}`;
  return text;
}

export class PauseChart extends SpanChart {
  constructor(canvas, { span = 120 } = {}) {
    super(canvas, span);
    this.note = null;
  }

  // data: PauseTimeline.window(); note: text shown instead of data (route missing, error)
  setData(data, endLabel, note = null) {
    this.data = data;
    this.label = endLabel;
    this.note = note;
  }

  // The suspended time drawn for kind at bin k (GC bars fall back to the
  // collections' own durations when the server reported no GC suspension).
  value(kind, k) {
    const d = this.data;
    if (kind === 'gc' && !d.ns.gc[k] && d.gcNs[k]) return d.gcNs[k];
    return d.ns[kind][k];
  }

  draw() {
    const c = prepCanvas(this.canvas);
    if (!c) return;
    const { g, W, H } = c;
    const padL = PAD.l,
      padR = PAD.r,
      padT = PAD.t,
      padB = PAD.b;
    const pw = W - padL - padR,
      ph = H - padT - padB;
    const d = this.data;
    const n = d ? d.xs.length : this.span;

    let maxY = 0,
      gcs = 0,
      longest = 0;
    const sum = { gc: 0, jitscope: 0, other: 0 },
      cnt = { gc: 0, jitscope: 0, other: 0 };
    if (d) {
      for (let k = 0; k < n; k++) {
        let tot = 0;
        for (const kind of KINDS) {
          const v = this.value(kind, k);
          tot += v;
          sum[kind] += v;
          cnt[kind] += d.cnt[kind][k];
        }
        maxY = Math.max(maxY, tot);
        gcs += d.gcN[k];
        longest = Math.max(longest, d.gcMax[k]);
      }
    }
    const yStep = niceStep(Math.max(maxY / 1e6, 0.4), false); // ms suspended per second
    const yMax = yStep * 4;
    this.canvas.dataset.gcs = String(gcs);
    this.canvas.dataset.jitscope = String(cnt.jitscope);
    this.canvas.dataset.suspensions = String(cnt.gc + cnt.jitscope + cnt.other);

    // title + legend, then as much of the summary as fits (right-aligned)
    const boxes = [];
    g.fillStyle = C.strong;
    let x = padL + label(g, boxes, 'Suspended (ms / s)', padL, 10) + 14;
    for (const kind of KINDS) {
      g.fillStyle = PAUSE_COLORS[kind];
      g.fillRect(x, 6, 8, 8);
      g.fillStyle = C.text;
      x += 12 + label(g, boxes, LABEL[kind], x + 12, 10) + 12;
    }
    this.diamond(g, x + 4, 10, 4);
    g.fillStyle = C.text;
    x += 12 + label(g, boxes, 'collection', x + 12, 10) + 16;
    const summary = fitParts(
      g,
      [
        `${fmtInt(gcs)} GC${gcs === 1 ? '' : 's'} in ${spanText(this.span)}${gcs ? `, longest ${fmtNs(longest)}` : ''}`,
        `jitscope ${fmtNs(sum.jitscope)} (${fmtInt(cnt.jitscope)}×)`,
        'click: whole session',
      ],
      W - padR - x,
    );
    label(g, boxes, summary, W - padR, 10, 'right');

    // grid + y labels
    g.strokeStyle = C.grid;
    g.lineWidth = 1;
    for (let k = 0; k <= 4; k += ph < 72 ? 2 : 1) {
      const y = gridLine(g, padL, pw, padT, ph, k);
      g.fillStyle = C.text;
      label(g, boxes, tickText(yStep * k, yStep), padL - 6, y, 'right');
    }
    timeAxis(g, boxes, padL, pw, H - padB / 2, this.span, this.label);
    this.canvas.labelBoxes = boxes;
    if (this.note || !d) {
      g.fillStyle = C.text;
      g.textAlign = 'center';
      g.fillText(this.note || 'loading…', padL + pw / 2, padT + ph / 2);
      return;
    }

    // stacked bars: GC at the bottom, then jitscope, then other
    const bw = pw / n;
    for (let k = 0; k < n; k++) {
      let base = padT + ph;
      for (const kind of KINDS) {
        const v = this.value(kind, k);
        if (!v) continue;
        const bh = Math.max(2, Math.min(ph, (v / 1e6 / yMax) * ph));
        g.fillStyle = PAUSE_COLORS[kind];
        g.fillRect(
          padL + k * bw + (bw > 3 ? 0.5 : 0),
          base - bh,
          Math.max(1, bw - (bw > 3 ? 1 : 0)),
          bh,
        );
        base -= bh;
      }
      if (d.gcN[k]) this.diamond(g, padL + (k + 0.5) * bw, padT - 5, 3.5);
    }
    if (!gcs && !cnt.jitscope && !cnt.gc && !cnt.other) {
      g.fillStyle = C.text;
      g.textAlign = 'center';
      g.fillText(
        this.label === 'end' && this.whole
          ? 'no collection or suspension in the whole session'
          : `no collection or suspension in the last ${spanText(this.span)}`,
        padL + pw / 2,
        padT + ph / 2,
      );
    }

    // hover read-out
    const hover = this.hoverBin(g, padL, padT, pw, ph, n);
    if (hover) {
      const { k, x: cx } = hover;
      // the second's collections (how many, which generations, the longest), then
      // how long the runtime stood still in it, by who stopped it
      const parts = [fmtClock(d.xs[k] * 1000, false)];
      if (d.gcN[k]) {
        const gens = [];
        for (let i = 0; i < 8; i++) if (d.gcGens[k] & (1 << i)) gens.push(i);
        parts.push(
          `${d.gcN[k]} collection${d.gcN[k] > 1 ? 's' : ''} (${gensText(gens)}${d.gcN[k] > 1 ? ', longest' : ''} ${fmtNs(d.gcMax[k])})`,
        );
      }
      const stood = KINDS.filter((kind) => d.cnt[kind][k] || this.value(kind, k)).map(
        (kind) =>
          `${fmtNs(this.value(kind, k))} ${BY[kind]}${d.cnt[kind][k] > 1 ? ` (${d.cnt[kind][k]}×)` : ''}`,
      );
      parts.push(stood.length ? `suspended: ${stood.join(', ')}` : 'no suspension');
      readout(g, parts.join(' · '), cx, padT, padL, padL + pw);
      this.canvas.dataset.readout = parts.join(' · ');
    } else {
      this.canvas.dataset.readout = '';
    }
  }

  // The x (CSS px) of the middle of bin k as last drawn.
  binX(k) {
    const n = this.data ? this.data.xs.length : this.span;
    return PAD.l + ((k + 0.5) * (this.canvas.clientWidth - PAD.l - PAD.r)) / n;
  }

  diamond(g, x, y, r) {
    g.fillStyle = PAUSE_COLORS.marker;
    g.beginPath();
    g.moveTo(x, y - r);
    g.lineTo(x + r, y);
    g.lineTo(x, y + r);
    g.lineTo(x - r, y);
    g.closePath();
    g.fill();
  }
}
