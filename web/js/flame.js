// flame.js -- a flame graph drawn as an icicle on a canvas: the root ("all")
// at the top, callees below, each frame as wide as its samples. Children are
// ordered by name, so a graph that grows while sampling keeps its layout.
//
// Only what is on screen is drawn: the canvas is as tall as the viewport
// (sticky inside a scroller as tall as the deepest stack) and frames narrower
// than half a pixel are skipped with their callees. Click a frame to zoom to
// it (its ancestors stay on top, dimmed; click one, or the zoomed frame again,
// to zoom out); the search highlights matching frames and greys the rest,
// counts them in the whole graph and under the zoomed frame, marks matches
// too narrow to draw with a 2 px tick on their row, and jumpMatch() zooms to the
// next or previous one (heaviest first).
// Colours are stable per module (hue) and name (shade).
//
// The caller owns the timing: setTree / setQuery / zoomTo only mark the graph
// dirty, draw() paints (call it from the frame scheduler).
import { h, fill } from './dom.js';
import { fmtInt, fmtPct, splitMethod } from './format.js';

export const ROW_H = 18;
const MIN_W = 0.5; // px: narrower frames are not drawn
const FONT = '11px ui-monospace, "JetBrains Mono", "DejaVu Sans Mono", monospace';
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
export function frameColor(name, module) {
  const key = `${module}\u0000${name}`;
  let c = colorCache.get(key);
  if (c) return c;
  if (name === '[native]') c = ['#4b5160', '#23262d'];
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

// Labels from longest to shortest: "Ns.Type.Method", "Type.Method", "Method".
function labels(node) {
  if (node._l) return node._l;
  const name = node.name || '?';
  const out = [name];
  const [ns, leaf] = splitMethod(name);
  if (ns) {
    const type = splitMethod(ns.slice(0, -1))[1];
    const mid = type ? `${type}.${leaf}` : leaf;
    if (mid !== name) out.push(mid);
    if (leaf !== mid) out.push(leaf);
  }
  node._l = out;
  return out;
}

export class FlameGraph {
  constructor() {
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
    this.rows = new Map(); // depth -> [{x, w, node}] as drawn
    this.mouse = null; // {x, y} in canvas px
    this.hover = null;
    this.onZoom = null; // (node) after a click changed the zoom
    this.onDrawn = null;
    this.charW = 6.6;

    this.canvas = h('canvas', {
      class: 'flame-canvas',
      role: 'img',
      'aria-label': 'Flame graph (icicle): the root at the top, callees below, width = samples',
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
    // the zoomed frame's row in view: not below the top, nor under the bottom edge
    const zy = (this.zoom ? this.zoom._d : 0) * ROW_H;
    const viewH = this.scroller.clientHeight || 0;
    let top = Math.min(this.scroller.scrollTop, zy);
    if (viewH && zy + ROW_H > top + viewH) top = Math.max(0, zy - Math.floor(viewH / 3));
    this.scroller.scrollTop = Math.max(0, top);
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
  // stack: a match below another match is not counted again.
  // Also marks frames with a match below them (_mb), so a match too narrow to
  // draw still gets a tick where its subtree is drawn.
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
        if (q && n._p !== null) {
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

  // ---- drawing ----
  draw() {
    const cv = this.canvas;
    const viewH = this.scroller.clientHeight;
    const W = this.scroller.clientWidth;
    if (!W || !viewH) return;
    const z = this.zoom;
    const depth = this.root ? this.deepestUnder(z) + 1 : 0;
    const totalH = Math.max(viewH, depth * ROW_H + 4);
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
    g.font = FONT;
    g.textBaseline = 'middle';
    this.charW = g.measureText('MMMMMMMMMM').width / 10 || 6.6;
    this.rows = new Map();
    this.drawn = 0;
    this.drawnMatches = 0;
    this.tickedMatches = 0;
    this.ticked = new Set(); // "row:x" of the ticks drawn: one per pixel
    const top = this.scroller.scrollTop;
    const firstRow = Math.floor(top / ROW_H),
      lastRow = Math.ceil((top + viewH) / ROW_H);
    this.view = { W, top, firstRow, lastRow };
    const empty = !this.root || !this.root.value;
    this.empty.classList.toggle('hidden', !empty);
    if (!empty) {
      // ancestors of the zoomed frame: full width, dimmed
      for (let n = z._p; n; n = n._p)
        if (n._d >= firstRow && n._d <= lastRow) this.box(g, n, 0, W, true);
      // the zoomed frame and everything under it
      const stack = [[z, 0]];
      const scale = W / z.value;
      const searching = !!this.query;
      while (stack.length) {
        const [n, x] = stack.pop();
        const w = n.value * scale;
        if (n._d > lastRow) continue;
        if (w < MIN_W) {
          // too narrow to draw: a match still gets a tick on its row (and so do those below it)
          if (!searching) continue;
          if (n._m && n._d >= firstRow) this.tick(g, n, x);
          if (n._mb) for (const c of n.children) stack.push([c, x]);
          continue;
        }
        if (n._d >= firstRow) this.box(g, n, x, w, false);
        let cx = x;
        for (const c of n.children) {
          stack.push([c, cx]);
          cx += c.value * scale;
        }
      }
    }
    cv.dataset.drawn = String(this.drawn);
    cv.dataset.matches = String(this.drawnMatches);
    cv.dataset.ticks = String(this.tickedMatches);
    cv.dataset.total = String(this.root ? this.root.value : 0);
    cv.dataset.zoom = z ? z.name : '';
    if (this.mouse) this.updateHover();
    if (this.onDrawn) this.onDrawn();
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

  box(g, n, x, w, ancestor) {
    const y = n._d * ROW_H - this.view.top;
    const searching = !!this.query;
    const [normal, dim] = frameColor(n.name, n.module);
    const miss = searching && !n._m;
    g.globalAlpha = ancestor ? 0.6 : 1;
    g.fillStyle = miss ? dim : normal;
    const bw = Math.max(w - (w > 2 ? 1 : 0), MIN_W);
    g.fillRect(x, y, bw, ROW_H - 1);
    if (n._m && searching) {
      g.strokeStyle = '#ffd166';
      g.lineWidth = 1.5;
      g.strokeRect(x + 0.75, y + 0.75, Math.max(0, bw - 1.5), ROW_H - 2.5);
      this.drawnMatches++;
    }
    const chars = Math.floor((w - 8) / this.charW);
    if (chars >= 3) {
      let text = null;
      const ls = n === this.root ? [`all · ${fmtInt(n.value)} samples`, 'all'] : labels(n);
      for (const l of ls)
        if (l.length <= chars) {
          text = l;
          break;
        }
      if (!text) {
        const shortest = ls[ls.length - 1];
        text = `${shortest.slice(0, chars - 1)}…`;
      }
      g.fillStyle = miss ? '#717a8a' : '#f1f4f8';
      g.fillText(text, x + 4, y + ROW_H / 2);
    }
    g.globalAlpha = 1;
    let row = this.rows.get(n._d);
    if (!row) this.rows.set(n._d, (row = []));
    row.push({ x, w, node: n });
    this.drawn++;
  }

  // A match narrower than MIN_W: a 2 px highlight tick at its place (one per pixel and row).
  tick(g, n, x) {
    const key = `${n._d}:${Math.round(x)}`;
    if (this.ticked.has(key)) return;
    this.ticked.add(key);
    g.fillStyle = '#ffd166';
    g.fillRect(Math.round(x), n._d * ROW_H - this.view.top + 2, 2, ROW_H - 4);
    this.tickedMatches++;
  }

  hitTest(x, y) {
    if (!this.view) return null;
    const d = Math.floor((y + this.view.top) / ROW_H);
    const row = this.rows.get(d);
    if (!row) return null;
    for (const r of row) if (x >= r.x && x < r.x + Math.max(r.w, 1)) return r.node;
    return null;
  }

  updateHover() {
    if (!this.mouse) return;
    this.setHover(this.hitTest(this.mouse.x, this.mouse.y));
  }

  setHover(n) {
    this.canvas.style.cursor = n ? 'pointer' : 'default';
    if (!n) {
      this.hover = null;
      this.tip.classList.add('hidden');
      return;
    }
    const total = this.root.value || 1;
    const z = this.zoom;
    if (n !== this.hover || this.tip._v !== n.value) {
      this.hover = n;
      this.tip._v = n.value;
      fill(
        this.tip,
        h('div', { class: 'tt-name' }, n === this.root ? 'all (every sampled stack)' : n.name),
        n.module ? h('div', { class: 'tt-mod' }, n.module) : null,
        h(
          'div',
          { class: 'tt-kv' },
          'samples ',
          h('b', null, fmtInt(n.value)),
          ` · ${fmtPct(n.value / total)} of all`,
          z && z !== this.root && z.value
            ? ` · ${fmtPct(n.value / z.value)} of ${labels(z)[labels(z).length > 1 ? 1 : 0]}`
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
        n.name === '[unknown]'
          ? h('div', { class: 'tt-kv' }, 'samples of threads whose stack could not be walked')
          : null,
        n.name === '[native]'
          ? h('div', { class: 'tt-kv' }, 'unmanaged code (no managed method)')
          : null,
        n.name === '[pruned]'
          ? h(
              'div',
              { class: 'tt-kv' },
              'smaller callees the server left out of the graph (it sends the 20,000 heaviest frames)',
            )
          : null,
        h(
          'div',
          { class: 'tt-hint' },
          n === z && n._p
            ? 'click to zoom out'
            : n === this.root
              ? 'click to show everything'
              : 'click to zoom in',
        ),
      );
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
    for (const row of this.rows.values()) {
      for (const r of row) {
        if (!(r.node.name || '').includes(text)) continue;
        if (!best || r.w > best.w)
          best = {
            x: r.x + r.w / 2,
            y: r.node._d * ROW_H - this.view.top + ROW_H / 2,
            w: r.w,
            name: r.node.name,
          };
      }
    }
    return best;
  }
}
