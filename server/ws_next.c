/* ws_next.c -- a live-stream client's next message: copied under the sessions
 * lock, shaped without it (see ws_next.h). */
#include "ws_next.h"

#include <string.h>

#include "record_kinds.h"
#include "sessions.h"
#include "views_event.h"

/* Skips a cursor too far behind (or behind what the log still keeps) ahead to
 * WS_KEEP_ON_LAG events before the newest, counting what it missed. */
static void ws_next_skip_lag(ws_cursor *c, const eventlog *log)
{
    uint64_t first = eventlog_first_seq(log), resume;
    uint64_t pending = log->last_seq >= c->next_seq ? log->last_seq - c->next_seq + 1 : 0;

    if (c->next_seq >= first && pending <= WS_MAX_BACKLOG)
        return;
    resume = log->last_seq > WS_KEEP_ON_LAG ? log->last_seq - WS_KEEP_ON_LAG + 1 : 1;
    if (resume < first)
        resume = first;
    c->lag_missed += resume > c->next_seq ? resume - c->next_seq : 0;
    c->lag_resume_after = resume - 1;
    c->next_seq = resume;
}

/* Copies the cursor's next events, as many as WS_BATCH_EVENTS and the text
 * room allow (an event whose strings do not fit leads the next message). */
static void ws_next_take_events(ws_next *m, ws_cursor *c, session *s)
{
    view_text text = {m->text, sizeof(m->text), 0};

    while (c->next_seq <= s->events.last_seq && m->count < WS_BATCH_EVENTS) {
        const eventlog_entry *e = eventlog_at(&s->events, c->next_seq);
        if (view_event_take(s, e, &m->events[m->count], &text) != 0)
            break;
        if (record_kind_flags(e->type) & RECORD_KIND_EVENT_PROFILE) {
            /* its status now, as the event shows it */
            m->profile = s->profile;
            if (s->profile.suspend_hist) { /* read without the lock: a copy */
                memcpy(m->suspend_hist, s->profile.suspend_hist, sizeof(m->suspend_hist));
                m->profile.suspend_hist = m->suspend_hist;
            }
        }
        m->count++;
        c->next_seq++;
    }
    m->last_seq = s->events.last_seq;
}

ws_next_kind ws_next_take(ws_next *m, ws_cursor *c, int64_t now, int *more)
{
    session *s;

    *more = 0;
    m->kind = WS_NEXT_NONE;
    m->session_id = c->session_id;
    m->count = 0;
    if (!c->session_id)
        return WS_NEXT_NONE;
    sessions_lock();
    s = sessions_get(c->session_id);
    if (!s) {
        sessions_unlock();
        return m->kind = WS_NEXT_GONE;
    }
    ws_next_skip_lag(c, &s->events);
    if (c->lag_missed) {
        m->kind = WS_NEXT_LAGGED;
        m->missed = c->lag_missed;
        m->resume_after = c->lag_resume_after;
        c->lag_missed = 0;
        *more = 1;
    } else if (c->next_seq <= s->events.last_seq) {
        m->kind = WS_NEXT_EVENTS;
        ws_next_take_events(m, c, s);
        c->last_progress_ns = now;
        *more = c->next_seq <= s->events.last_seq;
    } else if ((int)s->state != c->last_state || now - c->last_summary_ns >= WS_SUMMARY_EVERY_NS) {
        view_text text = {m->text, sizeof(m->text), 0};
        if (view_summary_take(s, &m->summary, &text) == 0) {
            m->kind = WS_NEXT_SUMMARY;
            c->last_state = (int)s->state;
            c->last_summary_ns = now;
        }
    }
    if (c->next_seq > s->events.last_seq)
        c->last_progress_ns = now; /* nothing pending: not stalled */
    sessions_unlock();
    return m->kind;
}

json_t *ws_next_render(const ws_next *m)
{
    json_t *list;
    size_t i;

    switch (m->kind) {
    case WS_NEXT_LAGGED:
        return json_pack("{s:s, s:i, s:o, s:o}", "type", "lagged", "session", m->session_id,
                         "missed", view_count(m->missed), "resume_after",
                         view_count(m->resume_after));
    case WS_NEXT_EVENTS:
        list = json_array();
        for (i = 0; i < m->count; i++)
            json_array_append_new(list, view_event_json(&m->events[i], &m->profile));
        return json_pack("{s:s, s:i, s:o, s:o}", "type", "events", "session", m->session_id,
                         "events", list, "last_seq", view_count(m->last_seq));
    case WS_NEXT_SUMMARY:
        return json_pack("{s:s, s:o}", "type", "session", "session",
                         view_summary_json(&m->summary));
    case WS_NEXT_NONE:
    case WS_NEXT_GONE: break;
    }
    return NULL;
}
