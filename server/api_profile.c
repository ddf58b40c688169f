/* api_profile.c -- the sampling profile routes: POST /profile, POST
 * /profile/stop, GET /profile (json, folded, speedscope), and the
 * ProfileStatus shape (docs/API.md).
 *
 * Starting and stopping change the session's profile state under the lock and
 * send the agent its command (WIRE_CMD_PROFILE_START / _STOP) without it. A
 * GET copies what it asks for out of the profile under the lock
 * (profile_view.h) and builds the body after releasing it (profile_export.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "link.h"
#include "profile_export.h"
#include "profile_view.h"
#include "textbuf.h"

#define API_PROFILE_DEFAULT_HZ 49
#define API_PROFILE_MAX_DURATION_S 86400
#define API_PROFILE_MAX_THREAD_ARG 256 /* bytes of ?thread= */

/* Reads {"hz": 1..1000, "duration_s": 1..86400} (both optional, nothing else). */
static int api_profile_body(api_call *c, uint32_t *hz, uint32_t *duration_s)
{
    const api_request *req = c->req;
    json_error_t err;
    json_t *body, *v;
    const char *key;
    int status = 0;

    *hz = API_PROFILE_DEFAULT_HZ;
    *duration_s = 0;
    if (!req->body || req->body_length == 0)
        return 0;
    body = json_loadb(req->body, req->body_length, JSON_REJECT_DUPLICATES, &err);
    if (!json_is_object(body)) {
        json_decref(body);
        return api_fail(c, 400,
                        "the body must be a JSON object like {\"hz\": 49, \"duration_s\": 10}");
    }
    json_object_foreach(body, key, v)
    {
        if (strcmp(key, "hz") == 0) {
            if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                json_integer_value(v) > WIRE_PROFILE_MAX_HZ) {
                status = api_fail(c, 400, "hz must be an integer from 1 to %u",
                                  WIRE_PROFILE_MAX_HZ);
                break;
            }
            *hz = (uint32_t)json_integer_value(v);
        } else if (strcmp(key, "duration_s") == 0) {
            if (json_is_null(v))
                continue;
            if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                json_integer_value(v) > API_PROFILE_MAX_DURATION_S) {
                status = api_fail(c, 400, "duration_s must be an integer from 1 to %d",
                                  API_PROFILE_MAX_DURATION_S);
                break;
            }
            *duration_s = (uint32_t)json_integer_value(v);
        } else {
            status = api_fail(c, 400, "unknown field in the body (hz and duration_s are known)");
            break;
        }
    }
    json_decref(body);
    return status;
}

static int api_profile_no_agent(api_call *c, const session *s)
{
    int status = api_fail(c, 409, "session %d is %s: there is no live agent to sample",
                          c->session_id, session_state_name(s->state));
    sessions_unlock();
    return status;
}

int api_profile_post(api_call *c)
{
    wire_cmd_profile_start cmd = {0};
    uint32_t hz, duration_s;
    session *s;
    int link_id, status;

    if ((status = api_profile_body(c, &hz, &duration_s)) != 0)
        return status;
    if (!(s = api_lock_session(c)))
        return 404;
    if (s->state != SESSION_LIVE || !s->link_id)
        return api_profile_no_agent(c, s);
    if (s->agent_flags & WIRE_AGENT_FLOOR) {
        sessions_unlock();
        return api_fail(c, 409,
                        "session %d's agent is a floor (JITSCOPE_NULL=1): it samples nothing",
                        c->session_id);
    }
    if (s->profile.state == PROFILE_RUNNING) {
        sessions_unlock();
        return api_fail(c, 429, "a profile is already running in session %d: stop it first",
                        c->session_id);
    }
    session_profile_start(s, hz, api_now_ns()); /* the previous profile goes */
    link_id = s->link_id;
    sessions_unlock();

    cmd.hz = hz;
    cmd.duration_ms = duration_s * 1000u;
    status = link_send(link_id, WIRE_CMD_PROFILE_START, &cmd, sizeof(cmd)) == 0 ? 202 : 502;
    if (!(s = api_lock_session(c)))
        return 404;
    if (status != 202) {
        session_profile_stop(s, api_now_ns());
        sessions_unlock();
        return api_fail(c, 502, "could not send the profile command to the agent");
    }
    c->reply->json = json_pack("{s:o}", "profile", view_profile_status(&s->profile));
    sessions_unlock();
    sessions_notify(c->session_id);
    return 202;
}

