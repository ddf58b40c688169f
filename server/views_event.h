/* views_event.h -- one entry of a session's event log as JSON (GET .../events
 * and the live stream's events), shaped by its kind's row (record_kinds.h):
 * the fields every event has (seq, type, time_ms, catchup) here, its kind's
 * own from the row's event view (views.c).
 *
 * In two steps, so that the lock is held only for the first:
 * view_event_take copies what the JSON shows (plain fields, strings into a
 * view_text the caller owns; NULL: pointing into the session), view_event_json
 * shapes the copy without the session (the live stream, ws_next.c). No lock
 * taken, no I/O. */
#ifndef JITSCOPE_VIEWS_EVENT_H
#define JITSCOPE_VIEWS_EVENT_H

#include <jansson.h>

#include "views.h"

/* One entry of the event log, as in GET .../events and the stream (caller
 * holds the lock until it is made). */
json_t *view_event(session *s, const eventlog_entry *e);
/* Copies entry e and what its JSON shows of s; 0, or -1 when its strings do
 * not fit in text (nothing kept). Caller holds the lock. */
int view_event_take(session *s, const eventlog_entry *e, view_event_copy *c, view_text *text);
/* The JSON of a copied event. An event whose row says so (PROFILE_STATUS)
 * shows the profile's status as `profile` has it (the session's, copied with
 * the event; only its status fields are read, never its data). */
json_t *view_event_json(const view_event_copy *c, const profile_state *profile);

#endif
