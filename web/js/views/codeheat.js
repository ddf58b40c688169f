// codeheat.js -- the Code tab's heat (code.js): where the samples of the
// session's newest profile fell in a method's code (GET .../code gives every
// instruction `samples` and `self_samples`, docs/API.md). A row is shaded by
// its self samples against the hottest instruction of all versions, its
// share of its version's samples in a column of its own; the hottest ranges
// (a run of instructions of one version from one IL offset) are listed above
// the columns, hottest first, and a click brings a range's rows into view.
import { h } from '../dom.js';
import { fmtInt } from '../format.js';

const HOT_RANGES = 8; // ranges listed

function hex4(n) {
  return n.toString(16).toUpperCase().padStart(4, '0');
}

export const ilText = (il) => (typeof il === 'number' ? `IL_${hex4(il)}` : il || 'no IL');

// Whether the reply carries a profile with samples in this method.
export function hasHeat(code) {
  return !!(code && code.profile && code.versions.some((v) => v.samples > 0));
}

// The hottest instruction's self samples, over every version (at least 1).
export function heatMax(code) {
  let max = 1;
  for (const v of code.versions)
    for (const ins of v.instructions) max = Math.max(max, ins.self_samples);
  return max;
}

// A row's shading: none when it was never the leaf.
export function heatStyle(ins, max) {
  if (!ins.self_samples) return null;
  const a = 0.12 + 0.6 * (ins.self_samples / max);
  return { background: `rgba(232, 93, 36, ${a.toFixed(3)})` };
}

// The heat column of a row: its share of the version's self samples, and
// (a call) the samples it was on the stack in.
export function heatCell(ins, version) {
  const share = version.self_samples ? (100 * ins.self_samples) / version.self_samples : 0;
  const text = ins.self_samples ? `${share < 10 ? share.toFixed(1) : share.toFixed(0)}%` : '';
  const callers = ins.samples - ins.self_samples;
  return h(
    'span',
    {
      class: `code-heat${callers > 0 ? ' has-callers' : ''}`,
      title: `${fmtInt(ins.self_samples)} samples here (the leaf), ${fmtInt(ins.samples)} with this instruction on the stack${callers > 0 ? ': a call the samples were under' : ''}`,
    },
    text || (callers > 0 ? `↳${fmtInt(callers)}` : ''),
  );
}

// The ranges of every version: consecutive instructions from one IL offset,
// with their self samples; hottest first.
export function hotRanges(code) {
  const out = [];
  code.versions.forEach((v) => {
    let cur = null;
    for (const ins of v.instructions) {
      if (!cur || ins.il_offset !== cur.il || typeof ins.il_offset !== 'number') {
        if (cur && cur.self) out.push(cur);
        cur = { position: v.position, tier: v.tier, il: ins.il_offset, from: ins.offset, self: 0 };
        cur.share = 0;
        cur.version = v;
      }
      cur.to = ins.offset;
      cur.self += ins.self_samples;
    }
    if (cur && cur.self) out.push(cur);
  });
  for (const r of out) r.share = r.version.self_samples ? r.self / r.version.self_samples : 0;
  return out.sort((a, b) => b.self - a.self).slice(0, HOT_RANGES);
}

// The profile line and the hottest ranges; onPick(range) when one is clicked.
export function heatPanel(code, onPick) {
  const p = code.profile;
  if (!p)
    return h(
      'div',
      { class: 'code-hot dim' },
      'No profile: start one on the Profile tab to see where the samples fall in this code.',
    );
  const here = code.versions.reduce((n, v) => n + v.self_samples, 0);
  const head = h(
    'div',
    { class: 'code-hot-head' },
    h('span', { class: 'code-diff-k' }, 'hottest'),
    h(
      'span',
      { title: 'the session keeps its newest profile' },
      `profile ${p.number} (${p.mode === 'cpu' ? 'CPU time' : 'wall clock'}, ${p.state}): `,
      h('b', null, fmtInt(here)),
      ` of ${fmtInt(p.samples)} samples in this method`,
    ),
  );
  const ranges = hotRanges(code);
  return h(
    'div',
    { class: 'code-hot' },
    head,
    ranges.length
      ? h(
          'ol',
          { class: 'code-hot-list' },
          ranges.map((r) =>
            h(
              'li',
              null,
              h(
                'button',
                {
                  type: 'button',
                  class: 'code-hot-range',
                  'data-position': String(r.position),
                  'data-from': String(r.from),
                  title: 'show these instructions',
                  onclick: () => onPick(r),
                },
                h('b', { class: 'code-hot-share' }, `${(100 * r.share).toFixed(1)}%`),
                ` ${r.position}. ${r.tier} · ${ilText(r.il)} · `,
                h('span', { class: 'mono' }, `${hex4(r.from)}–${hex4(r.to)}`),
                h('span', { class: 'dim' }, ` ${fmtInt(r.self)} samples`),
              ),
            ),
          ),
        )
      : h('div', { class: 'dim' }, 'no sample fell in this method'),
  );
}
