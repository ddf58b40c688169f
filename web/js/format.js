// format.js -- number, duration, size and time formatting for the dashboard.

const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function fmtInt(n) {
  if (n == null || Number.isNaN(n)) return '–';
  return intFmt.format(n);
}

// Nanoseconds as µs / ms / s with 3 significant digits ("45.3 µs", "1.23 ms").
export function fmtNs(ns) {
  if (ns == null || Number.isNaN(ns)) return '–';
  if (ns < 1000) return `${Math.round(ns)} ns`;
  if (ns < 1e6) return `${sig3(ns / 1e3)} µs`;
  if (ns < 1e9) return `${sig3(ns / 1e6)} ms`;
  return `${sig3(ns / 1e9)} s`;
}

// Milliseconds as ms / s / "1m 05s" / "2h 03m".
export function fmtMs(ms) {
  if (ms == null || Number.isNaN(ms)) return '–';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${sig3(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${sig3(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  const hh = Math.floor(m / 60);
  return `${hh}h ${String(m % 60).padStart(2, '0')}m`;
}

function sig3(x) {
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

export function fmtBytes(n) {
  if (n == null || Number.isNaN(n)) return '–';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${sig3(n / 1024)} KiB`;
  if (n < 1024 ** 3) return `${sig3(n / 1024 / 1024)} MiB`;
  return `${sig3(n / 1024 ** 3)} GiB`;
}

// Unix ms -> "14:03:07.123" (local time).
export function fmtClock(ms, withMs = true) {
  if (ms == null) return '–';
  const d = new Date(ms);
  const p = (x, n = 2) => String(x).padStart(n, '0');
  const base = `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  return withMs ? `${base}.${p(d.getMilliseconds(), 3)}` : base;
}

export function fmtDateTime(ms) {
  if (ms == null) return '–';
  const d = new Date(ms);
  const p = (x) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${fmtClock(ms, false)}`;
}

// Seconds since a base time, "12.345".
export function fmtRel(ms, base) {
  if (ms == null || base == null) return '–';
  return ((ms - base) / 1000).toFixed(3);
}

export function fmtAgo(ms, now = Date.now()) {
  if (ms == null) return '–';
  const s = Math.max(0, (now - ms) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${Math.floor(s)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return fmtDateTime(ms);
}

export function fmtPct(x) {
  if (x == null || !Number.isFinite(x)) return '–';
  if (x > 0 && x < 0.001) return '<0.1%';
  return `${(x * 100).toFixed(1)}%`;
}

export function plural(n, one, many = one + 's') {
  return `${fmtInt(n)} ${n === 1 ? one : many}`;
}

// Splits a method name "Ns.Type<A.B>.Method" into ["Ns.Type<A.B>.", "Method"]:
// the last '.' outside <> and (), keeping ".ctor"/".cctor" whole.
export function splitMethod(name) {
  if (!name) return ['', ''];
  let depth = 0;
  for (let i = name.length - 1; i > 0; i--) {
    const c = name.charCodeAt(i);
    if (c === 62 /* > */ || c === 41 /* ) */ || c === 93 /* ] */) depth++;
    else if (c === 60 /* < */ || c === 40 /* ( */ || c === 91 /* [ */) depth--;
    else if (c === 46 /* . */ && depth === 0) {
      const cut = name.charCodeAt(i - 1) === 46 ? i - 1 : i; // "..ctor"
      return [name.slice(0, cut + 1), name.slice(cut + 1)];
    }
  }
  return ['', name];
}
