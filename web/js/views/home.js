// home.js -- sessions and attachable .NET processes (the landing page).
import { h, fill } from '../dom.js';
import { api, isMissingRoute, missingRoutes, describeError } from '../api.js';
import { fmtInt, fmtNs, fmtMs, fmtClock } from '../format.js';
import { toast } from '../ui.js';
import { DataTable } from './table.js';
import {
  stateBadge,
  sessionDuration,
  drop,
  sessionHref,
  notice,
  previousRun,
  compareHref,
  emptyMark,
  programOf,
  outsideNotice,
  sectionHead,
} from './common.js';

const REFRESH_MS = 1500;
const RUNNING = ['starting', 'live', 'detaching', 'disconnected'];

// A process's container, before its command line: its hostname, its id and
// pid inside in the tooltip (docs/API.md, "Containers").
function containerTag(c) {
  const id = c.id ? `container ${c.id.slice(0, 12)}` : 'a container (no id in its cgroup)';
  return h(
    'span',
    {
      class: 'ctr-tag',
      title: `${id}, pid ${c.pid} inside${c.user_namespace ? ', in a user namespace of its own' : ''}${c.id ? `\nid ${c.id}` : ''}`,
    },
    c.hostname || '?',
  );
}

// The toggle of a run's launched process: how many child processes, how many still running.
function describeChildren(children) {
  const running = children.filter((c) => RUNNING.includes(c.state)).length;
  const n = children.length;
  return {
    text: `${n} child${n === 1 ? '' : 'ren'}`,
    title: `${n} child process${n === 1 ? '' : 'es'} of this run loaded the agent: ${running} running, ${n - running} ended. Click to show or hide them.`,
  };
}

