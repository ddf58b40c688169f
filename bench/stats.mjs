// stats.mjs -- small statistics helpers for the benchmarks.
export function median(xs) { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; }
export function pct(xs, p) { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; }
export const f1 = (x) => x.toFixed(1);
export const f2 = (x) => x.toFixed(2);
