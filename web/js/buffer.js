// buffer.js -- the client-side store of JIT events.
//
// JitBuffer is a bounded ring of columnar typed arrays (no object per row):
// row numbers grow forever, row r lives at slot r % capacity while
// r >= total - capacity; older rows were dropped from the client buffer.
// Strings (method, module, thread_key) are interned to small integer ids; the
// tier of each compilation is a tier id (tiers.js).
//
// RowView is the filtered list of row numbers the table shows, maintained
// incrementally as rows arrive and rebuilt only when the filter changes (and,
// with the recompiled filter, when a method shown nowhere yet is compiled again:
// its earlier compilations then match too).

import { tierId, TIERS } from './tiers.js';

export const DEFAULT_CAPACITY = 200000;

const F_DYNAMIC = 1;
const F_CATCHUP = 2;

// Whose code a JIT compiled (the event's `origin`, docs/API.md "Whose code"),
// as small ids; `app` is "my code".
export const ORIGINS = ['app', 'package', 'framework', 'sdk', 'in_memory', 'dynamic', 'unknown'];
const ORIGIN_ID = new Map(ORIGINS.map((o, i) => [o, i]));
export const ORIGIN_APP = 0;
export const ORIGIN_DYNAMIC = ORIGINS.indexOf('dynamic');
const ORIGIN_UNKNOWN = ORIGINS.indexOf('unknown');

export class Interner {
  constructor() {
    this.ids = new Map();
    this.strings = [];
    this.lower = [];
  }
  id(s) {
    if (s == null) s = '';
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.lower.push(null);
      this.ids.set(s, id);
    }
    return id;
  }
  get(id) {
    return this.strings[id];
  }
  lowerOf(id) {
    let l = this.lower[id];
    if (l === null) l = this.lower[id] = this.strings[id].toLowerCase();
    return l;
  }
  get size() {
    return this.strings.length;
  }
}

// A thread column's string back to its thread_key (null: not known).
const keyOf = (s) => (s ? Number(s) : null);

// One function as the page counts its JITs: its FunctionID and function_key
// (a collected dynamic method's FunctionID is given to a new method, which the
// server keeps as a function of its own); and back.
const funcOf = (ev) =>
  ev.function_key != null ? `${ev.function_id}#${ev.function_key}` : ev.function_id || '';
const funcParts = (s) => {
  const at = s.indexOf('#');
  return at < 0
    ? { function_id: s, function_key: null }
    : { function_id: s.slice(0, at), function_key: Number(s.slice(at + 1)) };
};

export class JitBuffer {
  constructor(capacity = DEFAULT_CAPACITY) {
    this.cap = capacity;
    this.seq = new Float64Array(capacity);
    this.time = new Float64Array(capacity);
    this.jitNs = new Float64Array(capacity);
    this.name = new Int32Array(capacity);
    this.module = new Int32Array(capacity);
    this.thread = new Int32Array(capacity);
    this.func = new Int32Array(capacity);
    this.il = new Int32Array(capacity);
    this.native = new Int32Array(capacity);
    this.versions = new Int32Array(capacity);
    this.nth = new Int32Array(capacity); // n-th JIT of this function seen by the page
    this.flags = new Uint8Array(capacity);
    this.tier = new Uint8Array(capacity); // tier id (tiers.js)
    this.origin = new Uint8Array(capacity); // ORIGINS id
    this.total = 0;
    this.strings = new Interner();
    this.funcs = new Interner(); // function ids
    this.funcJits = new Int32Array(1024); // per function id: JITs seen
    this.moduleRows = new Map(); // module string id -> rows currently in the buffer
    this.rejits = 0;
    this.recompiledMethods = 0; // methods of this page seen compiled a 2nd time
  }

  get first() {
    return this.total > this.cap ? this.total - this.cap : 0;
  }
  get dropped() {
    return this.first;
  }
  get size() {
    return this.total - this.first;
  }
  slot(row) {
    return row % this.cap;
  }

  // Appends one `jit` event (docs/API.md); returns its row number.
  push(ev) {
    const row = this.total;
    const i = row % this.cap;
    if (row >= this.cap) {
      // evict the old row in this slot
      const m = this.module[i];
      this.moduleRows.set(m, this.moduleRows.get(m) - 1);
    }
    const st = this.strings;
    const m = st.id(ev.module || '');
    this.seq[i] = ev.seq;
    this.time[i] = ev.time_ms;
    this.jitNs[i] = ev.jit_ns || 0;
    this.name[i] = st.id(ev.name || '(unnamed)');
    this.module[i] = m;
    this.thread[i] = st.id(ev.thread_key != null ? String(ev.thread_key) : ''); // the thread's row
    this.il[i] = ev.il_size || 0;
    this.native[i] = ev.native_size || 0;
    this.versions[i] = ev.versions || 1;
    this.tier[i] = tierId(ev.tier);
    this.flags[i] = (ev.dynamic ? F_DYNAMIC : 0) | (ev.catchup ? F_CATCHUP : 0);
    this.origin[i] = ev.dynamic
      ? ORIGIN_DYNAMIC
      : (ORIGIN_ID.get(ev.origin) ?? (ev.module ? ORIGIN_UNKNOWN : ORIGIN_DYNAMIC));
    const f = this.funcs.id(funcOf(ev));
    if (f >= this.funcJits.length) {
      const bigger = new Int32Array(this.funcJits.length * 2);
      bigger.set(this.funcJits);
      this.funcJits = bigger;
    }
    const nth = ++this.funcJits[f];
    this.func[i] = f;
    this.nth[i] = nth;
    if (nth > 1 || this.versions[i] > 1) this.rejits++;
    if (nth === 2) this.recompiledMethods++;
    this.moduleRows.set(m, (this.moduleRows.get(m) || 0) + 1);
    this.total = row + 1;
    return row;
  }

