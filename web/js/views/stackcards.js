// stackcards.js -- how the Stacks tab draws a snapshot (views/stacks.js keeps
// the snapshots, the list and the toolbar): its summary line, one card per
// thread (name, OS id, walk result, frames leaf first, collapsible) or per
// group of threads with identical stacks, and the frames with the search's
// matches marked. A thread the runtime found in native code only (no managed
// frame: the finalizer's or the tiered compilation worker's wait, E_FAIL in
// the API's `native_only`) is said so calmly; a walk that failed shows its
// HRESULT in red, never hidden; a truncated stack says so.
import { h, fill } from '../dom.js';
import { schedule } from '../frame.js';
import { fmtInt, fmtNs, fmtDateTime, plural, splitMethod } from '../format.js';

export const CARDS_STEP = 300; // threads (or groups) put in the page at a time; "Show more" adds as many

export function hresultText(hr, name) {
  if (hr == null || hr === 0) return '';
  const hex =
    typeof hr === 'number'
      ? `0x${(hr >>> 0).toString(16).toUpperCase().padStart(8, '0')}`
      : String(hr);
  return name ? `${name} (${hex})` : hex;
}

// [start, end) of every case-insensitive occurrence of `q` (lower case) in text.
function matchRanges(text, q) {
  const out = [];
  if (!q) return out;
  const low = text.toLowerCase();
  for (let i = low.indexOf(q); i >= 0; i = low.indexOf(q, i + q.length))
    out.push([i, i + q.length]);
  return out;
}

// text[from, to) with the parts inside `ranges` (offsets in the whole text) in <mark>.
function markSlice(text, ranges, from = 0, to = text.length) {
  const out = [];
  let at = from;
  for (const [a, b] of ranges) {
    const s = Math.max(a, from),
      e = Math.min(b, to);
    if (e <= s) continue;
    if (s > at) out.push(text.slice(at, s));
    out.push(h('mark', null, text.slice(s, e)));
    at = e;
  }
  if (at < to) out.push(text.slice(at, to));
  return out;
}

// Text with every case-insensitive occurrence of `q` (lower case) in <mark>.
export function marked(text, q) {
  return q ? markSlice(text, matchRanges(text, q)) : text;
}

function frameMatches(f, q) {
  return (
    !!q && ((f.name || '').toLowerCase().includes(q) || (f.module || '').toLowerCase().includes(q))
  );
}

export class StackCards {
  constructor(tab) {
    this.tab = tab;
  }

  renderSummary(snap) {
    const threads = snap.threads || [];
    const failed = threads.filter((t) => t.hresult && !t.native_only).length;
    const native = threads.filter((t) => t.native_only).length;
    const truncated = threads.filter((t) => t.truncated).length;
    const frames = threads.reduce((a, t) => a + (t.frames ? t.frames.length : 0), 0);
    const kv = (k, v, cls) => h('span', { class: cls || null }, `${k} `, h('b', null, v));
    const parts = [
      h('span', { class: 'ss-title' }, `Snapshot #${snap.id}`),
      kv(
        'at',
        `${fmtDateTime(snap.time_ms)}.${String(Math.floor(snap.time_ms % 1000)).padStart(3, '0')}`,
      ),
      kv(
        'threads',
        snap.threads_total != null && snap.threads_total !== threads.length
          ? `${fmtInt(threads.length)} of ${fmtInt(snap.threads_total)}`
          : fmtInt(threads.length),
      ),
      kv('frames', fmtInt(frames)),
      h(
        'span',
        { title: 'SuspendRuntime to ResumeRuntime: how long the app stood still' },
        'runtime suspended ',
        h('b', null, fmtNs(snap.suspend_ns)),
      ),
      kv('walk', fmtNs(snap.walk_ns)),
    ];
    if (snap.retries) parts.push(kv('suspend retries', fmtInt(snap.retries)));
    if (native)
      parts.push(
        h(
          'span',
          {
            class: 'pill pill-native',
            title:
              'threads with no managed frame on their stack: the runtime’s own threads waiting or working in native code (the finalizer, the tiered compilation worker); nothing failed',
          },
          `${native} in native code`,
        ),
      );
    if (failed)
      parts.push(
        h(
          'span',
          {
            class: 'pill pill-err',
            title: 'threads whose walk returned an error HRESULT (listed with it below)',
          },
          `${failed} walk${failed > 1 ? 's' : ''} failed`,
        ),
      );
    if (truncated)
      parts.push(
        h(
          'span',
          { class: 'pill pill-warn', title: 'stacks deeper than 512 frames: the root end is cut' },
          `${truncated} truncated`,
        ),
      );
    if (snap.complete === false)
      parts.push(
        h(
          'span',
          {
            class: 'pill pill-warn',
            title: 'some thread records were lost (counted in the agent drops)',
          },
          'incomplete',
        ),
      );
    if (snap.hresult)
      parts.push(
        h('span', { class: 'pill pill-err' }, `suspend failed: ${hresultText(snap.hresult)}`),
      );
    const sig = parts.map((p) => p.textContent).join('|');
    if (this.tab.summaryEl._sig !== sig) {
      this.tab.summaryEl._sig = sig;
      fill(this.tab.summaryEl, parts);
    }
  }

