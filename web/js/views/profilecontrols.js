// profilecontrols.js -- the Profile tab's toolbar: what to measure (wall clock,
// or CPU time where GET /profile's `cpu_mode` allows it, else greyed out with
// the reason), the rate and duration, Start (POST /profile) and Stop (POST
// /profile/stop), a status line, and the speedscope, folded and pprof
// downloads (with the tab's thread, time and view filters). The controls show
// the session's profile as it was started (its mode and rate) until the user
// changes them, so a stored 999 Hz CPU profile is not shown beside "Wall
// clock 49 Hz".
import { h, fill } from '../dom.js';
import { api, isMissingRoute, describeError, getApiKey } from '../api.js';
import { fmtInt } from '../format.js';
import { toast } from '../ui.js';
import { profileMode } from './profilestats.js';

const CPU_TIP = profileMode({ mode: 'cpu' }).tip;

export class ProfileControls {
  constructor(tab) {
    this.tab = tab;
    this.busy = null; // 'start' | 'stop' while a POST is under way
    this.error = null;
    this.touched = false; // the user changed mode, rate or duration: keep theirs
    const id = tab.session.id;
    this.modeSel = h(
      'select',
      { id: `p-mode-${id}`, class: 'mode-select', 'aria-label': 'What to measure' },
      h('option', { value: 'wall' }, 'Wall clock'),
      h('option', { value: 'cpu' }, 'CPU time'),
    );
    this.modeSel.addEventListener('change', () => {
      this.touched = true;
      this.render();
    });
    const num = (extra) =>
      h('input', {
        type: 'number',
        class: 'num-input',
        min: '1',
        step: '1',
        inputmode: 'numeric',
        ...extra,
      });
    this.hzInput = num({ id: `p-hz-${id}`, max: '1000', value: '49' });
    this.durInput = num({
      id: `p-dur-${id}`,
      max: '86400',
      placeholder: '∞',
      title: 'Stop by itself after this many seconds (empty: until you press Stop)',
    });
    for (const inp of [this.hzInput, this.durInput]) {
      inp.addEventListener('input', () => (this.touched = true));
      inp.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.start();
      });
    }
    this.startBtn = h(
      'button',
      { class: 'btn btn-primary start-btn', type: 'button', onclick: () => this.start() },
      '▶ Start profiling',
    );
    this.stopBtn = h(
      'button',
      { class: 'btn stop-btn', type: 'button', onclick: () => this.stop() },
      '■ Stop',
    );
    this.info = h('span', { class: 'snap-info', role: 'status' });
    const link = (cls, text, title) => {
      const a = h('a', { class: `btn ${cls}`, title }, text);
      a.addEventListener('click', (e) => this.download(e, a));
      return a;
    };
    const filters = 'The thread, time, fold and hide filters of the graph apply.';
    this.links = [
      [
        link(
          'export-speedscope',
          '⤓ speedscope',
          `Download the profile as a speedscope file (one sampled profile per thread; open it at speedscope.app). ${filters}`,
        ),
        'speedscope',
        'speedscope.json',
      ],
      [
        link(
          'export-folded',
          '⤓ folded',
          `Download the profile as folded stacks (FlameGraph’s collapsed format). ${filters}`,
        ),
        'folded',
        'folded.txt',
      ],
      [
        link(
          'export-pprof',
          '⤓ pprof',
          `Download the profile as a pprof file (gzip-compressed profile.proto: go tool pprof, Pyroscope, Grafana). ${filters}`,
        ),
        'pprof',
        'pb.gz',
      ],
    ];
    this.el = h(
      'div',
      { class: 'toolbar p-controls' },
      h('label', { class: 'field', for: this.modeSel.id }, 'Measure', this.modeSel),
      h(
        'label',
        { class: 'field', for: this.hzInput.id },
        'Rate',
        this.hzInput,
        h('span', { class: 'unit' }, 'Hz'),
      ),
      h(
        'label',
        { class: 'field', for: this.durInput.id },
        'Duration',
        this.durInput,
        h('span', { class: 'unit' }, 's'),
      ),
      this.startBtn,
      this.stopBtn,
      this.info,
      ...this.links.map((l) => l[0]),
    );
  }

  // The profile's own mode and rate in the controls, unless the user set theirs.
  syncFromStatus(s) {
    if (!s || this.touched || this.busy || s.state === 'idle') return;
    if (s.mode === 'wall' || s.mode === 'cpu') this.modeSel.value = s.mode;
    if (s.requested_hz != null && document.activeElement !== this.hzInput)
      this.hzInput.value = String(Math.round(s.requested_hz));
  }

  cpuAvailable() {
    return !!(this.tab.cpuMode && this.tab.cpuMode.available);
  }

  renderMode(running, reason) {
    const cpuMode = this.tab.cpuMode;
    const opt = this.modeSel.querySelector('option[value="cpu"]');
    const why = cpuMode && !cpuMode.available ? cpuMode.reason || 'not allowed here' : null;
    opt.disabled = !!why || !cpuMode;
    opt.textContent = why ? 'CPU time (not available)' : 'CPU time';
    opt.title = why ? `CPU profiles are not available here: ${why}` : CPU_TIP;
    // a stored CPU profile stays shown as such where no new one could start
    if (opt.disabled && this.modeSel.value === 'cpu' && !reason && !running)
      this.modeSel.value = 'wall';
    this.modeSel.disabled = running || !!reason;
    this.modeSel.title = why
      ? `CPU time is not available here: ${why}`
      : 'Wall clock: suspended walks of every managed thread, running or waiting. CPU time: the kernel samples the threads that run, nothing suspended.';
  }

  render() {
    const tab = this.tab;
    const s = tab.status;
    const running = tab.running();
    const reason = tab.liveReason();
    const cpuChosen = this.modeSel.value === 'cpu';
    this.syncFromStatus(s);
    this.renderMode(running, reason);
    this.startBtn.disabled = !!reason || running || !!this.busy || tab.missing;
    this.stopBtn.disabled = !running || !!this.busy;
    this.hzInput.disabled = this.durInput.disabled = running || !!reason;
    this.startBtn.title =
      reason ||
      (running
        ? 'A profile is running: stop it first'
        : cpuChosen
          ? 'Start sampling the threads that run, at this rate of their CPU time (starting discards the previous profile)'
          : 'Start sampling every managed thread’s stack at this rate (starting discards the previous profile)');
    this.stopBtn.title = running ? 'Stop sampling (the profile stays)' : 'No profile is running';
    let info;
    if (tab.missing)
      info = h('span', { class: 'why' }, 'Profiling is not available on this server.');
    else if (this.busy)
      info = h('span', { class: 'dim' }, this.busy === 'start' ? 'Starting…' : 'Stopping…');
    else if (reason) info = h('span', { class: 'why' }, reason);
    else if (this.error) info = h('span', { class: 'err' }, this.error);
    else if (s && s.error) info = h('span', { class: 'err' }, s.error);
    else if (s && s.fallback && running) info = h('span', { class: 'why fallback' }, s.fallback);
    else if (running) info = h('span', { class: 'ok' }, `Sampling… the graph grows every second`);
    else if (cpuChosen)
      info = h(
        'span',
        { class: 'dim' },
        'The kernel samples the threads that run; the runtime is never suspended.',
      );
    else
      info = h(
        'span',
        { class: 'dim' },
        'Suspends the runtime briefly per sample, kept under a budget of wall time.',
      );
    const isig = info.textContent + info.className;
    if (this.info._sig !== isig) {
      this.info._sig = isig;
      this.info.title = info.textContent;
      fill(this.info, info);
    }
    this.renderLinks();
    if (running) tab.session.setTabCount('profile', '● rec');
    else tab.session.setTabCount('profile', s && s.samples ? fmtInt(s.samples) : null);
  }

  renderLinks() {
    const tab = this.tab;
    const base = `/api/sessions/${tab.session.id}/profile`;
    const has = !!(tab.status && tab.status.samples);
    for (const [a, fmt, ext] of this.links) {
      if (has) {
        a.href = `${base}?format=${fmt}${tab.query({ exports: true })}`;
        a.setAttribute('download', `jitscope-session-${tab.session.id}.${ext}`);
        a.removeAttribute('aria-disabled');
        a.classList.remove('disabled');
      } else {
        a.removeAttribute('href');
        a.setAttribute('aria-disabled', 'true');
        a.classList.add('disabled');
      }
    }
  }

  async start() {
    const tab = this.tab;
    const reason = tab.liveReason();
    if (reason) {
      toast(reason, { kind: 'warn' });
      return;
    }
    if (this.busy || tab.running()) return;
    const hz = Number(this.hzInput.value || 49);
    if (!Number.isInteger(hz) || hz < 1 || hz > 1000) {
      this.fail('Rate must be a whole number of samples per second from 1 to 1000.');
      this.hzInput.focus();
      return;
    }
    const body = { hz, mode: this.modeSel.value === 'cpu' && this.cpuAvailable() ? 'cpu' : 'wall' };
    if (this.durInput.value.trim()) {
      const dur = Number(this.durInput.value);
      if (!Number.isInteger(dur) || dur < 1 || dur > 86400) {
        this.fail('Duration must be empty (until stopped) or whole seconds from 1 to 86400.');
        this.durInput.focus();
        return;
      }
      body.duration_s = dur;
    }
    this.busy = 'start';
    this.error = null;
    this.render();
    const r = await api(`/api/sessions/${tab.session.id}/profile`, { method: 'POST', body });
    this.busy = null;
    if (r.ok) {
      this.touched = false; // the controls now show this profile
      tab.started(
        r.data && r.data.profile
          ? r.data.profile
          : { state: 'running', requested_hz: hz, mode: body.mode },
      );
    } else if (isMissingRoute(r)) this.fail('Profiling is not available on this server.');
    else if (r.status === 429)
      this.fail(`A profile is already running (${r.error}); stop it first.`);
    else if (r.status === 409) this.fail(`Cannot start: ${r.error}.`);
    else this.fail(describeError('Start profiling', r));
    this.render();
  }

  async stop() {
    const tab = this.tab;
    if (this.busy) return;
    this.busy = 'stop';
    this.render();
    const r = await api(`/api/sessions/${tab.session.id}/profile/stop`, { method: 'POST' });
    this.busy = null;
    if (r.ok) {
      if (r.data && r.data.profile) tab.setStatus({ ...(tab.status || {}), ...r.data.profile });
      tab.fetch('tree');
      tab.fetch('info');
    } else if (r.status === 409) {
      this.fail(`Nothing to stop: ${r.error}.`);
      tab.fetch('tree');
    } else this.fail(describeError('Stop profiling', r));
    this.render();
  }

  fail(text) {
    this.error = text;
    toast(text, { kind: 'error' });
    this.render();
  }

  // Downloads through fetch when an API key must go along (a plain link cannot send it).
  async download(e, a) {
    if (a.getAttribute('aria-disabled') === 'true') {
      e.preventDefault();
      return;
    }
    if (!getApiKey()) return; // the browser follows the link itself
    e.preventDefault();
    const res = await fetch(a.href, { headers: { Authorization: `Bearer ${getApiKey()}` } }).catch(
      () => null,
    );
    if (!res || !res.ok) {
      toast(`Download failed: ${res ? res.status : 'server unreachable'}`, { kind: 'error' });
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const tmp = h('a', { href: url, download: a.getAttribute('download') });
    document.body.append(tmp);
    tmp.click();
    tmp.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }
}
