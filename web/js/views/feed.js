// feed.js -- the live JIT feed: toolbar (search; filters by module, whose code,
// tier and recompiled methods, the same the functions API takes; pause, follow), the rate chart and the GC / suspension chart beside it, the virtualised table of JIT events (with each
// compilation's tier) and a detail strip for the selected row with its method's compilation history
// (compilations.js). Data arrives through ingest(); all drawing happens in render(), at most once per
// animation frame.
import { h, fill, setText } from '../dom.js';
import { SearchBox } from '../searchbox.js';
import {
  JitBuffer,
  RowView,
  RateSeries,
  DEFAULT_CAPACITY,
  NO_MODULE,
  EMPTY_FILTER,
} from '../buffer.js';
import { VirtualTable } from '../vtable.js';
import { RateChart } from '../chart.js';
import { PauseChart } from '../pausechart.js';
import { schedule } from '../frame.js';
import { fmtInt, fmtNs, fmtRel, fmtDateTime } from '../format.js';
import { fillMethodName } from '../mname.js';
import { TIERS, TIER_UNKNOWN, tierPill, unknownTierWhy } from '../tiers.js';
import { findFunction, compilationSteps } from './compilations.js';
import { emptyMark } from './common.js';
import { codeHref } from './code.js';

const CHART_SPAN = 120;

