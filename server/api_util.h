/* api_util.h -- what the route files (api.c, api_code.c, api_compare.c,
 * api_functions.c, api_profile.c, api_stacks.c, api_tiers.c, api_timeline.c)
 * share: the call a route handles, error replies, query parameters, and the
 * handlers outside api.c that its route table names. JSON shapes are in
 * views.h. Internal to the API. */
#ifndef JITSCOPE_API_UTIL_H
#define JITSCOPE_API_UTIL_H

#include <jansson.h>
#include <stdint.h>

#include "api_types.h"
#include "sessions.h"
#include "views.h"

#define API_MAX_OUTPUT                                                                             \
    (64u * 1024u * 1024u) /* largest body a route builds (bytes, estimated for JSON) */

/* One call of a route under /api/sessions/{id}. */
typedef struct api_call {
    const api_request *req;
    api_reply *reply;
    int session_id;
    uint64_t n; /* the {n} in the route's path, 0 when it has none */
    session *s; /* routes that run locked: the session (lock held); else NULL */
} api_call;

/* Sets {"error": formatted message} and returns status. */
__attribute__((format(printf, 3, 4))) int api_fail(api_call *c, int status, const char *fmt, ...);

/* Query parameter as a number in [min, max] (0 <= min), in the one grammar
 * of api_parse_number (api_route.h); missing: def. -1 on bad input. */
int api_arg_int(const api_request *req, const char *name, long long min, long long max,
                long long def, long long *out);
/* Query parameter as Unix ms (a fraction allowed: api_parse_ms), returned in
 * ns; missing: def_ns. -1 on bad input. */
int api_arg_ms(const api_request *req, const char *name, int64_t def_ns, int64_t *out_ns);

/* Takes the sessions lock and finds the call's session; when there is none,
 * releases the lock, sets a 404 reply and returns NULL. */
session *api_lock_session(api_call *c);

int64_t api_now_ns(void); /* wall clock, Unix ns */

/* Route handlers outside api.c. Those marked "locked" run with c->s set and the
 * lock held; the others take the lock themselves. */
int api_stacks_post(api_call *c);
int api_stacks_list(api_call *c); /* locked */
int api_stacks_get(api_call *c);
int api_profile_post(api_call *c);
int api_profile_stop(api_call *c);
int api_profile_get(api_call *c);
/* What the machine allows for CPU profiles of pid (0: of the server's user):
 * the CpuProbe JSON shape (api_profile.c). */
json_t *api_cpu_probe_json(pid_t pid);
int api_timeline_get(api_call *c);
/* GET .../code's reading of a method's code (api_code.c), shared with GET
 * .../source: with the lock held and *f found, the newest code reply of *f,
 * asked of the agent first when refresh and the session is live (the lock is
 * released while waiting; *s and *f found again). 0 with *r, or an HTTP
 * status with the reply's error set. */
int api_code_fetch(api_call *c, int refresh, uint32_t max_bytes, session **s, session_function **f,
                   const code_reply **r);
/* The process whose files and /proc the code view reads: the session's while
 * it runs, else 0. Lock held. */
pid_t api_code_pid(const session *s);
int api_source_get(api_call *c);
/* File:line for a response's frames (api_lines.c): with the lock held and
 * L's methods wanted, reads their PDBs and (want_code) their code, so that
 * srcline_at answers; returns with the lock released. 0. */
struct srcline;
int api_lines_fill(api_call *c, struct srcline *L, int want_code);
/* The same for a profile view's method frames, then profile_view_lines:
 * lines 1, each method's file and first line; 2, frames split by line (the
 * view taken by_address). Lock held on entry, released on return. 0 or -1. */
struct profile_view;
int api_lines_view(api_call *c, struct profile_view *v, int lines);
int api_tiers_post(api_call *c);
int api_exceptions_list(api_call *c);  /* GET .../exceptions, api_exceptions.c */
int api_exceptions_site(api_call *c);  /* GET .../exceptions/{n} */
int api_exceptions_post(api_call *c);  /* POST .../exceptions */
int api_allocations_get(api_call *c);  /* GET .../allocations, api_allocations.c */
int api_allocations_post(api_call *c); /* POST .../allocations */
int api_functions_list(api_call *c);   /* takes the lock in steps itself */
extern size_t api_step_functions;      /* functions per locked step (tests lower it) */
int api_module_totals(api_call *c);    /* likewise */
int api_compare(api_call *c);          /* GET /api/compare, api_compare.c */
int api_diagnostic_port(api_call *c);  /* GET /api/diagnostic-port, api_port.c */
int api_code_get(api_call *c);         /* GET .../functions/{fid}/code, api_code.c */
int api_inlining_get(api_call *c);     /* locked */
int api_startup_get(api_call *c);      /* takes the lock in steps itself */
int api_report_get(api_call *c);       /* GET .../report, api_report.c; likewise */

/* The body of a switch's POST ({"enabled": bool}, nothing else) for a session
 * with a live agent to tell: 0 with *enabled and *link_id set, else the status
 * of the failure, already answered (400, 404, 409). */
int api_switch_request(api_call *c, int *enabled, int *link_id);

#endif
