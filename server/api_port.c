/* api_port.c -- GET /api/diagnostic-port: the port the server listens on
 * (--diagnostic-port) and every runtime that came to it, with what jitscope
 * did with it (docs/API.md, "Diagnostic port"). The records (dpconn.h) are
 * copied under their lock and turned into JSON after. */
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "diagport.h"
#include "dpconn.h"
#include "utf.h"

static const char *const api_port_outcomes[] = {"working", "startup", "attached",
                                                "refused", "failed",  "known"};

/* A string as JSON, valid UTF-8 whatever it holds (a cut, or bytes a peer sent). */
static json_t *api_port_text(const char *s)
{
    char out[DP_REASON_MAX * 2];
    int cut;

    out[utf8_sanitize(s, strlen(s), out, sizeof(out) - 1, &cut)] = '\0';
    return json_string(out);
}

static json_t *api_port_runtime(const dp_runtime *r)
{
    char cookie[2 * IPC_GUID_SIZE + 1];
    unsigned i;

    for (i = 0; i < IPC_GUID_SIZE; i++)
        snprintf(cookie + 2 * i, 3, "%02x", r->cookie[i]);
    return json_pack(
        "{s:i, s:s, s:o, s:I, s:I, s:o, s:o, s:b, s:s, s:o, s:o, s:o, s:o, s:b}", "id", r->id,
        "cookie", cookie, "pid", r->pid > 0 ? json_integer(r->pid) : json_null(), "pid_inside",
        (json_int_t)r->pid_inside, "uid", (json_int_t)r->uid, "runtime_version",
        api_port_text(r->runtime_version), "command_line", api_port_text(r->command_line),
        "suspended", r->suspended, "outcome",
        api_port_outcomes[r->outcome >= 0 && r->outcome <= DP_KNOWN ? r->outcome : 0], "reason",
        api_port_text(r->reason), "session_id",
        r->session_id ? json_integer(r->session_id) : json_null(), "seen_ms", view_ms(r->seen_ns),
        "resumed_ms", r->resumed_ms >= 0 ? json_real(r->resumed_ms) : json_null(), "connected",
        r->held >= 0 && !r->gone);
}

int api_diagnostic_port(api_call *c)
{
    dp_runtime *copy = calloc(DP_RUNTIMES_MAX, sizeof(*copy));
    json_t *list;
    size_t i, n = 0;

    if (!diagport_enabled()) {
        free(copy);
        return api_fail(c, 404,
                        "this server listens on no diagnostic port (serve "
                        "--diagnostic-port PATH)");
    }
    if (!copy)
        return api_fail(c, 503, "out of memory");
    dpconn_lock();
    for (i = 0; i < DP_RUNTIMES_MAX; i++)
        if (dpconn_at(i))
            copy[n++] = *dpconn_at(i);
    dpconn_unlock();
    list = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(list, api_port_runtime(&copy[i]));
    free(copy);
    c->reply->json = json_pack("{s:s, s:s, s:s, s:I, s:o}", "path", dp_cfg.host_path, "app_path",
                               dp_cfg.app_path, "agent_dir", dp_cfg.host_dir, "trusted_uid",
                               (json_int_t)dp_cfg.trusted_uid, "runtimes", list);
    return 200;
}
