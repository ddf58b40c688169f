/* api.h -- the REST API's routes: request in, (status, body) out.
 *
 * http.c owns the transport (libmicrohttpd, Host/Origin/API-key checks, request
 * bodies, static files) and hands each /api request here. api.c holds the route
 * table and the session, process and config routes; api_stacks.c,
 * api_profile.c and api_timeline.c the stack, profile and timeline routes.
 * Every handler validates its parameters, reads what it needs under the
 * sessions lock (copying it out when the response is large) and builds a
 * jansson object or a text body. Errors are {"error": "..."} with a 4xx/5xx
 * status. The routes are listed in docs/API.md. */
#ifndef JITSCOPE_API_H
#define JITSCOPE_API_H

#include <jansson.h>
#include <stddef.h>

typedef struct api_request {
    const char *method;                 /* "GET", "POST", ... */
    const char *path;                   /* "/api/sessions/1/functions" */
    const char *(*arg)(void *ctx, const char *name); /* query parameter or NULL */
    void *ctx;
    const char *body;                   /* request body (not NUL-terminated), or NULL */
    size_t body_length;                 /* at most API_MAX_BODY */
} api_request;

#define API_MAX_BODY 4096               /* larger request bodies are refused (413) */

/* What a route answers: a JSON body, or a text body with its content type. */
typedef struct api_reply {
    json_t *json;                       /* the body, or NULL when text is set */
    char *text;                         /* malloc'd; the transport frees it */
    size_t text_length;
    const char *content_type;           /* of text (a static string) */
    char disposition[128];              /* Content-Disposition value, "" for none */
} api_reply;

/* Returns the HTTP status and fills *reply (json or text is set on return). */
int api_handle(const api_request *req, api_reply *reply);

#define JITSCOPE_VERSION "0.1"

/* What GET /api/config reports: the live stream's port (0: none) and whether
 * an API key is required. */
void api_configure(int ws_port, int key_required);

/* JSON shapes shared with the live stream (ws.c); caller holds the sessions lock. */
struct session;
struct session_event;
json_t *api_session_summary(struct session *s);
json_t *api_event_json(struct session *s, const struct session_event *e);

/* Builds {"error": message}. */
json_t *api_error(const char *message);

#endif
