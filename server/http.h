/* http.h -- the HTTP front door (libmicrohttpd): REST API and the dashboard files.
 *
 * Binds 127.0.0.1 unless told otherwise; any other address requires an API key
 * (Authorization: Bearer KEY on every /api request). Every request's Host must
 * name this server (no DNS rebinding), and requests that change state must not
 * come from a foreign Origin. Limits: connections, per-IP connections, timeout,
 * per-connection memory and request body size. */
#ifndef JITSCOPE_HTTP_H
#define JITSCOPE_HTTP_H

#include <stddef.h>

typedef struct http_config {
    const char *bind_host; /* numeric IPv4/IPv6 address; default 127.0.0.1 */
    int port;              /* 0: pick a free port */
    const char *api_key;   /* required when bind_host is not loopback */
    const char *web_root;  /* directory with index.html etc. */
} http_config;

int http_start(const http_config *config, int *bound_port, char *err, size_t errsz);
void http_stop(void);
int http_is_loopback(const char *host);

#endif