export class LiveFeed {
  constructor({
    capacity = DEFAULT_CAPACITY,
    threadLabel,
    baseTime,
    timeline = null,
    sessionId = null,
  }) {
    this.buf = new JitBuffer(capacity);
    this.view = new RowView(this.buf);
    this.rate = new RateSeries(600);
    this.threadLabel = threadLabel; // thread_key -> display text
    this.baseTime = baseTime; // () -> ms of t=0
    this.timeline = timeline; // PauseTimeline: GCs and suspensions for the second chart
    this.sessionId = sessionId; // for the detail strip's compilation history (null: not shown)
    this.detailRow = null; // buffer row object the detail strip shows
    this.compToken = 0; // answers to older compilation lookups are dropped
    this.compLater = null;
    this.pauseVersion = -1;
    this.paused = false;
    this.limit = 0; // rows shown (frozen while paused)
    this.filter = { ...EMPTY_FILTER }; // what RowView filters on (buffer.js)
    this.filterDirty = false;
    this.moduleCount = -1;
    this.selected = null;
    this.ended = false;
    this.endMs = null;
    this.chartVersion = -1;
    this.chartEnd = -1;
    this.chartDrawn = 0;
    this.tableAt = 0;
    this.tableLimit = 0;
    this.chartLater = null;
    this.chartHover = false;
    this.render = this.render.bind(this);
    this.drawChart = this.drawChart.bind(this);
    this.frames = 0;

    // ---- toolbar ----
    this.searchBox = new SearchBox({
      placeholder: 'Filter by method or module',
      label: 'Filter by method or module substring',
      onInput: (text) => this.setFilters({ text }),
    });
    this.search = this.searchBox.el;
    this.moduleSel = h(
      'select',
      { 'aria-label': 'Module filter', title: 'Show only one module' },
      h('option', { value: '' }, 'All modules'),
    );
    this.moduleSel.addEventListener('change', () =>
      this.setFilters({ module: this.moduleSel.value || null }),
    );
    this.codeSel = h(
      'select',
      {
        class: 'code-filter',
        'aria-label': 'Whose code',
        title:
          'My code: modules of the app itself, not the runtime’s, the SDK’s or a package’s (by where each was loaded from and its name: docs/API.md, “Whose code”)',
      },
      h('option', { value: '' }, 'All code'),
      h('option', { value: 'mine' }, 'My code'),
      h('option', { value: 'others' }, 'Not my code'),
      h('option', { value: 'dynamic' }, 'Dynamic methods'),
    );
    this.codeSel.addEventListener('change', () => this.setFilters({ code: this.codeSel.value }));
    this.tierSel = h(
      'select',
      {
        class: 'tier-filter',
        'aria-label': 'Tier filter',
        title: 'Show only the compilations at one tier',
      },
      h('option', { value: '-1' }, 'All tiers'),
      ...TIERS.map((t) => h('option', { value: String(t.id), title: t.tip }, t.short)),
    );
    this.tierSel.addEventListener('change', () =>
      this.setFilters({ tier: Number(this.tierSel.value) }),
    );
    this.recompiledBox = h('input', { type: 'checkbox', class: 'recompiled-filter' });
    this.recompiledBox.addEventListener('change', () =>
      this.setFilters({ recompiled: this.recompiledBox.checked }),
    );
    this.recompiledToggle = h(
      'label',
      {
        class: 'toggle',
        title:
          'Only methods compiled 2 or more times or with 2 or more code versions (tier-up, OSR), every compilation of them',
      },
      this.recompiledBox,
      'Recompiled',
    );
    this.pauseBtn = h('button', {
      class: 'btn pause-btn',
      type: 'button',
      title: 'Pause / resume the feed (Space). Events keep arriving while paused.',
      onclick: () => this.togglePause(),
    });
    this.newBadge = h('span', {
      class: 'new-badge hidden',
      title: 'Events received while paused; Resume shows them',
    });
    this.followBtn = h('button', {
      class: 'btn follow-btn',
      type: 'button',
      title: 'Jump to the newest JIT and keep following (f)',
      onclick: () => this.followNow(),
    });
    this.info = h('span', { class: 'info' });
    this.toolbar = h(
      'div',
      { class: 'toolbar' },
      this.search,
      this.moduleSel,
      this.codeSel,
      this.tierSel,
      this.recompiledToggle,
      // pause, follow and the counts: one group, which wraps to a line of its own as a whole
      h('div', { class: 'feed-live' }, this.pauseBtn, this.newBadge, this.followBtn, this.info),
    );

    // ---- chart ----
    this.canvas = h('canvas', {
      class: 'rate-chart',
      'aria-label': 'JIT compilations per second over the last two minutes',
      role: 'img',
    });
    this.chart = new RateChart(this.canvas, { span: CHART_SPAN });
    this.chart.onHover = () => schedule(this.drawChart);
    this.pauseCanvas = h('canvas', {
      class: 'pause-chart',
      role: 'img',
      title: 'The last two minutes; click for the whole session (GC & pauses tab)',
      'aria-label':
        'Time the runtime was suspended per second (by the GC, by jitscope, other) and garbage collections, over the last two minutes; click for the whole session',
    });
    this.onPauseChartClick = null;
    this.pauseCanvas.addEventListener(
      'click',
      () => this.onPauseChartClick && this.onPauseChartClick(),
    );
    this.pauseChart = new PauseChart(this.pauseCanvas, { span: CHART_SPAN });
    this.pauseChart.onHover = () => schedule(this.drawChart);
    this.chartBox = h(
      'div',
      { class: 'chart-row' },
      h('div', { class: 'chart-box' }, this.canvas),
      h('div', { class: 'chart-box pause-box' }, this.pauseCanvas),
    );
    new ResizeObserver(() => schedule(this.drawChart)).observe(this.chartBox);

    // ---- table ----
    const buf = this.buf;
    this.vt = new VirtualTable({
      rowHeight: 22,
      overdraw: 300,
      emptyText: 'Waiting for JIT events…',
      columns: [
        { key: 'seq', title: '#', width: '68px', align: 'right', tip: 'event sequence number' },
        {
          key: 'time',
          title: 'Time (s)',
          width: '76px',
          align: 'right',
          tip: 'seconds since the session started',
        },
        { key: 'name', title: 'Method', width: 'minmax(260px, 1fr)', cls: 'mname' },
        { key: 'module', title: 'Module', width: 'minmax(120px, 210px)' },
        { key: 'il', title: 'IL size', width: '64px', align: 'right', tip: 'IL bytes' },
        { key: 'native', title: 'Native', width: '68px', align: 'right', tip: 'native code bytes' },
        {
          key: 'jit',
          title: 'JIT time',
          width: '78px',
          align: 'right',
          tip: 'time the JIT spent compiling this method',
        },
        {
          key: 'tier',
          title: 'Tier',
          width: '96px',
          tip: 'optimisation tier of this compilation: grey-blue Tier0 (and instrumented), green Tier1, purple OSR, amber FullOpts / MinOpts, unknown when the runtime did not report it',
        },
        {
          key: 'ver',
          title: 'Compilation',
          width: '100px',
          tip: 'which compilation of its method this is, in this session: 1st, or purple 2nd, 3rd... when it was compiled again (tier-up, OSR); catch-up: compiled before jitscope attached',
        },
        { key: 'thread', title: 'Thread', width: 'minmax(90px, 150px)' },
      ],
      rowKey: (i) => this.view.at(i),
      renderRow: (cells, row, rowEl) => this.renderRow(cells, row, rowEl, buf),
      onRowClick: (row) => this.select(row),
    });
    this.vt.onFollowChange = () => this.updateButtons();
    this.vt.onScroll = () => schedule(this.render);

    // ---- detail ----
    this.detail = h('div', { class: 'detail' });
    this.el = h('div', { class: 'feed' }, this.toolbar, this.chartBox, this.vt.el, this.detail);
    this.showDetail(null);
    this.updateButtons();
    this.chartTimer = setInterval(() => schedule(this.drawChart), 1000);
  }

