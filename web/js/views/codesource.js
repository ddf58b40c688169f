// codesource.js -- the Code tab's source lines (code.js): the method's lines
// from its PDB (GET .../source, docs/API.md "Source lines"). Each instruction
// row gets its line in a Source column (its IL offset through the sequence
// points: the visible point at or before it, in the method's file); the
// per-line heat view lists the method's lines with their text, shaded by the
// samples whose leaf was on them. A method without a PDB says why.
import { api } from '../api.js';
import { h } from '../dom.js';
import { fmtInt } from '../format.js';

const MAX_LINES = 400; // lines the heat view shows

// The method's source (with the samples of the code read), or null.
export async function loadSource(sessionId, fid) {
  const r = await api(`/api/sessions/${sessionId}/functions/${fid}/source?refresh=0`, {
    timeoutMs: 20000,
  });
  return r.ok ? r.data : null;
}

// The line an IL offset belongs to, or null (a hidden point, another file, no point).
export function lineOf(src, il) {
  if (!src || !src.file || typeof il !== 'number') return null;
  const pts = src.sequence_points;
  let lo = 0;
  let hi = pts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pts[mid].il_offset <= il) lo = mid + 1;
    else hi = mid;
  }
  const p = lo ? pts[lo - 1] : null;
  return p && !p.hidden && !p.file ? p.line : null;
}

const baseName = (file) => file.split(/[\\/]/).pop();

// A row's Source cell: ":line", its text in the tooltip.
export function sourceCell(src, ins) {
  const line = lineOf(src, ins.il_offset);
  if (line === null) return h('span', { class: 'code-src' }, '');
  const row = src.lines[line - src.lines[0].line];
  const text = row && row.text ? `\n${row.text.trim()}` : '';
  return h(
    'span',
    { class: 'code-src', title: `${baseName(src.file)}:${line}${text}` },
    String(line),
  );
}

// The per-line heat view: every line of the method with its text and samples.
export function sourcePanel(src) {
  if (!src) return null;
  if (!src.file)
    return h('div', { class: 'code-source-panel dim' }, `No source lines: ${src.reason}`);
  const all = src.lines.reduce((n, l) => n + l.self_samples, 0);
  const max = src.lines.reduce((n, l) => Math.max(n, l.self_samples), 1);
  const rows = src.lines.slice(0, MAX_LINES).map((l) => {
    const share = all ? (100 * l.self_samples) / all : 0;
    const a = l.self_samples ? 0.12 + 0.6 * (l.self_samples / max) : 0;
    return h(
      'div',
      {
        class: `code-src-line${l.self_samples ? ' is-hot' : ''}`,
        'data-line': String(l.line),
        style: a ? { background: `rgba(232, 93, 36, ${a.toFixed(3)})` } : null,
        title: `${fmtInt(l.self_samples)} samples here (the leaf), ${fmtInt(l.samples)} with this line on the stack`,
      },
      h('span', { class: 'code-src-no' }, String(l.line)),
      h(
        'span',
        { class: 'code-src-share' },
        l.self_samples ? `${share.toFixed(share < 10 ? 1 : 0)}%` : '',
      ),
      h('span', { class: 'code-src-text' }, l.text === null ? '' : l.text),
    );
  });
  return h(
    'div',
    { class: 'code-source-panel' },
    h(
      'div',
      { class: 'code-src-head' },
      h('b', null, baseName(src.file)),
      h(
        'span',
        { class: 'dim', title: src.file },
        ` ${src.file} · PDB ${src.pdb.embedded ? 'embedded in ' : ''}${src.pdb.path}`,
      ),
      all ? h('span', null, ` · ${fmtInt(all)} samples on its lines`) : null,
      src.text_readable
        ? null
        : h('span', { class: 't-slow' }, ' · the source file is not readable here'),
    ),
    h('div', { class: 'code-src-lines mono' }, rows),
  );
}
