// flame.js -- a flame graph drawn as an icicle on a canvas: the root ("all")
// at the top, callees below (an inverted tree: callers below), each frame as
// wide as its samples. Children are ordered by name, so a graph that grows
// while sampling keeps its layout.
//
// Only what is on screen is drawn: the canvas is as tall as the viewport
// (sticky inside a scroller as tall as the deepest stack) and frames narrower
// than half a pixel are skipped with their callees. Click a frame to zoom to
// it: it becomes the full-width top row, its ancestors stay above it as thin
// rows (the nearest ANC_MAX; a "⋯ N more" row stands for the others), so
// what was zoomed to is in view however deep it is; click an ancestor, or the
// zoomed frame again, to zoom out. The search highlights matching frames and
// greys the rest, counts them in the whole graph and under the zoomed frame,
// marks matches too narrow to draw with a 2 px tick on their row, and
// jumpMatch() zooms to the next or previous one (heaviest first). Labels
// ("kind" label in the server's tree: [native], [kernel], [unknown]...) are
// markers, never matches. Colours are stable per module (hue) and name (shade).
//
// The caller owns the timing: setTree / setQuery / zoomTo only mark the graph
// dirty, draw() paints (call it from the frame scheduler).
import { h, fill } from './dom.js';
import { fmtInt, fmtPct } from './format.js';
import { frameLabels, frameNote, frameSource, shortFrame } from './framenames.js';

export const ROW_H = 18;
const ANC_H = 12; // px: a zoomed frame's ancestor row
const ANC_MAX = 6; // ancestor rows drawn (the nearest); the rest is one "⋯" row
const MIN_W = 0.5; // px: narrower frames are not drawn
const FONT = '11px ui-monospace, "JetBrains Mono", "DejaVu Sans Mono", monospace';
const ANC_FONT = '9.5px ui-monospace, "JetBrains Mono", "DejaVu Sans Mono", monospace';
const BG = '#0e1014';

function hash(s) {
  let x = 2166136261;
  for (let i = 0; i < s.length; i++) {
    x ^= s.charCodeAt(i);
    x = Math.imul(x, 16777619);
  }
  return x >>> 0;
}

const colorCache = new Map();
// Fill colours for a frame: [normal, dimmed (search misses)].
export function frameColor(name, module, kind) {
  const key = `${module}\u0000${name}`;
  let c = colorCache.get(key);
  if (c) return c;
  if (kind === 'label' || name === '[native]') c = ['#4b5160', '#23262d'];
  else if (name === 'all' && !module) c = ['#3b4658', '#20242c'];
  else {
    const hn = hash(name);
    const hue = (hash(module || name) + (hn % 21) - 10 + 360) % 360; // module's hue, ±10° per name
    const shade = hn % 9;
    c = [`hsl(${hue} ${44 + shade}% ${31 + shade}%)`, `hsl(${hue} 10% ${17 + (shade >> 1)}%)`];
  }
  if (colorCache.size > 20000) colorCache.clear();
  colorCache.set(key, c);
  return c;
}

const isMarker = (n) => n.kind === 'label' || (!n.kind && (n.name || '').startsWith('['));

