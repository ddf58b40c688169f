// compilations.js -- one method's compilation history (its `tiers`,
// docs/API.md) for the live feed's detail strip. The server has no route per
// function, so the function is found through GET /functions?q=<its name> and
// picked by function_id. Each compilation is shown in order: tier, seconds
// since the session started (clock time in the tooltip), native size, JIT
// time; the selected row's own compilation is outlined, OSR entries marked.
import { h } from '../dom.js';
import { api } from '../api.js';
import { fmtInt, fmtNs, fmtRel, fmtClock } from '../format.js';
import { tierOf, tierPill } from '../tiers.js';

const PAGE = 500;
const QUERY_CHARS = 120; // the server takes at most 512 bytes of q=

// Resolves to {ok: true, fn} (fn null when the server lists no such function
// under that name) or to the failed api() result.
export async function findFunction(sessionId, functionId, name) {
  let q = (name || '').slice(0, QUERY_CHARS);
  if (/[\uD800-\uDBFF]$/.test(q)) q = q.slice(0, -1); // never cut a surrogate pair
  q = encodeURIComponent(q);
  for (let offset = 0; ; offset += PAGE) {
    const r = await api(`/api/sessions/${sessionId}/functions?q=${q}&limit=${PAGE}&offset=${offset}`);
    if (!r.ok) return r;
    const list = r.data.functions || [];
    const fn = list.find((f) => f.function_id === functionId);
    if (fn) return { ok: true, fn };
    if (!list.length || offset + list.length >= r.data.total) return { ok: true, fn: null };
  }
}

// The steps of fn's history: [Node...]. currentMs: time_ms of the selected
// compilation (the same number the server gives the event and the entry).
export function compilationSteps(fn, { baseTime, currentMs }) {
  const list = fn.tiers || [];
  if (!list.length) {
    return [h('span', { class: 'dim' }, fn.catchup ? 'none recorded: known only from the attach-time catch-up' : 'none recorded')];
  }
  const out = [];
  list.forEach((c, k) => {
    if (k) out.push(h('span', { class: 'comp-arrow', 'aria-hidden': 'true' }, '→'));
    const t = tierOf(c.tier);
    const osr = t.fam === 'osr';
    const cur = c.time_ms === currentMs;
    const tip = `compilation ${k + 1} of ${list.length + (fn.tiers_unkept || 0)}${cur ? ' (the selected JIT)' : ''}\n`
      + `${t.tip}\nat ${fmtClock(c.time_ms)}, ${fmtInt(c.native_size)} bytes of native code, JIT time ${fmtNs(c.jit_ns)}`;
    out.push(h('span', { class: `comp${cur ? ' cur' : ''}${osr ? ' osr' : ''}`, title: tip, 'data-tier': t.name },
      tierPill(c.tier, { long: true }),
      h('span', { class: 'comp-at' }, `+${fmtRel(c.time_ms, baseTime)} s`),
      h('span', null, `${fmtInt(c.native_size)} B`),
      h('span', null, fmtNs(c.jit_ns))));
  });
  if (fn.tiers_unkept) out.push(h('span', { class: 'dim' }, `+ ${fmtInt(fn.tiers_unkept)} later, not kept by the server`));
  return out;
}
