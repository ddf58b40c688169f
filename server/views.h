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
 * documented in docs/API.md.
 *
 * Events (views_event.h, through their kind's row) and session summaries
 * can also be made in two steps, so that the lock is held only for the first: view_*_take copies what the JSON shows
 * (plain fields, strings into a view_text the caller owns), view_*_json
 * shapes the copy without the session (the live stream, ws.c). With a NULL
 * view_text the copy points into the session instead: for a caller that
 * keeps the lock until the JSON is made (view_event, view_session_summary). */
#ifndef JITSCOPE_VIEWS_H
#define JITSCOPE_VIEWS_H

#include <jansson.h>
#include <stdint.h>

#include "session.h"

/* Numbers (docs/API.md, "Numbers"): every integer a response holds is one a
 * JavaScript number holds exactly (|n| <= 2^53 - 1). Sizes and counts of what
 * the server keeps in memory are far below that; a counter or a nanosecond
 * total that the agent's word makes (records, drops, costs, JIT, GC and
 * suspension durations and their sums) goes through view_count, which writes
 * one above it as a string of its decimal digits instead. */
#define VIEW_EXACT_MAX 9007199254740991ull /* 2^53 - 1 */
json_t *view_count(uint64_t v);            /* an integer, or "9007199254740992"... */
json_t *view_signed_count(int64_t v);      /* the same for a difference ("-9007199254740992"...) */

json_t *view_id(uint64_t id);                          /* "0x7f..." */
json_t *view_ms(int64_t ns);                           /* Unix ms as a number; null for 0 */
json_t *view_str(const char *s);                       /* string or null */
json_t *view_function_name(const session_function *f); /* its name, or null */
json_t *view_name_record(const char *record);          /* the same from a name record */
json_t *view_hresult(int32_t hr);                      /* "0x80004005" */
json_t *view_generations(uint32_t bits);               /* GC generation bits as [0, 1, ...] */

/* ProfileStatus (docs/API.md). */
json_t *view_profile_status(const profile_state *p);

/* Room for the strings a copy keeps: `size` bytes at `data`, `used` taken. */
typedef struct view_text {
    char *data;
    size_t size, used;
} view_text;

/* Session: the summary of GET /api/sessions and the stream's "session"
 * messages; the detail adds link, catch-up, detach, profile and stacks. */
json_t *view_session_summary(session *s);
/* What a summary shows, copied. */
typedef struct view_summary {
    const char *stored; /* a stored session not in memory: its list entry as stored (JSON) */
    int id, root_id, mode;
    pid_t pid, parent_pid;
    session_state state;
    const char *command_line, *error;
    int has_exit_code, exit_code, exit_signal;
    int64_t created_ns, connected_ns, ended_ns;
    uint16_t runtime_type, clr_instance_id, major, minor, build, qfe;
    uint64_t functions, modules, threads, threads_alive, jit_compilations, jit_time_total_ns;
    uint64_t events;
    wire_drops drops;
    uint64_t refused_inconsistent, refused_memory; /* agent records refused, by why */
    char program[PROCNAME_MAX];                    /* what it runs, in a word */
    const char *exit_code_unknown; /* why it has no exit code (a constant string), NULL */
    uint32_t outside_count;        /* build servers outside a run that worked for it */
    session_outsider outside[SESSION_OUTSIDE_MAX];
    container_facts container;    /* where it runs */
    int via_port, port_suspended; /* came through the diagnostic port; waited for the agent */
} view_summary;
/* Copies s's summary; 0, or -1 when its strings do not fit in text (nothing
 * kept). Caller holds the lock. */
int view_summary_take(session *s, view_summary *v, view_text *text);
json_t *view_summary_json(const view_summary *v);
/* {"id": 64 hex|null, "hostname", "pid", "user_namespace", "uid"}, or null
 * when c says the process shares the server's namespaces (container.h). */
json_t *view_container(const container_facts *c);
/* The session's mode as the API names it: "run", "attach" or "port". */
const char *view_mode_name(int mode);
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
/* An event and what its JSON shows of the session, copied (views_event.h
 * makes and shapes it). */
typedef struct view_event_copy {
    eventlog_entry e;
    const char *name;           /* JIT: the function's; THREAD_*: the thread's; NULL unknown */
    const char *name_record;    /* JIT, not copied: the function's name record (fnname.h) */
    const char *module;         /* JIT: its module's display name; MODULE_*: the module's path */
    const char *assembly;       /* MODULE_*: the module's assembly */
    uint64_t thread_id;         /* JIT: the thread of its last compilation (0 unknown) */
    uint32_t thread_row;        /* JIT, THREAD_*: the thread's row (position + 1; 0 unknown) */
    uint32_t il_size, versions; /* JIT (0 when the function is unknown) */
    uint32_t function_row;      /* JIT: the function's position + 1 (0 unknown) */
    unsigned origin;            /* JIT: whose code (origin.h) */
} view_event_copy;
/* The strings an event's JSON shows of its session, pointing into it (its
 * kind's take sets them; view_event_take copies them). */
typedef struct view_event_names {
    const char *name;     /* a thread's name */
    const char *record;   /* a function's name record (fnname.h) */
    const char *module;   /* a module's display name or path */
    const char *assembly; /* a module's assembly */
} view_event_names;
/* Points *out at a copy of s in text (at s itself when text is NULL; NULL
 * stays NULL). -1 when it does not fit. */
int view_text_keep(view_text *text, const char *s, const char **out);

/* ---- each record kind's event view: the rows of record_kinds.c point here.
 * A take fills what the kind's JSON shows of s (names, and plain fields of c)
 * under the lock; a shape adds the kind's fields to the event's JSON o, from
 * the copy alone (PROFILE_STATUS: with the profile's status as `profile` has
 * it). ---- */
void view_event_jit_take(session *s, const eventlog_entry *e, view_event_copy *c,
                         view_event_names *n);
void view_event_module_take(session *s, const eventlog_entry *e, view_event_copy *c,
                            view_event_names *n);
void view_event_thread_take(session *s, const eventlog_entry *e, view_event_copy *c,
                            view_event_names *n);
void view_event_jit_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_module_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_assembly_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_thread_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_catchup_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_detach_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_gc_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_exception_take(session *s, const eventlog_entry *e, view_event_copy *c,
                               view_event_names *n);
void view_event_exception_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_suspension_fields(json_t *o, const view_event_copy *c,
                                  const profile_state *profile);
/* views_alloc.c */
void view_event_allocation_fields(json_t *o, const view_event_copy *c,
                                  const profile_state *profile);
void view_event_stack_end_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_profile_fields(json_t *o, const view_event_copy *c, const profile_state *profile);
void view_event_resumed_fields(json_t *o, const view_event_copy *c, const profile_state *profile);

#endif