export class HomeView {
  constructor(app) {
    this.app = app;
    this.timer = null;
    this.stopped = false;
    this.attach = new Map(); // pid -> {busy, error, retry}
    this.processes = [];
    this.sessionsLoaded = false;
    this.serverDown = false;

    this.sessionsTable = new DataTable({
      rowKey: (s) => s.id,
      onRowClick: (s) => app.navigate(sessionHref(s.id)),
      emptyText:
        'No sessions yet. Attach to a process below, or start one with “jitscope run -- dotnet app.dll”.',
      sort: { key: 'id', desc: true },
      // every column but the command as wide as its content (width 1%), the command gets
      // the rest: at 1,024 px every column still fits (tests/browser/layout.test.mjs)
      className: 'sessions-table',
      // the processes of one `jitscope run` that loaded the agent, under the launched one
      tree: {
        parentOf: (s) => (s.root_id && s.root_id !== s.id ? s.root_id : null),
        describe: describeChildren,
        expanded: app.openRuns,
      },
      columns: [
        {
          key: 'id',
          title: 'Session',
          width: '1%',
          render: (s) => h('a', { href: sessionHref(s.id), class: 'session-link' }, `#${s.id}`),
        },
        {
          key: 'state',
          title: 'State',
          width: '1%',
          render: (s) => stateBadge(s),
          sort: (s) => s.state,
        },
        {
          key: 'pid',
          title: 'PID',
          width: '1%',
          num: true,
          title_of: (s) => (s.parent_pid ? `parent process: ${s.parent_pid}` : ''),
        },
        // named by what it runs (testhost, MSBuild, dotnet test); the whole command line after it, and in the tooltip
        {
          key: 'command_line',
          title: 'Command',
          cls: 'mono clip',
          title_of: (s) => s.command_line,
          sort: (s) => `${s.program || ''} ${s.command_line}`,
          render: (s) => [
            h('span', { class: 'prog' }, s.program || programOf(s.command_line)),
            ' ',
            h('span', { class: 'faint' }, s.command_line),
          ],
        },
        { key: 'mode', title: 'Mode', width: '1%' },
        {
          key: 'runtime',
          title: 'Runtime',
          width: '1%',
          render: (s) =>
            s.runtime && s.runtime.version
              ? h(
                  'span',
                  { title: `${s.runtime.type || ''} ${s.runtime.version}`.trim() },
                  s.runtime.version,
                )
              : '–',
          sort: (s) => s.runtime && s.runtime.version,
          empty: 'the agent has not said yet (it does when it connects)',
        },
        {
          key: 'functions',
          title: 'Functions',
          width: '1%',
          num: true,
          render: (s) => fmtInt(s.counters && s.counters.functions),
          sort: (s) => s.counters && s.counters.functions,
        },
        {
          key: 'jit_time',
          title: 'JIT time',
          width: '1%',
          num: true,
          render: (s) => fmtNs(s.counters && s.counters.jit_time_total_ns),
          sort: (s) => s.counters && s.counters.jit_time_total_ns,
        },
        {
          key: 'events',
          title: 'Events',
          width: '1%',
          num: true,
          render: (s) => fmtInt(s.counters && s.counters.events),
          sort: (s) => s.counters && s.counters.events,
        },
        {
          key: 'drops',
          title: 'Drops',
          width: '1%',
          num: true,
          tip: 'records the agent could not deliver',
          render: (s) => (drop(s) ? h('span', { class: 't-slow' }, fmtInt(drop(s))) : '0'),
          sort: drop,
        },
        {
          key: 'created_ms',
          title: 'Started',
          width: '1%',
          render: (s) => fmtClock(s.created_ms, false),
        },
        {
          key: 'duration',
          title: 'Duration',
          width: '1%',
          num: true,
          render: (s) => fmtMs(sessionDuration(s, this.now)),
          sort: (s) => sessionDuration(s, this.now),
        },
        {
          key: 'compare',
          title: 'Compare',
          width: '1%',
          sort: false,
          tip: 'compare with the previous run of the same command (else of the same program)',
          render: (s) =>
            s._prev
              ? h(
                  'a',
                  {
                    href: compareHref(s._prev, s.id),
                    class: 'cmp-link',
                    'data-compare': `${s._prev}-${s.id}`,
                    title: `what #${s.id} JITed that #${s._prev}, the previous run of this command, did not (and the other way round)`,
                  },
                  `vs #${s._prev}`,
                )
              : emptyMark('no earlier session of the same command or program to compare with'),
        },
      ],
    });

    this.procTable = new DataTable({
      rowKey: (p) => p.pid,
      emptyText:
        'No .NET processes found (processes of this user that expose a diagnostics socket).',
      sort: { key: 'pid', desc: false },
      columns: [
        { key: 'pid', title: 'PID', num: true, width: '70px' },
        {
          key: 'command_line',
          title: 'Command line',
          cls: 'mono clip',
          title_of: (p) => p.command_line || p.error,
          render: (p) => [
            p.container ? containerTag(p.container) : null,
            p.command_line ||
              h(
                'span',
                { class: 'faint' },
                p.error ? `(details unavailable: ${p.error})` : '(unknown)',
              ),
          ],
        },
        {
          key: 'entry_assembly',
          title: 'Entry assembly',
          cls: 'mono',
          width: '200px',
          empty: (p) =>
            p.error ? `the runtime did not answer: ${p.error}` : 'the runtime did not name one',
        },
        {
          key: 'runtime_version',
          title: 'Runtime',
          width: '110px',
          empty: (p) =>
            p.error ? `the runtime did not answer: ${p.error}` : 'the runtime did not say',
        },
        {
          key: 'session_id',
          title: 'Session',
          width: '80px',
          render: (p) =>
            p.session_id != null
              ? h('a', { href: sessionHref(p.session_id) }, `#${p.session_id}`)
              : emptyMark('no session: jitscope is not attached to this process'),
        },
        {
          key: 'action',
          title: '',
          width: '300px',
          sort: false,
          render: (p) => this.attachCell(p),
        },
      ],
    });

    this.banner = h('div');
    this.runNotes = h('div'); // runs whose build went to processes they did not start
    this.sessMeta = h('span', { class: 'meta' });
    this.procNote = h('div');
    this.procMeta = h(
      'span',
      { class: 'meta' },
      'processes of this user with a diagnostics socket',
    );
    this.el = h(
      'div',
      { class: 'page home' },
      this.banner,
      this.runNotes,
      h(
        'section',
        { class: 'section' },
        sectionHead(
          'Sessions',
          this.sessMeta,
          h(
            'a',
            {
              class: 'btn btn-small',
              href: compareHref(null, null),
              title:
                'Compare two sessions: methods JITed in one and not the other, JIT time side by side',
            },
            'Compare sessions…',
          ),
        ),
        this.sessionsTable.el,
      ),
      h(
        'section',
        { class: 'section' },
        sectionHead('.NET processes', this.procMeta),
        this.procNote,
        this.procTable.el,
      ),
    );
    this.sessionsTable.setEmptyText('Loading sessions…');
    this.procTable.setEmptyText('Looking for .NET processes…');
  }

