/* api_types.h -- what passes between the HTTP transport (http.c) and the REST
 * routes (api*.c): the request a route sees, the reply it fills, and the
 * {"error": ...} body. Types only, so that the transport (through api.h) and
 * the routes' shared helpers (api_util.h) both depend on it and not on each
 * other. */
#ifndef JITSCOPE_API_TYPES_H
#define JITSCOPE_API_TYPES_H

#include <jansson.h>
#include <stddef.h>

typedef struct api_request {
    const char *method;                              /* "GET", "POST", ... */
    const char *path;                                /* "/api/sessions/1/functions" */
    const char *(*arg)(void *ctx, const char *name); /* query parameter or NULL */
    void *ctx;
    const char *body;   /* request body (not NUL-terminated), or NULL */
    size_t body_length; /* at most API_MAX_BODY */
} api_request;

#define API_MAX_BODY 4096 /* larger request bodies are refused (413) */

/* What a route answers: a JSON body, or a text body with its content type. */
typedef struct api_reply {
    json_t *json; /* the body, or NULL when text is set */
    char *text;   /* malloc'd; the transport frees it */
    size_t text_length;
    const char *content_type; /* of text (a static string) */
    char disposition[128];    /* Content-Disposition value, "" for none */
} api_reply;

/* Builds {"error": message}. */
static inline json_t *api_error(const char *message)
{
    return json_pack("{s:s}", "error", message);
}

#endif
