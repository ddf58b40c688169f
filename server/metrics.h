/* metrics.h -- GET /metrics: jitscope's numbers in Prometheus's text format.
 *
 * Per session that has not ended (sessions that ended drop out, so the number
 * of series stays bounded): JIT compilations and time, functions, modules,
 * threads, records, sequence gaps, ring backlog, the agent's drops by cause and
 * its own time per JIT callback (a histogram). Server-wide: sessions by state,
 * WebSocket clients, HTTP requests by route class and status. Labels: session,
 * pid, process (the program's or the .NET app's file name).
 */
#ifndef JITSCOPE_METRICS_H
#define JITSCOPE_METRICS_H

#include <stddef.h>

/* Counts one HTTP response (any thread): route class "api", "static",
 * "metrics"; status as sent. */
void metrics_count_http(const char *route_class, int status);

/* The whole exposition, malloc'd and NUL-terminated (*length bytes), or NULL
 * when out of memory. Takes the sessions lock. */
char *metrics_render(size_t *length);

#endif
