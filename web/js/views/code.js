// code.js -- the session's Code tab: one method's native code, every version
// of it side by side (GET /functions/{fid}/code, docs/API.md): a column per
// version in the order they were compiled, each with its tier, size, JIT
// time and the callees the runtime let the JIT inline; a diff of two versions
// (size, instructions, the calls that disappeared: inlined, or the calls that
// came); IL offsets interleaved on request. A call target that is a method of
// the session opens that method (#/sessions/ID/code/0xFID). The method comes
// from the URL, from the live feed's detail strip ("code"), or from the search
// box here (GET /functions?q=). Where the session's newest profile's samples
// fell: rows shaded by heat, the hottest ranges listed (codeheat.js).
import { h, fill } from '../dom.js';
import { api, describeError } from '../api.js';
import { loadSource, sourceCell, sourcePanel } from './codesource.js';
import { fmtInt, fmtClock } from '../format.js';
import { methodName, methodParts } from '../mname.js';
import { tierPill } from '../tiers.js';
import { notice, sessionHref, sectionHead } from './common.js';
import { hasHeat, heatMax, heatStyle, heatCell, heatPanel } from './codeheat.js';

const ROWS_PER_COLUMN = 4000; // instructions drawn per version (the rest: a note)
const COL_MIN_PX = 280; // a version's column, at least
const COL_MAX_PX = 640; // and at most, to keep an odd long call target from widening it all

export function codeHref(sessionId, functionId) {
  return `${sessionHref(sessionId, 'code')}/${functionId}`;
}

function hex4(n) {
  return n.toString(16).toUpperCase().padStart(4, '0');
}

const methodLabel = (name) => methodName(name);

// "List<System.Int32>.Add(int)" for "System.Collections.Generic.List<System.Int32>.Add(int)".
export function shortName(name) {
  const p = methodParts(name);
  return p.type + p.method + p.params;
}

// The key two versions' calls are compared by: the callee's name.
function callNames(v) {
  return new Set((v.calls || []).map((c) => c.name));
}

export class CodeTab {
  constructor(session) {
    this.session = session;
    this.fid = null;
    this.code = null; // the last reply
    this.showIl = false;
    this.diff = [0, 0]; // positions (indices in versions) compared
    this.token = 0;
    this.meta = h(
      'span',
      { class: 'meta' },
      'the native code of a method, every version side by side',
    );
    this.search = h('input', {
      type: 'search',
      class: 'code-search',
      placeholder: 'find a method…',
      'aria-label': 'find a method by name',
      oninput: () => this.findLater(),
    });
    this.results = h('div', { class: 'code-results hidden', role: 'listbox' });
    this.refreshBtn = h(
      'button',
      {
        class: 'btn btn-small',
        type: 'button',
        title: 'read the code again from the live agent',
        onclick: () => this.load(true),
      },
      'Read again',
    );
    this.ilBox = h('input', {
      type: 'checkbox',
      class: 'code-il-toggle',
      onchange: () => {
        this.showIl = this.ilBox.checked;
        this.render();
      },
    });
    this.textLink = h(
      'a',
      {
        class: 'btn btn-small hidden',
        target: '_blank',
        rel: 'noopener',
        title: "the listing as text, like the JIT's own (DOTNET_JitDisasm)",
      },
      'Text',
    );
    this.title = h('div', { class: 'code-title' });
    this.msg = h('div', { class: 'code-msg' });
    this.summary = h('div', { class: 'code-summary' });
    this.heatEl = h('div', { class: 'code-heat-panel' });
    this.sourceEl = h('div', { class: 'code-source' });
    this.diffEl = h('div', { class: 'code-diff' });
    this.columns = h('div', { class: 'code-columns' });
    this.el = h(
      'div',
      { class: 'tab-page code-tab' },
      sectionHead('Code', this.meta),
      h(
        'div',
        { class: 'code-bar' },
        h('span', { class: 'code-find' }, this.search, this.results),
        this.title,
        h('span', { class: 'spacer' }),
        h(
          'label',
          {
            class: 'code-il',
            title: 'show the IL offset each instruction comes from (the IL-to-native map)',
          },
          this.ilBox,
          ' IL offsets',
        ),
        this.textLink,
        this.refreshBtn,
      ),
      this.msg,
      this.summary,
      this.heatEl,
      this.sourceEl,
      this.diffEl,
      this.columns,
    );
    this.showEmpty();
  }

