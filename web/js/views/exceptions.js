// exceptions.js -- the session's Exceptions tab (GET /exceptions, docs/API.md):
// every managed exception, by throw site (type, throwing method, IL offset),
// with exact counts, the rate over the last 10 s, a sparkline of the last
// 60 s, where they were caught or that they went unhandled; a click on a site
// shows its newest exceptions with their sampled stacks (GET /exceptions/N).
// Live exception events reload the table, at most once a second. The switch
// turns the agent's exception records off and on (POST /exceptions).
import { h, fill } from '../dom.js';
import { api, describeError } from '../api.js';
import { fmtInt, fmtClock } from '../format.js';
import { DataTable } from './table.js';
import { notice, sectionHead } from './common.js';

const RELOAD_MS = 1000;

// A 60-second per-second series as a small bar chart.
function sparkline(series) {
  const w = 120,
    hgt = 22,
    c = h('canvas', { class: 'exc-spark', width: w, height: hgt });
  const ctx = c.getContext('2d');
  const max = Math.max(1, ...series);
  const bar = w / series.length;
  ctx.fillStyle =
    getComputedStyle(document.documentElement).getPropertyValue('--accent') || '#5aa2ff';
  series.forEach((v, i) => {
    if (!v) return;
    const y = Math.max(1, Math.round((v / max) * (hgt - 2)));
    ctx.fillRect(i * bar, hgt - y, Math.max(1, bar - 0.5), y);
  });
  c.title = `last 60 s, per second (most: ${fmtInt(max)})`;
  return c;
}