  destroy() {
    clearInterval(this.chartTimer);
    clearTimeout(this.chartLater);
    clearTimeout(this.compLater);
    this.compToken++;
    this.vt.destroy();
  }

  // The feed was put back into the page (tab switch): a detached scroller
  // loses its position, so restore it unless following.
  shown() {
    const vt = this.vt;
    if (!vt.follow && vt.lastScrollTop) {
      vt.expectTop = vt.lastScrollTop;
      vt.scroller.scrollTop = vt.lastScrollTop;
    }
    vt.invalidateRows();
    this.render();
  }

  // The session's tier source (its word on why a tier is unknown): rows
  // already drawn are drawn again when it changes.
  setTierSource(source) {
    const before = JSON.stringify(this.tierSource || null);
    this.tierSource = source;
    if (JSON.stringify(source) === before) return;
    this.vt.invalidateRows(); // the table keeps drawn rows as they are otherwise
    schedule(this.render);
  }

  // ---- data in ----
  ingest(events) {
    const buf = this.buf;
    const shownFn = this.detailRow ? this.detailRow.function_id : null;
    let jits = 0,
      again = false;
    for (const ev of events) {
      if (ev.type !== 'jit') continue;
      buf.push(ev);
      jits++;
      if (!ev.catchup) this.rate.add(ev.time_ms, ev.jit_ns || 0);
      if (ev.function_id === shownFn && ev.function_key === this.detailRow.function_key)
        again = true;
    }
    if (jits) schedule(this.render);
    // the method in the detail strip was compiled again: its history grew
    if (again && !this.compLater)
      this.compLater = setTimeout(() => {
        this.compLater = null;
        this.loadCompilations();
      }, 300);
    return jits;
  }

  setEnded(ended, endMs, floor = false) {
    if (ended !== this.ended || endMs !== this.endMs) this.chartVersion = -1; // redraw (axis label)
    if (ended && this.paused) this.setPaused(false); // nothing more comes: show all there is
    // nothing more comes to pause or follow: the buttons of a live feed go
    this.pauseBtn.classList.toggle('hidden', !!ended);
    this.followBtn.classList.toggle('hidden', !!ended);
    this.ended = ended;
    this.endMs = endMs;
    this.floor = floor;
    this.vt.setEmptyText(this.emptyText());
    schedule(this.drawChart);
  }

  // What an empty feed says: a floor agent (JITSCOPE_NULL=1) records nothing.
  emptyText() {
    if (this.floor)
      return 'This session’s agent is a floor (null agent, JITSCOPE_NULL=1): it records no JIT events.';
    return this.ended ? 'No JIT events were recorded in this session.' : 'Waiting for JIT events…';
  }

  // ---- controls ----
  // text and module (null or '': all modules; NO_MODULE: dynamic methods, which
  // have none); the other filters stay as they are.
  setFilter(text, module) {
    this.setFilters({ text, module: module || null });
  }

