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

#include "api_route.h"
#include "api_types.h"

/* Returns the HTTP status and fills *reply (json or text is set on return). */
int api_handle(const api_request *req, api_reply *reply);

/* The route table api_handle matches against (tests/fuzz/fuzz_route.c). */
const api_route *api_route_table(size_t *count);

#define JITSCOPE_VERSION "0.1"

/* What GET /api/config reports: the live stream's port (0: none) and whether
 * an API key is required. */
void api_configure(int ws_port, int key_required);

#endif