  renderThreads(snap) {
    const q = this.tab.query;
    const threads = snap.threads || [];
    const out = [];
    let shown = 0,
      matchFrames = 0;
    for (const t of threads) {
      const frames = t.frames || [];
      const name = this.tab.threadName(t);
      let hits = 0;
      if (q) for (const f of frames) if (frameMatches(f, q)) hits++;
      const nameHit = !!q && name.toLowerCase().includes(q);
      if (q && !hits && !nameHit) continue;
      shown++;
      matchFrames += hits;
      if (out.length >= this.tab.cardLimit) continue; // counted, not built
      const key = this.tab.threadKey(t);
      const open = this.tab.isOpen(key, snap, hits > 0);
      out.push(
        this.card({
          key,
          open,
          frames,
          q,
          hits,
          truncated: t.truncated,
          hresult: t.hresult,
          hresultName: t.hresult_name,
          nativeOnly: !!t.native_only,
          head: [
            h('span', { class: 'th-name' }, marked(name, q)),
            h(
              'span',
              { class: 'th-os', title: 'OS thread id' },
              t.os_thread_id ? `os ${t.os_thread_id}` : 'os ?',
            ),
            h('span', { class: 'th-id', title: 'runtime ThreadID' }, t.thread_id),
          ],
          walkNs: t.walk_ns,
          data: { thread: name, os: String(t.os_thread_id || '') },
        }),
      );
    }
    this.setResult(
      out,
      q
        ? `${shown} of ${plural(threads.length, 'thread')} match · ${plural(matchFrames, 'frame')}`
        : null,
      shown,
      matchFrames,
      `No thread has a frame or name containing “${this.tab.search.value.trim()}”.`,
    );
  }

  renderMerged(snap) {
    const q = this.tab.query;
    const groups = this.tab.groups(snap);
    const out = [];
    let shown = 0,
      matchFrames = 0;
    for (const g of groups) {
      let hits = 0;
      if (q) for (const f of g.frames) if (frameMatches(f, q)) hits++;
      const names = g.threads.map((t) => this.tab.threadName(t));
      const nameHit = !!q && names.some((n) => n.toLowerCase().includes(q));
      if (q && !hits && !nameHit) continue;
      shown++;
      matchFrames += hits;
      if (out.length >= this.tab.cardLimit) continue; // counted, not built
      const open = this.tab.isOpen(g.key, snap, hits > 0);
      const chips = g.threads
        .slice(0, 12)
        .map((t, i) =>
          h(
            'span',
            { class: 'chip', title: `${t.thread_id} · os ${t.os_thread_id || '?'}` },
            marked(names[i], q),
          ),
        );
      if (g.threads.length > 12)
        chips.push(h('span', { class: 'chip more' }, `+${g.threads.length - 12} more`));
      out.push(
        this.card({
          key: g.key,
          open,
          frames: g.frames,
          q,
          hits,
          truncated: g.truncated,
          hresult: g.hresult,
          hresultName: g.hresult_name,
          nativeOnly: g.native_only,
          head: [
            h(
              'span',
              {
                class: 'count-badge',
                title: `${g.threads.length} threads have exactly this stack`,
              },
              `×${g.threads.length}`,
            ),
            h('span', { class: 'chips' }, chips),
          ],
          data: { count: String(g.threads.length), threads: names.join('\n') },
        }),
      );
    }
    this.setResult(
      out,
      `${plural(groups.length, 'distinct stack')} for ${plural((snap.threads || []).length, 'thread')}${q ? ` · ${shown} match` : ''}`,
      shown,
      matchFrames,
      `No stack has a frame or thread name containing “${this.tab.search.value.trim()}”.`,
    );
  }

  setResult(cards, meta, shown, matchFrames, emptyText) {
    if (!cards.length) cards.push(h('div', { class: 'empty-state' }, emptyText));
    if (shown > cards.length) {
      const more = Math.min(CARDS_STEP, shown - cards.length);
      cards.push(
        h(
          'div',
          { class: 'more-row' },
          h(
            'button',
            {
              class: 'btn',
              type: 'button',
              onclick: () => {
                this.tab.cardLimit += CARDS_STEP;
                schedule(this.tab.renderTask);
              },
            },
            `Show ${fmtInt(more)} more`,
          ),
          h('span', { class: 'dim' }, ` ${fmtInt(cards.length)} of ${fmtInt(shown)} shown`),
        ),
      );
    }
    if (meta) cards.unshift(h('div', { class: 'list-meta' }, meta));
    fill(this.tab.threadsEl, cards);
    this.tab.threadsEl.dataset.threads = String(shown);
    this.tab.threadsEl.dataset.matchFrames = String(matchFrames);
  }