  crumbs() {
    return [h('span', { class: 'cur' }, 'Sessions & processes')];
  }

  mount(container) {
    fill(container, this.el);
    this.refresh();
  }

  unmount() {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  async refresh() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.now = Date.now();
    const tasks = [this.loadSessions()];
    if (!missingRoutes.has('processes')) tasks.push(this.loadProcesses());
    await Promise.all(tasks);
    if (!this.stopped) this.timer = setTimeout(() => this.refresh(), REFRESH_MS);
  }

  async loadSessions() {
    const r = await api('/api/sessions');
    if (this.stopped) return;
    if (!r.ok) {
      if (!this.serverDown) {
        this.serverDown = true;
        fill(
          this.banner,
          notice(
            'error',
            describeError('Cannot list sessions', r),
            h('span', { class: 'dim' }, ' — retrying every 1.5 s.'),
          ),
        );
      }
      this.app.setConnection('bad', 'server unreachable');
      return;
    }
    if (this.serverDown) {
      this.serverDown = false;
      fill(this.banner);
    }
    this.app.setConnection('poll', `REST polling every ${REFRESH_MS / 1000} s`);
    const list = r.data.sessions || [];
    this.sessionsTable.setEmptyText(
      'No sessions yet. Attach to a process below, or start one with “jitscope run -- dotnet app.dll”.',
    );
    // running sessions' durations change every refresh: make that part of the row
    this.sessionsTable.setRows(
      list.map((s) => {
        const prev = previousRun(s, list);
        return { ...s, _prev: prev ? prev.id : null, ...(s.ended_ms ? {} : { _now: this.now }) };
      }),
    );
    const live = list.filter((s) => s.state === 'live').length;
    const children = list.filter((s) => s.root_id && s.root_id !== s.id).length;
    this.sessMeta.textContent =
      `${list.length} session${list.length === 1 ? '' : 's'}, ${live} live` +
      `${children ? ` (${children} in child processes, under their run)` : ''} · click a row to open it`;
    this.sessions = list;
    this.renderRunNotes(list);
  }

  // The newest runs (at most 3) whose build went to build servers they did not start.
  renderRunNotes(list) {
    const runs = list
      .filter((s) => s.build_servers_outside && s.build_servers_outside.length)
      .sort((a, b) => b.id - a.id)
      .slice(0, 3);
    const sig = JSON.stringify(runs.map((s) => [s.id, s.build_servers_outside]));
    if (this.runNotes._sig === sig) return;
    this.runNotes._sig = sig;
    fill(
      this.runNotes,
      runs.map((s) => outsideNotice(s, true)),
    );
  }

  async loadProcesses() {
    const r = await api('/api/processes');
    if (this.stopped) return;
    if (!r.ok) {
      if (isMissingRoute(r)) {
        missingRoutes.set('processes', r.error);
        this.showProcessesMissing(r);
      } else {
        fill(this.procNote, notice('error', describeError('Cannot list .NET processes', r)));
      }
      return;
    }
    fill(this.procNote);
    this.processes = r.data.processes || [];
    this.renderProcesses();
  }

