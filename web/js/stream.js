// stream.js -- a session's event stream: the WebSocket live stream when the
// server offers one (GET /api/config -> ws_port; wss:// when the page came
// over https, with ?key= when the page has the API key), REST polling of
// /api/sessions/{id}/events?after=SEQ every 500 ms otherwise, and whenever
// the socket is down. Events are delivered once each, in seq order: anything
// at or below the last delivered seq is dropped, and a gap in the stream is
// filled through REST before the newer events are delivered.
import { api, getApiKey, getConfig, describeError } from './api.js';
import { reviveCounts } from './counts.js';

const POLL_MS = 500;
const POLL_IDLE_MS = 2000; // session ended and caught up
const PAGE = 10000;
const WS_BACKOFF = [1000, 2000, 5000, 10000, 30000, 60000];

export class SessionStream {
  // handlers: onEvents(events), onSession(summary), onMode(mode, detail), onNotice(text, kind)
  constructor(sessionId, { capacity, ...handlers }) {
    this.id = sessionId;
    this.h = handlers;
    this.capacity = capacity;
    this.lastSeq = 0;
    this.serverLastSeq = 0;
    this.stopped = false;
    this.ended = false; // set by the owner when the session reached a final state
    this.ws = null;
    this.wsLive = false;
    this.wsFailures = 0;
    this.wsTimer = null;
    this.wsPort = null;
    this.queue = Promise.resolve();
    this.wakePoll = null;
    this.pollErrors = 0;
    this.skipped = 0; // older events not loaded because they would not fit the client buffer
    this.received = 0;
  }