const methodShort = (m) => (m ? m.replace(/\(.*$/, '()') : '(not managed code)');

export class ExceptionsTab {
  constructor(session) {
    this.session = session;
    this.active = false;
    this.enabled = true;
    this.selected = null;
    this.pending = null;
    this.meta = h('span', { class: 'meta' }, 'every managed exception, by throw site');
    this.toggle = h(
      'button',
      { class: 'btn exc-toggle', onclick: () => this.setEnabled(!this.enabled) },
      'Turn off',
    );
    this.msg = h('div');
    this.totals = h('div', { class: 'exc-totals' });
    this.table = new DataTable({
      rowKey: (s) => s.site,
      emptyText: 'No exception thrown yet.',
      sort: { key: 'count', desc: true },
      onRowClick: (s) => this.select(s.site),
      columns: [
        {
          key: 'type',
          title: 'Type',
          cls: 'mono clip',
          width: '220px',
          render: (s) => h('span', { title: s.type }, s.type),
        },
        {
          key: 'method',
          title: 'Thrown in',
          cls: 'mono clip',
          render: (s) =>
            h(
              'span',
              { title: s.method || '' },
              methodShort(s.method),
              s.line == null
                ? null
                : h('span', { class: 'dim', title: 'source line (PDB)' }, ` line ${s.line}`),
              s.il_offset == null
                ? null
                : h('span', { class: 'dim' }, ` IL_${s.il_offset.toString(16).padStart(4, '0')}`),
            ),
        },
        { key: 'count', title: 'Count', num: true, width: '80px', render: (s) => fmtInt(s.count) },
        {
          key: 'per_second',
          title: '/s',
          num: true,
          width: '60px',
          render: (s) => s.per_second.toFixed(1),
          tip: 'over the last 10 s',
        },
        {
          key: 'series',
          title: 'Last 60 s',
          width: '130px',
          sort: false,
          render: (s) => sparkline(s.series),
        },
        {
          key: 'caught_in',
          title: 'Caught in',
          cls: 'mono clip',
          sort: (s) => s.caught,
          render: (s) =>
            s.caught_in.length
              ? h(
                  'span',
                  { title: s.caught_in.map((c) => `${c.method}: ${c.count}`).join('\n') },
                  s.caught_in.map((c) => `${methodShort(c.method)} ×${fmtInt(c.count)}`).join(', '),
                )
              : null,
          empty: 'not caught',
        },
        {
          key: 'unhandled',
          title: 'Unhandled',
          num: true,
          width: '90px',
          render: (s) =>
            s.unhandled
              ? h('b', { class: 'exc-unhandled' }, fmtInt(s.unhandled))
              : s.open
                ? h('span', { class: 'dim', title: 'not caught yet' }, `${fmtInt(s.open)} open`)
                : '0',
        },
        {
          key: 'message',
          title: 'Message',
          cls: 'clip',
          width: '160px',
          render: (s) => h('span', { title: s.message }, s.message),
        },
      ],
    });
    this.detail = h('div', { class: 'exc-detail' });
    this.el = h(
      'div',
      { class: 'tab-page exceptions-tab' },
      sectionHead('Exceptions', this.meta, this.toggle),
      this.msg,
      this.totals,
      this.table.el,
      this.detail,
    );
  }

  show() {
    this.active = true;
    this.load();
  }
  hide() {
    this.active = false;
  }
  destroy() {
    this.hide();
    clearTimeout(this.pending);
  }

  onEvents(events) {
    if (!this.active || this.pending || !events.some((e) => e.type === 'exception')) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      if (this.active) this.load();
    }, RELOAD_MS);
  }

  async setEnabled(on) {
    const r = await api(`/api/sessions/${this.session.id}/exceptions`, {
      method: 'POST',
      body: { enabled: on },
    });
    if (!r.ok) {
      fill(this.msg, notice('error', describeError('The exception switch', r)));
      return;
    }
    this.load();
  }

  async load() {
    const r = await api(`/api/sessions/${this.session.id}/exceptions`);
    if (!this.active) return;
    if (!r.ok) {
      fill(this.msg, notice('error', describeError('The exceptions', r)));
      return;
    }
    const d = r.data;
    this.enabled = d.enabled;
    fill(this.toggle, d.enabled ? 'Turn off' : 'Turn on');
    fill(
      this.msg,
      d.enabled
        ? null
        : notice(
            'warn',
            'Exception records are off for this session: exceptions thrown meanwhile are not seen.',
          ),
    );
    const unhandled = d.sites.reduce((n, s) => n + s.unhandled, 0);
    fill(
      this.totals,
      h(
        'span',
        null,
        h('b', null, fmtInt(d.total)),
        ' exceptions at ',
        h('b', null, fmtInt(d.sites.length)),
        ' throw sites',
      ),
      unhandled
        ? h('span', { class: 'exc-unhandled' }, h('b', null, fmtInt(unhandled)), ' unhandled')
        : null,
      d.sites_dropped ? h('span', null, `${fmtInt(d.sites_dropped)} past the site limit`) : null,
      h('span', { class: 'dim' }, 'click a site for its recent exceptions and stacks'),
    );
    this.table.setRows(d.sites);
    if (this.selected != null) await this.loadDetail(this.selected);
    this.el.dataset.state = 'done';
  }

  select(site) {
    this.selected = site;
    this.loadDetail(site);
  }

  async loadDetail(site) {
    const r = await api(`/api/sessions/${this.session.id}/exceptions/${site}`);
    if (!this.active || this.selected !== site) return;
    if (!r.ok) {
      fill(this.detail, notice('error', describeError('The throw site', r)));
      return;
    }
    const s = r.data;
    fill(
      this.detail,
      h(
        'h3',
        { class: 'startup-h' },
        `${s.type} thrown in `,
        h('span', { class: 'mono' }, s.method || '(not managed code)'),
        ` — newest ${s.recent.length} sampled of ${fmtInt(s.count)}`,
      ),
      s.recent.map((e) =>
        h(
          'div',
          { class: 'exc-recent' },
          h(
            'div',
            { class: 'exc-recent-head' },
            h('span', { class: 'mono' }, fmtClock(e.time_ms)),
            h('span', { class: `exc-outcome exc-${e.outcome}` }, e.outcome),
            e.caught_in ? h('span', { class: 'mono dim' }, `in ${e.caught_in}`) : null,
            h('span', null, e.message || ''),
          ),
          e.stack
            ? h(
                'ol',
                { class: 'exc-stack mono' },
                e.stack.map((f) => h('li', null, f.method)),
              )
            : h(
                'div',
                { class: 'dim exc-nostack' },
                'stack not sampled (the first 8 per site, then one a second)',
              ),
        ),
      ),
    );
  }
}