  showProcessesMissing(r) {
    this.procTable.setEmptyText('Process discovery is not available.');
    this.procTable.setRows([]);
    fill(
      this.procNote,
      notice(
        'warn',
        h('b', null, 'Attaching to running processes is not available on this jitscope server'),
        ` (GET /api/processes answered ${r.status} “${r.error}”). `,
        'Sessions started with ',
        h('code', null, 'jitscope run -- dotnet app.dll'),
        ' appear above. ',
        h(
          'button',
          {
            class: 'btn btn-small',
            type: 'button',
            onclick: () => {
              missingRoutes.delete('processes');
              this.loadProcesses();
            },
          },
          'Check again',
        ),
      ),
    );
  }

  renderProcesses() {
    // the per-pid attach state is part of the row so changes re-render it
    const active = new Set(
      (this.sessions || [])
        .filter((s) => ['starting', 'live', 'detaching'].includes(s.state))
        .map((s) => s.id),
    );
    const rows = this.processes.map((p) => ({
      ...p,
      _attach: this.attach.get(p.pid) || null,
      _sessionActive: active.has(p.session_id),
    }));
    this.procTable.setRows(rows);
    this.procMeta.textContent = `${rows.length} found · processes of this user with a diagnostics socket`;
  }

  attachCell(p) {
    const st = p._attach;
    if (p.session_id != null && !(st && st.busy) && p._sessionActive) {
      return h('a', { class: 'btn btn-small', href: sessionHref(p.session_id) }, 'Open session');
    }
    const btn = h(
      'button',
      {
        class: 'btn btn-small btn-primary attach-btn',
        type: 'button',
        disabled: !!(st && st.busy),
        'data-pid': String(p.pid),
        onclick: () => this.doAttach(p.pid),
      },
      st && st.busy ? 'Attaching…' : st && st.error ? 'Retry attach' : 'Attach',
    );
    return [btn, st && st.error ? h('div', { class: 'row-error' }, st.error) : null];
  }

  async doAttach(pid) {
    this.attach.set(pid, { busy: true });
    this.renderProcesses();
    const r = await api(`/api/processes/${pid}/attach`, {
      method: 'POST',
      body: {},
      timeoutMs: 60000,
    });
    if (r.ok && r.data && r.data.session) {
      this.attach.delete(pid);
      // said on the session's page, in its notice line: a toast would sit on
      // the bottom of the page the attach opens (the feed's hint)
      this.app.flash = {
        sessionId: r.data.session.id,
        text: `Attached to pid ${pid}: session #${r.data.session.id}.`,
      };
      this.app.navigate(sessionHref(r.data.session.id));
      return;
    }
    const msg = attachError(pid, r);
    this.attach.set(pid, { busy: false, error: msg });
    toast(msg, { kind: 'error' });
    if (!this.stopped) this.renderProcesses();
  }
}

function attachError(pid, r) {
  if (isMissingRoute(r))
    return `Attach is not available on this server (POST /api/processes/${pid}/attach: ${r.status} ${r.error}).`;
  switch (r.status) {
    case 409:
      return `Cannot attach to pid ${pid}: ${r.error} (only one profiler can be attached to a process).`;
    case 503:
      return `Cannot attach to pid ${pid} yet: ${r.error}. The runtime is not ready — retry in a moment.`;
    case 404:
      return `Cannot attach to pid ${pid}: ${r.error}.`;
    case 422:
      return `Cannot attach to pid ${pid}: ${r.error}.`;
    case 403:
      return `Cannot attach to pid ${pid}: ${r.error}.`;
    case 504:
      return `Attach to pid ${pid} timed out: ${r.error}.`;
    case 0:
      return `Attach to pid ${pid} failed: ${r.error}`;
    default:
      return `Attach to pid ${pid} failed (${r.status}): ${r.error}`;
  }
}
