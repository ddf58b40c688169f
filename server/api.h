/* api.h -- the REST API's routes: request in, (status, body) out.
 *
 * http.c owns the transport (libmicrohttpd, Host/Origin/API-key checks, request
 * bodies, static files) and hands each /api request here. api.c holds the route
 * table and the session, process and config routes; the other handlers are in
 * seven route files, one family each: api_functions.c (functions, module
 * totals), api_code.c (code, inlining, start-up), api_compare.c, api_stacks.c,
 * api_profile.c, api_tiers.c and api_timeline.c. api_export.c turns a list
 * route's answer into a file (?format=), api_route.c matches paths,
 * api_util.c is what they share.
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

/* What GET /api/config reports: the live stream's port (0: none) and whether
 * an API key is required. */
void api_configure(int ws_port, int key_required);

#endif
