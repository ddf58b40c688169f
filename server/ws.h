/* ws.h -- the live stream: sessions' events over WebSocket (libwebsockets).
 *
 * One service thread owns every lws call; other threads only call ws_notify(),
 * which marks the session as changed and wakes the service with
 * lws_cancel_service(); only the clients subscribed to that session are woken
 * (ws_wake.h). A client subscribes to one session from a sequence number and
 * gets batched JSON messages (docs/API.md), each copied out of the session
 * under the sessions lock and shaped without it (ws_next.h). A client's queue
 * is a cursor into the session's bounded event log, so a slow client costs no
 * memory and never slows ingest: one too far behind is told how much it
 * missed ("lagged"), one that makes no progress for WS_STALL_SECONDS is closed
 * with 1008 (policy violation): the close frame goes out after the data the
 * client has not read yet, if it reads again within WS_CLOSE_GRACE_SECONDS,
 * else the TCP connection is cut then.
 * A client that has no subscription WS_SUBSCRIBE_SECONDS after it opened (or
 * unsubscribed) is closed with 1008 too, and when all WS_MAX_CLIENTS slots are
 * taken a new client takes the slot of the one that has waited longest without
 * subscribing: idle clients cannot lock real ones out. Closing clients hold no
 * slot (at most WS_MAX_CLOSING of them; beyond, the oldest is cut at once).
 * A client's memory is bounded by its kernel send buffer (WS_SNDBUF, which
 * must be set or the client is refused) plus one message in lws.
 * The listener binds exactly the --host address (netaddr.h); the upgrade checks
 * Host and Origin (guard.h) and, when the server has one (always off loopback),
 * the API key (?key=). With a certificate and key it is wss:// only. */
#ifndef JITSCOPE_WS_H
#define JITSCOPE_WS_H

#include <stddef.h>

#define WS_MAX_CLIENTS 64
#define WS_MAX_CLOSING 64 /* clients being closed, beside the WS_MAX_CLIENTS */
#define WS_STALL_SECONDS 10
#define WS_CLOSE_GRACE_SECONDS 30 /* a stalled client's close frame waits this long for it */
#define WS_SUBSCRIBE_SECONDS 5    /* an open client must subscribe within this */
#define WS_KICK_SECONDS 2         /* a reading client's close frame gets this long to go out */
#define WS_UPGRADE_SECONDS 10     /* the upgrade request's headers must be in within this */

typedef struct ws_config {
    const char *bind_host; /* numeric IPv4/IPv6 address; NULL: 127.0.0.1 */
    int port;              /* 0: pick a free port */
    int port_is_default;   /* port is HTTP + 1, not asked for: a taken one becomes a free one */
    const char *api_key;   /* checked on the upgrade; required off loopback */
    const char *tls_cert;  /* PEM certificate (chain) file: wss://; NULL: ws:// */
    const char *tls_key;   /* PEM private key file, with tls_cert */
} ws_config;

int ws_start(const ws_config *cfg, int *bound_port, char *err, size_t errsz);
void ws_notify(int session_id);
void ws_stop(void);

/* WebSocket clients connected now (any thread; /metrics). */
int ws_client_count(void);

#endif
