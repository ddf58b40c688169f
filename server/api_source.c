/* api_source.c -- GET /api/sessions/{id}/functions/{fid}/source: a method's
 * source lines with the samples of the session's newest profile per line.
 *
 * Under the lock: the function, its module's path and token, and (code=1,
 * the default) its code as GET .../code reads it (api_code_fetch: asked of a
 * live agent, else the newest read), copied (codeview_take). Without the
 * lock: the PDB found and checked (symfile.h), the lines built (srcview.h).
 * A method whose PDB is not found, or is refused, answers 200 with
 * "file": null and the reason (docs/API.md); so does a method whose code
 * could not be read, with its lines and no samples ("code_reason"). A
 * process in a container that has ended is not looked for on the server's
 * own paths (they would be other files). */
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "srcview.h"
#include "symfile.h"

#define API_SOURCE_PATH_MAX 1024u

int api_source_get(api_call *c)
{
    long long want_code, refresh, max_bytes;
    char module_path[API_SOURCE_PATH_MAX], err[1200], code_reason[512] = "";
    const code_reply *r = NULL;
    session_function *f;
    session_module *m;
    session *s;
    codeview v;
    symfile sym;
    uint32_t token, flags;
    uint64_t function_id;
    pid_t pid;
    int have_code = 0, status, gone_container;
    json_t *body;

    if (api_arg_int(c->req, "code", 0, 1, 1, &want_code) != 0 ||
        api_arg_int(c->req, "refresh", 0, 1, 1, &refresh) != 0 ||
        api_arg_int(c->req, "max_bytes", 4096, WIRE_CODE_MAX_REQUEST_BYTES, 0, &max_bytes) != 0)
        return api_fail(c, 400, "code and refresh must be 0 or 1, max_bytes 4096..%u",
                        WIRE_CODE_MAX_REQUEST_BYTES);
    if (!(s = api_lock_session(c)))
        return 404;
    if (!(f = session_find_function(s, c->n))) {
        status = api_fail(c, 404, "session %d knows no function 0x%llx", c->session_id,
                          (unsigned long long)c->n);
        sessions_unlock();
        return status;
    }
    if (want_code) {
        if (api_code_fetch(c, (int)refresh, (uint32_t)max_bytes, &s, &f, &r) != 0) {
            const char *why = json_string_value(json_object_get(c->reply->json, "error"));
            snprintf(code_reason, sizeof(code_reason), "%s", why ? why : "the code was not read");
            json_decref(c->reply->json);
            c->reply->json = NULL;
            if (!(s = sessions_get(c->session_id)) || !(f = session_find_function(s, c->n))) {
                sessions_unlock();
                return api_fail(c, 404, "the function is gone");
            }
            r = NULL;
        }
        if (r) {
            if (codeview_take(&v, s, f, r, 0) != 0) {
                codeview_free(&v);
                sessions_unlock();
                return api_fail(c, 503, "out of memory copying the code");
            }
            have_code = 1;
        }
    } else {
        snprintf(code_reason, sizeof(code_reason), "code=0: the code was not read");
    }
    function_id = f->function_id;
    token = f->token;
    flags = f->flags;
    m = f->module_id ? session_find_module(s, f->module_id) : NULL;
    snprintf(module_path, sizeof(module_path), "%s", m && m->path ? m->path : "");
    pid = api_code_pid(s);
    gone_container = !pid && s->container.in_container;
    sessions_unlock();

    body = json_pack("{s:o, s:o}", "function_id", view_id(function_id), "token",
                     token ? json_sprintf("0x%08x", token) : json_null());
    if (!token || (flags & WIRE_FLAG_DYNAMIC) || !module_path[0]) {
        json_object_set_new(body, "file", json_null());
        json_object_set_new(body, "reason",
                            json_string(!module_path[0]
                                            ? "the method's module has no file path (in memory, "
                                              "dynamic, or not named yet)"
                                            : "a dynamic method has no metadata token, so no PDB "
                                              "entry"));
    } else if (gone_container) {
        json_object_set_new(body, "file", json_null());
        json_object_set_new(body, "reason",
                            json_string("the process ran in a container and has ended: its "
                                        "files are no longer reachable (the same paths here "
                                        "are the server's, not its)"));
    } else if (symfile_load(&sym, pid, module_path, err, sizeof(err)) != 0) {
        json_object_set_new(body, "file", json_null());
        json_object_set_new(body, "reason", srcview_string(err));
    } else {
        json_t *lines = srcview_json(have_code ? &v : NULL, &sym, token, pid, err, sizeof(err));
        symfile_free(&sym);
        if (!lines) {
            json_object_set_new(body, "file", json_null());
            json_object_set_new(body, "reason", srcview_string(err));
        } else {
            json_object_update(body, lines);
            json_decref(lines);
        }
    }
    json_object_set_new(body, "module", module_path[0] ? srcview_string(module_path) : json_null());
    json_object_set_new(body, "code_reason",
                        code_reason[0] ? srcview_string(code_reason) : json_null());
    json_object_set_new(body, "profile", have_code ? codeheat_json(&v.heat) : json_null());
    if (have_code)
        codeview_free(&v);
    c->reply->json = body;
    return 200;
}