  show() {}
  hide() {}
  destroy() {
    clearTimeout(this.findTimer);
  }

  // The tab was opened for a method (from the URL: a link, a call target):
  // its code is read (again), fresh from the agent while the session is live.
  open(functionId) {
    if (!functionId) return;
    this.fid = functionId;
    this.load(true);
  }

  showEmpty() {
    fill(
      this.msg,
      h(
        'div',
        { class: 'empty-state' },
        'Pick a method: search by name above, or click ',
        h('b', null, 'code'),
        ' on a JIT in the live feed. ',
        'The agent reads every native code version the runtime keeps for it (Tier0, tier-ups, OSR, ReadyToRun) from the running process.',
      ),
    );
  }

  // ---- finding a method ----
  findLater() {
    clearTimeout(this.findTimer);
    this.findTimer = setTimeout(() => this.find(), 200);
  }

  async find() {
    const q = this.search.value.trim();
    if (!q) {
      this.results.classList.add('hidden');
      return;
    }
    const r = await api(
      `/api/sessions/${this.session.id}/functions?q=${encodeURIComponent(q)}&limit=20&sort=jit_time`,
    );
    if (q !== this.search.value.trim()) return;
    const list = r.ok ? r.data.functions || [] : [];
    fill(
      this.results,
      list.length
        ? list.map((f) =>
            h(
              'button',
              {
                class: 'code-result',
                type: 'button',
                role: 'option',
                'data-fid': f.function_id,
                onclick: () => {
                  this.results.classList.add('hidden');
                  this.session.app.navigate(codeHref(this.session.id, f.function_id));
                },
              },
              methodLabel(f.name),
              h('span', { class: 'dim' }, ` ${f.jit_count} JIT${f.jit_count === 1 ? '' : 's'}`),
            ),
          )
        : h(
            'div',
            { class: 'dim code-result' },
            r.ok ? 'no method matches' : describeError('Search', r),
          ),
    );
    this.results.classList.remove('hidden');
  }

  // ---- loading ----
  async load(refresh) {
    if (!this.fid) return;
    const token = ++this.token;
    const live = !this.session.isFinal();
    fill(
      this.msg,
      h('div', { class: 'dim' }, live && refresh ? 'reading the code from the agent…' : 'loading…'),
    );
    this.textLink.href = `/api/sessions/${this.session.id}/functions/${this.fid}/code?format=text&refresh=0`;
    const started = performance.now();
    const r = await api(
      `/api/sessions/${this.session.id}/functions/${this.fid}/code${refresh ? '' : '?refresh=0'}`,
      { timeoutMs: 20000 },
    );
    if (token !== this.token) return;
    this.loadMs = performance.now() - started;
    if (!r.ok) {
      this.code = null;
      fill(this.title);
      fill(this.summary);
      fill(this.heatEl);
      fill(this.sourceEl);
      fill(this.diffEl);
      fill(this.columns);
      fill(
        this.msg,
        notice(r.status === 409 ? 'warn' : 'error', describeError("The method's code", r)),
      );
      this.el.dataset.state = 'error';
      return;
    }
    this.code = r.data;
    this.source = await loadSource(this.session.id, this.fid);
    if (token !== this.token) return;
    const n = this.code.versions.length;
    this.diff = [0, Math.max(0, n - 1)];
    this.textLink.classList.remove('hidden');
    this.render();
    this.el.dataset.state = 'done';
  }

