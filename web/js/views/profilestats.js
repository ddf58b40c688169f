// profilestats.js -- the Profile tab's row of statistics, built from the
// server's ProfileStatus by one builder for both modes: what the profile
// measures, its state and length, its rate, its samples, what it cost the
// app (wall clock: how long the runtime stood suspended, per sample and in
// all, against its budget; CPU time: never suspended, and how whole the
// frame-pointer walks' stacks are, and the threads followed), its distinct
// stacks and what was dropped or lost. The tab calls profileStats() and puts
// the elements in place (only when their text changed).
import { h } from '../dom.js';
import { fmtInt, fmtNs, fmtMs, fmtPct } from '../format.js';

// What a profile measures, by its `mode`.
const MODES = {
  wall: {
    text: 'wall clock',
    sub: 'every thread, running or waiting',
    tip: 'Each sample walks every managed thread, whether it runs or waits: a wide frame can be time spent waiting (a lock, I/O, an idle thread pool). "Hide idle waits" leaves the waiting out.',
  },
  cpu: {
    text: 'CPU time',
    sub: 'threads on a CPU only',
    tip: 'The kernel samples each thread while it runs on a CPU (perf events), once per 1/rate s of its CPU time, managed and native frames alike; waiting threads get no samples. The runtime is never suspended.',
  },
};

export function profileMode(status) {
  const key = status && typeof status.mode === 'string' ? status.mode : 'wall';
  return MODES[key] || { text: key, sub: '', tip: `the profile measures ${key}` };
}

