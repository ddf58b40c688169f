// timeline.js -- a session's garbage collections and runtime suspensions, kept
// in the page as two bounded lists (the newest TIMELINE_CAP of each, like the
// server). History comes once from GET /api/sessions/{id}/timeline, what
// follows from the `gc` and `suspension` events of the session's stream. The
// server does not put the sampler's own suspensions in the stream while a
// profile runs (one per sample), so while one runs the owner calls poll():
// GET /timeline?from_ms= a few seconds before the newest entry held.
// Sources overlap (the stream replays the session from its first event, polls
// overlap each other), so an entry is added only when no entry of the same kind
// and exact duration lies within its own duration (+2 ms) of it: that holds
// whether an event is stamped with the start of the pause or its end.
//
// Who suspended the runtime: `jitscope` (reason profiler / by_jitscope: our
// snapshots and samples), `gc` (the collector, reasons gc and gc_prep), `other`.
import { api, isMissingRoute, describeError } from './api.js';

export const TIMELINE_CAP = 65536;
const POLL_OVERLAP_MS = 5000; // entries are recorded when the pause ends, batched by the agent

export function suspensionKind(s) {
  if (s.by_jitscope || s.reason === 'profiler') return 'jitscope';
  if (typeof s.reason === 'string' && s.reason.startsWith('gc')) return 'gc';
  return 'other';
}

// Generations array or bit mask -> [0, 1, ...]
function gensOf(g) {
  if (Array.isArray(g)) return g;
  const out = [];
  for (let i = 0; typeof g === 'number' && i < 8; i++) if (g & (1 << i)) out.push(i);
  return out;
}

export class PauseTimeline {
  constructor(sessionId, { onChange, onError } = {}) {
    this.id = sessionId;
    this.onChange = onChange;
    this.onError = onError;
    this.gcs = []; // {t (start, unix ms), ns, gens, reason, complete}
    this.susp = []; // {t, ns, reason, kind, aborted}
    this.dropped = { gcs: 0, suspensions: 0 }; // left the page's lists (oldest first)
    this.evicted = { gcs: 0, suspensions: 0 }; // no longer kept by the server
    this.seen = new Map(); // "kind|ns" -> recent start times (deduplication)
    this.longestSuspMs = 0; // of any suspension held: how far back one can start and still reach a time
    this.version = 0;
    this.loaded = false;
    this.missing = false; // the server has no /timeline route
    this.error = null;
  }

  // GET /timeline once: the history before (and overlapping) the stream.
  load() {
    return this.fetch(null);
  }

  // What is new since a little before the newest entry held (at most one request at a time).
  poll() {
    if (this.missing || this.busy || !this.loaded) return null;
    this.sort();
    let newest = -Infinity;
    if (this.gcs.length) newest = this.gcs[this.gcs.length - 1].t;
    if (this.susp.length) newest = Math.max(newest, this.susp[this.susp.length - 1].t);
    return this.fetch(Number.isFinite(newest) ? Math.floor(newest - POLL_OVERLAP_MS) : null);
  }

  async fetch(fromMs) {
    this.busy = true;
    const r = await api(
      `/api/sessions/${this.id}/timeline${fromMs != null ? `?from_ms=${fromMs}` : ''}`,
    );
    this.busy = false;
    if (!r.ok) {
      if (isMissingRoute(r)) this.missing = true;
      else {
        this.error = describeError('GC / suspension timeline', r);
        this.onError && this.onError(this.error);
      }
      this.changed();
      return false;
    }
    const d = r.data || {};
    let n = 0;
    for (const g of d.gcs || [])
      if (this.addGc(g.start_ms, g.duration_ns, g.generations, g.reason, g.complete !== false)) n++;
    for (const s of d.suspensions || [])
      if (this.addSuspension(s.start_ms, s.duration_ns, s.reason, suspensionKind(s), !!s.aborted))
        n++;
    if (d.evicted)
      this.evicted = { gcs: d.evicted.gcs || 0, suspensions: d.evicted.suspensions || 0 };
    this.sort();
    const first = !this.loaded;
    this.loaded = true;
    this.error = null;
    if (n || first) this.changed();
    return true;
  }