  // One thread or group: a header button (expand / collapse) and its frames.
  card({
    key,
    open,
    frames,
    q,
    hits,
    truncated,
    hresult,
    hresultName,
    nativeOnly,
    head,
    walkNs,
    data,
  }) {
    const failed = !!hresult && !nativeOnly;
    const leaf = frames.length ? frames[0] : null;
    const right = [];
    if (hits)
      right.push(h('span', { class: 'pill pill-match' }, `${hits} match${hits > 1 ? 'es' : ''}`));
    if (failed)
      right.push(
        h(
          'span',
          {
            class: 'pill pill-err',
            title: 'the runtime could not walk this thread (DoStackSnapshot failed)',
          },
          `walk failed: ${hresultText(hresult, hresultName)}`,
        ),
      );
    if (nativeOnly)
      right.push(
        h(
          'span',
          {
            class: 'pill pill-native',
            title: `no managed frame on this thread's stack: it was in native code, the runtime's own work or a wait (DoStackSnapshot: ${hresultText(hresult, hresultName) || 'S_OK'})`,
          },
          'in native code',
        ),
      );
    if (truncated)
      right.push(
        h(
          'span',
          {
            class: 'pill pill-warn',
            title: 'deeper than 512 frames: the frames toward the root are not kept',
          },
          'truncated',
        ),
      );
    right.push(
      h(
        'span',
        { class: 'th-depth' },
        (failed || nativeOnly) && !frames.length
          ? 'no managed frames'
          : `${fmtInt(frames.length)}${truncated ? '+' : ''} frames`,
      ),
    );
    if (walkNs != null)
      right.push(
        h('span', { class: 'th-walk', title: 'time spent walking this thread' }, fmtNs(walkNs)),
      );
    const btn = h(
      'button',
      {
        class: 'th-head',
        type: 'button',
        'aria-expanded': String(open),
        onclick: () => this.tab.toggle(key, !open),
      },
      h('span', { class: 'caret', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
      head,
      !open && leaf
        ? h(
            'span',
            { class: 'th-leaf' },
            'at ',
            leaf.native ? '[native]' : splitMethod(leaf.name || '')[1] || leaf.name,
          )
        : null,
      h('span', { class: 'spacer' }),
      right,
    );
    const card = h(
      'section',
      {
        class: `stack-card${failed ? ' failed' : ''}${nativeOnly ? ' native-only' : ''}${open ? ' open' : ''}`,
        dataset: { key, ...data },
      },
      btn,
    );
    if (open) {
      if (frames.length) {
        card.append(
          h(
            'ol',
            { class: 'frames', start: '0' },
            frames.map((f, i) => this.frameRow(f, i, q)),
          ),
        );
      }
      if (truncated)
        card.append(
          h(
            'div',
            { class: 'trunc-note' },
            '⋯ stack truncated: deeper than 512 frames; the frames toward the root are not kept',
          ),
        );
      if (nativeOnly)
        card.append(
          h(
            'div',
            { class: 'native-note' },
            `No managed frame: the thread was in native code (the runtime's own work, or waiting for it), so there was no managed stack to walk. Nothing failed: the runtime says so with ${hresultText(hresult, hresultName) || 'S_OK'} and no frame.`,
          ),
        );
      else if (failed && !frames.length)
        card.append(
          h(
            'div',
            { class: 'fail-note' },
            `The runtime could not walk this thread: ${hresultText(hresult, hresultName)}.`,
          ),
        );
    }
    return card;
  }

  frameRow(f, i, q) {
    if (f.native) {
      return h(
        'li',
        { class: 'frame native', title: f.ip ? `unmanaged code at ${f.ip}` : 'unmanaged code' },
        h('span', { class: 'f-i' }, String(i)),
        h('span', { class: 'f-name' }, '[native]'),
        h('span', { class: 'f-mod' }, f.ip || ''),
      );
    }
    const name = f.name || f.function_id || '?';
    const hit = frameMatches(f, q);
    const [ns] = splitMethod(name);
    const ranges = matchRanges(name, q); // a match may run across the namespace / method split
    // file:line (the server's, from the method's PDB), else why there is none
    const src = f.line ? `${f.file}:${f.line}` : null;
    const where = src || (f.line_reason ? `no source line: ${f.line_reason}` : '');
    return h(
      'li',
      {
        class: `frame${hit ? ' hit' : ''}`,
        title: `${name}${f.module ? `  (${f.module})` : ''}${f.ip ? `  ip ${f.ip}` : ''}${where ? `\n${where}` : ''}`,
      },
      h('span', { class: 'f-i' }, String(i)),
      h(
        'span',
        { class: 'f-name mname' },
        h('span', { class: 'm-ns' }, markSlice(name, ranges, 0, ns.length)),
        h('span', { class: 'm-leaf' }, markSlice(name, ranges, ns.length, name.length)),
      ),
      h(
        'span',
        { class: 'f-mod' },
        src ? h('span', { class: 'f-src' }, `${src.slice(src.lastIndexOf('/') + 1)} `) : null,
        marked(f.module || '', q),
      ),
    );
  }
}
