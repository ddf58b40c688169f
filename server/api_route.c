/* api_route.c -- the REST route matcher (see api_route.h). */
#include "api_route.h"

#include <string.h>

#include "session.h"

enum api_match { API_NO_MATCH, API_MATCH, API_BAD_PARAM };

int api_parse_number(const char *text, size_t length, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (length == 0 || length > 20 || (text[0] == '0' && length > 1))
        return -1; /* nothing, or a leading zero ("0" alone is zero) */
    for (i = 0; i < length; i++) {
        uint64_t digit = (uint64_t)(text[i] - '0');
        if (text[i] < '0' || text[i] > '9' || v > (max - digit) / 10 || digit > max)
            return -1; /* checked before it grows: no overflow, whatever max is */
        v = v * 10 + digit;
    }
    *out = v;
    return 0;
}

int api_parse_ms(const char *text, size_t length, uint64_t max_ms, int64_t *out_ns)
{
    const char *dot = memchr(text, '.', length);
    size_t whole = dot ? (size_t)(dot - text) : length, digits, i;
    uint64_t ms, fraction = 0;

    if (api_parse_number(text, whole, max_ms, &ms) != 0 || max_ms > (uint64_t)INT64_MAX / 1000000)
        return -1;
    if (dot) {
        digits = length - whole - 1;
        if (digits == 0 || digits > 20)
            return -1; /* "5." */
        for (i = 0; i < digits; i++) {
            char ch = dot[1 + i];
            if (ch < '0' || ch > '9')
                return -1;
            if (i < 6) /* nanoseconds: what lies below is cut */
                fraction = fraction * 10 + (uint64_t)(ch - '0');
        }
        for (i = digits; i < 6; i++)
            fraction *= 10;
    }
    *out_ns = (int64_t)(ms * 1000000 + fraction);
    return 0;
}

/* Reads one path segment [text, text + length) as a number in 1..max. */
static int api_segment_number(const char *text, size_t length, uint64_t max, uint64_t *out)
{
    uint64_t v;

    if (api_parse_number(text, length, max, &v) != 0 || v == 0)
        return -1;
    *out = v;
    return 0;
}

/* Reads one path segment as "0x" and 1..16 hex digits (a runtime ID, as the
 * JSON writes them). */
static int api_segment_id(const char *text, size_t length, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (length < 3 || length > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
        return -1;
    for (i = 2; i < length; i++) {
        char ch = text[i];
        int digit = ch >= '0' && ch <= '9'   ? ch - '0'
                    : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                    : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                             : -1;
        if (digit < 0)
            return -1;
        v = v << 4 | (uint64_t)digit;
    }
    *out = v;
    return 0;
}

/* Matches a route's pattern against a request path, segment by segment. A
 * malformed parameter is API_BAD_PARAM (400) as soon as the literals before it
 * matched, whatever follows: /api/sessions/abc/x is a bad id, not a missing
 * route. An empty {n} is no match (/stacks/ is 404). *message says what was
 * expected when the answer is API_BAD_PARAM. */
static enum api_match api_match_route(const char *pattern, const char *path, api_route_args *a,
                                      const char **message)
{
    while (*pattern == '/' && *path == '/') {
        const char *pend = strchrnul(pattern + 1, '/'), *send = strchrnul(path + 1, '/');
        size_t plen = (size_t)(pend - pattern - 1), slen = (size_t)(send - path - 1);
        uint64_t v;

        if (plen == 4 && strncmp(pattern + 1, "{id}", 4) == 0) {
            if (api_segment_number(path + 1, slen, SESSION_ID_MAX, &v) != 0) {
                *message = "session id must be a positive integer";
                return API_BAD_PARAM;
            }
            a->session_id = (int)v;
        } else if (plen == 3 && strncmp(pattern + 1, "{n}", 3) == 0) {
            if (slen == 0)
                return API_NO_MATCH;
            if (api_segment_number(path + 1, slen, 1ull << 53, &v) != 0) {
                *message = "expected a positive number";
                return API_BAD_PARAM;
            }
            a->n = v;
        } else if (plen == 5 && strncmp(pattern + 1, "{fid}", 5) == 0) {
            if (slen == 0)
                return API_NO_MATCH;
            if (api_segment_id(path + 1, slen, &v) != 0) {
                *message = "expected a function id like 0x7f0012345678";
                return API_BAD_PARAM;
            }
            a->n = v;
        } else if (plen == 5 && strncmp(pattern + 1, "{pid}", 5) == 0) {
            if (api_segment_number(path + 1, slen, 1ull << 30, &v) != 0) {
                *message = "expected /api/processes/{pid}/attach";
                return API_BAD_PARAM;
            }
            a->n = v;
        } else if (plen != slen || strncmp(pattern + 1, path + 1, plen) != 0) {
            return API_NO_MATCH;
        }
        pattern = pend;
        path = send;
    }
    return *pattern == '\0' && *path == '\0' ? API_MATCH : API_NO_MATCH;
}

int api_route_find(const api_route *routes, size_t count, const char *method, const char *path,
                   const api_route **found, api_route_args *args, const char **message)
{
    const char *bad = NULL;
    int wrong_method = 0;
    size_t i;

    *found = NULL;
    *message = NULL;
    if (strcmp(method, "HEAD") == 0)
        method = "GET";
    if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0 &&
        strcmp(method, "DELETE") != 0) {
        *message = "method not allowed";
        return 405;
    }
    for (i = 0; i < count; i++) {
        const char *why = NULL;
        api_route_args a = {0, 0};
        enum api_match m = api_match_route(routes[i].pattern, path, &a, &why);

        if (m == API_BAD_PARAM && !bad)
            bad = why;
        else if (m == API_MATCH && strcmp(routes[i].method, method) != 0)
            wrong_method = 1;
        else if (m == API_MATCH) {
            *found = &routes[i];
            *args = a;
            return 0;
        }
    }
    if (bad)
        *message = bad;
    else
        *message = wrong_method ? "method not allowed" : "no such route";
    return bad ? 400 : wrong_method ? 405 : 404;
}