int api_profile_stop(api_call *c)
{
    wire_cmd_profile_stop cmd = {0};
    session *s;
    int link_id;

    if (!(s = api_lock_session(c)))
        return 404;
    if (s->profile.state != PROFILE_RUNNING) {
        int status = api_fail(c, 409, "no profile is running in session %d", c->session_id);
        sessions_unlock();
        return status;
    }
    if (s->state != SESSION_LIVE || !s->link_id)
        return api_profile_no_agent(c, s);
    link_id = s->link_id;
    sessions_unlock();
    if (link_send(link_id, WIRE_CMD_PROFILE_STOP, &cmd, sizeof(cmd)) != 0)
        return api_fail(c, 502, "could not send the stop command to the agent");
    if (!(s = api_lock_session(c)))
        return 404;
    session_profile_stop(s, api_now_ns());
    c->reply->json = json_pack("{s:o}", "profile", view_profile_status(&s->profile));
    sessions_unlock();
    sessions_notify(c->session_id);
    return 200;
}

int api_profile_get(api_call *c)
{
    const api_request *req = c->req;
    const char *format = req->arg(req->ctx, "format"), *why = NULL;
    profile_query q = {0};
    profile_view v;
    json_t *status;
    session *s;
    int rc, kind;

    long long key;

    q.thread = req->arg(req->ctx, "thread");
    if (api_arg_int(req, "thread_key", 0, SESSION_MAX_THREADS - 1, -1, &key) != 0)
        return api_fail(c, 400, "thread_key must be a thread's key (0..%u)",
                        SESSION_MAX_THREADS - 1);
    q.thread_row = (uint32_t)(key + 1); /* 0: every thread */
    if (!format || strcmp(format, "json") == 0)
        kind = 0;
    else if (strcmp(format, "folded") == 0)
        kind = 1;
    else if (strcmp(format, "speedscope") == 0)
        kind = 2;
    else
        return api_fail(c, 400, "format must be json, folded or speedscope");
    if (q.thread && strlen(q.thread) > API_PROFILE_MAX_THREAD_ARG)
        return api_fail(c, 400, "thread is too long (%d bytes at most)",
                        API_PROFILE_MAX_THREAD_ARG);
    if (api_arg_ms(req, "from_ms", 0, &q.from_ns) != 0 ||
        api_arg_ms(req, "to_ms", INT64_MAX, &q.to_ns) != 0 || q.from_ns > q.to_ns)
        return api_fail(c, 400, "from_ms and to_ms must be Unix milliseconds, from_ms <= to_ms");
    q.with_samples = kind == 2;
    if (!(s = api_lock_session(c)))
        return 404;
    status = view_profile_status(&s->profile);
    rc = profile_view_take(&v, s, &q);
    sessions_unlock();
    if (rc != 0) {
        json_decref(status);
        return api_fail(c, 503, "out of memory copying the profile");
    }
    if (kind == 0) {
        c->reply->json = json_pack("{s:o}", "profile", status);
        rc = profile_export_json(&v, c->reply->json, &why);
    } else if (kind == 1) {
        textbuf out;
        json_decref(status);
        textbuf_init(&out, API_MAX_OUTPUT);
        rc = profile_export_folded(&v, &out, &why);
        if (rc == 0) {
            c->reply->text = textbuf_take(&out, &c->reply->text_length);
            c->reply->content_type = "text/plain; charset=utf-8";
            rc = c->reply->text ? 0 : -1;
        }
        textbuf_free(&out);
    } else {
        char name[64];
        json_decref(status);
        snprintf(name, sizeof(name), "jitscope session %d", c->session_id);
        c->reply->json = profile_export_speedscope(&v, name, API_MAX_OUTPUT, &why);
        rc = c->reply->json ? 0 : -1;
        snprintf(c->reply->disposition, sizeof(c->reply->disposition),
                 "attachment; filename=\"jitscope-session-%d.speedscope.json\"", c->session_id);
    }
    profile_view_free(&v);
    if (rc != 0) {
        c->reply->disposition[0] = '\0';
        return api_fail(c, 503, "%s", why ? why : "out of memory building the profile");
    }
    return 200;
}
