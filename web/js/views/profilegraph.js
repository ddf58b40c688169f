// profilegraph.js -- the Profile tab's graph: the flame graph (flame.js) of the
// server's call tree, inverted (bottom-up), or a sandwich: a table of the
// frames with their self and total samples, and for the one picked its callers
// and its callees (GET /profile?view=...). Above it, what the server shapes the
// graph with (all computed there, docs/API.md "Sampling profile"): one switch
// folds the runtime's and libraries' native frames into the managed frame that
// called them ("the flame graph of my code"; a frame's tooltip lists what it
// folded), two hide the samples without a managed frame and the idle waits,
// and one counts jitscope's own threads (by default they are marked in the
// thread picker and left out of the totals); each says the share of samples
// it concerns. The search (counted in the whole graph and under the zoomed
// frame; Enter / ‹ › jump from match to match, markers never match), the thread
// picker and the time range the chart picked; the zoom path as breadcrumbs,
// with the zoomed frame's callers and callees a click away.
import { h, fill, setText } from '../dom.js';
import { SearchBox } from '../searchbox.js';
import { schedule } from '../frame.js';
import { fmtInt, fmtPct, fmtClock, fmtMs } from '../format.js';
import { FlameGraph } from '../flame.js';
import { crumbFrame, shortFrame } from '../framenames.js';

const VIEWS = [
  ['tree', 'Flame graph', 'Callers above callees, the thread start at the top'],
  [
    'inverted',
    'Inverted',
    'Bottom-up: where the samples ended (self time) at the top, their callers below',
  ],
  [
    'sandwich',
    'Callers & callees',
    'A table of the frames; pick one for its callers and its callees',
  ],
];
const CRUMBS_SHOWN = 4; // the root and the nearest three: the others are one "…"

// The thread filter's value for a profile thread: its thread_key (one thread,
// though the runtime reuses ThreadIDs), else its ThreadID, else (a CPU
// profile's native thread) its OS id.
export const threadOption = (t) =>
  t.thread_key != null ? `key:${t.thread_key}` : t.thread_id || String(t.os_thread_id);

