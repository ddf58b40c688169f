// buffer.js -- the client-side store of JIT events.
//
// JitBuffer is a bounded ring of columnar typed arrays (no object per row):
// row numbers grow forever, row r lives at slot r % capacity while
// r >= total - capacity; older rows were dropped from the client buffer.
// Strings (method, module, thread_key) are interned to small integer ids; the
// tier of each compilation is a tier id (tiers.js).
//
// RowView is the filtered list of row numbers the table shows, maintained
// incrementally as rows arrive and rebuilt only when the filter changes.

import { tierId, TIERS } from './tiers.js';

export const DEFAULT_CAPACITY = 200000;

const F_DYNAMIC = 1;
const F_CATCHUP = 2;

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
    this.total = 0;
    this.strings = new Interner();
    this.funcs = new Interner(); // function ids
    this.funcJits = new Int32Array(1024); // per function id: JITs seen
    this.moduleRows = new Map(); // module string id -> rows currently in the buffer
    this.rejits = 0;
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

// The rows the table shows: filtered, and frozen at `limit` while paused.
export class RowView {
  constructor(buf) {
    this.buf = buf;
    this.rows = new Float64Array(4096);
    this.start = 0;
    this.end = 0;
    this.scanned = 0; // buffer rows < scanned have been tested
    this.text = '';
    this.moduleId = -1; // string id or -1 for all
    this.match = new Int8Array(1024); // per string id: -1 unknown, 0 no, 1 yes
  }

  get filtered() {
    return this.text !== '' || this.moduleId !== -1;
  }

  setFilter(text, moduleName) {
    const t = (text || '').trim().toLowerCase();
    const m = moduleName == null || moduleName === '' ? -1 : this.buf.strings.id(moduleName);
    if (t === this.text && m === this.moduleId) return false;
    this.text = t;
    this.moduleId = m;
    this.match = new Int8Array(Math.max(1024, this.buf.strings.size + 1024)).fill(-1);
    this.start = this.end = 0;
    this.scanned = this.buf.first;
    this.lastFirst = this.buf.first;
    return true;
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

  // Tests rows [scanned, limit) of the buffer; appends the matching ones.
  extend(limit) {
    const buf = this.buf;
    if (this.scanned < buf.first) this.scanned = buf.first;
    if (!this.filtered) {
      this.scanned = limit;
      return;
    }
    const cap = buf.cap;
    const text = this.text !== '';
    const mod = this.moduleId;
    for (let r = this.scanned; r < limit; r++) {
      const i = r % cap;
      if (mod !== -1 && buf.module[i] !== mod) continue;
      if (text && !this.textMatches(buf.name[i]) && !this.textMatches(buf.module[i])) continue;
      if (this.end === this.rows.length) this.grow();
      this.rows[this.end++] = r;
    }
    this.scanned = limit;
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
