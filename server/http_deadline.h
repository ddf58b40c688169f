/* http_deadline.h -- a whole-request deadline for HTTP connections, and a cap
 * on the connections that have not shown the API key.
 *
 * libmicrohttpd's connection timeout is an idle timeout: it starts again with
 * every byte, so a client that sends its request one byte every few seconds
 * holds a connection for ever. Here each connection must deliver a whole
 * request (headers and body) within HTTP_REQUEST_SECONDS of being accepted, or
 * of the previous response on it being sent. A sweeper thread shuts down the
 * socket of a connection past its deadline; libmicrohttpd then sees the end of
 * the stream and closes the connection itself (the fd is never closed here, and
 * a connection leaves the registry, under its lock, before libmicrohttpd
 * closes its fd, so a shut-down fd is always still that connection's).
 *
 * Most connections past their deadline are idle, not slow: a browser opens
 * sockets before it needs them and keeps answered ones open for the next
 * request. Those are closed without a word (counted for /metrics); only a
 * connection whose request had begun (its request line came, or bytes came
 * since its clock started: TCP_INFO, plain HTTP only) and stayed incomplete
 * is logged.
 *
 * A connection is trusted once a whole request on it came with the API key
 * (with no key: once a whole request came). At most HTTP_MAX_UNTRUSTED
 * untrusted connections are open at once, half of libmicrohttpd's limit: a
 * new one beyond that shuts the oldest untrusted one down, so idle, slow or
 * keyless clients, from any number of addresses, never fill the slots a
 * client with the key needs; a real client shows its key within milliseconds
 * of connecting and is not the oldest by then. */
#ifndef JITSCOPE_HTTP_DEADLINE_H
#define JITSCOPE_HTTP_DEADLINE_H

#include <microhttpd.h>
#include <stddef.h>

#define HTTP_REQUEST_SECONDS 10
#define HTTP_MAX_UNTRUSTED 1024

/* tls: the daemon speaks TLS (its handshake bytes do not begin a request). */
int http_deadline_start(int tls, char *err, size_t errsz);
void http_deadline_stop(void);

/* MHD_OPTION_NOTIFY_CONNECTION callback: registers and forgets connections. */
void http_deadline_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code);
/* MHD_OPTION_URI_LOG_CALLBACK: the request line of c's request came. Returns NULL. */
void *http_deadline_request_line(void *cls, const char *uri, struct MHD_Connection *c);
/* The request on c is complete, or refused (the response is being made): no
 * deadline. trusted: it had the key (or none is needed): c leaves the untrusted. */
void http_deadline_request_in(struct MHD_Connection *c, int trusted);
/* The response on c is done: the next request's clock starts now. */
void http_deadline_response_out(struct MHD_Connection *c);
/* Connections closed since the start, by why: idle past the deadline (sent
 * nothing of a request), a request begun and incomplete at it, the oldest
 * untrusted one over HTTP_MAX_UNTRUSTED. */
enum { HTTP_CLOSED_IDLE, HTTP_CLOSED_INCOMPLETE, HTTP_CLOSED_UNTRUSTED, HTTP_CLOSED_KINDS };
void http_deadline_closed(unsigned long counts[HTTP_CLOSED_KINDS]);

#endif