  // Any of the filters (buffer.js, RowView.setFilter), the controls set to match.
  setFilters(changes) {
    const f = (this.filter = { ...this.filter, ...changes });
    if (this.search.value !== f.text) this.search.value = f.text;
    const mod = f.module || '';
    if (this.moduleSel.value !== mod) {
      this.ensureModuleOption(mod);
      this.moduleSel.value = mod;
    }
    if (this.codeSel.value !== f.code) this.codeSel.value = f.code;
    if (this.tierSel.value !== String(f.tier)) this.tierSel.value = String(f.tier);
    this.recompiledBox.checked = f.recompiled;
    this.filterDirty = true;
    schedule(this.render);
  }

  clearSearch(keepFocus) {
    return this.searchBox.clear(keepFocus);
  }

  focusSearch() {
    this.searchBox.focus();
  }

  togglePause() {
    if (!this.ended) this.setPaused(!this.paused);
  }

  setPaused(p) {
    if (this.paused === p) return;
    this.paused = p;
    this.updateButtons();
    schedule(this.render);
  }

  followNow() {
    this.vt.setFollow(true);
    schedule(this.render);
  }

  // Selecting a row stops following, so the row stays where it was clicked.
  select(row) {
    this.vt.setFollow(false);
    this.selected = row;
    this.vt.selectedKey = row;
    this.vt.dirty = true;
    this.showDetail(row);
    schedule(this.render);
  }

  updateButtons() {
    fill(this.pauseBtn, this.paused ? '▶ Resume' : '❚❚ Pause', h('kbd', null, 'Space'));
    this.pauseBtn.classList.toggle('active', this.paused);
    this.pauseBtn.setAttribute('aria-pressed', String(this.paused));
    const f = this.vt.follow;
    fill(this.followBtn, f ? '● Following newest' : '↓ Jump to newest', h('kbd', null, 'f'));
    this.followBtn.classList.toggle('active', f);
  }

  ensureModuleOption(name) {
    if (!name) return;
    for (const o of this.moduleSel.options) if (o.value === name) return;
    this.moduleSel.append(h('option', { value: name }, moduleLabel(name)));
  }

  refreshModuleOptions() {
    const mods = this.buf.modules();
    if (mods.length === this.moduleCount) return;
    this.moduleCount = mods.length;
    const keep = this.moduleSel.value;
    const opts = [h('option', { value: '' }, 'All modules')];
    for (const m of mods) {
      const value = m.name || NO_MODULE;
      opts.push(h('option', { value }, moduleLabel(value)));
    }
    this.moduleSel.replaceChildren(...opts);
    this.ensureModuleOption(keep);
    this.moduleSel.value = keep;
  }

  // ---- drawing ----
  render() {
    const buf = this.buf;
    if (this.filterDirty) {
      this.filterDirty = false;
      this.view.setFilter(this.filter);
      this.view.extend(this.limit);
      this.vt.invalidateRows();
    }
    if (!this.paused) this.limit = buf.total;
    if (this.view.extend(this.limit)) this.vt.invalidateRows(); // rebuilt: earlier rows came in
    const gone = this.view.trim();
    // Rows that left the bounded buffer: keep the rows the user is looking at in place.
    if (gone > 0 && !this.vt.follow) this.vt.shiftRows(-gone);
    // When following a flood (more new rows per frame than fit on screen) the
    // table is refreshed about 20 times a second: the rows fly past anyway,
    // and the frames stay short for scrolling, hovering and typing.
    const now = performance.now();
    const flood =
      this.vt.follow &&
      this.limit - this.tableLimit > this.vt.pageRows() &&
      now - this.tableAt < 45;
    if (flood) {
      schedule(this.render);
    } else {
      this.tableAt = now;
      this.tableLimit = this.limit;
      this.vt.setCount(this.view.length());
      this.vt.render();
    }
    this.frames++;

    const newCount = buf.total - this.limit;
    this.newBadge.classList.toggle('hidden', !this.paused);
    setText(this.newBadge, `${fmtInt(newCount)} new`);
    const shown = this.view.length();
    const parts = [];
    parts.push(`${fmtInt(buf.size)} JITs in buffer`);
    if (this.view.filtered) parts.push(`${fmtInt(shown)} match`);
    if (buf.dropped)
      parts.push(
        `${fmtInt(buf.dropped)} dropped from the client buffer (keeps ${fmtInt(buf.cap)})`,
      );
    else parts.push(`0 dropped (keeps ${fmtInt(buf.cap)})`);
    setText(this.info, parts.join(' · '));
    if (this.filterDirty === false && this.view.filtered && shown === 0 && buf.size) {
      this.vt.setEmptyText('No JITs match the filters. Esc clears the search.');
    } else if (!buf.size) {
      this.vt.setEmptyText(this.emptyText());
    }
    if ((this.frames & 15) === 1 || this.moduleCount < 0) this.refreshModuleOptions();
    if (this.selected != null && this.selected < buf.first) this.showDetail(null);
    this.drawChart();
  }