export class FlameGraph {
  // opts.inverted: the tree is bottom-up (a frame's children are its callers);
  // opts.unit, opts.fmtValue: what a frame's width counts (samples) and how to write it
  constructor(opts = {}) {
    this.inverted = !!opts.inverted;
    this.unit = opts.unit || 'samples';
    this.fmtValue = opts.fmtValue || fmtInt;
    this.root = null;
    this.zoom = null;
    this.zoomKeys = []; // names from the root's child down to the zoomed frame, kept across trees
    this.query = '';
    // samples/nodes: in the whole graph; zoomSamples/zoomNodes: under the zoomed
    // frame (itself included); list: the matching frames, heaviest first; at: the
    // one jumpMatch() went to last (-1: none yet)
    this.match = {
      samples: 0,
      nodes: 0,
      total: 0,
      zoomSamples: 0,
      zoomNodes: 0,
      zoomTotal: 0,
      list: [],
      at: -1,
    };
    this.maxDepth = 0;
    this.rows = []; // [{y, h, items: [{x, w, node}]}] as drawn
    this.mouse = null; // {x, y} in canvas px
    this.hover = null;
    this.onZoom = null; // (node) after a click changed the zoom
    this.onDrawn = null;
    this.charW = 6.6;

    this.canvas = h('canvas', {
      class: 'flame-canvas',
      role: 'img',
      'aria-label': this.inverted
        ? 'Inverted flame graph: the frames samples ended in at the top, their callers below, width = samples'
        : 'Flame graph (icicle): the root at the top, callees below, width = samples',
    });
    this.sizer = h('div', { class: 'flame-sizer' }, this.canvas);
    this.scroller = h('div', { class: 'flame-scroll' }, this.sizer);
    this.tip = h('div', { class: 'flame-tip hidden', role: 'tooltip' });
    this.empty = h('div', { class: 'flame-empty hidden' });
    this.el = h('div', { class: 'flame' }, this.scroller, this.tip, this.empty);

    this.canvas.addEventListener('mousemove', (e) => {
      this.mouse = { x: e.offsetX, y: e.offsetY };
      this.updateHover();
    });
    this.canvas.addEventListener('mouseleave', () => {
      this.mouse = null;
      this.setHover(null);
    });
    this.canvas.addEventListener('click', (e) => {
      const n = this.hitTest(e.offsetX, e.offsetY);
      if (!n) return;
      this.zoomTo(n === this.zoom && n._p ? n._p : n);
      if (this.onZoom) this.onZoom(this.zoom);
    });
    this.scroller.addEventListener('scroll', () => this.requestDraw && this.requestDraw(), {
      passive: true,
    });
  }

  // ---- model ----
  setTree(root) {
    this.root = root;
    this.maxDepth = 0;
    this.depthCache = new WeakMap();
    if (root) {
      const stack = [root];
      root._p = null;
      root._d = 0;
      while (stack.length) {
        const n = stack.pop();
        if (n._d > this.maxDepth) this.maxDepth = n._d;
        const kids = n.children || (n.children = []);
        if (kids.length > 1)
          kids.sort((a, b) =>
            a.name < b.name
              ? -1
              : a.name > b.name
                ? 1
                : (a.module || '') < (b.module || '')
                  ? -1
                  : 1,
          );
        for (const c of kids) {
          c._p = n;
          c._d = n._d + 1;
          stack.push(c);
        }
      }
    }
    // find the zoomed frame again by its path of names
    let z = root;
    for (const key of this.zoomKeys) {
      const next = z && z.children.find((c) => `${c.module || ''}\u0000${c.name}` === key);
      if (!next) break;
      z = next;
    }
    this.zoom = z;
    const at = this.match.list[this.match.at];
    this.computeMatches();
    if (at)
      this.match.at = this.match.list.findIndex(
        (n) => n.name === at.name && n.module === at.module && n._d === at._d,
      );
  }

  zoomTo(node) {
    this.zoom = node || this.root;
    const keys = [];
    for (let n = this.zoom; n && n._p; n = n._p) keys.push(`${n.module || ''}\u0000${n.name}`);
    this.zoomKeys = keys.reverse();
    this.scroller.scrollTop = 0; // the zoomed frame is the top row under its ancestors
    this.mouse = null;
    this.setHover(null);
    this.countZoomMatches();
  }

  // Zooms to the next (dir 1) or previous (-1) matching frame, heaviest first,
  // wrapping around. Returns the frame, or null when nothing matches.
  jumpMatch(dir = 1) {
    const m = this.match;
    if (!m.list.length) return null;
    m.at =
      m.at < 0 ? (dir > 0 ? 0 : m.list.length - 1) : (m.at + dir + m.list.length) % m.list.length;
    const node = m.list[m.at];
    this.zoomTo(node);
    return node;
  }

