// compilations.js -- one method's compilation history (its `tiers`,
// docs/API.md) for the live feed's detail strip, from GET
// /functions/{function_id}. Each compilation is shown in order: tier, seconds
// since the session started (clock time in the tooltip), native size, JIT
// time; the selected row's own compilation is outlined, OSR entries marked.
import { h } from '../dom.js';
import { api } from '../api.js';
import { fmtInt, fmtNs, fmtRel, fmtClock } from '../format.js';
import { TIER_UNKNOWN, tierOf, tierPill, unknownTierWhy } from '../tiers.js';

// Resolves to {ok: true, fn} (fn null when the session knows no such function)
// or to the failed api() result. key: the function_key of the one meant (a
// collected dynamic method's FunctionID names a later method), else the newest.
export async function findFunction(sessionId, functionId, key = null) {
  const r = await api(
    `/api/sessions/${sessionId}/functions/${encodeURIComponent(functionId)}${key != null ? `?key=${key}` : ''}`,
  );
  if (r.ok) return { ok: true, fn: r.data.function };
  if (r.status === 404) return { ok: true, fn: null };
  return r;
}

// The steps of fn's history: [Node...]. currentMs: time_ms of the selected
// compilation (the same number the server gives the event and the entry).
export function compilationSteps(fn, { baseTime, currentMs, source = null }) {
  const list = fn.tiers || [];
  if (!list.length) {
    return [
      h(
        'span',
        { class: 'dim' },
        fn.catchup ? 'none recorded: known only from the attach-time catch-up' : 'none recorded',
      ),
    ];
  }
  const out = [];
  list.forEach((c, k) => {
    if (k) out.push(h('span', { class: 'comp-arrow', 'aria-hidden': 'true' }, '→'));
    const t = tierOf(c.tier);
    const osr = t.fam === 'osr';
    const cur = c.time_ms === currentMs;
    const tip =
      `compilation ${k + 1} of ${list.length + (fn.tiers_unkept || 0)}${cur ? ' (the selected JIT)' : ''}\n` +
      `${t.id === TIER_UNKNOWN ? unknownTierWhy({ source, timeMs: c.time_ms }) : t.tip}\nat ${fmtClock(c.time_ms)}, ${fmtInt(c.native_size)} bytes of native code, JIT time ${fmtNs(c.jit_ns)}`;
    out.push(
      h(
        'span',
        { class: `comp${cur ? ' cur' : ''}${osr ? ' osr' : ''}`, title: tip, 'data-tier': t.name },
        tierPill(c.tier, { long: true, why: unknownTierWhy({ source, timeMs: c.time_ms }) }),
        h('span', { class: 'comp-at' }, `+${fmtRel(c.time_ms, baseTime)} s`),
        h('span', null, `${fmtInt(c.native_size)} B`),
        h('span', null, fmtNs(c.jit_ns)),
      ),
    );
  });
  if (fn.tiers_unkept)
    out.push(
      h('span', { class: 'dim' }, `+ ${fmtInt(fn.tiers_unkept)} later, not kept by the server`),
    );
  return out;
}