  // ---- drawing ----
  render() {
    const c = this.code;
    if (!c) return;
    fill(
      this.title,
      methodLabel(c.name),
      c.module ? h('span', { class: 'dim' }, ` [${c.module}]`) : null,
    );
    fill(
      this.msg,
      c.complete
        ? null
        : notice(
            'warn',
            "Some pieces of this reply were lost on the way (the agent's connection was slow): what came is shown.",
          ),
    );
    const inl = c.inlined_into;
    fill(
      this.summary,
      h(
        'span',
        null,
        h('b', null, String(c.versions.length)),
        ` code version${c.versions.length === 1 ? '' : 's'}`,
        c.truncated.versions
          ? h('span', { class: 't-slow' }, ` (of ${c.versions_listed}: the rest not read)`)
          : null,
      ),
      h(
        'span',
        { title: 'when the agent read it from the process' },
        'read ',
        h('b', null, fmtClock(c.read_ms)),
        h(
          'span',
          { class: 'dim' },
          ` (agent ${(c.agent_ns / 1e6).toFixed(2)} ms, here ${this.loadMs.toFixed(0)} ms)`,
        ),
      ),
      h(
        'span',
        { title: 'the methods whose compilations the runtime let the JIT inline this one into' },
        'inlined into ',
        h('b', null, fmtInt(inl.methods)),
        ` method${inl.methods === 1 ? '' : 's'}`,
      ),
      c.ready_to_run.precompiled
        ? h(
            'span',
            { class: 'pill', title: 'its module had ReadyToRun (precompiled) code for it' },
            c.ready_to_run.used ? 'ReadyToRun: used' : 'ReadyToRun: rejected',
          )
        : null,
      h(
        'span',
        {
          class: 'dim',
          title:
            c.il.body_size > c.il.size
              ? `IL code: ${fmtInt(c.il.size)} bytes, as the JIT counts it (and the feed); the method body is ${fmtInt(c.il.body_size)} bytes with its ${fmtInt(c.il.header_size)}-byte header${c.il.body_size > c.il.size + c.il.header_size ? ' and exception-handling sections' : ''}`
              : 'IL code bytes, as the JIT counts them',
        },
        `IL ${fmtInt(c.il.size)} B`,
      ),
    );
    this.heat = hasHeat(c);
    this.heatMax = heatMax(c);
    fill(
      this.heatEl,
      heatPanel(c, (r) => this.showRange(r)),
    );
    fill(this.sourceEl, sourcePanel(this.source));
    this.renderDiff();
    fill(
      this.columns,
      c.versions.map((v, i) => this.column(v, i)),
    );
    this.columns.style.gridTemplateColumns = `repeat(${Math.max(1, c.versions.length)}, minmax(${this.columnWidth(c)}px, 1fr))`;
  }

  // The narrowest a version's column may be: room for its longest operand or
  // call target (at most COL_MAX_PX); where the columns do not fit side by
  // side they scroll sideways together, rather than cut what a row says.
  columnWidth(c) {
    let chars = 0;
    for (const v of c.versions)
      for (const ins of v.instructions) chars = Math.max(chars, this.operandText(ins).length);
    if (!this.charPx) {
      const probe = h(
        'span',
        { class: 'code-list mono', style: { position: 'absolute' } },
        'x'.repeat(40),
      );
      document.body.append(probe);
      this.charPx = probe.getBoundingClientRect().width / 40 || 7.3;
      probe.remove();
    }
    // 42 + 64 px for offset and mnemonic, two 6 px gaps, 8 px padding each side, the border;
    // the heat column and the source column, each with its gap
    const src = this.source && this.source.file ? 38 : 0;
    const px = Math.ceil(
      42 + 64 + 2 * 6 + 2 * 8 + 2 + (this.heat ? 50 : 0) + src + chars * this.charPx,
    );
    return Math.min(COL_MAX_PX, Math.max(COL_MIN_PX, px));
  }

  // What a row shows after its mnemonic.
  operandText(ins) {
    const t = ins.target;
    if (!t) return ins.operands || '';
    if (t.kind === 'local') return `L_${hex4(t.offset)}`;
    if (t.kind === 'method') return shortName(t.name);
    return t.name || ins.operands || '';
  }

