/* api_route.h -- the REST route matcher: a request's method and path to one
 * row of a route table and the numbers in its path.
 *
 * Pure (no lock, no session, no allocation), so it is unit-tested through
 * api_handle and fuzzed on its own (tests/fuzz/fuzz_route.c). The table
 * itself, with its handlers, is in api.c. */
#ifndef JITSCOPE_API_ROUTE_H
#define JITSCOPE_API_ROUTE_H

#include <stddef.h>
#include <stdint.h>

typedef struct api_call api_call; /* api_util.h */

/* One REST route. A pattern's segments are literals or parameters: {id} a
 * session id (1..SESSION_ID_MAX), {n} a positive number up to 2^53, {pid} a
 * process id (1..2^30), {fid} a FunctionID written "0x..." as the JSON does.
 * API_LOCKED (flags): the dispatcher (api_handle) takes the sessions lock,
 * finds session {id} (404 when there is none) and hands it to the handler;
 * the other handlers take the lock themselves. */
typedef struct api_route {
    const char *method;
    const char *pattern;
    int (*handler)(api_call *c);
    unsigned flags;
    const char *export_list; /* list routes: the array ?format=csv|json exports, else NULL */
} api_route;

enum { API_LOCKED = 1 };

/* The numbers a matched path carried: {id} in session_id (0 when the route
 * has none), {n}, {pid} or {fid} in n (0 when none). */
typedef struct api_route_args {
    int session_id;
    uint64_t n;
} api_route_args;

/* The one grammar of a number in a path or a query parameter: plain decimal
 * digits, no sign, no space, no leading zero ("0" alone is zero), at most
 * max. text[0..length) is the text as it arrived: the transport decodes no
 * percent-encoded digit or NUL (http_unescape.h), so "%31" and "1%00" stay
 * as they are and are refused here. 0 and *out, or -1. */
int api_parse_number(const char *text, size_t length, uint64_t max, uint64_t *out);
/* Milliseconds (a wall-clock time or a duration) with an optional fraction:
 * a number as api_parse_number reads it, at most max_ms, then "." and 1..20
 * digits (below a nanosecond they are cut). No exponent, no sign. 0 and
 * *out_ns, or -1. */
int api_parse_ms(const char *text, size_t length, uint64_t max_ms, int64_t *out_ns);

/* Finds the route for method ("HEAD" counts as "GET") and path among count
 * routes. Returns 0 and sets *found and *args; otherwise the HTTP status (400
 * a malformed parameter, 404 no such route, 405 a method the path does not
 * take) with *message saying why. */
int api_route_find(const api_route *routes, size_t count, const char *method, const char *path,
                   const api_route **found, api_route_args *args, const char **message);

#endif