  // The chart shows per-second bins: while data streams it is redrawn at most
  // every 250 ms (and on resize, hover, or when a new second starts).
  drawChart(force = false) {
    const now = performance.now();
    const nowSec = Math.floor(Date.now() / 1000);
    let end;
    if (this.ended) end = Math.floor((this.endMs || this.rate.last * 1000) / 1000);
    else end = Math.max(nowSec, Number.isFinite(this.rate.last) ? this.rate.last : nowSec);
    if (!Number.isFinite(end)) end = nowSec;
    const dpr = window.devicePixelRatio || 1;
    const sized =
      this.canvas.width === Math.round(this.canvas.clientWidth * dpr) &&
      this.pauseCanvas.width === Math.round(this.pauseCanvas.clientWidth * dpr);
    const hoverNow = this.chart.hoverX != null || this.pauseChart.hoverX != null;
    const hover = hoverNow || this.chartHover;
    this.chartHover = hoverNow;
    const tlVersion = this.timeline ? this.timeline.version : 0;
    const changed =
      this.rate.version !== this.chartVersion ||
      end !== this.chartEnd ||
      tlVersion !== this.pauseVersion;
    if (!changed && sized && !hover && force !== true) return;
    if (
      changed &&
      sized &&
      !hover &&
      force !== true &&
      end === this.chartEnd &&
      now - this.chartDrawn < 250
    ) {
      if (!this.chartLater) {
        this.chartLater = setTimeout(
          () => {
            this.chartLater = null;
            schedule(this.drawChart);
          },
          250 - (now - this.chartDrawn),
        );
      }
      return;
    }
    this.chartVersion = this.rate.version;
    this.chartEnd = end;
    this.chartDrawn = now;
    const span = this.chartSpan(end);
    this.chart.span = this.pauseChart.span = span;
    this.pauseChart.whole = this.ended && span < CHART_SPAN;
    this.chart.setData(this.rate.window(end, span), this.ended ? 'end' : 'now');
    this.chart.draw();
    this.pauseVersion = tlVersion;
    const tl = this.timeline;
    if (tl) {
      const note = tl.missing
        ? 'GC / suspension timeline: not available on this server'
        : tl.error && !tl.loaded
          ? tl.error
          : null;
      this.pauseChart.setData(tl.window(end, span), this.ended ? 'end' : 'now', note);
      this.pauseChart.draw();
    }
  }

  // The seconds the two charts span: the last two minutes, or, for a session
  // that ended sooner, the session itself (at least 10 s), so that a short
  // run fills the chart instead of sitting at its right edge.
  chartSpan(endSec) {
    const start = this.baseTime();
    if (!this.ended || !Number.isFinite(start) || !start) return CHART_SPAN;
    const lasted = endSec - Math.floor(start / 1000) + 1;
    const span = Math.min(CHART_SPAN, Math.max(10, lasted));
    if (span !== this.spanShown) {
      this.spanShown = span;
      const what =
        span < CHART_SPAN ? `over the whole session (${span} s)` : 'over its last two minutes';
      this.canvas.setAttribute('aria-label', `JIT compilations per second ${what}`);
      this.pauseCanvas.title = `${span < CHART_SPAN ? 'The whole session' : 'Its last two minutes'}; click for the GC & pauses tab`;
    }
    return span;
  }

