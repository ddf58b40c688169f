/* guard.h -- who may talk to the server: Host and Origin rules and the API-key
 * check shared by the HTTP API (http.c) and the WebSocket upgrade (ws.c).
 *
 * A request's Host must name this server: 127.0.0.1, localhost, [::1] or the
 * bound address, with the port it arrived on (DNS-rebinding defence). An
 * Origin, when present, must be http://<such a host>:<the HTTP port> (https://
 * when the server has TLS: the dashboard's own page); a browser on any other
 * site is refused. A server bound
 * to every address (0.0.0.0, ::) has an API key and accepts any Host; an Origin
 * must then name the same host as the request. */
#ifndef JITSCOPE_GUARD_H
#define JITSCOPE_GUARD_H

void guard_configure(const char *bind_host, int http_port, int api_key_required, int tls);
int guard_host_ok(const char *host, int port);
/* `host` is the request's Host header (used for wildcard binds). */
int guard_origin_ok(const char *origin, const char *host);

/* The one API-key check: 1 when `given` equals `key` (or no key is required,
 * key NULL). Constant time in the content of the key: the comparison does not
 * stop at the first differing byte. `given` may be NULL (no key sent). */
int guard_key_ok(const char *given, const char *key);

#endif
