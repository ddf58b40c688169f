/* views.h -- the JSON shapes of a session and what it holds: the session
 * (summary and detail), functions, modules, threads, events and the profile
 * status, plus the scalars they are made of (IDs as "0x..." strings, Unix ms,
 * nullable strings, HRESULTs).
 *
 * Both the REST routes (api*.c) and the live stream (ws.c) build their bodies
 * from these, so a function or an event looks the same wherever it is read.
 * Every function returns a new jansson reference (NULL only when jansson
 * cannot allocate). The callers holding a session hold the sessions lock
 * (sessions.h); views.c takes no lock and does no I/O. The shapes are
 * documented in docs/API.md. */
#ifndef JITSCOPE_VIEWS_H
#define JITSCOPE_VIEWS_H

#include <jansson.h>
#include <stdint.h>

#include "session.h"

json_t *view_id(uint64_t id);            /* "0x7f..." */
json_t *view_ms(int64_t ns);             /* Unix ms as a number; null for 0 */
json_t *view_str(const char *s);         /* string or null */
json_t *view_hresult(int32_t hr);        /* "0x80004005" */
json_t *view_generations(uint32_t bits); /* GC generation bits as [0, 1, ...] */

/* ProfileStatus (docs/API.md). */
json_t *view_profile_status(const profile_state *p);

/* Session: the summary of GET /api/sessions and the stream's "session"
 * messages; the detail adds link, catch-up, detach, profile and stacks. */
json_t *view_session_summary(session *s);
/* The agent's own time per JIT callback: count, mean, p50, p99 (ns) and the
 * histogram as sent (wire.h, WIRE_AGENT_COST). */
json_t *view_agent_cost(const wire_agent_cost *c);
json_t *view_session_detail(session *s);

json_t *view_function(session *s, const session_function *f);
/* {"Tier0": {"compilations", "jit_ns"}, ...}: the session's live JITs per tier. */
json_t *view_tier_totals(const session *s);
/* {"enabled": true|false|null (not said yet), "error": "0x..."|null, "lost": N}:
 * the agent's JIT-tier source (its EventPipe session). */
json_t *view_tier_source(const session *s);
json_t *view_module(const session_module *m);
json_t *view_thread(const session *s, const session_thread *t);
/* One entry of the event log, as in GET .../events and the stream. */
json_t *view_event(session *s, const eventlog_entry *e);

#endif