  renderDiff() {
    const vs = this.code.versions;
    if (vs.length < 2) {
      fill(this.diffEl);
      return;
    }
    const pick = (k) =>
      h(
        'select',
        {
          class: 'code-diff-pick',
          'data-side': k,
          onchange: (e) => {
            this.diff[k] = Number(e.target.value);
            this.renderDiff();
          },
        },
        vs.map((v, i) =>
          h('option', { value: String(i), selected: i === this.diff[k] }, `${i + 1}. ${v.tier}`),
        ),
      );
    const [a, b] = [vs[this.diff[0]], vs[this.diff[1]]];
    const pct = a.code_size ? Math.round(((b.code_size - a.code_size) / a.code_size) * 100) : 0;
    const ca = callNames(a),
      cb = callNames(b);
    const inlinedB = new Set((b.inlinees || []).map((x) => x.name));
    const gone = [...ca].filter((n) => !cb.has(n));
    const came = [...cb].filter((n) => !ca.has(n));
    const sign = (d) => (d > 0 ? `+${fmtInt(d)}` : fmtInt(d));
    fill(
      this.diffEl,
      h('span', { class: 'code-diff-k' }, 'compare'),
      pick(0),
      h('span', null, '→'),
      pick(1),
      h(
        'span',
        { class: 'code-diff-size' },
        'size ',
        h('b', null, `${fmtInt(a.code_size)} → ${fmtInt(b.code_size)} B`),
        ` (${pct > 0 ? '+' : ''}${pct}%)`,
      ),
      h(
        'span',
        { class: 'code-diff-insns' },
        'instructions ',
        h('b', null, `${fmtInt(a.instruction_count)} → ${fmtInt(b.instruction_count)}`),
        ` (${sign(b.instruction_count - a.instruction_count)})`,
      ),
      h(
        'div',
        { class: 'code-diff-calls' },
        h('span', { class: 'code-diff-k' }, 'calls gone'),
        gone.length
          ? gone.map((n) =>
              h(
                'span',
                {
                  class: `pill ${inlinedB.has(n) ? 'code-inlined' : 'code-gone'}`,
                  title: inlinedB.has(n)
                    ? 'inlined: the runtime let the JIT inline it into this compilation'
                    : 'no longer called (inlined, devirtualised or optimised away)',
                },
                shortName(n),
                inlinedB.has(n) ? ' (inlined)' : '',
              ),
            )
          : h('span', { class: 'dim' }, 'none'),
        h('span', { class: 'code-diff-k' }, 'calls new'),
        came.length
          ? came.map((n) => h('span', { class: 'pill code-new', title: n }, shortName(n)))
          : h('span', { class: 'dim' }, 'none'),
      ),
    );
  }

  column(v, i) {
    const head = h(
      'div',
      { class: 'code-col-head' },
      h(
        'div',
        null,
        h('b', null, `${i + 1}.`),
        ' ',
        tierPill(v.tier, { long: true, why: v.tier_reason }),
        v.compilation
          ? h(
              'span',
              { class: 'dim', title: 'which compilation of the method made this version' },
              ` compilation ${v.compilation}`,
            )
          : null,
      ),
      h(
        'div',
        { class: 'code-col-kv' },
        h('span', { class: 'code-size' }, h('b', null, fmtInt(v.code_size)), ' B'),
        h('span', null, h('b', null, fmtInt(v.instruction_count)), ' instr'),
        this.heat
          ? h(
              'span',
              {
                class: 'code-samples',
                title: `samples of the profile whose leaf was in this version (${fmtInt(v.samples)} with it on the stack)`,
              },
              h('b', null, fmtInt(v.self_samples)),
              ' samples',
            )
          : null,
        v.jit_ms != null
          ? h(
              'span',
              { title: `compiled at ${fmtClock(v.compiled_ms)}` },
              'JIT ',
              h('b', null, `${v.jit_ms.toFixed(2)} ms`),
            )
          : h('span', { class: 'dim', title: v.tier_reason || '' }, 'not seen compiled'),
        v.inlinees.length
          ? h(
              'span',
              {
                class: 'code-inl',
                title: `inlined (as the runtime allowed):\n${v.inlinees.map((x) => x.name).join('\n')}`,
              },
              `${v.inlinees.length} inlined`,
            )
          : null,
      ),
      v.truncated.code
        ? notice(
            'warn',
            `only ${fmtInt(v.code_read)} of ${fmtInt(v.code_size)} bytes read (the per-version cap)`,
          )
        : null,
    );
    const rows = [];
    let lastIl = null;
    const locals = new Set(
      v.instructions
        .filter((x) => x.target && x.target.kind === 'local')
        .map((x) => x.target.offset),
    );
    const shown = v.instructions.slice(0, ROWS_PER_COLUMN);
    for (const ins of shown) {
      if (locals.has(ins.offset))
        rows.push(h('div', { class: 'code-label' }, `L_${hex4(ins.offset)}:`));
      if (this.showIl && ins.il_offset !== null && ins.il_offset !== lastIl) {
        lastIl = ins.il_offset;
        rows.push(
          h(
            'div',
            { class: 'code-ilrow' },
            typeof ins.il_offset === 'number' ? `IL_${hex4(ins.il_offset)}` : ins.il_offset,
          ),
        );
      }
      rows.push(this.row(ins, v));
    }
    if (v.instructions.length > shown.length)
      rows.push(
        h(
          'div',
          { class: 'dim' },
          `… ${fmtInt(v.instructions.length - shown.length)} more instructions: see the text listing`,
        ),
      );
    return h(
      'div',
      { class: 'code-col', 'data-tier': v.tier, 'data-position': String(v.position) },
      head,
      h(
        'div',
        {
          class: `code-list mono${this.heat ? ' has-heat' : ''}${this.source && this.source.file ? ' has-src' : ''}`,
        },
        rows,
      ),
    );
  }

