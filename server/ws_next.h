/* ws_next.h -- a live-stream client's next message, made in two steps.
 *
 * ws_next_take holds the sessions lock only to decide what the client gets
 * next (a "lagged" notice, a batch of events, the session's summary) and to
 * copy what that shows out of the session: plain structs, at most
 * WS_BATCH_EVENTS events and WS_NEXT_TEXT_BYTES of their strings (views.h,
 * view_*_take). ws_next_render shapes the copy into the JSON message without
 * the lock, and without the session, which may be gone by then. The client's
 * place in its session is a ws_cursor (ws.c keeps one per client). Both run
 * on the WebSocket service thread; a ws_next is about 1.2 MiB, one is enough.
 */
#ifndef JITSCOPE_WS_NEXT_H
#define JITSCOPE_WS_NEXT_H

#include <jansson.h>
#include <stdint.h>

#include "views.h"

#define WS_BATCH_EVENTS 1000               /* events per message at most */
#define WS_MAX_BACKLOG 100000              /* a client further behind than this is skipped ahead */
#define WS_KEEP_ON_LAG 1000                /* ... to this many events before the newest */
#define WS_NEXT_TEXT_BYTES (1024u * 1024u) /* the strings one message copies out */
#define WS_SUMMARY_EVERY_NS 1000000000ll   /* a summary at least this often */

/* Where a client is in its session's events. */
typedef struct ws_cursor {
    int session_id;    /* 0: not subscribed */
    uint64_t next_seq; /* next event to send */
    int64_t last_progress_ns;
    int64_t last_summary_ns;
    int last_state;      /* the state the last summary showed (-1: none yet) */
    uint64_t lag_missed; /* a lagged notice to send */
    uint64_t lag_resume_after;
} ws_cursor;

typedef enum ws_next_kind {
    WS_NEXT_NONE,    /* nothing to send now */
    WS_NEXT_GONE,    /* the session is no more (deleted) */
    WS_NEXT_LAGGED,  /* {"type": "lagged", ...} */
    WS_NEXT_EVENTS,  /* {"type": "events", ...} */
    WS_NEXT_SUMMARY, /* {"type": "session", ...} */
} ws_next_kind;

typedef struct ws_next {
    ws_next_kind kind;
    int session_id;
    uint64_t missed, resume_after; /* LAGGED */
    uint64_t last_seq;             /* EVENTS: the session's newest event */
    size_t count;                  /* EVENTS */
    profile_state profile; /* EVENTS with a profile event: the session's (status fields only;
                              its suspend_hist points at the copy below, or is NULL) */
    uint32_t suspend_hist[PROFILE_HIST_BUCKETS];
    view_summary summary; /* SUMMARY */
    view_event_copy events[WS_BATCH_EVENTS];
    char text[WS_NEXT_TEXT_BYTES]; /* the strings events and summary point at */
} ws_next;

/* Takes the sessions lock. Decides c's next message at `now` (CLOCK_MONOTONIC
 * ns), moves c past it and copies what it shows into *m. Sets *more when
 * more is ready to go at once. Returns m->kind. */
ws_next_kind ws_next_take(ws_next *m, ws_cursor *c, int64_t now, int *more);

/* The JSON message of what ws_next_take copied (NULL for NONE and GONE, or
 * when jansson cannot allocate). No lock. */
json_t *ws_next_render(const ws_next *m);

#endif
