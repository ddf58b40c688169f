// tiers.js -- the JIT's optimisation tiers as the server names them (the `tier`
// of a `jit` event or a compilation, docs/API.md): pipeline order, a short
// label for the feed, a colour family (css: .tier-*), a one-line explanation
// for tooltips, and small ids so the feed's typed-array buffer keeps a tier
// per row without an object per row.
import { h } from './dom.js';

// In the order code usually moves through them; `unknown` last.
export const TIERS = [
  {
    name: 'Tier0',
    short: 'Tier0',
    fam: 't0',
    about: 'quick first compilation with few optimisations',
  },
  {
    name: 'Instrumented Tier0',
    short: 'Tier0 instr',
    fam: 't0 instr',
    about: 'Tier0 with profiling probes (dynamic PGO), for a method about to tier up',
  },
  {
    name: 'Instrumented Tier1',
    short: 'Tier1 instr',
    fam: 't0 instr',
    about:
      'optimised code with profiling probes (dynamic PGO), for a hot method that started as ReadyToRun code',
  },
  {
    name: 'Tier1',
    short: 'Tier1',
    fam: 't1',
    about: 'fully optimised recompilation of a hot method',
  },
  {
    name: 'Tier1-OSR',
    short: 'OSR',
    fam: 'osr',
    about:
      'on-stack replacement: optimised code for a hot loop, entered in the middle of a running Tier0 method',
  },
  {
    name: 'FullOpts',
    short: 'FullOpts',
    fam: 'opt',
    about:
      'optimised in one go, without tiering (e.g. dynamic methods, AggressiveOptimization, tiered compilation off)',
  },
  {
    name: 'MinOpts',
    short: 'MinOpts',
    fam: 'opt',
    about:
      'compiled without optimisations (e.g. debuggable code, or a method too large to optimise)',
  },
  {
    name: 'unknown',
    short: 'unknown',
    fam: 'unknown',
    about:
      'not reported by the runtime: compiled before jitscope attached (catch-up), the tier source was off or failed, or its record was lost',
  },
];
export const TIER_UNKNOWN = TIERS.length - 1;
for (let i = 0; i < TIERS.length; i++) {
  const t = TIERS[i];
  t.id = i;
  t.cls =
    t.fam === 'unknown' ? 'faint tier-unknown' : `pill tier tier-${t.fam.replace(' ', ' tier-')}`;
  t.tip = t.fam === 'unknown' ? `tier unknown: ${t.about}` : `${t.name}: ${t.about}`;
}

const byName = new Map(TIERS.map((t) => [t.name, t.id]));

// Tier name (or anything else) -> id; names this page does not know count as unknown.
export function tierId(name) {
  const id = byName.get(name);
  return id === undefined ? TIER_UNKNOWN : id;
}

export function tierOf(name) {
  return TIERS[tierId(name)];
}

// Why a compilation's tier is unknown, as precisely as the caller knows:
// catch-up (compiled before the attach), the runtime's end of the tier
// source as the process exits (a compilation at or after
// source.ended_by_runtime_ms), the session's tier source (off, failed), else
// the plain reason.
export function unknownTierWhy({ catchup = false, source = null, timeMs = null } = {}) {
  if (catchup)
    return 'tier unknown: compiled before jitscope attached (known from the attach-time catch-up); the runtime reports no tier for it';
  const ended = source && source.ended_by_runtime_ms;
  if (ended && (timeMs == null || timeMs >= ended))
    return (
      'tier unknown: compiled while the process was exiting; the runtime stops its events ' +
      '(the tier source) first thing when a process begins to exit, before ProcessExit handlers ' +
      `run${timeMs == null ? `, at ${new Date(ended).toLocaleTimeString()}` : ''}, so the last compilations carry no tier`
    );
  if (source && source.enabled === false && !ended)
    return 'tier unknown: the tier source was off for this session (JITSCOPE_TIERS=0 or turned off)';
  if (source && source.error)
    return `tier unknown: the agent could not open its tier source (HRESULT ${source.error})`;
  return TIERS[TIER_UNKNOWN].tip;
}

// A coloured pill for one tier; `long` shows the full name instead of the
// short label; `why` is the tooltip of an unknown tier (unknownTierWhy()).
export function tierPill(name, { long = false, why = null } = {}) {
  const t = tierOf(name);
  return h(
    'span',
    { class: t.cls, title: (t.id === TIER_UNKNOWN && why) || t.tip, 'data-tier': t.name },
    long ? t.name : t.short,
  );
}