  // Brings a hot range's rows into view, marked for a moment.
  showRange(r) {
    const col = this.columns.querySelector(`.code-col[data-position="${r.position}"]`);
    if (!col) return;
    const rows = [...col.querySelectorAll('.code-row')].filter((e) => {
      const off = Number(e.dataset.offset);
      return off >= r.from && off <= r.to;
    });
    if (!rows.length) return;
    rows[0].scrollIntoView({ block: 'center', inline: 'nearest' });
    for (const e of col.querySelectorAll('.code-row.is-picked')) e.classList.remove('is-picked');
    for (const e of rows) e.classList.add('is-picked');
  }

  row(ins, v) {
    const t = ins.target;
    let operands;
    if (!t || t.kind === 'local') operands = this.operandText(ins);
    else if (t.kind === 'method' && !t.function_id) {
      // named from the IL call at its IL offset: through a register or a stub, no code of it here
      operands = h(
        'span',
        {
          class: 'code-named-il',
          title: `${t.name}\nnamed from the IL call at this IL offset (${ins.operands})`,
        },
        shortName(t.name),
      );
    } else if (t.kind === 'method') {
      operands = h(
        'a',
        {
          class: 'code-target',
          href: codeHref(this.session.id, t.function_id),
          title: `${t.name}${t.module ? ` [${t.module}]` : ''}\nclick to open its code`,
          'data-fid': t.function_id,
        },
        shortName(t.name),
      );
    } else
      operands = h(
        'span',
        { class: 'code-native', title: t.address || '' },
        t.name || ins.operands,
      );
    const il =
      typeof ins.il_offset === 'number' ? `IL_${hex4(ins.il_offset)}` : ins.il_offset || '';
    return h(
      'div',
      {
        class: `code-row${t && t.kind === 'method' ? ' is-call' : ''}${ins.self_samples ? ' is-hot' : ''}`,
        title: il ? `${il} · ${ins.bytes}` : ins.bytes || '',
        'data-offset': String(ins.offset),
        style: this.heat ? heatStyle(ins, this.heatMax) : null,
      },
      this.heat ? heatCell(ins, v) : null,
      this.source && this.source.file ? sourceCell(this.source, ins) : null,
      h('span', { class: 'code-off' }, hex4(ins.offset)),
      h('span', { class: 'code-mn' }, ins.mnemonic),
      h('span', { class: 'code-op' }, operands),
    );
  }

  stats() {
    const c = this.code;
    return c
      ? {
          fid: this.fid,
          versions: c.versions.map((v) => ({
            tier: v.tier,
            size: v.code_size,
            instructions: v.instruction_count,
            samples: v.self_samples,
          })),
        }
      : { fid: this.fid };
  }
}