  // Frames from the root to the zoomed one.
  zoomPath() {
    const out = [];
    for (let n = this.zoom; n; n = n._p) out.push(n);
    return out.reverse();
  }

  setQuery(q) {
    const next = (q || '').trim().toLowerCase();
    if (next !== this.query) this.match.at = -1;
    this.query = next;
    this.computeMatches();
    return this.match;
  }

  // Marks matching frames (_m) and sums the samples under them, once per
  // stack: a match below another match is not counted again. Markers never
  // match. Also marks frames with a match below them (_mb), so a match too
  // narrow to draw still gets a tick where its subtree is drawn.
  computeMatches() {
    const q = this.query;
    const m = {
      samples: 0,
      nodes: 0,
      total: this.root ? this.root.value : 0,
      zoomSamples: 0,
      zoomNodes: 0,
      zoomTotal: 0,
      list: [],
      at: this.match ? this.match.at : -1,
    };
    if (this.root) {
      const nodes = [this.root],
        under = [0],
        order = [];
      while (nodes.length) {
        const n = nodes.pop(),
          u = under.pop();
        let hit = false;
        if (q && n._p !== null && !isMarker(n)) {
          if (n._lc === undefined) n._lc = `${n.name || ''}\u0000${n.module || ''}`.toLowerCase();
          hit = n._lc.includes(q);
        }
        n._m = hit;
        n._mb = false;
        order.push(n);
        if (hit) {
          m.nodes++;
          m.list.push(n);
          if (!u) m.samples += n.value;
        }
        const kids = n.children;
        for (let i = 0; i < kids.length; i++) {
          nodes.push(kids[i]);
          under.push(u || hit ? 1 : 0);
        }
      }
      for (let i = order.length - 1; i > 0; i--) {
        // children come after their parent
        const n = order[i];
        if (n._m || n._mb) n._p._mb = true;
      }
      m.list.sort((a, b) => b.value - a.value || a._d - b._d);
    }
    if (m.at >= m.list.length) m.at = -1;
    this.match = m;
    this.countZoomMatches();
  }

  // The matches under the zoomed frame (itself included), samples counted once per stack.
  countZoomMatches() {
    const m = this.match,
      z = this.zoom;
    m.zoomSamples = 0;
    m.zoomNodes = 0;
    m.zoomTotal = z ? z.value : 0;
    if (!z || !this.query) return;
    for (let n = z._p; n; n = n._p)
      if (n._m) {
        m.zoomSamples = z.value;
        break;
      } // a match above covers it all
    const stack = [[z, m.zoomSamples > 0]];
    while (stack.length) {
      const [n, covered] = stack.pop();
      if (n._m) {
        m.zoomNodes++;
        if (!covered) m.zoomSamples += n.value;
      }
      if (!n._m && !n._mb) continue;
      for (const c of n.children) stack.push([c, covered || n._m]);
    }
  }

  // The server's root of every stack (a sandwich's graphs start at their method).
  isAll(n) {
    return n === this.root && n.name === 'all' && !n.module;
  }

  // ---- layout ----
  // The zoomed frame's ancestors as drawn: the root and the nearest ANC_MAX - 1
  // above it, with the count of those left out between them.
  ancestors() {
    const all = [];
    for (let n = this.zoom && this.zoom._p; n; n = n._p) all.push(n);
    all.reverse(); // root first
    if (all.length <= ANC_MAX) return { shown: all, skipped: 0 };
    return {
      shown: [all[0], ...all.slice(all.length - (ANC_MAX - 1))],
      skipped: all.length - ANC_MAX,
    };
  }

  bandHeight() {
    const { shown, skipped } = this.ancestors();
    return shown.length ? (shown.length + (skipped ? 1 : 0)) * ANC_H + 3 : 0;
  }