  // Stream events (any types; only gc / suspension are taken). Returns how many were new.
  ingest(events) {
    let n = 0;
    for (const ev of events) {
      if (ev.type === 'gc') {
        const ns = ev.duration_ns || 0;
        const start = ev.start_ms != null ? ev.start_ms : ev.time_ms - ns / 1e6;
        if (this.addGc(start, ns, ev.generations, ev.reason, true)) n++;
      } else if (ev.type === 'suspension') {
        const ns = ev.duration_ns || 0;
        const start = ev.start_ms != null ? ev.start_ms : ev.time_ms - ns / 1e6;
        if (this.addSuspension(start, ns, ev.reason, suspensionKind(ev), !!ev.aborted)) n++;
      }
    }
    if (n) this.changed();
    return n;
  }

  isDup(kind, start, ns) {
    const key = `${kind}|${ns}`;
    const list = this.seen.get(key);
    const tol = ns / 1e6 + 2;
    if (list) {
      for (const t of list) if (Math.abs(t - start) <= tol) return true;
      list.push(start);
      if (list.length > 4) list.shift();
    } else {
      this.seen.set(key, [start]);
    }
    return false;
  }

  addGc(start, ns, gens, reason, complete) {
    if (!Number.isFinite(start) || this.isDup('gc', start, ns || 0)) return false;
    this.push(
      this.gcs,
      { t: start, ns: ns || 0, gens: gensOf(gens), reason: reason || 'other', complete },
      'gcs',
    );
    return true;
  }

  addSuspension(start, ns, reason, kind, aborted) {
    if (!Number.isFinite(start) || this.isDup(`s${kind}`, start, ns || 0)) return false;
    if ((ns || 0) / 1e6 > this.longestSuspMs) this.longestSuspMs = ns / 1e6;
    this.push(
      this.susp,
      { t: start, ns: ns || 0, reason: reason || 'other', kind, aborted },
      'suspensions',
    );
    return true;
  }

  push(list, e, which) {
    const n = list.length;
    list.push(e);
    if (n && list[n - 1].t > e.t) list.sorted = false;
    if (list.length > TIMELINE_CAP + 4096) {
      // trim in chunks; forget the keys with them
      const cut = list.length - TIMELINE_CAP;
      list.splice(0, cut);
      this.dropped[which] += cut;
      this.rebuildSeen();
    }
  }

  // The deduplication keys of the entries a poll can still return again.
  rebuildSeen() {
    this.seen.clear();
    this.sort();
    for (const [list, prefix] of [
      [this.gcs, null],
      [this.susp, 's'],
    ]) {
      if (!list.length) continue;
      const from = list[list.length - 1].t - 2 * POLL_OVERLAP_MS;
      for (let i = PauseTimeline.lowerBound(list, from); i < list.length; i++) {
        const e = list[i];
        const key = `${prefix ? `s${e.kind}` : 'gc'}|${e.ns}`;
        const l = this.seen.get(key);
        if (l) {
          l.push(e.t);
          if (l.length > 4) l.shift();
        } else this.seen.set(key, [e.t]);
      }
    }
  }

  sort() {
    for (const list of [this.gcs, this.susp]) {
      if (list.sorted === false) {
        list.sort((a, b) => a.t - b.t);
        list.sorted = true;
      }
    }
  }

  changed() {
    this.version++;
    if (this.onChange) this.onChange();
  }

  // First index in a time-sorted list with t >= ms.
  static lowerBound(list, ms) {
    let lo = 0,
      hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].t < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // Entries with fromMs <= t < toMs (sorted by start).
  range(list, fromMs, toMs) {
    this.sort();
    const a = PauseTimeline.lowerBound(list, fromMs),
      b = PauseTimeline.lowerBound(list, toMs);
    return list.slice(a, b);
  }

