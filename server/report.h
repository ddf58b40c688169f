/* report.h -- what a run did, for CI: one JSON document per run (its root
 * session and the sessions of the processes it started), with per process its
 * JIT count and time (by tier and by whose code), the slowest JITs, when its own
 * code first ran, ReadyToRun use and what was lost. Written by `jitscope run
 * --report` (report_cli.c) and served by GET /api/sessions/{id}/report
 * (api_report.c); compared with a baseline by report_cond.c, shown as Markdown
 * by report_md.c. The schema is versioned (REPORT_VERSION) and documented in
 * docs/API.md ("Reports") and server/openapi.json (Report). */
#ifndef JITSCOPE_REPORT_H
#define JITSCOPE_REPORT_H

#include <jansson.h>
#include <stddef.h>

#include "sessions.h"

#define REPORT_VERSION 1  /* report_version: a field's meaning changes, or one goes: + 1 */
#define REPORT_SLOWEST 10 /* the slowest JITs listed per process */
/* processes of one run in a report (the root first, then by id): all a
 * registry can hold (sessions.h) */
#define REPORT_MAX_TREE SESSIONS_MAX

/* The report of session id: with its children when it is a run's root (a
 * child's alone). Stored sessions are read back first (persist_prepare); the
 * sessions lock is taken in steps, never across I/O. Caller does not hold the
 * lock. NULL with why: no such session (*status 404), out of memory (503). */
json_t *report_build(int session_id, int *status, char *err, size_t errsz);

#endif
