// stats.mjs -- small statistics helpers for the benchmarks.
export function median(xs) { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; }
export function pct(xs, p) { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; }
export const f1 = (x) => x.toFixed(1);
export const f2 = (x) => x.toFixed(2);
// A 95% confidence interval of the median of xs: the 2.5th and 97.5th percentiles of the
// medians of 2,000 resamples (bootstrap), drawn with a fixed seed so a table can be redone.
export function medianCi(xs, resamples = 2000) {
  let seed = 0x2545f491;
  const rand = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; };
  const ms = [];
  for (let i = 0; i < resamples; i++) ms.push(median(xs.map(() => xs[Math.floor(rand() * xs.length)])));
  return [pct(ms, 2.5), pct(ms, 97.5)];
}
