/* fuzz_route.c -- libFuzzer target for REST route and query parsing: the
 * route matcher (server/api_route.c, against api.c's real table) and the
 * routes' query parameters (api_arg_int, api_arg_ms and each GET handler's
 * own, through api_handle) over the session test_api reads (fixtures.h: a
 * module, functions, a thread, a snapshot, profile samples, a GC and a
 * suspension).
 *
 * Input layout, lines split at '\n': the method, the path, then up to 16
 * query parameters "name=value" (as libmicrohttpd hands them over: decoded,
 * NUL-free; a NUL ends a line). Checked: the matcher answers 0 with a route
 * of the table whose method is the request's (HEAD as GET), or 400/404/405
 * with a message; a matched route's parameters are in range; the route's
 * pattern written back with those parameters matches the same route with the
 * same parameters (round trip); and api_handle answers every request that
 * cannot act on the machine (GET and HEAD, except /api/processes, which
 * probes the machine's .NET processes; POST routes only when they do not
 * match) with a status in 200..599 and a body.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "api.h"
#include "fixtures.h"
#include "sessions.h"

#define FUZZ_MAX_ARGS 16

typedef struct fuzz_query {
    char *name[FUZZ_MAX_ARGS];
    char *value[FUZZ_MAX_ARGS];
    unsigned count;
} fuzz_query;

static const char *fuzz_arg(void *ctx, const char *name)
{
    const fuzz_query *q = ctx;

    for (unsigned i = 0; i < q->count; i++)
        if (strcmp(q->name[i], name) == 0)
            return q->value[i]; /* the first, as MHD_lookup_connection_value */
    return NULL;
}

/* ---- one session to serve: the one test_api reads (tests/unit/fixtures.h) ---- */

static void fuzz_make_session(void)
{
    sessions_lock();
    FUZZ_REQUIRE(fixture_api_session() != NULL);
    sessions_unlock();
}

/* ---- checks --------------------------------------------------------------------- */

/* Writes the route's pattern with the parameters filled in. */
static void fuzz_render(const api_route *route, const api_route_args *a, char *out, size_t outsz)
{
    const char *p = route->pattern;
    size_t len = 0;

    while (*p && len < outsz - 1) {
        int n = 0;
        if (strncmp(p, "{id}", 4) == 0)
            n = snprintf(out + len, outsz - len, "%d", a->session_id), p += 4;
        else if (strncmp(p, "{n}", 3) == 0)
            n = snprintf(out + len, outsz - len, "%llu", (unsigned long long)a->n), p += 3;
        else if (strncmp(p, "{pid}", 5) == 0)
            n = snprintf(out + len, outsz - len, "%llu", (unsigned long long)a->n), p += 5;
        else if (strncmp(p, "{fid}", 5) == 0)
            n = snprintf(out + len, outsz - len, "0x%llx", (unsigned long long)a->n), p += 5;
        else
            out[len] = *p++, n = 1;
        FUZZ_REQUIRE(n > 0 && (size_t)n < outsz - len);
        len += (size_t)n;
    }
    FUZZ_REQUIRE(*p == '\0');
    out[len] = '\0';
}

static void fuzz_check_route(const char *method, const char *path)
{
    size_t count;
    const api_route *table = api_route_table(&count), *route, *again;
    api_route_args a = {-1, 1}, b = {-1, 1};
    const char *message = NULL;
    char rendered[256];
    int status = api_route_find(table, count, method, path, &route, &a, &message);

    if (status != 0) {
        FUZZ_REQUIRE(status == 400 || status == 404 || status == 405);
        FUZZ_REQUIRE(route == NULL && message != NULL && message[0] != '\0');
        return;
    }
    FUZZ_REQUIRE(route >= table && route < table + count);
    FUZZ_REQUIRE(strcmp(route->method, strcmp(method, "HEAD") == 0 ? "GET" : method) == 0);
    FUZZ_REQUIRE(strstr(route->pattern, "{id}")
                     ? a.session_id >= 1 && a.session_id <= SESSION_ID_MAX
                     : a.session_id == 0);
    if (strstr(route->pattern, "{n}"))
        FUZZ_REQUIRE(a.n >= 1 && a.n <= 1ull << 53);
    else if (strstr(route->pattern, "{pid}"))
        FUZZ_REQUIRE(a.n >= 1 && a.n <= 1ull << 30);
    else if (!strstr(route->pattern, "{fid}"))
        FUZZ_REQUIRE(a.n == 0);
    fuzz_render(route, &a, rendered, sizeof(rendered));
    FUZZ_REQUIRE(api_route_find(table, count, route->method, rendered, &again, &b, &message) == 0);
    FUZZ_REQUIRE(again == route && b.session_id == a.session_id && b.n == a.n);
}

static void fuzz_check_handle(const char *method, const char *path, fuzz_query *q)
{
    size_t count;
    const api_route *table = api_route_table(&count), *route;
    api_route_args a;
    const char *message;
    api_request req = {method, path, fuzz_arg, q, NULL, 0};
    api_reply reply;
    int status;

    if (api_route_find(table, count, method, path, &route, &a, &message) == 0 &&
        (strcmp(route->method, "GET") != 0 || strcmp(route->pattern, "/api/processes") == 0))
        return; /* would act on the machine: attach, detach, commands to an agent, /proc */
    status = api_handle(&req, &reply);
    FUZZ_REQUIRE(status >= 200 && status <= 599);
    FUZZ_REQUIRE((reply.json != NULL) != (reply.text != NULL));
    FUZZ_REQUIRE(status < 400 || json_is_string(json_object_get(reply.json, "error")));
    if (reply.text)
        FUZZ_REQUIRE(reply.content_type != NULL);
    json_decref(reply.json);
    free(reply.text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    char *copy = malloc(size + 1), *line[2 + FUZZ_MAX_ARGS];
    unsigned lines = 0;
    fuzz_query q = {.count = 0};
    size_t i;

    if (!ready) {
        fuzz_make_session();
        ready = 1;
    }
    FUZZ_REQUIRE(copy != NULL);
    memcpy(copy, data, size);
    copy[size] = '\0';
    line[lines++] = copy;
    for (i = 0; i < size && lines < 2 + FUZZ_MAX_ARGS; i++) {
        if (copy[i] == '\n') {
            copy[i] = '\0';
            line[lines++] = copy + i + 1;
        }
    }
    if (lines < 2) {
        free(copy);
        return 0;
    }
    for (i = 2; i < lines; i++) {
        char *eq = strchr(line[i], '=');
        q.name[q.count] = line[i];
        q.value[q.count++] = eq ? (*eq = '\0', eq + 1) : line[i] + strlen(line[i]);
    }
    fuzz_check_route(line[0], line[1]);
    fuzz_check_handle(line[0], line[1], &q);
    free(copy);
    return 0;
}