  async start() {
    // Start near the end if the session has more events than the client keeps.
    const head = await api(`/api/sessions/${this.id}/events?after=0&limit=1`);
    if (head.ok && this.capacity && head.data.last_seq > this.capacity) {
      this.lastSeq = head.data.last_seq - this.capacity;
      this.skipped = this.lastSeq;
      this.h.onNotice?.(
        `This session has ${head.data.last_seq.toLocaleString('en-US')} events; the page loaded the newest ${this.capacity.toLocaleString('en-US')} (its buffer size).`,
        'info',
      );
    }
    this.pollLoop();
    const cfg = await getConfig();
    if (this.stopped) return;
    if (cfg.ok && cfg.data && Number.isInteger(cfg.data.ws_port) && cfg.data.ws_port > 0) {
      this.wsPort = cfg.data.ws_port;
      this.connectWs();
    } else {
      this.setMode();
    }
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.wsTimer);
    if (this.ws) {
      try {
        this.ws.close(1000);
      } catch {
        /* closing */
      }
    }
    this.ws = null;
    if (this.wakePoll) this.wakePoll();
  }

  setMode(detail) {
    if (this.stopped) return;
    if (this.pollErrors > 0) this.h.onMode?.('bad', detail || 'server unreachable, retrying');
    else if (this.wsLive) this.h.onMode?.('ok', `live stream (WebSocket :${this.wsPort})`);
    else if (this.wsPort)
      this.h.onMode?.('poll', detail || `REST polling every ${POLL_MS} ms (stream reconnecting)`);
    else this.h.onMode?.('poll', `REST polling every ${POLL_MS} ms`);
  }

  // ---- serialized delivery ----
  enqueue(events, source) {
    this.queue = this.queue
      .then(() => this.deliver(events, source))
      .catch((e) => this.h.onNotice?.(`Could not process events: ${e.message}`, 'error'));
    return this.queue;
  }

  async deliver(events, source) {
    if (this.stopped || !events || events.length === 0) return;
    let i = 0;
    while (i < events.length && events[i].seq <= this.lastSeq) i++;
    if (i === events.length) return;
    if (source === 'ws' && events[i].seq > this.lastSeq + 1) {
      await this.fetchUntil(events[i].seq - 1); // fill the gap first
      while (i < events.length && events[i].seq <= this.lastSeq) i++;
      if (i === events.length) return;
    }
    const fresh = i === 0 ? events : events.slice(i);
    this.lastSeq = fresh[fresh.length - 1].seq;
    if (this.lastSeq > this.serverLastSeq) this.serverLastSeq = this.lastSeq;
    this.received += fresh.length;
    this.h.onEvents(fresh);
  }

  // REST pages from lastSeq until seq `upTo` (or the server's end).
  async fetchUntil(upTo) {
    while (!this.stopped && this.lastSeq < upTo) {
      const r = await api(`/api/sessions/${this.id}/events?after=${this.lastSeq}&limit=${PAGE}`);
      if (!r.ok || !r.data.events.length) return;
      const before = this.lastSeq;
      await this.deliver(
        r.data.events.filter((e) => e.seq <= upTo),
        'rest',
      );
      if (this.lastSeq === before) return;
    }
  }

  // ---- REST polling (runs whenever the socket is not live) ----
  async pollLoop() {
    while (!this.stopped) {
      let wait = this.ended && this.lastSeq >= this.serverLastSeq ? POLL_IDLE_MS : POLL_MS;
      if (!this.wsLive) {
        const r = await api(`/api/sessions/${this.id}/events?after=${this.lastSeq}&limit=${PAGE}`);
        if (this.stopped) return;
        if (r.ok) {
          if (this.pollErrors) {
            this.pollErrors = 0;
            this.setMode();
            this.h.onNotice?.('Connection to the jitscope server restored.', 'ok');
          }
          this.serverLastSeq = Math.max(this.serverLastSeq, r.data.last_seq || 0);
          if (r.data.evicted && !this.evictedNoted) {
            this.evictedNoted = true;
            const cfg = await getConfig();
            const cap =
              cfg.ok && cfg.data && Number.isInteger(cfg.data.event_log_capacity)
                ? cfg.data.event_log_capacity
                : 0;
            const kept = cap > 0 ? ` (it keeps the newest ${cap.toLocaleString('en-US')})` : '';
            if (this.stopped) return;
            this.h.onNotice?.(
              `The server no longer keeps this session's oldest events${kept}; the feed starts later.`,
              'warn',
            );
          }
          await this.enqueue(r.data.events, 'rest');
          if (r.data.events.length && this.lastSeq < r.data.last_seq) wait = 0; // more pages waiting
        } else if (r.status === 404) {
          this.h.onGone?.(r); // no such session: the owner says so on the page
          return;
        } else {
          this.pollErrors++;
          wait = Math.min(5000, 500 * 2 ** Math.min(this.pollErrors, 4));
          this.setMode(
            r.status === 0 ? 'server unreachable, retrying' : `events: ${r.status} ${r.error}`,
          );
          if (this.pollErrors === 1 || this.pollErrors % 20 === 0)
            this.h.onNotice?.(describeError('Live events', r), 'error');
        }
      }
      if (wait > 0)
        await new Promise((res) => {
          this.wakePoll = res;
          setTimeout(res, wait);
        });
      this.wakePoll = null;
    }
  }

  // ---- WebSocket stream ----
  connectWs() {
    if (this.stopped || this.ws) return;
    const host =
      location.hostname.includes(':') && !location.hostname.startsWith('[')
        ? `[${location.hostname}]`
        : location.hostname;
    // the stream has the page's TLS (one certificate for both ports) and the
    // page's API key: a browser cannot set headers on a WebSocket
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const key = getApiKey() ? `?key=${encodeURIComponent(getApiKey())}` : '';
    let ws;
    try {
      ws = new WebSocket(`${scheme}://${host}:${this.wsPort}/${key}`, 'jitscope');
    } catch (e) {
      this.h.onNotice?.(`Live stream unavailable (${e.message}); using REST polling.`, 'warn');
      return;
    }
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.wsFailures = 0;
      ws.send(JSON.stringify({ subscribe: this.id, after: this.lastSeq }));
      this.wsLive = true;
      this.setMode();
    };
    ws.onmessage = (m) => {
      let msg;
      try {
        msg = JSON.parse(m.data, reviveCounts);
      } catch {
        return;
      }
      this.onWsMessage(msg);
    };
    ws.onerror = () => {
      /* followed by close */
    };
    ws.onclose = (e) => {
      if (this.ws === ws) this.ws = null;
      const wasLive = this.wsLive;
      this.wsLive = false;
      if (this.stopped) return;
      if (this.wakePoll) this.wakePoll(); // poll now
      const delay = WS_BACKOFF[Math.min(this.wsFailures, WS_BACKOFF.length - 1)];
      this.wsFailures++;
      if (wasLive || this.wsFailures === 1) {
        const why =
          e.code === 1008
            ? 'the server dropped this page as too slow'
            : opened
              ? `closed (${e.code})`
              : 'cannot connect';
        this.h.onNotice?.(
          `Live stream ${why}; using REST polling, retrying the stream in ${Math.round(delay / 1000)} s.`,
          'warn',
        );
      }
      this.setMode();
      this.wsTimer = setTimeout(() => this.connectWs(), delay);
    };
  }

  onWsMessage(msg) {
    if (!msg || (msg.session != null && typeof msg.session === 'number' && msg.session !== this.id))
      return;
    switch (msg.type) {
      case 'events':
        if (typeof msg.last_seq === 'number')
          this.serverLastSeq = Math.max(this.serverLastSeq, msg.last_seq);
        this.enqueue(msg.events || [], 'ws');
        break;
      case 'session':
        if (msg.session && msg.session.id === this.id) this.h.onSession?.(msg.session);
        break;
      case 'lagged':
        // The stream skips ahead; the gap is fetched through REST when the next batch arrives.
        this.h.onNotice?.(
          `Live stream fell behind: ${Number(msg.missed).toLocaleString('en-US')} events skipped by the server; fetching them through REST.`,
          'warn',
        );
        this.queue = this.queue.then(() => this.fetchUntil(msg.resume_after)).catch(() => {});
        break;
      case 'error':
        this.h.onNotice?.(`Live stream: ${msg.error}`, 'error');
        break;
      default:
        break;
    }
  }
}
