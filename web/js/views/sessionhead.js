// sessionhead.js -- the session header's detail line (runtime, start,
// agent link, ring, memory, storage marks) and its row of counters
// (functions, JITs, JIT time, modules, threads, events, drops, the agent's
// cost, refusals), from GET /api/sessions/{id} (session.js renders them).
import { h } from '../dom.js';
import { fmtInt, fmtNs, fmtMs, fmtBytes, fmtDateTime } from '../format.js';
import { isFinal, sessionDuration, emptyMark } from './common.js';

// The detail line under the title: [Node...].
export function sessionDetails(s) {
  const kv = (k, v, cls) => h('span', { class: cls || null }, `${k} `, h('b', null, v));
  const rt = s.runtime ? `${s.runtime.type || ''} ${s.runtime.version || ''}`.trim() : '';
  const link = s.link;
  const parts = [
    rt
      ? kv('runtime', rt)
      : h(
          'span',
          null,
          'runtime ',
          emptyMark('the agent has not said yet (it does when it connects)'),
        ),
    kv('started', fmtDateTime(s.created_ms)),
    kv(s.ended_ms ? 'lasted' : 'running for', fmtMs(sessionDuration(s))),
  ];
  if (link) {
    parts.push(
      h(
        'span',
        { title: 'the agent’s connection to this server' },
        'agent ',
        h(
          'b',
          { class: link.connected ? '' : 'dim' },
          link.connected ? '● connected' : '○ not connected',
        ),
      ),
    );
    if (s.agent && s.agent.floor) {
      parts.push(
        h(
          'span',
          {
            class: 'floor-mark',
            title:
              'JITSCOPE_NULL=1: the agent asks the runtime for the same events and the same tier source as by default, and its callbacks return at once; nothing is recorded. The baseline jitscope’s own cost is measured against (docs/BENCHMARKS.md).',
          },
          h('b', null, 'floor (null agent)'),
        ),
      );
    }
    parts.push(kv('records', fmtInt(link.records)));
    parts.push(
      h(
        'span',
        { title: 'bytes waiting in the agent’s shared ring buffer / its size' },
        'ring ',
        h('b', null, `${fmtBytes(link.ring_used)} / ${fmtBytes(link.ring_bytes)}`),
      ),
    );
    parts.push(kv('seq gaps', fmtInt(link.seq_gaps), link.seq_gaps ? 't-slow' : null));
  }
  if (s.memory && s.memory.held != null) {
    parts.push(
      h(
        'span',
        {
          class: 'memory-held',
          title:
            'what this session holds, as the server’s memory budget (--max-memory) counts it / the most it may hold while its agent is connected',
        },
        'memory ',
        h(
          'b',
          null,
          s.memory.share != null
            ? `${fmtBytes(s.memory.held)} / ${fmtBytes(s.memory.share)}`
            : fmtBytes(s.memory.held),
        ),
      ),
    );
  }
  if (s.stored && s.stored.past) {
    parts.push(
      h(
        'span',
        {
          class: 'stored-mark',
          title:
            'recorded by an earlier run of the server and read back from its storage (--data); read-only',
        },
        h('b', null, '⛁ from storage'),
      ),
    );
  }
  if (s.stored && s.stored.resumes) {
    const gap = s.stored.last_gap_ms;
    parts.push(
      h(
        'span',
        {
          class: 'resumed-mark',
          title:
            'its server was stopped or killed while the app ran; a server started on the same data directory took the session back when the agent reconnected (what happened in the gap was not recorded; the catch-up after it found what had been compiled meanwhile)',
        },
        h(
          'b',
          null,
          `↻ taken back after a server restart${s.stored.resumes > 1 ? ` (${s.stored.resumes} times)` : ''}: gap ${fmtMs(gap)}`,
        ),
      ),
    );
  }
  if (s.stored && s.stored.load_error)
    parts.push(kv('storage', `partly read: ${s.stored.load_error}`, 't-slow'));
  if (s.catchup && s.catchup.count)
    parts.push(
      kv(
        'attach catch-up',
        `${fmtInt(s.catchup.functions)} functions in ${fmtMs(s.catchup.duration_ms)}`,
      ),
    );
  if (s.events_evicted) parts.push(kv('events evicted', fmtInt(s.events_evicted), 't-slow'));
  return parts;
}