  isDynamic(row) {
    return (this.flags[row % this.cap] & F_DYNAMIC) !== 0;
  }
  isCatchup(row) {
    return (this.flags[row % this.cap] & F_CATCHUP) !== 0;
  }
  isRejit(row) {
    const i = row % this.cap;
    return this.nth[i] > 1 || this.versions[i] > 1;
  }
  // The row's method has been compiled 2+ times (this page saw it) or has 2+
  // code versions: the API's `recompiled`.
  isRecompiledMethod(row) {
    const i = row % this.cap;
    return this.funcJits[this.func[i]] > 1 || this.versions[i] > 1;
  }

  // Plain object for one row (detail panel, tests).
  row(row) {
    if (row < this.first || row >= this.total) return null;
    const i = row % this.cap;
    const st = this.strings;
    return {
      row,
      seq: this.seq[i],
      time_ms: this.time[i],
      jit_ns: this.jitNs[i],
      name: st.get(this.name[i]),
      module: st.get(this.module[i]),
      thread_key: keyOf(st.get(this.thread[i])),
      ...funcParts(this.funcs.get(this.func[i])),
      il_size: this.il[i],
      native_size: this.native[i],
      versions: this.versions[i],
      nth: this.nth[i],
      tier: TIERS[this.tier[i]].name,
      origin: ORIGINS[this.origin[i]],
      dynamic: this.isDynamic(row),
      catchup: this.isCatchup(row),
    };
  }

  // Modules that currently have rows, [{name, rows}] by name.
  modules() {
    const out = [];
    for (const [id, n] of this.moduleRows)
      if (n > 0) out.push({ id, name: this.strings.get(id), rows: n });
    out.sort((a, b) => a.name.localeCompare(b.name));
    return out;
  }
}

// What the feed filters on, all at once (docs/API.md, the functions query's
// filters of the same names): a substring of method or module name; a module
// by name (NO_MODULE: dynamic methods, which have none); a tier (tiers.js id);
// whose code (`mine`: origin app; `others`: any other; `dynamic`); only
// methods compiled 2+ times.
export const NO_MODULE = '\u0000no module';
export const EMPTY_FILTER = { text: '', module: null, tier: -1, code: '', recompiled: false };
const CODE_FILTERS = ['', 'mine', 'others', 'dynamic'];
const RECOMPILED_REBUILD_MS = 500; // at most this often the view is rebuilt for new recompilations

// The rows the table shows: filtered, and frozen at `limit` while paused.
export class RowView {
  constructor(buf) {
    this.buf = buf;
    this.rows = new Float64Array(4096);
    this.start = 0;
    this.end = 0;
    this.scanned = 0; // buffer rows < scanned have been tested
    this.filter = { ...EMPTY_FILTER };
    this.text = '';
    this.moduleId = -1; // string id or -1 for all
    this.match = new Int8Array(1024); // per string id: -1 unknown, 0 no, 1 yes
    this.recompiledSeen = 0; // buf.recompiledMethods when the view was last built
    this.builtAt = 0;
  }

  get filtered() {
    const f = this.filter;
    return this.text !== '' || this.moduleId !== -1 || f.tier >= 0 || f.code !== '' || f.recompiled;
  }

  // f: text, module (null: all; NO_MODULE: none), tier (-1: all), code ('',
  // 'mine', 'others', 'dynamic'), recompiled. Returns whether it changed.
  setFilter(f) {
    const next = { ...EMPTY_FILTER, ...f };
    next.text = (next.text || '').trim().toLowerCase();
    if (!CODE_FILTERS.includes(next.code)) next.code = '';
    const m =
      next.module == null || next.module === ''
        ? -1
        : this.buf.strings.id(next.module === NO_MODULE ? '' : next.module);
    const same = Object.keys(next).every((k) => next[k] === this.filter[k]);
    if (same && m === this.moduleId) return false;
    this.filter = next;
    this.text = next.text;
    this.moduleId = m;
    this.match = new Int8Array(Math.max(1024, this.buf.strings.size + 1024)).fill(-1);
    this.rebuild();
    return true;
  }

  rebuild() {
    this.start = this.end = 0;
    this.scanned = this.buf.first;
    this.lastFirst = this.buf.first;
    this.recompiledSeen = this.buf.recompiledMethods;
    this.builtAt = Date.now();
  }

