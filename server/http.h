/* http.h -- the HTTP front door (libmicrohttpd): REST API and the dashboard files.
 *
 * Binds 127.0.0.1 unless told otherwise (exactly the address given: netaddr.h);
 * any other address requires an API key (Authorization: Bearer KEY on every
 * /api request and /metrics) and is warned about on stderr when it has no TLS.
 * Every request's Host must name this server (no DNS rebinding), and requests
 * that change state must not come from a foreign Origin. A request without the
 * key is answered 401 as soon as its headers are in, and its connection closed.
 * With tls_cert and tls_key (PEM files, read once at start) it speaks HTTPS
 * only (libmicrohttpd's GnuTLS). Limits: connections, per-IP connections,
 * timeout, per-connection memory and request body size, and the connections
 * that have not shown the key (http_deadline.h). */
#ifndef JITSCOPE_HTTP_H
#define JITSCOPE_HTTP_H

#include <stddef.h>

typedef struct http_config {
    const char *bind_host; /* numeric IPv4/IPv6 address; default 127.0.0.1 */
    int port;              /* 0: pick a free port */
    const char *api_key;   /* required when bind_host is not loopback */
    const char *web_root;  /* directory with index.html etc. */
    const char *tls_cert;  /* PEM certificate (chain) file: HTTPS; NULL: plain HTTP */
    const char *tls_key;   /* PEM private key file, with tls_cert */
} http_config;

int http_start(const http_config *config, int *bound_port, char *err, size_t errsz);
void http_stop(void);

#endif
