/* api_util.c -- helpers shared by the REST route files (see api_util.h). */
#include "api_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int api_fail(api_call *c, int status, const char *fmt, ...)
{
    char message[512];
    va_list ap;

    va_start(ap, fmt);
    if (vsnprintf(message, sizeof(message), fmt, ap) < 0)
        message[0] = '\0';
    va_end(ap);
    json_decref(c->reply->json);
    c->reply->json = api_error(message);
    return status;
}

int api_arg_int(const api_request *req, const char *name, long long min, long long max,
                long long def, long long *out)
{
    const char *text = req->arg(req->ctx, name);
    char *end;
    long long v;

    if (!text) {
        *out = def;
        return 0;
    }
    errno = 0;
    v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int api_arg_ms(const api_request *req, const char *name, int64_t def_ns, int64_t *out_ns)
{
    const char *text = req->arg(req->ctx, name);
    char *end;
    double ms;

    if (!text) {
        *out_ns = def_ns;
        return 0;
    }
    if (strlen(text) > 32 || !*text || (*text != '.' && (*text < '0' || *text > '9')))
        return -1; /* digits first: no sign, spaces, "inf" or "nan" */
    errno = 0;
    ms = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(ms) || ms < 0 || ms > 9e12)
        return -1; /* 9e12 ms is the year 2255; ns still fit an int64 */
    *out_ns = (int64_t)(ms * 1e6);
    return 0;
}

session *api_lock_session(api_call *c)
{
    session *s;

    sessions_lock();
    s = sessions_get(c->session_id);
    if (!s) {
        sessions_unlock();
        api_fail(c, 404, "no such session");
    }
    return s;
}

int64_t api_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