  // With the recompiled filter on, methods compiled again since the view was
  // built have earlier rows that match now: true when it is time to rebuild.
  stale() {
    return (
      this.filter.recompiled &&
      this.buf.recompiledMethods !== this.recompiledSeen &&
      Date.now() - this.builtAt >= RECOMPILED_REBUILD_MS
    );
  }

  textMatches(id) {
    if (id >= this.match.length) {
      const bigger = new Int8Array(Math.max(id + 1, this.match.length * 2)).fill(-1);
      bigger.set(this.match);
      this.match = bigger;
    }
    let v = this.match[id];
    if (v === -1) v = this.match[id] = this.buf.strings.lowerOf(id).includes(this.text) ? 1 : 0;
    return v === 1;
  }

  // Whether buffer row r passes the filter.
  passes(r) {
    const buf = this.buf;
    const i = r % buf.cap;
    const f = this.filter;
    if (this.moduleId !== -1 && buf.module[i] !== this.moduleId) return false;
    if (f.tier >= 0 && buf.tier[i] !== f.tier) return false;
    if (f.code === 'mine' && buf.origin[i] !== ORIGIN_APP) return false;
    if (f.code === 'others' && buf.origin[i] === ORIGIN_APP) return false;
    if (f.code === 'dynamic' && buf.origin[i] !== ORIGIN_DYNAMIC) return false;
    if (f.recompiled && !buf.isRecompiledMethod(r)) return false;
    if (this.text !== '' && !this.textMatches(buf.name[i]) && !this.textMatches(buf.module[i]))
      return false;
    return true;
  }

  // Tests rows [scanned, limit) of the buffer; appends the matching ones.
  // Returns true when the view was rebuilt (rows before those it had came in).
  extend(limit) {
    const buf = this.buf;
    let rebuilt = false;
    if (this.stale()) {
      this.rebuild();
      rebuilt = true;
    }
    if (this.scanned < buf.first) this.scanned = buf.first;
    if (!this.filtered) {
      this.scanned = limit;
      return rebuilt;
    }
    for (let r = this.scanned; r < limit; r++) {
      if (!this.passes(r)) continue;
      if (this.end === this.rows.length) this.grow();
      this.rows[this.end++] = r;
    }
    this.scanned = limit;
    return rebuilt;
  }

  grow() {
    if (this.start > 0 && this.start * 2 >= this.end) {
      // compact in place
      this.rows.copyWithin(0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
      if (this.end < this.rows.length) return;
    }
    const bigger = new Float64Array(this.rows.length * 2);
    bigger.set(this.rows.subarray(this.start, this.end));
    this.end -= this.start;
    this.start = 0;
    this.rows = bigger;
  }

  // Drops rows that left the buffer; returns how many rows left the front of the view.
  trim() {
    const first = this.buf.first;
    if (!this.filtered) {
      const gone = Math.max(0, first - (this.lastFirst ?? first));
      this.lastFirst = first;
      return gone;
    }
    if (this.start >= this.end || this.rows[this.start] >= first) return 0;
    const before = this.start;
    let lo = this.start,
      hi = this.end; // first index with rows[i] >= first
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rows[mid] < first) lo = mid + 1;
      else hi = mid;
    }
    this.start = lo;
    return lo - before;
  }

  length() {
    if (!this.filtered) return Math.max(0, this.scanned - this.buf.first);
    return this.end - this.start;
  }

  at(i) {
    if (!this.filtered) return this.buf.first + i;
    return this.rows[this.start + i];
  }
}

// Compilations and JIT time per second, for the rate chart (columnar, uPlot-style).
export class RateSeries {
  constructor(seconds = 600) {
    this.n = seconds;
    this.sec = new Float64Array(seconds).fill(-1);
    this.count = new Float64Array(seconds);
    this.jitNs = new Float64Array(seconds);
    this.last = -Infinity; // newest second with data
    this.version = 0;
  }
  add(timeMs, jitNs) {
    const s = Math.floor(timeMs / 1000);
    if (s <= this.last - this.n) return; // older than what we keep
    const i = ((s % this.n) + this.n) % this.n;
    if (this.sec[i] !== s) {
      this.sec[i] = s;
      this.count[i] = 0;
      this.jitNs[i] = 0;
    }
    this.count[i]++;
    this.jitNs[i] += jitNs;
    if (s > this.last) this.last = s;
    this.version++;
  }
  // Columnar arrays for the `span` seconds ending at second `end` (inclusive).
  window(end, span) {
    const xs = new Float64Array(span),
      ys = new Float64Array(span),
      ts = new Float64Array(span);
    for (let k = 0; k < span; k++) {
      const s = end - span + 1 + k;
      xs[k] = s;
      const i = ((s % this.n) + this.n) % this.n;
      if (this.sec[i] === s) {
        ys[k] = this.count[i];
        ts[k] = this.jitNs[i];
      }
    }
    return { xs, ys, ts };
  }
}
