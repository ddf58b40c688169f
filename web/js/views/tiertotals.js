// tiertotals.js -- "JIT by tier" on the By tier / module tab: live compilations and
// their JIT time per optimisation tier, from the session detail's `tiers`
// (GET /api/sessions/{id}, which the session view polls every second), and a
// note when the session's tier source (`tier_source`) is off or failed, and
// the switch that turns it off or on for this session (POST /tiers: it costs
// JIT time, docs/BENCHMARKS.md).
import { h, fill } from '../dom.js';
import { api, describeError } from '../api.js';
import { toast } from '../ui.js';
import { fmtClock, fmtInt, fmtNs, fmtPct } from '../format.js';
import { tierId, tierPill, unknownTierWhy } from '../tiers.js';
import { DataTable } from './table.js';
import { sectionHead } from './common.js';

export class TierTotals {
  constructor(sessionId) {
    this.sessionId = sessionId;
    this.totals = { n: 0, ns: 0 };
    this.switchBtn = h('button', {
      class: 'btn tier-switch',
      type: 'button',
      onclick: () => this.toggleSource(),
    });
    this.enabled = null;
    this.busy = false;
    const bar = (share) =>
      h('div', { class: 'bar', style: { width: `${(share * 100).toFixed(1)}%` } });
    this.table = new DataTable({
      rowKey: (t) => t.tier,
      emptyText: 'No compilations yet.',
      sort: { key: 'order', desc: false },
      className: 'tier-table',
      columns: [
        {
          key: 'order',
          title: 'Tier',
          width: '170px',
          render: (t) => tierPill(t.tier, { long: true, why: this.unknownWhy }),
          tip: 'optimisation tier, in the order code usually moves through them',
        },
        {
          key: 'compilations',
          title: 'Compilations',
          num: true,
          width: '180px',
          cls: 'cell-bar',
          render: (t) => [
            bar(this.share(t.compilations, 'n')),
            h('span', null, fmtInt(t.compilations)),
          ],
        },
        {
          key: 'share_n',
          title: '% of JITs',
          num: true,
          width: '80px',
          render: (t) => fmtPct(this.share(t.compilations, 'n')),
          sort: (t) => t.compilations,
        },
        {
          key: 'jit_ns',
          title: 'JIT time',
          num: true,
          width: '180px',
          cls: 'cell-bar',
          render: (t) => [bar(this.share(t.jit_ns, 'ns')), h('span', null, fmtNs(t.jit_ns))],
        },
        {
          key: 'share_ns',
          title: '% of JIT time',
          num: true,
          width: '96px',
          render: (t) => fmtPct(this.share(t.jit_ns, 'ns')),
          sort: (t) => t.jit_ns,
        },
        {
          key: 'avg',
          title: 'Avg JIT',
          num: true,
          width: '84px',
          render: (t) => fmtNs(t.compilations ? t.jit_ns / t.compilations : null),
          sort: (t) => (t.compilations ? t.jit_ns / t.compilations : 0),
        },
      ],
      footer: (rows) => {
        const { n, ns } = this.totals;
        return [
          `Total (${rows.length} tiers)`,
          fmtInt(n),
          rows.length ? '100%' : '–',
          fmtNs(ns),
          rows.length ? '100%' : '–',
          fmtNs(n ? ns / n : null),
        ];
      },
    });
    this.note = h('div', { class: 'tier-note' });
    this.meta = h(
      'span',
      { class: 'meta' },
      'live compilations per optimisation tier · from the session summary, every second',
    );
    this.el = h(
      'div',
      { class: 'section tier-totals' },
      sectionHead('JIT by tier', this.meta, this.switchBtn),
      this.note,
      h('div', { class: 'tier-wrap' }, this.table.el),
    );
  }

  share(v, key) {
    return this.totals[key] ? v / this.totals[key] : 0;
  }

  // The switch: what it would do, and whether it can (a live agent that has said).
  updateSwitch(summary) {
    const src = summary && summary.tier_source;
    this.enabled = src ? src.enabled : null;
    const live = summary && summary.state === 'live';
    this.switchBtn.textContent = this.enabled === false ? 'Turn tiers on' : 'Turn tiers off';
    this.switchBtn.disabled = this.busy || !live || this.enabled == null;
    this.switchBtn.title = !live
      ? 'needs a live agent'
      : 'the tier source (an EventPipe session in the app) costs JIT time: turn it off or on for this session';
  }

  async toggleSource() {
    if (this.busy || this.enabled == null) return;
    this.busy = true;
    this.switchBtn.disabled = true;
    const r = await api(`/api/sessions/${this.sessionId}/tiers`, {
      method: 'POST',
      body: { enabled: !this.enabled },
    });
    this.busy = false;
    if (!r.ok) toast(describeError('Tier source', r), { kind: 'error' });
    else toast(`Asked the agent to turn tiers ${r.data.requested ? 'on' : 'off'}.`);
    this.switchBtn.disabled = false; // the next summary says what the agent did
  }

  // summary: the session detail (GET /api/sessions/{id}); older servers send no `tiers`.
  update(summary) {
    this.updateSwitch(summary);
    const tiers = summary && summary.tiers;
    const src = summary && summary.tier_source;
    this.unknownWhy = unknownTierWhy({ source: src });
    const rows = [];
    let n = 0,
      ns = 0;
    for (const [name, v] of Object.entries(tiers || {})) {
      rows.push({
        tier: name,
        order: tierId(name),
        compilations: v.compilations || 0,
        jit_ns: v.jit_ns || 0,
      });
      n += v.compilations || 0;
      ns += v.jit_ns || 0;
    }
    const sig = `${n}|${ns}|${rows.length}|${JSON.stringify(src)}|${tiers ? 1 : 0}`;
    if (sig === this.sig) return;
    this.sig = sig;
    this.totals = { n, ns }; // shares change with the totals: every row is redrawn
    this.table.setRows(rows.map((r) => ({ ...r, _n: n, _ns: ns })));
    const notes = [];
    // said only where it left compilations unknown
    const ended =
      src && src.ended_by_runtime_ms && tiers && tiers.unknown ? src.ended_by_runtime_ms : null;
    if (!tiers) notes.push('This server does not report tiers.');
    else if (ended)
      notes.push(
        `The runtime stopped its tier events at ${fmtClock(ended)}, as the process began to exit (it does that before ProcessExit handlers run): compilations from then on count as unknown.`,
      );
    else if (src && src.enabled === false)
      notes.push(
        'The tier source is off for this session (JITSCOPE_TIERS=0 or turned off): new compilations count as unknown.',
      );
    if (src && src.error)
      notes.push(`The agent could not open its tier source (HRESULT ${src.error}).`);
    if (src && src.lost)
      notes.push(`${fmtInt(src.lost)} compilations lost their tier (counted as unknown).`);
    // the runtime's end of the source at exit is how every process ends: said, not warned
    const warn = !tiers || (src && (src.error || src.lost || (src.enabled === false && !ended)));
    fill(
      this.note,
      notes.length
        ? h(
            'div',
            { class: `notice${warn ? ' warn' : ''}` },
            h('div', { class: 'grow' }, notes.join(' ')),
          )
        : null,
    );
  }
}
