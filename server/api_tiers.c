/* api_tiers.c -- POST /api/sessions/{id}/tiers: turns the agent's JIT-tier
 * source on or off for one session (docs/API.md).
 *
 * The tier of each compilation comes from an EventPipe session inside the
 * target (agent/tiers.c), which costs JIT time (docs/BENCHMARKS.md); this is
 * the per-session switch. The server sends WIRE_CMD_TIERS and answers 202; the
 * agent's WIRE_TIERS_STATUS then updates the session's tier_source. */
#include <string.h>

#include "api_util.h"
#include "link.h"

/* Reads {"enabled": true|false} (nothing else). 0 with *enabled set, or the
 * status of the error reply. */
static int api_tiers_body(api_call *c, int *enabled)
{
    const api_request *req = c->req;
    json_error_t err;
    json_t *body, *v;
    int status = 0;

    body = req->body && req->body_length
               ? json_loadb(req->body, req->body_length, JSON_REJECT_DUPLICATES, &err)
               : NULL;
    v = json_object_get(body, "enabled");
    if (!json_is_object(body) || json_object_size(body) != 1 || !json_is_boolean(v))
        status = api_fail(c, 400, "the body must be {\"enabled\": true} or {\"enabled\": false}");
    else
        *enabled = json_is_true(v);
    json_decref(body);
    return status;
}

int api_tiers_post(api_call *c)
{
    wire_cmd_tiers cmd = {0};
    session *s;
    int enabled = 0, link_id, status;

    if ((status = api_tiers_body(c, &enabled)) != 0)
        return status;
    if (!(s = api_lock_session(c)))
        return 404;
    if (s->state != SESSION_LIVE || !s->link_id) {
        status = api_fail(c, 409, "session %d is %s: there is no live agent to tell", c->session_id,
                          session_state_name(s->state));
        sessions_unlock();
        return status;
    }
    link_id = s->link_id;
    sessions_unlock();
    cmd.enabled = enabled ? 1u : 0u;
    if (link_send(link_id, WIRE_CMD_TIERS, &cmd, sizeof(cmd)) != 0)
        return api_fail(c, 502, "could not send the tiers command to the agent");
    if (!(s = api_lock_session(c)))
        return 404;
    c->reply->json = json_pack("{s:b, s:o}", "requested", enabled, "tier_source",
                               view_tier_source(s));
    sessions_unlock();
    return 202;
}