  renderRow(cells, row, rowEl, buf) {
    const i = row % buf.cap;
    const st = buf.strings;
    setText(cells[0], buf.seq[i]);
    setText(cells[1], fmtRel(buf.time[i], this.baseTime()));
    const nameId = buf.name[i];
    const nameCell = cells[2];
    if (nameCell._name !== nameId) {
      nameCell._name = nameId;
      fillMethodName(nameCell, st.get(nameId));
    }
    const mod = st.get(buf.module[i]);
    setText(cells[3], mod || '(dynamic)');
    cells[3].title = mod;
    setText(cells[4], fmtInt(buf.il[i]));
    setText(cells[5], fmtInt(buf.native[i]));
    const ns_ = buf.jitNs[i];
    setText(cells[6], fmtNs(ns_));
    cells[6].className = `c-jit num${ns_ >= 10e6 ? ' t-vslow' : ns_ >= 1e6 ? ' t-slow' : ''}`;
    const nth = buf.nth[i];
    const again = nth > 1;
    const catchup = (buf.flags[i] & 2) !== 0;
    const t = TIERS[buf.tier[i]];
    const tierCell = cells[7];
    const tierTip =
      t.id === TIER_UNKNOWN
        ? unknownTierWhy({ catchup, source: this.tierSource, timeMs: buf.time[i] })
        : t.tip;
    if (tierCell._tier !== t || tierCell._tip !== tierTip) {
      // cells are reused: write only when the tier changed
      tierCell._tier = t;
      tierCell._tip = tierTip;
      if (!tierCell._pill) {
        tierCell._pill = h('span');
        tierCell.append(tierCell._pill);
      }
      const tp = tierCell._pill;
      tp.className = t.cls;
      tp.textContent = t.short;
      tp.title = tierTip;
    }
    const verCell = cells[8];
    if (!verCell._pill) {
      verCell._pill = h('span');
      verCell.append(verCell._pill);
    }
    let cls, text, tip;
    if (catchup) {
      cls = 'pill pill-catchup';
      text = 'catch-up';
      tip =
        'compiled before jitscope attached: known from the attach-time enumeration, so which compilation it was is unknown';
    } else if (again) {
      cls = 'pill pill-rejit';
      text = ordinal(nth);
      tip = `compilation ${nth} of this method in this session: it was compiled again (tier-up, OSR)`;
    } else if (buf.flags[i] & 1) {
      cls = 'pill pill-dyn';
      text = 'dynamic';
      tip = 'the 1st compilation of a dynamic method (LCG / IL emit)';
    } else {
      cls = 'faint';
      text = '1st';
      tip = 'the first compilation of this method in this session';
    }
    const pill = verCell._pill;
    if (pill.className !== cls) pill.className = cls;
    if (pill.textContent !== text) pill.textContent = text;
    if (pill.title !== tip) pill.title = tip;
    rowEl.classList.toggle('rejit', again);
    const thread = this.threadLabel(st.get(buf.thread[i]));
    setText(cells[9], thread);
    cells[9].title = thread === '–' ? 'the JIT event names no thread' : thread;
  }