// Records the server did not keep (s.refused): over this session's share of the
// memory budget, by what they would have added, or impossible for the agent's
// ring and sequence numbers. Nothing when none.
function refusedStat(s, stat) {
  const r = s.refused || {};
  const memory = r.memory || 0,
    inconsistent = r.inconsistent || 0;
  if (!memory && !inconsistent) return null;
  const kinds =
    s.memory && s.memory.refused
      ? Object.entries(s.memory.refused)
          .filter(([, n]) => n)
          .map(([k, n]) => `${k} ${fmtInt(n)}`)
          .join(', ')
      : '';
  const sub = [
    memory ? `over its memory share ${fmtInt(memory)}${kinds ? ` (${kinds})` : ''}` : '',
    inconsistent ? `inconsistent ${fmtInt(inconsistent)}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const why =
    s.link && s.link.last_refused ? `; the last inconsistent one: ${s.link.last_refused}` : '';
  return stat(
    'Refused records',
    fmtInt(memory + inconsistent),
    sub,
    'warn refused-stat',
    `agent records the server did not keep, whole: over this session's share of the memory budget (--max-memory), by what they would have added, or impossible for the agent's ring and sequence numbers${why}`,
  );
}

// The counters row: [Node...] (null entries are skipped by fill).
export function sessionStats(s) {
  const link = s.link;
  const c = s.counters || {};
  const d = s.drops || {};
  const dropReasons = [
    'ring_full',
    'too_large',
    'no_server',
    'slow_server',
    'shutdown',
    'name_failed',
    'name_late',
  ]
    .filter((k) => d[k])
    .map((k) => `${k.replace('_', ' ')} ${fmtInt(d[k])}`);
  const stat = (k, v, sub, cls, tip) =>
    h(
      'div',
      { class: `stat ${cls || ''}`, title: tip || null },
      h('div', { class: 'k' }, k),
      h('div', { class: 'v' }, v, sub ? h('small', null, ` ${sub}`) : null),
    );
  return [
    stat('Functions', fmtInt(c.functions)),
    stat('JIT compilations', fmtInt(c.jit_compilations)),
    stat(
      'JIT time',
      fmtNs(c.jit_time_total_ns),
      c.jit_compilations ? `avg ${fmtNs(c.jit_time_total_ns / c.jit_compilations)}` : null,
    ),
    stat('Modules', fmtInt(c.modules)),
    // an ended process has no thread alive: how many it ran, not "0 alive of N"
    isFinal(s.state)
      ? stat('Threads', fmtInt(c.threads), null, '', 'the threads the process ran')
      : stat('Threads', fmtInt(c.threads_alive), `alive of ${fmtInt(c.threads)}`),
    stat('Events', fmtInt(c.events)),
    stat(
      'Agent drops',
      fmtInt(d.total || 0),
      [dropReasons.join(', '), d.produced ? `of ${fmtInt(d.produced)} records` : '']
        .filter(Boolean)
        .join(' · ') || null,
      d.total || d.name_failed || d.name_late ? 'warn' : '',
      'records the agent produced but could not deliver, by reason; name failed / name late: functions whose name could not be read (late: no longer safe to read, e.g. its module unloaded first)',
    ),
    s.agent_cost && s.agent_cost.jit_callbacks
      ? stat(
          'Agent cost per JIT',
          fmtNs(s.agent_cost.p50_ns),
          `p50 · p99 ${fmtNs(s.agent_cost.p99_ns)}`,
          '',
          `the agent's own time inside each JIT callback on the app's threads, over ${fmtInt(s.agent_cost.jit_callbacks)} callbacks (mean ${fmtNs(s.agent_cost.mean_ns)}, including preemption)` +
            (s.agent_cost.metadata
              ? `; method names read from ${fmtInt(s.agent_cost.metadata.direct_modules)} modules' images, ${fmtInt(s.agent_cost.metadata.importer_opens)} requests for the runtime's metadata importer (dynamic or collectible modules: each makes the runtime's own metadata reads in that module slower)`
              : ''),
        )
      : null,
    link && link.server_capacity_drops
      ? stat('Server drops', fmtInt(link.server_capacity_drops), null, 'warn')
      : null,
    refusedStat(s, stat),
  ];
}
