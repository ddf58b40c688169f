// common.js -- pieces shared by the views.
import { h } from '../dom.js';
import { fmtMs } from '../format.js';

const STATE_TEXT = {
  starting: 'starting',
  live: 'live',
  detaching: 'detaching…',
  detached: 'detached',
  exited: 'exited',
  disconnected: 'disconnected',
  failed: 'failed',
  interrupted: 'interrupted',
};

// Colour badge for a SessionSummary's state, with the detail that matters.
export function stateBadge(s) {
  const state = s.state || 'unknown';
  let sub = null;
  let title = `session state: ${state}`;
  if (state === 'detached' && s.detach && s.detach.duration_ms != null)
    sub = `in ${fmtMs(s.detach.duration_ms)}`;
  if (state === 'exited' && s.exit_code != null)
    sub = s.exit_signal ? s.exit_signal_name || `signal ${s.exit_signal}` : `code ${s.exit_code}`;
  if (state === 'failed' && s.error) title = `failed: ${s.error}`;
  if (state === 'disconnected')
    title = 'the agent connection was lost (the process may still be running)';
  if (state === 'interrupted')
    title = 'the server that recorded it stopped while it was live; read back from storage';
  if (state === 'exited' && s.exit_code == null && s.exit_code_unknown)
    title = `exited; exit code unknown: ${s.exit_code_unknown}`;
  const cls = `badge badge-${STATE_TEXT[state] ? state : 'exited'}${state === 'exited' && s.exit_code ? ' nonzero' : ''}`;
  return h(
    'span',
    { class: cls, title, 'data-state': state },
    STATE_TEXT[state] || state,
    sub && h('span', { class: 'sub' }, sub),
  );
}

// The mark of an empty value ("–"), with the reason it is empty as its
// tooltip: every dash on the dashboard says why it is there.
export function emptyMark(why) {
  return h('span', { class: 'faint empty-mark', title: why }, '–');
}

export function isFinal(state) {
  return (
    state === 'detached' || state === 'exited' || state === 'failed' || state === 'interrupted'
  );
}

// Session duration: connected..ended, or ..now while running.
export function sessionDuration(s, now = Date.now()) {
  const start = s.connected_ms || s.created_ms;
  if (!start) return null;
  return (s.ended_ms || now) - start;
}

export function drop(s) {
  return (s.drops && s.drops.total) || 0;
}

export function sessionHref(id, tab) {
  return `#/sessions/${encodeURIComponent(id)}${tab ? '/' + tab : ''}`;
}

// A page section's head: its title, what it shows (meta), and on the right the
// section's own controls (buttons, pickers), if any.
export function sectionHead(title, meta, ...controls) {
  const right = controls.length ? [h('span', { class: 'spacer' }), ...controls] : [];
  return h('div', { class: 'section-head' }, h('h2', null, title), meta, ...right);
}

export function notice(kind, ...children) {
  return h('div', { class: `notice ${kind}` }, h('div', { class: 'grow' }, children));
}

// The program a command line runs: the app's dll for "dotnet [options] App.dll args",
// else the executable's file name ("E2eTarget.dll", "myapp").
export function programOf(commandLine) {
  const words = String(commandLine || '')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const base = (w) => w.replace(/^.*\//, '');
  if (!words.length) return '';
  if (/^dotnet(\.exe)?$/.test(base(words[0]))) {
    const dll = words.slice(1).find((w) => /\.dll$/i.test(w));
    if (dll) return base(dll);
  }
  return base(words[0]);
}

// The session to compare s with: the newest earlier session (lower id, not failed) of the
// same command line, else of the same program (programOf). null when there is none.
export function previousRun(s, sessions) {
  const earlier = sessions.filter((o) => o.id < s.id && o.state !== 'failed');
  const newest = (list) => list.reduce((best, o) => (!best || o.id > best.id ? o : best), null);
  const same = newest(earlier.filter((o) => o.command_line === s.command_line));
  if (same) return same;
  const prog = programOf(s.command_line);
  return prog ? newest(earlier.filter((o) => programOf(o.command_line) === prog)) : null;
}

export function compareHref(a, b) {
  return `#/compare/${a == null ? '' : encodeURIComponent(a)}/${b == null ? '' : encodeURIComponent(b)}`;
}

// A run whose build went to build servers it did not start (build_servers_outside): which, and
// how to see their work. withLink: the notice names the run and links to it (the sessions list).
export function outsideNotice(s, withLink) {
  const servers = s.build_servers_outside || [];
  const list = servers.map((o, i) => [
    i ? ', ' : '',
    h('b', null, o.name),
    ` (pid ${o.pid}, ${(o.cpu_ms / 1000).toFixed(1)} s of CPU${o.started_before ? '' : ', started by a process outside the run'})`,
  ]);
  const run = withLink
    ? [
        h('a', { href: sessionHref(s.id) }, `Run #${s.id}`),
        ` (${s.program || programOf(s.command_line)}): `,
      ]
    : [];
  return h(
    'div',
    { class: 'notice warn outside-note', 'data-run': String(s.id) },
    h(
      'div',
      { class: 'grow' },
      run,
      h(
        'b',
        null,
        `the build went to ${servers.length === 1 ? 'a process' : 'processes'} this run did not start`,
      ),
      ': ',
      list,
      ". Their work is not in this run's sessions. To see it, attach to ",
      servers.length === 1 ? 'it' : 'them',
      ' (',
      h('code', null, `jitscope attach ${servers[0] ? servers[0].pid : 'PID'}`),
      ', or Attach under .NET processes on the sessions page), or run with node reuse off: ',
      h(
        'code',
        null,
        `MSBUILDDISABLENODEREUSE=1 UseSharedCompilation=false DOTNET_CLI_USE_MSBUILD_SERVER=0 jitscope run -- ${s.command_line}`,
      ),
      '.',
    ),
  );
}
