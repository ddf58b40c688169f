/* fixtures.h -- sessions in the registry and REST calls without HTTP, shared
 * by the unit tests (tests/unit/fixtures.c, in the archive every unit test
 * links) and the route fuzz target.
 *
 * A session is made as the link thread makes one: sessions_create, then the
 * agent's hello with the session's own token (records.h); the records after
 * it come from records.h's builders. A REST call is api_handle() with a
 * request made here, its reply kept for the checks. Nothing here checks:
 * what fails returns NULL or -1, and the test says what it means.
 */
#ifndef JITSCOPE_TEST_FIXTURES_H
#define JITSCOPE_TEST_FIXTURES_H

#include <jansson.h>

#include "session.h"

/* A live session of `run` mode for `command` in the registry, its hello
 * folded in. Caller holds sessions_lock. NULL when it could not be made. */
session *fixture_session(const char *command);

/* The session the REST tests serve (test_api, fuzz_route): a module App
 * (0x200000); App.Deep.Park (0x7f0000001000, known only from stacks) and
 * App.Deep.Run (0x7f0000002000, compiled once on thread 0x71); thread 0x71
 * named "deep"; snapshot 1 of thread 0x71 (3 frames, a native run in the
 * middle) and thread 0x72 (failed with E_FAIL); two profile samples of
 * 0x71 and the profile stopped; an induced GC of generations 0 and 2 with
 * its suspension (500 ns). Caller holds sessions_lock. */
session *fixture_api_session(void);

/* What the views serve of s's content, as one JSON object: "functions",
 * "modules", "threads" and "events" (every event kept), each row as the
 * REST routes show it; for the tests that compare a session with itself
 * read back. Caller holds the lock (or owns s) and frees the object. */
json_t *fixture_views(session *s);

/* f's whole name (fnname.h joined), or NULL when it has none: in one of a few
 * static buffers taken in turn, so that a check may compare two. */
const char *fixture_fn_name(const session_function *f);

/* Removes every session from the registry (takes the lock). */
void fixture_sessions_clear(void);

/* A request's query parameters: ctx is a NULL-terminated list of
 * "name=value" strings (or NULL); the first of that name, else NULL. */
const char *fixture_arg(void *ctx, const char *name);

/* What a route answered. */
typedef struct fixture_reply {
    int status;
    json_t *json; /* the JSON body, or NULL */
    char *text;   /* the text body (NUL-terminated), or NULL */
    char content_type[64];
    char disposition[128];
} fixture_reply;

/* Calls the route of method and path with args (see fixture_arg) and body
 * (NULL: none). Free the reply with fixture_reply_free. */
fixture_reply fixture_call(const char *method, const char *path, const char *const *args,
                           const char *body);
void fixture_reply_free(fixture_reply *r);

/* 1 when the call answers `want`, an error with a JSON {"error": string};
 * else 0 and a line saying what it answered. */
int fixture_status_is(const char *method, const char *path, const char *const *args,
                      const char *body, int want);

#endif
