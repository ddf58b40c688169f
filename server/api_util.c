/* api_util.c -- helpers shared by the REST route files (see api_util.h). */
#include "api_util.h"
#include "api_route.h"

#include <stdarg.h>
#include <stdio.h>
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

/* A query parameter's text and length as it arrived; NULL when absent. */
static const char *api_arg_text(const api_request *req, const char *name, size_t *length)
{
    const char *text = req->arg(req->ctx, name);

    *length = text ? strlen(text) : 0;
    return text;
}

int api_arg_int(const api_request *req, const char *name, long long min, long long max,
                long long def, long long *out)
{
    size_t length;
    const char *text = api_arg_text(req, name, &length);
    uint64_t v;

    if (!text) {
        *out = def;
        return 0;
    }
    if (min < 0 || max < min || api_parse_number(text, length, (uint64_t)max, &v) != 0 ||
        v < (uint64_t)min)
        return -1;
    *out = (long long)v;
    return 0;
}

int api_arg_ms(const api_request *req, const char *name, int64_t def_ns, int64_t *out_ns)
{
    size_t length;
    const char *text = api_arg_text(req, name, &length);

    if (!text) {
        *out_ns = def_ns;
        return 0;
    }
    /* 9e12 ms is the year 2255; ns still fit an int64 */
    return api_parse_ms(text, length, 9000000000000ull, out_ns);
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

int api_switch_request(api_call *c, int *enabled, int *link_id)
{
    const api_request *req = c->req;
    json_error_t err;
    json_t *body, *value;
    session *s;

    body = req->body && req->body_length
               ? json_loadb(req->body, req->body_length, JSON_REJECT_DUPLICATES, &err)
               : NULL;
    value = json_object_get(body, "enabled");
    if (!json_is_object(body) || json_object_size(body) != 1 || !json_is_boolean(value)) {
        json_decref(body);
        return api_fail(c, 400, "the body must be {\"enabled\": true} or {\"enabled\": false}");
    }
    *enabled = json_is_true(value);
    json_decref(body);
    if (!(s = api_lock_session(c)))
        return 404;
    if (s->state != SESSION_LIVE || !s->link_id) {
        int status = api_fail(c, 409, "session %d is %s: there is no live agent to tell",
                              c->session_id, session_state_name(s->state));
        sessions_unlock();
        return status;
    }
    *link_id = s->link_id;
    sessions_unlock();
    return 0;
}