  showDetail(row) {
    const r = row == null ? null : this.buf.row(row);
    this.detailRow = r;
    this.compToken++;
    this.compKv = null;
    if (!r) {
      this.selected = null;
      this.vt.selectedKey = null;
      fill(
        this.detail,
        h(
          'div',
          { class: 'dim' },
          'Click a JIT for its details and its method’s compilations tier by tier. Slow JITs are amber (≥ 1 ms) and red (≥ 10 ms); a method’s 2nd and later compilations (tier-up, OSR) are marked purple.',
        ),
      );
      return;
    }
    const kv = (k, v) => h('span', null, `${k} `, h('b', null, v));
    this.comps =
      this.sessionId == null
        ? null
        : h(
            'div',
            { class: 'comps', 'data-state': 'loading' },
            h('span', { class: 'comps-k' }, 'compilations'),
            h('span', { class: 'dim' }, 'loading…'),
          );
    fill(
      this.detail,
      h('div', { class: 'name', title: 'full method name' }, r.name),
      h(
        'div',
        { class: 'kv' },
        kv('module', r.module || '(dynamic)'),
        kv('JIT time', fmtNs(r.jit_ns)),
        h(
          'span',
          null,
          'tier ',
          tierPill(r.tier, {
            long: true,
            why: unknownTierWhy({
              catchup: r.catchup,
              source: this.tierSource,
              timeMs: r.time_ms,
            }),
          }),
        ),
        kv('IL', `${fmtInt(r.il_size)} B`),
        kv('native', `${fmtInt(r.native_size)} B`),
        (this.compKv = h(
          'span',
          { class: 'comp-of', title: 'which compilation of its method this is, in this session' },
          'compilation ',
          h('b', null, r.catchup ? 'before the attach' : String(r.nth)),
        )),
        h(
          'span',
          {
            class: 'code-versions',
            title:
              'native code versions the runtime has for this method now: one per compilation, plus ReadyToRun code it started with',
          },
          'code versions ',
          h('b', null, String(r.versions)),
        ),
        this.threadLabel(r.thread_key) === '–'
          ? h('span', null, 'thread ', emptyMark('the JIT event names no thread'))
          : kv('thread', this.threadLabel(r.thread_key)),
        kv(
          'at',
          `${fmtDateTime(r.time_ms)}.${String(Math.floor(r.time_ms % 1000)).padStart(3, '0')} (+${fmtRel(r.time_ms, this.baseTime())} s)`,
        ),
        kv('seq', String(r.seq)),
        kv('function', r.function_id),
        r.dynamic
          ? null
          : h(
              'a',
              {
                class: 'btn btn-small code-link',
                href: codeHref(this.sessionId, r.function_id),
                title: "this method's native code, every version side by side (the Code tab)",
              },
              'code',
            ),
        r.dynamic ? h('span', { class: 'pill pill-dyn' }, 'dynamic') : null,
        r.catchup ? h('span', { class: 'pill pill-catchup' }, 'catch-up') : null,
      ),
      this.comps,
    );
    this.loadCompilations();
  }

  // Fills the detail strip's compilation history of the shown method (GET /functions/{fid}).
  async loadCompilations() {
    const r = this.detailRow;
    if (!r || this.sessionId == null) return;
    const token = ++this.compToken;
    const res = await findFunction(this.sessionId, r.function_id, r.function_key);
    if (token !== this.compToken) return; // another row was selected meanwhile
    const el = this.comps;
    let body,
      state = 'done',
      count = '';
    if (!res.ok) {
      state = 'error';
      body = h(
        'span',
        { class: 't-slow' },
        `could not load: ${res.status ? `${res.status} ${res.error}` : res.error}`,
      );
    } else if (!res.fn) {
      body = h('span', { class: 'dim' }, 'the server no longer knows this function');
    } else {
      body = compilationSteps(res.fn, {
        baseTime: this.baseTime(),
        currentMs: r.time_ms,
        source: this.tierSource,
      });
      const n = (res.fn.tiers || []).length + (res.fn.tiers_unkept || 0);
      if (n) count = ` (${fmtInt(n)})`;
      // "compilation k of n" now that the server's list says both
      const k = (res.fn.tiers || []).findIndex((c) => c.time_ms === r.time_ms);
      if (k >= 0 && this.compKv)
        fill(this.compKv, 'compilation ', h('b', null, `${k + 1} of ${fmtInt(n)}`));
    }
    el.dataset.state = state;
    fill(el, h('span', { class: 'comps-k' }, `compilations${count}`), body);
  }

  // Numbers for the status line and for tests.
  stats() {
    return {
      total: this.buf.total,
      inBuffer: this.buf.size,
      dropped: this.buf.dropped,
      shown: this.view.length(),
      newCount: this.paused ? this.buf.total - this.limit : 0,
      paused: this.paused,
      following: this.vt.follow,
      filtered: this.view.filtered,
      filter: { ...this.filter },
      rejits: this.buf.rejits,
      domRows: this.vt.rowsEl.children.length,
      renders: this.frames,
    };
  }
}

// The module select's text for a value: dynamic methods have no module.
function moduleLabel(value) {
  return value === NO_MODULE ? '(no module: dynamic methods)' : value;
}

// 1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"
export function ordinal(n) {
  const tens = n % 100,
    ones = n % 10;
  const suffix =
    tens >= 11 && tens <= 13
      ? 'th'
      : ones === 1
        ? 'st'
        : ones === 2
          ? 'nd'
          : ones === 3
            ? 'rd'
            : 'th';
  return `${n}${suffix}`;
}