export class ProfileGraph {
  constructor(tab) {
    this.tab = tab;
    this.opts = {
      view: 'tree',
      fold: false,
      lines: false,
      hideUnmanaged: false,
      hideIdle: false,
      own: false,
    };
    this.focus = null; // sandwich: {name, module}
    this.query = '';
    this.queryDirty = false;
    this.kinds = { unmanaged: 0, idle: 0 };
    this.counted = 0; // samples counted in the last view
    this.ownSamples = 0; // jitscope's own threads' samples (counted or not)
    this.functions = [];
    this.sortBy = 'total';
    this.rawTree = null;

    // ---- filters: search, matches, time range, thread ----
    this.searchBox = new SearchBox({
      placeholder: 'Highlight frames: method or module',
      label: 'Highlight frames by method or module substring',
      onInput: (text) => this.setQuery(text),
    });
    this.searchBox.el.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      this.jump(e.shiftKey ? -1 : 1);
    });
    this.matchInfo = h('span', { class: 'match-info', 'aria-live': 'polite' });
    const arrow = (cls, text, title, dir) =>
      h(
        'button',
        {
          class: `btn btn-small ${cls} hidden`,
          type: 'button',
          title,
          'aria-label': title,
          onclick: () => this.jump(dir),
        },
        text,
      );
    this.prevBtn = arrow(
      'match-prev',
      '‹',
      'Zoom to the previous matching frame (Shift+Enter)',
      -1,
    );
    this.nextBtn = arrow(
      'match-next',
      '›',
      'Zoom to the next matching frame, heaviest first (Enter)',
      1,
    );
    this.rangeInfo = h('span', { class: 'range-info' });
    this.clearRangeBtn = h(
      'button',
      { class: 'btn btn-small hidden', type: 'button', onclick: () => tab.setRange(null) },
      'Clear range',
    );
    this.threadSel = h(
      'select',
      {
        class: 'thread-select',
        'aria-label': 'Thread filter',
        title: 'Show the samples of one thread only',
      },
      h('option', { value: '' }, 'All threads'),
    );
    this.threadSel.addEventListener('change', () => tab.setThread(this.threadSel.value));
    this.filters = h(
      'div',
      { class: 'toolbar filters' },
      this.searchBox.el,
      this.prevBtn,
      this.nextBtn,
      this.matchInfo,
      h('span', { class: 'spacer' }),
      this.rangeInfo,
      this.clearRangeBtn,
      this.threadSel,
    );

    // ---- what the graph shows ----
    this.viewBtns = {};
    const seg = h('span', { class: 'segmented view-seg', role: 'group', 'aria-label': 'Graph' });
    for (const [key, text, title] of VIEWS) {
      const b = h(
        'button',
        {
          class: `btn seg view-${key}`,
          type: 'button',
          title,
          'aria-pressed': String(key === 'tree'),
          onclick: () => this.setView(key),
        },
        text,
      );
      this.viewBtns[key] = b;
      seg.append(b);
    }
    const toggle = (cls, text, title, key) => {
      const box = h('input', { type: 'checkbox', class: cls });
      box.addEventListener('change', () => this.setOpt(key, box.checked));
      const share = h('span', { class: 'share' });
      const label = h('label', { class: 'toggle', title }, box, text, share);
      return { box, share, label };
    };
    this.fold = toggle(
      'fold-native',
      'Fold native frames',
      'The flame graph of your code: the runtime’s and the libraries’ native frames are folded into the managed method that called them (its tooltip lists them); native code outside any method is one [native] frame.',
      'fold',
    );
    this.lines = toggle(
      'split-lines',
      'Split by line',
      'Each method’s frame split by source line (its portable PDB: the leaf’s sampled address, a caller’s call instruction); samples with no line (no PDB, compiler-generated code) stay on the method.',
      'lines',
    );
    this.hideUnmanaged = toggle(
      'hide-unmanaged',
      'no managed frame',
      'Leave out the samples without a managed frame: threads in native code only (the runtime’s own threads waiting or working, the GC, native threads) and walks that failed ([unknown]).',
      'hideUnmanaged',
    );
    this.hideIdle = toggle(
      'hide-idle',
      'idle waits',
      'Leave out the samples of threads that were waiting: their deepest managed frame is a wait (Monitor.Wait, WaitHandle.Wait*, Thread.Sleep, SpinWait, Task.Wait, the thread pool’s idle wait, the socket engine’s wait for events). Lock contention and blocking reads stay.',
      'hideIdle',
    );
    this.own = toggle(
      'count-own',
      'jitscope’s threads',
      'jitscope’s own threads (its agent in the process: jitscope-agent, jitscope-walk, jitscope-tiers) are marked in the thread picker and left out of the totals; tick to count them too.',
      'own',
    );
    this.own.label.classList.add('hidden'); // until a profile has one of jitscope's threads
    this.viewBar = h(
      'div',
      { class: 'toolbar view-bar' },
      seg,
      this.fold.label,
      this.lines.label,
      h(
        'span',
        { class: 'toggle-group' },
        h('span', { class: 'dim' }, 'Hide:'),
        this.hideUnmanaged.label,
        this.hideIdle.label,
      ),
      this.own.label,
    );

    // ---- the flame graph, its zoom path, and the sandwich ----
    this.crumbs = h('nav', { class: 'flame-crumbs', 'aria-label': 'Zoom path' });
    this.flame = this.makeGraph(false);
    this.body = h('div', { class: 'profile-graph' }, this.flame.el);
    this.els = [this.filters, this.viewBar, this.crumbs, this.body];
    this.renderView();
  }

  makeGraph(inverted) {
    const g = new FlameGraph({ inverted });
    g.linesShown = true; // the tree is asked with lines: a method without a file has no PDB
    g.requestDraw = () => schedule(this.tab.drawTask);
    g.onZoom = () => {
      this.renderCrumbs();
      this.renderMatch();
      schedule(this.tab.drawTask);
    };
    g.setQuery(this.query);
    return g;
  }

  // The inverted graph and the sandwich are made when first shown.
  get inverted() {
    if (!this._inverted) {
      this._inverted = this.makeGraph(true);
      this.body.append(this._inverted.el);
    }
    return this._inverted;
  }

  get sandwich() {
    if (!this._sandwich) {
      this.callers = this.makeGraph(true);
      this.callees = this.makeGraph(false);
      this.table = h('div', { class: 'fn-table', role: 'table' });
      this._sandwich = h(
        'div',
        { class: 'sandwich hidden' },
        this.table,
        h(
          'div',
          { class: 'sw-graphs' },
          h('div', { class: 'sw-label' }, 'Callers (who called it, toward the thread start)'),
          this.callers.el,
          h('div', { class: 'sw-label' }, 'Callees (what it called)'),
          this.callees.el,
        ),
      );
      this.body.append(this._sandwich);
    }
    return this._sandwich;
  }

  // Every graph made so far.
  allGraphs() {
    return [this.flame, this._inverted, this.callers, this.callees].filter(Boolean);
  }

  // The graph shown now (tree or inverted), null in the sandwich.
  main() {
    return this.opts.view === 'tree'
      ? this.flame
      : this.opts.view === 'inverted'
        ? this.inverted
        : null;
  }

  graphs() {
    if (this.opts.view !== 'sandwich') return [this.main()];
    void this.sandwich;
    return [this.callers, this.callees];
  }

  // The query parameters of what the graph shows (exports: not the view itself).
  params(p, { exports = false } = {}) {
    const o = this.opts;
    if (o.own) p.set('jitscope_threads', 'include');
    if (o.fold) p.set('fold', 'native');
    if (!exports) p.set('lines', o.lines ? '2' : '1'); // file:line in the tooltips
    const hide = [o.hideUnmanaged ? 'unmanaged' : null, o.hideIdle ? 'idle' : null].filter(Boolean);
    if (hide.length) p.set('hide', hide.join(','));
    if (exports || o.view === 'tree') return;
    p.set('view', o.view);
    if (o.view === 'sandwich' && this.focus) {
      p.set('focus', this.focus.name);
      if (this.focus.module) p.set('focus_module', this.focus.module);
    }
  }

  setView(view) {
    if (view === this.opts.view) return;
    this.opts.view = view;
    this.renderView();
    this.tab.refetch();
  }

  setOpt(key, on) {
    this.opts[key] = on;
    this.tab.refetch();
  }

  // Callers and callees of a frame (from the flame graph or the table).
  showSandwich(node) {
    this.focus = { name: node.name, module: node.module || null };
    void this.sandwich;
    this.callers.zoomKeys = [];
    this.callees.zoomKeys = [];
    if (this.opts.view !== 'sandwich') {
      this.opts.view = 'sandwich';
      this.renderView();
    }
    this.renderTable();
    this.tab.refetch();
  }

  renderView() {
    const v = this.opts.view;
    for (const [key, b] of Object.entries(this.viewBtns))
      b.setAttribute('aria-pressed', String(key === v));
    this.flame.el.classList.toggle('hidden', v !== 'tree');
    if (v === 'inverted' || this._inverted)
      this.inverted.el.classList.toggle('hidden', v !== 'inverted');
    if (v === 'sandwich' || this._sandwich)
      this.sandwich.classList.toggle('hidden', v !== 'sandwich');
    this.body.dataset.view = v;
    this.renderCrumbs();
    this.renderMatch();
    schedule(this.tab.drawTask);
  }

  // The server's answer for the graph (d: GET /profile's JSON).
  apply(d) {
    const view = d.view || {};
    this.kinds = view.kinds || { unmanaged: 0, idle: 0 };
    this.counted = view.total || 0;
    const own = (d.threads || []).filter((t) => t.jitscope);
    this.ownSamples = own.reduce((a, t) => a + (t.samples || 0), 0);
    // a wall-clock profile walks managed threads only: jitscope's are never in it
    this.own.label.classList.toggle('hidden', !own.length && !this.opts.own);
    const v = view.view || 'tree';
    if (v === 'sandwich') {
      void this.sandwich;
      this.functions = d.functions || [];
      // each tree's root is "all" over the method: the method is the graph's root
      const top = (t) => (t && t.children && t.children.length === 1 ? t.children[0] : t || null);
      this.callers.setTree(top(d.callers));
      this.callees.setTree(top(d.callees));
      this.renderTable();
    } else {
      this.rawTree = d.tree || null;
      (v === 'inverted' ? this.inverted : this.flame).setTree(this.rawTree);
    }
    this.renderShares();
    this.renderCrumbs();
    this.renderMatch();
  }

  renderShares() {
    const o = this.opts;
    const shown = this.counted;
    const all =
      shown + (o.hideUnmanaged ? this.kinds.unmanaged : 0) + (o.hideIdle ? this.kinds.idle : 0);
    const share = (n, of) => (of ? ` ${fmtPct(n / of)}` : '');
    setText(this.hideUnmanaged.share, share(this.kinds.unmanaged, all));
    setText(this.hideIdle.share, share(this.kinds.idle, all));
    setText(this.own.share, share(this.ownSamples, all + (o.own ? 0 : this.ownSamples)));
    this.hideUnmanaged.label.dataset.samples = String(this.kinds.unmanaged);
    this.hideIdle.label.dataset.samples = String(this.kinds.idle);
    this.own.label.dataset.samples = String(this.ownSamples);
  }

  // ---- the sandwich's table ----
  renderTable() {
    const q = this.query;
    const rows = this.functions
      .filter((f) => !q || `${f.name}\u0000${f.module || ''}`.toLowerCase().includes(q))
      .sort((a, b) => b[this.sortBy] - a[this.sortBy] || b.total - a.total);
    const total = this.counted || 1;
    const head = (key, text, title) =>
      h(
        'button',
        {
          class: `fn-sort${this.sortBy === key ? ' on' : ''}`,
          type: 'button',
          title,
          onclick: () => {
            this.sortBy = key;
            this.renderTable();
          },
        },
        text,
        this.sortBy === key ? ' ▾' : '',
      );
    const focus = this.focus;
    const items = rows.slice(0, 500).map((f) =>
      h(
        'button',
        {
          class: `fn-row${focus && focus.name === f.name && (focus.module || null) === (f.module || null) ? ' cur' : ''} kind-${f.kind}`,
          type: 'button',
          title: `${f.name}${f.module ? `  (${f.module})` : ''}\nself ${fmtInt(f.self)} · total ${fmtInt(f.total)} samples`,
          onclick: () => this.showSandwich(f),
        },
        h('span', { class: 'fn-n' }, fmtPct(f.self / total)),
        h('span', { class: 'fn-n' }, fmtPct(f.total / total)),
        h(
          'span',
          { class: 'fn-name' },
          shortFrame(f),
          f.module ? h('small', null, ` ${f.module}`) : null,
        ),
      ),
    );
    fill(
      this.table,
      h(
        'div',
        { class: 'fn-head' },
        head('self', 'Self', 'Samples that ended in the frame'),
        head('total', 'Total', 'Samples with the frame on their stack (once per stack)'),
        h(
          'span',
          null,
          `Frame${q ? ` (${fmtInt(rows.length)} of ${fmtInt(this.functions.length)})` : ''}`,
        ),
      ),
      h(
        'div',
        { class: 'fn-rows' },
        items.length ? items : h('div', { class: 'empty-state' }, 'No frame'),
      ),
    );
    this.table.dataset.rows = String(rows.length);
  }

  // ---- search ----
  setQuery(text) {
    this.query = (text || '').trim().toLowerCase();
    this.queryDirty = true;
    if (this.table) this.renderTable();
    schedule(this.tab.drawTask);
  }

  applyQuery() {
    if (!this.queryDirty) return;
    this.queryDirty = false;
    for (const g of this.allGraphs()) g.setQuery(this.query);
    this.renderMatch();
  }

  // Zooms to the next (1) or previous (-1) matching frame.
  jump(dir) {
    this.applyQuery();
    const g = this.main();
    if (g && g.jumpMatch(dir)) {
      this.renderCrumbs();
      schedule(this.tab.drawTask);
    }
    this.renderMatch();
  }

  // Matches in the whole graph and, while zoomed, under the zoomed frame; after
  // a jump, which match is shown.
  renderMatch() {
    const g = this.main();
    const searching = !!this.query;
    this.prevBtn.classList.toggle('hidden', !searching || !g);
    this.nextBtn.classList.toggle('hidden', !searching || !g);
    if (!g) {
      const rows = this.table ? Number(this.table.dataset.rows || 0) : 0;
      setText(this.matchInfo, searching ? `${fmtInt(rows)} frames match` : '');
      this.matchInfo.classList.toggle('none', false);
      return;
    }
    const m = g.match;
    this.prevBtn.disabled = this.nextBtn.disabled = !m.nodes;
    if (!searching) {
      setText(this.matchInfo, '');
      this.matchInfo.title = '';
      this.matchInfo.dataset.pct = '';
      this.matchInfo.dataset.zoomNodes = '';
      return;
    }
    const pct = m.total ? m.samples / m.total : 0;
    Object.assign(this.matchInfo.dataset, {
      pct: String(pct),
      nodes: String(m.nodes),
      zoomNodes: String(m.zoomNodes),
      at: String(m.at),
    });
    const z = g.zoom;
    let text = 'no frame matches';
    if (m.nodes) {
      text = `${fmtInt(m.nodes)} frame${m.nodes > 1 ? 's' : ''} match · ${fmtPct(pct)} of samples`;
      if (m.at >= 0) text = `match ${fmtInt(m.at + 1)} of ${fmtInt(m.nodes)} · ${text}`;
      if (z && z._p) {
        const name = shortFrame(z); // with its parameters: overloads differ by them
        text += m.zoomNodes
          ? ` · ${fmtInt(m.zoomNodes)} under ${name} (${fmtPct(m.zoomTotal ? m.zoomSamples / m.zoomTotal : 0)} of its samples)`
          : ` · none under ${name}: › or Enter jumps to them`;
      }
    }
    setText(this.matchInfo, text);
    this.matchInfo.title = m.nodes
      ? `${text}\nEnter (or ›) zooms to the next matching frame, Shift+Enter (or ‹) to the previous one, heaviest first`
      : '';
    this.matchInfo.classList.toggle('none', !m.nodes);
  }

  // ---- zoom path ----
  zoomTo(node) {
    const g = this.main();
    if (!g) return;
    g.zoomTo(node);
    this.renderCrumbs();
    this.renderMatch();
    schedule(this.tab.drawTask);
  }

  // Esc: zoom out one level (the search is the tab's to clear first).
  zoomOut() {
    for (const g of this.graphs()) {
      const z = g && g.zoom;
      if (z && z._p) {
        g.zoomTo(z._p);
        this.renderCrumbs();
        this.renderMatch();
        schedule(this.tab.drawTask);
        return true;
      }
    }
    return false;
  }

  renderCrumbs() {
    const g = this.main();
    const items = [];
    if (!g) {
      const f = this.focus;
      items.push(
        f
          ? h(
              'span',
              { class: 'sw-focus', title: f.name },
              h('span', { class: 'dim' }, 'Callers and callees of '),
              shortFrame(f),
            )
          : h('span', { class: 'dim' }, 'Callers and callees'),
        h(
          'span',
          { class: 'hint' },
          f
            ? 'click a frame to zoom · Esc zooms out'
            : 'pick a frame in the table, or “Callers & callees” of a frame zoomed to in the flame graph',
        ),
      );
      fill(this.crumbs, items);
      return;
    }
    const path = g.zoomPath();
    const crumb = (n, i, last) =>
      h(
        'button',
        {
          class: `crumb${last ? ' cur' : ''}`,
          type: 'button',
          title: last ? `${n.name} (zoomed)` : `Zoom out to ${n.name}`,
          'aria-current': last ? 'true' : null,
          onclick: () => this.zoomTo(n),
        },
        i === 0 ? 'all' : last ? shortFrame(n) : crumbFrame(n),
      );
    const sep = () => h('span', { class: 'sep', 'aria-hidden': 'true' }, '›');
    const cut = path.length > CRUMBS_SHOWN + 1; // one "…" for two or more
    const hidden = cut ? path.slice(1, path.length - (CRUMBS_SHOWN - 1)) : [];
    path.forEach((n, i) => {
      if (hidden.includes(n)) {
        if (n === hidden[0]) {
          items.push(sep());
          items.push(
            h(
              'button',
              {
                class: 'crumb more',
                type: 'button',
                title: `${hidden.length} frames between:\n${hidden.map((x) => x.name).join('\n')}\n(click: zoom out to the last of them)`,
                onclick: () => this.zoomTo(hidden[hidden.length - 1]),
              },
              `… ${hidden.length}`,
            ),
          );
        }
        return;
      }
      if (i) items.push(sep());
      items.push(crumb(n, i, i === path.length - 1));
    });
    const z = g.zoom;
    if (path.length === 1)
      items.push(
        h(
          'span',
          { class: 'hint' },
          this.opts.view === 'inverted'
            ? 'bottom-up: where the samples ended on top, each frame’s callers below it · click to zoom in'
            : 'click a frame to zoom in · hover for details',
        ),
      );
    else if (z && z.kind !== 'label')
      items.push(
        h(
          'button',
          {
            class: 'btn btn-small sandwich-btn',
            type: 'button',
            title: `Every caller and callee of ${z.name}, wherever it is in the graph`,
            onclick: () => this.showSandwich(z),
          },
          '⇅ Callers & callees',
        ),
      );
    fill(this.crumbs, items);
  }

  // ---- threads and time range ----
  renderThreads(threads, current, label) {
    const sig = `${threads.map((t) => `${threadOption(t)}:${t.samples}:${t.counted}`).join(',')}|${current}`;
    if (this.threadSel._sig === sig) return;
    this.threadSel._sig = sig;
    const counted = threads.filter((t) => t.counted !== false);
    const total = counted.reduce((a, t) => a + (t.samples || 0), 0);
    const opts = [h('option', { value: '' }, `All threads (${fmtInt(counted.length)})`)];
    const sorted = threads
      .slice()
      .sort((a, b) => !!a.jitscope - !!b.jitscope || (b.samples || 0) - (a.samples || 0));
    for (const t of sorted) {
      const share = t.counted === false ? 'not counted' : fmtPct(total ? t.samples / total : 0);
      opts.push(
        h(
          'option',
          { value: threadOption(t), class: t.jitscope ? 'own' : null },
          `${t.jitscope ? 'jitscope · ' : ''}${label(t)} — ${fmtInt(t.samples)} samples (${share})`,
        ),
      );
    }
    if (current && !threads.some((t) => threadOption(t) === current))
      opts.push(h('option', { value: current }, current));
    this.threadSel.replaceChildren(...opts);
    this.threadSel.value = current;
  }

  renderRange(r) {
    this.clearRangeBtn.classList.toggle('hidden', !r);
    setText(
      this.rangeInfo,
      r ? `${fmtClock(r.from, false)} – ${fmtClock(r.to, false)} (${fmtMs(r.to - r.from)})` : '',
    );
  }

  // ---- drawing ----
  draw(emptyText) {
    this.applyQuery();
    for (const g of this.graphs()) {
      setText(g.empty, this.opts.view === 'sandwich' && !this.focus ? '' : emptyText);
      g.draw();
    }
  }

  stats() {
    const g = this.main() || this.callees || this.flame;
    const c = g.canvas.dataset;
    return {
      drawn: Number(c.drawn || 0),
      matches: Number(c.matches || 0),
      zoom: c.zoom,
      total: Number(c.total || 0),
      view: this.opts.view,
    };
  }
}