  // y of a frame under the zoomed one (in the scroller's coordinates).
  rowY(n) {
    return this.band + (n._d - this.zoom._d) * ROW_H;
  }

  // ---- drawing ----
  draw() {
    const cv = this.canvas;
    const viewH = this.scroller.clientHeight;
    const W = this.scroller.clientWidth;
    if (!W || !viewH) return;
    const z = this.zoom;
    this.band = this.root ? this.bandHeight() : 0;
    const depth = this.root ? this.deepestUnder(z) - z._d + 1 : 0;
    const totalH = Math.max(viewH, this.band + depth * ROW_H + 4);
    if (this.sizer._h !== totalH) {
      this.sizer._h = totalH;
      this.sizer.style.height = `${totalH}px`;
    }
    if (cv._h !== viewH) {
      cv._h = viewH;
      cv.style.height = `${viewH}px`;
    }
    const dpr = window.devicePixelRatio || 1;
    if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(viewH * dpr)) {
      cv.width = Math.round(W * dpr);
      cv.height = Math.round(viewH * dpr);
    }
    const g = cv.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = BG;
    g.fillRect(0, 0, W, viewH);
    g.textBaseline = 'middle';
    g.font = FONT;
    this.charW = g.measureText('MMMMMMMMMM').width / 10 || 6.6;
    this.rows = [];
    this.drawn = 0;
    this.drawnMatches = 0;
    this.tickedMatches = 0;
    this.ticked = new Set(); // "row:x" of the ticks drawn: one per pixel
    const top = this.scroller.scrollTop;
    this.view = { W, top, bottom: top + viewH };
    const empty = !this.root || !this.root.value;
    this.empty.classList.toggle('hidden', !empty);
    if (!empty) {
      this.drawSubtree(g, z, W);
      this.drawAncestors(g, W, top);
    }
    cv.dataset.drawn = String(this.drawn);
    cv.dataset.matches = String(this.drawnMatches);
    cv.dataset.ticks = String(this.tickedMatches);
    cv.dataset.total = String(this.root ? this.root.value : 0);
    cv.dataset.zoom = z ? z.name : '';
    cv.dataset.zoomY = z ? String(this.band) : '';
    if (this.mouse) this.updateHover();
    if (this.onDrawn) this.onDrawn();
  }

  // The zoomed frame and everything under it, its row at the top under the band.
  drawSubtree(g, z, W) {
    const stack = [[z, 0]];
    const scale = W / z.value;
    const searching = !!this.query;
    const { top, bottom } = this.view;
    while (stack.length) {
      const [n, x] = stack.pop();
      const w = n.value * scale;
      const y = this.rowY(n);
      if (y > bottom) continue;
      const visible = y + ROW_H > top + this.band;
      if (w < MIN_W) {
        // too narrow to draw: a match still gets a tick on its row (and so do those below it)
        if (!searching) continue;
        if (n._m && visible) this.tick(g, n, x, y - top);
        if (n._mb) for (const c of n.children) stack.push([c, x]);
        continue;
      }
      if (visible) this.box(g, n, x, y - top, w, ROW_H, false);
      let cx = x;
      for (const c of n.children) {
        stack.push([c, cx]);
        cx += c.value * scale;
      }
    }
  }

  // The zoomed frame's ancestors: thin full-width rows that stay at the top.
  drawAncestors(g, W, top) {
    const { shown, skipped } = this.ancestors();
    if (!shown.length) return;
    g.fillStyle = BG;
    g.fillRect(0, 0, W, this.band);
    let y = 0;
    shown.forEach((n, i) => {
      if (i === 1 && skipped) {
        g.fillStyle = '#1a1e25';
        g.fillRect(0, y, W, ANC_H - 1);
        g.font = ANC_FONT;
        g.fillStyle = '#8a93a3';
        g.fillText(`⋯ ${fmtInt(skipped)} more frame${skipped > 1 ? 's' : ''}`, 4, y + ANC_H / 2);
        y += ANC_H;
      }
      this.box(g, n, 0, y, W, ANC_H, true);
      y += ANC_H;
    });
    g.fillStyle = '#2a303a';
    g.fillRect(0, this.band - 2, W, 1);
    void top;
  }

  deepestUnder(z) {
    if (!z) return 0;
    const known = this.depthCache && this.depthCache.get(z);
    if (known !== undefined) return known;
    let max = z._d;
    const stack = [z];
    while (stack.length) {
      const n = stack.pop();
      if (n._d > max) max = n._d;
      for (const c of n.children) if (c.value * 1e4 >= z.value) stack.push(c); // < 0.01%: never wide enough to draw
    }
    if (this.depthCache) this.depthCache.set(z, max);
    return max;
  }

  // One frame at (x, y) in canvas px, rh tall; ancestors are thin and dimmed.
  box(g, n, x, y, w, rh, ancestor) {
    const searching = !!this.query;
    const [normal, dim] = frameColor(n.name, n.module, n.kind);
    const miss = searching && !n._m;
    g.globalAlpha = ancestor ? 0.7 : 1;
    g.fillStyle = miss ? dim : normal;
    const bw = Math.max(w - (w > 2 ? 1 : 0), MIN_W);
    g.fillRect(x, y, bw, rh - 1);
    if (n._m && searching) {
      g.strokeStyle = '#ffd166';
      g.lineWidth = ancestor ? 1 : 1.5;
      g.strokeRect(x + 0.75, y + 0.75, Math.max(0, bw - 1.5), rh - 2.5);
      this.drawnMatches++;
    }
    g.font = ancestor ? ANC_FONT : FONT;
    const cw = ancestor ? this.charW * 0.86 : this.charW;
    const chars = Math.floor((w - 8) / cw);
    if (chars >= 3) {
      let text = null;
      const ls = this.isAll(n)
        ? [`all · ${this.fmtValue(n.value)} ${this.unit}`, 'all']
        : frameLabels(n);
      for (const l of ls)
        if (l.length <= chars) {
          text = l;
          break;
        }
      if (!text) text = `${ls[ls.length - 1].slice(0, chars - 1)}…`; // cut at the end: the start names it
      g.fillStyle = miss ? '#717a8a' : '#f1f4f8';
      g.fillText(text, x + 4, y + rh / 2);
    }
    g.globalAlpha = 1;
    let row = this.rows.find((r) => r.y === y);
    if (!row) this.rows.push((row = { y, h: rh, items: [] }));
    row.items.push({ x, w, node: n });
    this.drawn++;
  }

  // A match narrower than MIN_W: a 2 px highlight tick at its place (one per pixel and row).
  tick(g, n, x, y) {
    const key = `${n._d}:${Math.round(x)}`;
    if (this.ticked.has(key)) return;
    this.ticked.add(key);
    g.fillStyle = '#ffd166';
    g.fillRect(Math.round(x), y + 2, 2, ROW_H - 4);
    this.tickedMatches++;
  }

  hitTest(x, y) {
    if (!this.view) return null;
    // the band is drawn over the rows: look there first
    const rows = this.rows.filter((r) => y >= r.y && y < r.y + r.h);
    rows.sort((a, b) => a.h - b.h);
    for (const row of rows)
      for (const r of row.items) if (x >= r.x && x < r.x + Math.max(r.w, 1)) return r.node;
    return null;
  }

  updateHover() {
    if (!this.mouse) return;
    this.setHover(this.hitTest(this.mouse.x, this.mouse.y));
  }

  // The tooltip's source line: file:line (split by line), the method's file, or
  // why a method has none when lines were asked for (linesShown).
  sourceLine(n) {
    if (this.isAll(n)) return null;
    const at = frameSource(n);
    if (at) return h('div', { class: 'tt-src' }, at);
    if (this.linesShown && n.kind === 'method')
      return h('div', { class: 'tt-src dim' }, 'no source line: no PDB found for its module');
    return null;
  }

  tipLines(n) {
    const total = this.root.value || 1;
    const z = this.zoom;
    const lines = [
      h('div', { class: 'tt-name' }, this.isAll(n) ? 'all (every sampled stack)' : n.name),
      n.module ? h('div', { class: 'tt-mod' }, n.module) : null,
      this.sourceLine(n),
      h(
        'div',
        { class: 'tt-kv' },
        `${this.unit} `,
        h('b', null, this.fmtValue(n.value)),
        ` · ${fmtPct(n.value / total)} of all`,
        z && z !== this.root && z.value && n._d > z._d
          ? ` · ${fmtPct(n.value / z.value)} of ${shortFrame(z)}`
          : '',
      ),
      h(
        'div',
        { class: 'tt-kv' },
        'self ',
        h('b', null, fmtInt(n.self || 0)),
        ` · ${fmtPct((n.self || 0) / total)}`,
        ` · depth ${n._d}`,
      ),
    ];
    const note = this.isAll(n) ? null : frameNote(n);
    if (note) lines.push(h('div', { class: 'tt-kv tt-note' }, note));
    if (n.folded && n.folded.length) {
      lines.push(h('div', { class: 'tt-fold-head' }, 'native frames folded into it (samples):'));
      for (const f of n.folded.slice(0, 6))
        lines.push(
          h(
            'div',
            { class: 'tt-fold' },
            h('b', null, fmtInt(f.samples)),
            ` ${f.name}${f.module && !f.name.startsWith(f.module) ? `  (${f.module})` : ''}`,
          ),
        );
      const more = (n.folded.length > 6 ? n.folded.length - 6 : 0) + (n.folded_other || 0);
      if (more) lines.push(h('div', { class: 'tt-fold dim' }, `and ${fmtInt(more)} more`));
    }
    lines.push(
      h(
        'div',
        { class: 'tt-hint' },
        n === z && n._p
          ? 'click to zoom out'
          : z && n._d < z._d
            ? 'click to zoom out to it'
            : this.inverted
              ? 'click to zoom in · the frames below it are its callers'
              : 'click to zoom in',
      ),
    );
    return lines;
  }

  setHover(n) {
    this.canvas.style.cursor = n ? 'pointer' : 'default';
    if (!n) {
      this.hover = null;
      this.tip.classList.add('hidden');
      return;
    }
    if (n !== this.hover || this.tip._v !== n.value) {
      this.hover = n;
      this.tip._v = n.value;
      fill(this.tip, this.tipLines(n));
    }
    this.tip.classList.remove('hidden');
    // place the tooltip next to the mouse, inside the graph
    const bw = this.el.clientWidth,
      bh = this.el.clientHeight;
    const tw = this.tip.offsetWidth,
      th = this.tip.offsetHeight;
    const mx = this.mouse ? this.mouse.x : 0,
      my = this.mouse ? this.mouse.y : 0;
    let left = mx + 14,
      top = my + 16;
    if (left + tw > bw - 4) left = Math.max(4, mx - tw - 10);
    if (top + th > bh - 4) top = Math.max(4, my - th - 10);
    this.tip.style.transform = `translate(${Math.round(left)}px, ${Math.round(top)}px)`;
  }

  // Where a frame whose name contains `text` is drawn ({x, y} of its centre in
  // canvas px), for tests and keyboard helpers; the widest one wins.
  locate(text) {
    let best = null;
    for (const row of this.rows) {
      for (const r of row.items) {
        if (!(r.node.name || '').includes(text)) continue;
        if (!best || r.w > best.w)
          best = { x: r.x + r.w / 2, y: row.y + row.h / 2, w: r.w, name: r.node.name, h: row.h };
      }
    }
    return best;
  }
}
