/* ws.h -- the live stream: sessions' events over WebSocket (libwebsockets).
 *
 * One service thread owns every lws call; other threads only call ws_notify(),
 * which sets a flag and wakes the service with lws_cancel_service(). A client
 * subscribes to one session from a sequence number and gets batched JSON
 * messages (docs/API.md). A client's queue is a cursor into the session's
 * bounded event log, so a slow client costs no memory and never slows ingest:
 * one too far behind is told how much it missed ("lagged"), one that makes no
 * progress for WS_STALL_SECONDS is closed with 1008 (policy violation; the
 * TCP connection at most WS_KICK_SECONDS later if the close frame cannot go
 * out). A client's memory is bounded by its kernel send buffer (WS_SNDBUF,
 * which must be set or the client is refused) plus one message in lws. The upgrade checks Host and
 * Origin (guard.h) and, when the server has one, the API key (?key=). */
#ifndef JITSCOPE_WS_H
#define JITSCOPE_WS_H

#include <stddef.h>

#define WS_MAX_CLIENTS 64
#define WS_BATCH_EVENTS 1000  /* events per message at most */
#define WS_MAX_BACKLOG 100000 /* a client further behind than this is skipped ahead */
#define WS_KEEP_ON_LAG 1000   /* ... to this many events before the newest */
#define WS_STALL_SECONDS 10
#define WS_KICK_SECONDS 2     /* a stalled client's close frame gets this long to go out */
#define WS_UPGRADE_SECONDS 10 /* the upgrade request's headers must be in within this */

int ws_start(const char *bind_host, int port, const char *api_key, int *bound_port, char *err,
             size_t errsz);
void ws_notify(int session_id);
void ws_stop(void);

#endif
