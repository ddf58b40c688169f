/* api.h -- the REST API's routes: request in, (status, JSON body) out.
 *
 * http.c owns the transport (libmicrohttpd, Host/Origin/API-key checks, static
 * files) and hands each /api request here; every handler validates its
 * parameters, reads a consistent snapshot under the sessions lock and builds a
 * jansson object. Errors are {"error": "..."} with a 4xx/5xx status. The routes
 * are listed in docs/API.md. */
#ifndef JITSCOPE_API_H
#define JITSCOPE_API_H

#include <jansson.h>

typedef struct api_request {
    const char *method;                 /* "GET", "POST", ... */
    const char *path;                   /* "/api/sessions/1/functions" */
    const char *(*arg)(void *ctx, const char *name); /* query parameter or NULL */
    void *ctx;
} api_request;

/* Returns the HTTP status and sets *body (never NULL on return). */
int api_handle(const api_request *req, json_t **body);

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