export function fmtHz(v) {
  if (v == null) return '–';
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

const stat = (k, v, sub, cls, tip) =>
  h(
    'div',
    { class: `stat ${cls || ''}`, title: tip || null },
    h('div', { class: 'k' }, k),
    h('div', { class: 'v' }, v, sub ? h('small', null, ` ${sub}`) : null),
  );

const NO_PROFILE =
  'No profile in this session yet. Start one. Wall clock: every sample suspends the runtime for a moment and walks every managed thread, running or waiting, like the snapshots of the Stacks tab. CPU time: the kernel samples the threads while they run, native frames included, and the runtime is never suspended.';

// The statistics of status s (null: none yet). missing: the server has no
// profile route; none: the session has no profile.
export function profileStats(s, { running, missing, none }) {
  const measures = () => {
    const m = profileMode(s);
    return stat('Measures', m.text, m.sub, 'p-mode', m.tip);
  };
  if (!s || none) {
    const out = [
      stat('State', h('span', { class: 'badge badge-exited' }, missing ? 'n/a' : 'idle')),
    ];
    if (!missing) out.push(measures(), h('div', { class: 'p-hint' }, NO_PROFILE));
    return out;
  }
  const cpu = s.mode === 'cpu';
  const c = s.cpu || {};
  const end = s.stopped_ms || (running ? Date.now() : null);
  const wall = s.started_ms && end ? end - s.started_ms : null;
  const out = [
    stat(
      'State',
      running
        ? h('span', { class: 'badge badge-live' }, 'running')
        : h('span', { class: 'badge badge-detached' }, s.state || '?'),
      wall != null ? `${running ? 'for' : 'lasted'} ${fmtMs(wall)}` : null,
    ),
    measures(),
  ];

  // rate: a CPU profile samples each thread per period of its own CPU time; a
  // wall one may have been lowered by the agent to keep within its budget
  const lowered =
    !cpu && s.effective_hz != null && s.requested_hz != null && s.effective_hz < s.requested_hz;
  out.push(
    cpu
      ? stat(
          'Rate',
          `${fmtHz(s.requested_hz)} Hz`,
          c.period_ns ? `one sample per ${fmtNs(c.period_ns)} a thread runs` : null,
          '',
          'Each thread is sampled once per period of its own CPU time, whatever the other threads do.',
        )
      : stat(
          'Rate',
          `${fmtHz(s.effective_hz ?? s.requested_hz)} Hz`,
          lowered
            ? `of ${fmtHz(s.requested_hz)} requested`
            : s.requested_hz != null
              ? 'as requested'
              : null,
          lowered ? 'warn' : '',
          lowered
            ? `The agent lowered the rate to keep suspensions within ${s.budget_pct ?? 2}% of wall time.`
            : 'samples per second',
        ),
  );
  out.push(
    stat(
      'Samples',
      fmtInt(s.samples),
      cpu
        ? c.cpu_ns != null
          ? `${fmtNs(c.cpu_ns)} of CPU`
          : null
        : s.thread_samples != null
          ? `${fmtInt(s.thread_samples)} thread stacks`
          : null,
    ),
  );

  // what it cost the app
  if (cpu) {
    out.push(
      stat(
        'Runtime suspended',
        'never',
        'the kernel samples the threads',
        'ok p-never',
        'CPU mode does not stop the runtime: the server reads the samples the kernel takes.',
      ),
    );
    const whole = c.samples ? c.complete / c.samples : null;
    out.push(
      stat(
        'Whole stacks',
        whole != null ? fmtPct(whole) : '–',
        `${fmtInt(c.missing || 0)} with a frame missing · ${fmtInt(c.broken || 0)} cut short`,
        whole != null && whole < 0.8 ? 'warn p-whole' : 'p-whole',
        'The kernel follows frame pointers. A method without one (or a sample in its prolog, or in a stub, or in on-stack-replaced code) hides its caller: such samples carry a “[missing frame: …]” frame where it was lost. A chain that stops before the thread start says so: “[incomplete stack: …]”.',
      ),
    );
    out.push(
      stat(
        'Threads',
        fmtInt(c.threads || 0),
        `${fmtInt(c.threads_seen || 0)} followed in all${c.threads_failed ? ` · ${fmtInt(c.threads_failed)} could not be` : ''}`,
        c.threads_failed ? 'warn' : '',
        'Threads of the process sampled now; new threads are followed as they start.',
      ),
    );
  } else {
    const pctWall = wall ? s.suspended_ns_total / 1e6 / wall : null;
    out.push(
      stat(
        'Runtime suspended',
        fmtNs(s.suspended_ns_total),
        pctWall != null ? `${fmtPct(pctWall)} of wall · budget ${s.budget_pct ?? 2}%` : null,
        pctWall != null && s.budget_pct && pctWall * 100 > s.budget_pct ? 'warn' : '',
        'total time the app stood still for the samples',
      ),
    );
    out.push(
      stat(
        'Per sample',
        `p50 ${fmtNs(s.suspend_ns_p50)}`,
        `max ${fmtNs(s.suspend_ns_max)}`,
        '',
        'suspension per sample: median and maximum',
      ),
    );
  }
  out.push(stat('Distinct stacks', fmtInt(s.distinct_stacks)));

  // what was not kept: the kernel's losses (CPU), the server's caps (both)
  const lost = cpu ? c.lost || 0 : 0;
  const dropped = lost + (s.dropped_samples || 0) + (s.dropped_stacks || 0);
  out.push(
    stat(
      cpu ? 'Lost' : 'Dropped',
      fmtInt(dropped),
      dropped
        ? `${cpu ? `${fmtInt(lost)} by the kernel · ` : ''}${fmtInt(s.dropped_samples || 0)} samples · ${fmtInt(s.dropped_stacks || 0)} stacks`
        : null,
      dropped ? 'warn' : '',
      `samples${cpu ? ' the kernel could not deliver, or' : ' or distinct stacks'} the server could not keep (65,536 stacks, 1,048,576 samples per profile)`,
    ),
  );
  if (cpu && c.kernel === false)
    out.push(
      h(
        'div',
        { class: 'p-hint' },
        'Time in the kernel is not sampled here (kernel.perf_event_paranoid is 2 and jitscope has no CAP_PERFMON): samples cover user-mode CPU time only.',
      ),
    );
  if (s.fallback)
    out.push(
      stat('Fallback', 'wall clock', 'CPU mode was not available', 'warn fallback', s.fallback),
    );
  return out;
}