  // Per-second bins over [endSec - span + 1, endSec]: GCs and suspended time by kind.
  window(endSec, span) {
    this.sort();
    const xs = new Float64Array(span);
    const gcN = new Uint16Array(span),
      gcNs = new Float64Array(span),
      gcMax = new Float64Array(span);
    const gcGens = new Uint8Array(span);
    const ns = {
      gc: new Float64Array(span),
      jitscope: new Float64Array(span),
      other: new Float64Array(span),
    };
    const cnt = {
      gc: new Uint32Array(span),
      jitscope: new Uint32Array(span),
      other: new Uint32Array(span),
    };
    const first = endSec - span + 1;
    for (let k = 0; k < span; k++) xs[k] = first + k;
    const from = first * 1000,
      to = (endSec + 1) * 1000;
    for (const g of this.range(this.gcs, from, to)) {
      const k = Math.floor(g.t / 1000) - first;
      gcN[k]++;
      gcNs[k] += g.ns;
      if (g.ns > gcMax[k]) gcMax[k] = g.ns;
      for (const x of g.gens) gcGens[k] |= 1 << Math.min(x, 7);
    }
    for (const s of this.range(this.susp, from, to)) {
      const k = Math.floor(s.t / 1000) - first;
      ns[s.kind][k] += s.ns;
      cnt[s.kind][k]++;
    }
    return { xs, gcN, gcNs, gcMax, gcGens, ns, cnt };
  }
  // GCs that start in [fromMs, toMs), oldest first (the live array's slice).
  gcsIn(fromMs, toMs) {
    return this.range(this.gcs, fromMs, toMs);
  }

  // Suspended time over [fromMs, toMs) in n equal bins, by kind: ns per bin
  // (a suspension that spans bins is split between them by its overlap) and
  // how many suspensions start in each bin. Also GCs starting per bin.
  bins(fromMs, toMs, n) {
    this.sort();
    const span = Math.max(toMs - fromMs, 1e-6),
      w = span / n;
    const ns = {
      gc: new Float64Array(n),
      jitscope: new Float64Array(n),
      other: new Float64Array(n),
    };
    const cnt = { gc: new Uint32Array(n), jitscope: new Uint32Array(n), other: new Uint32Array(n) };
    const gcN = new Uint32Array(n);
    const list = this.susp;
    for (
      let i = PauseTimeline.lowerBound(list, fromMs - this.longestSuspMs);
      i < list.length;
      i++
    ) {
      const s = list[i];
      if (s.t >= toMs) break;
      const end = s.t + s.ns / 1e6;
      if (end < fromMs || !s.ns) continue;
      const a = Math.max(s.t, fromMs),
        b = Math.min(end, toMs);
      let k = Math.min(n - 1, Math.max(0, Math.floor((a - fromMs) / w)));
      if (s.t >= fromMs) cnt[s.kind][k]++;
      for (let x = a; x < b && k < n; k++) {
        // at most one step per bin it covers
        const binEnd = fromMs + (k + 1) * w;
        const upTo = Math.min(b, binEnd);
        if (upTo > x) ns[s.kind][k] += (upTo - x) * 1e6;
        x = Math.max(x, upTo);
      }
    }
    for (const g of this.range(this.gcs, fromMs, toMs))
      gcN[Math.min(n - 1, Math.floor((g.t - fromMs) / w))]++;
    return { fromMs, toMs, n, binMs: w, ns, cnt, gcN };
  }

  // The runtime suspension for a collection: the GC-kind suspension that
  // covers the GC's start (both times come from the app's clock, so a GC
  // starts inside its suspension), the latest to start if several do; null
  // when none is held (lost, or evicted).
  suspensionOf(g) {
    this.sort();
    const list = this.susp,
      eps = 0.01; // ms: the JSON's rounding
    let best = null;
    for (
      let i = PauseTimeline.lowerBound(list, g.t - this.longestSuspMs - eps);
      i < list.length;
      i++
    ) {
      const s = list[i];
      if (s.t > g.t + eps) break;
      if (s.kind === 'gc' && s.t + s.ns / 1e6 >= g.t - eps) best = s;
    }
    return best;
  }
}
