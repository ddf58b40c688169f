/* ws.c -- WebSocket live stream on libwebsockets (see ws.h).
 *
 * A client's next message is copied out of its session under the sessions
 * lock and shaped into JSON without it (ws_next.h); a change wakes only the
 * clients subscribed to the session that changed (ws_wake.h). */
#include "ws.h"
#include "clock.h"

#include <errno.h>
#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "guard.h"
#include "netaddr.h"
#include "sessions.h"
#include "persist.h"
#include "ws_msg.h"
#include "ws_next.h"
#include "ws_wake.h"

#define WS_RX_MAX 4096
#define WS_SNDBUF (256 * 1024) /* kernel send buffer per client: bounds memory, shows stalls */

typedef struct ws_client {
    struct lws *wsi;
    ws_cursor cur;           /* its subscription and place in its session's events */
    int64_t subscribe_by_ns; /* unsubscribed: closed when this passes */
    int64_t closing_since_ns;
    int closing;     /* being closed with 1008 (stalled, silent or replaced) */
    char error[160]; /* an error message to send */
    size_t rx_length;
    char rx[WS_RX_MAX];
} ws_client;

static struct lws_context *ws_context;
static pthread_t ws_thread;
static _Atomic int ws_running, ws_stopping;
static const char *ws_api_key;
static int ws_port;
/* Every connected client (service thread only): at most WS_MAX_CLIENTS open
 * ones and WS_MAX_CLOSING closing ones, so the table never overflows. */
static ws_client *ws_clients[WS_MAX_CLIENTS + WS_MAX_CLOSING];
static _Atomic int ws_connected; /* clients in ws_clients, for /metrics (any thread) */

int ws_client_count(void) { return atomic_load(&ws_connected); }
static lws_sorted_usec_list_t ws_tick_sul;

void ws_notify(int session_id)
{
    /* no client, nobody to wake: a client that connects later is served from
     * its subscription on, at the service thread's own pace */
    if (atomic_load(&ws_running) && atomic_load(&ws_connected) > 0 && ws_wake_mark(session_id))
        lws_cancel_service(ws_context);
}

#define WS_TABLE_SIZE (WS_MAX_CLIENTS + WS_MAX_CLOSING)

/* Counts the clients that are closing (closing 1) or not (closing 0). */
static int ws_count(int closing)
{
    int i, n = 0;

    for (i = 0; i < WS_TABLE_SIZE; i++)
        n += ws_clients[i] && ws_clients[i]->closing == closing;
    return n;
}

/* The oldest client with closing == closing and, when unsubscribed_only, no
 * subscription (oldest: first to reach its deadline). NULL when none. */
static ws_client *ws_oldest(int closing, int unsubscribed_only)
{
    ws_client *best = NULL;
    int i;

    for (i = 0; i < WS_TABLE_SIZE; i++) {
        ws_client *c = ws_clients[i];
        if (!c || c->closing != closing || (unsubscribed_only && c->cur.session_id))
            continue;
        if (!best || (closing ? c->closing_since_ns < best->closing_since_ns
                              : c->subscribe_by_ns < best->subscribe_by_ns))
            best = c;
    }
    return best;
}

/* Takes a client out of the table (it is closing, or closed). */
static void ws_forget(ws_client *c)
{
    int i;

    for (i = 0; i < WS_TABLE_SIZE; i++) {
        if (ws_clients[i] == c) {
            ws_clients[i] = NULL;
            atomic_fetch_sub(&ws_connected, 1);
        }
    }
}

/* Starts closing a client with 1008 and `why`: the close frame goes out when
 * the socket takes it (after whatever the client has not read yet), and the
 * connection is cut after grace_s seconds either way. A closing client no
 * longer holds one of the WS_MAX_CLIENTS slots; when WS_MAX_CLOSING are
 * already closing, the oldest of them is cut now, without a close frame. */
static void ws_close_1008(ws_client *c, const char *why, int grace_s)
{
    if (ws_count(1) >= WS_MAX_CLOSING) {
        ws_client *old = ws_oldest(1, 0);
        ws_forget(old);
        lws_set_timeout(old->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    }
    c->closing = 1;
    c->closing_since_ns = (int64_t)clock_mono_ns();
    lws_close_reason(c->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)why, strlen(why));
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, grace_s);
    lws_callback_on_writable(c->wsi); /* ws_write answers -1: lws sends the close frame */
}

/* Checks Host, Origin and the API key of an upgrade, and makes room for it.
 * 0 to accept. With every slot taken, the client that has waited longest
 * without subscribing is closed for it (a real client subscribes as soon as it
 * is open); when all are subscribed, the upgrade is refused. */
static int ws_filter(struct lws *wsi)
{
    char host[256], origin[256], args[512];
    int have_origin, i;

    if (lws_hdr_copy(wsi, host, sizeof(host), WSI_TOKEN_HOST) <= 0 || !guard_host_ok(host, ws_port))
        return -1;
    have_origin = lws_hdr_copy(wsi, origin, sizeof(origin), WSI_TOKEN_ORIGIN) > 0;
    if (have_origin && !guard_origin_ok(origin, host))
        return -1;
    if (ws_api_key) {
        int ok = 0;
        for (i = 0; lws_hdr_copy_fragment(wsi, args, sizeof(args), WSI_TOKEN_HTTP_URI_ARGS, i) > 0;
             i++)
            ok |= strncmp(args, "key=", 4) == 0 && guard_key_ok(args + 4, ws_api_key);
        if (!ok)
            return -1;
    }
    if (ws_count(0) >= WS_MAX_CLIENTS) {
        ws_client *idle = ws_oldest(0, 1);
        if (!idle)
            return -1;
        lwsl_user("jitscope: WebSocket clients full; closing one that has not subscribed\n");
        ws_close_1008(idle, "replaced: subscribe as soon as the stream is open", WS_KICK_SECONDS);
    }
    return 0;
}

static void ws_set_error(ws_client *c, const char *message)
{
    snprintf(c->error, sizeof(c->error), "%s", message);
    lws_callback_on_writable(c->wsi);
}

/* A complete text message from the client. */
static void ws_command(ws_client *c)
{
    ws_msg m = ws_msg_parse(c->rx, c->rx_length);

    if (m.kind == WS_MSG_BAD) {
        ws_set_error(c, m.error);
        return;
    }
    if (m.kind == WS_MSG_UNSUBSCRIBE) {
        c->cur.session_id = 0; /* a client with no subscription has WS_SUBSCRIBE_SECONDS for one */
        c->subscribe_by_ns = (int64_t)clock_mono_ns() + (int64_t)WS_SUBSCRIBE_SECONDS * 1000000000;
        return;
    }
    persist_prepare(m.session_id); /* a stored session is read before the lock is taken */
    sessions_lock();
    if (!sessions_get(m.session_id)) {
        sessions_unlock();
        ws_set_error(c, "no such session");
        return;
    }
    sessions_unlock();
    c->cur = (ws_cursor){.session_id = m.session_id,
                         .next_seq = m.after + 1,
                         .last_progress_ns = (int64_t)clock_mono_ns(),
                         .last_state = -1};
    lws_callback_on_writable(c->wsi);
}

static ws_next ws_message;    /* the next message being made (service thread only) */
static unsigned char *ws_out; /* LWS_PRE bytes, then the message */
static size_t ws_out_cap;

/* Serialises out into ws_out after its LWS_PRE bytes (grown as needed).
 * Returns the message's length, or 0 when out of memory. */
static size_t ws_serialise(const json_t *out)
{
    for (;;) {
        size_t room = ws_out_cap > LWS_PRE ? ws_out_cap - LWS_PRE : 0;
        size_t n = json_dumpb(out, room ? (char *)ws_out + LWS_PRE : NULL, room, JSON_COMPACT);
        unsigned char *grown;

        if (n == 0 || n <= room)
            return n;
        grown = realloc(ws_out, LWS_PRE + n);
        if (!grown)
            return 0;
        ws_out = grown;
        ws_out_cap = LWS_PRE + n;
    }
}

static int ws_write(ws_client *c)
{
    json_t *out = NULL;
    int more = 0, rc;
    size_t n;

    if (c->closing)
        return -1; /* lws sends the close frame with the reason set by ws_close_1008 */
    if (c->error[0]) {
        out = json_pack("{s:s, s:s}", "type", "error", "error", c->error);
        c->error[0] = '\0';
    } else if (ws_next_take(&ws_message, &c->cur, (int64_t)clock_mono_ns(), &more) ==
               WS_NEXT_GONE) {
        /* deleted: the client may subscribe to another within WS_SUBSCRIBE_SECONDS */
        c->cur.session_id = 0;
        c->subscribe_by_ns = (int64_t)clock_mono_ns() + (int64_t)WS_SUBSCRIBE_SECONDS * 1000000000;
    } else {
        out = ws_next_render(&ws_message); /* the lock is released */
    }
    if (!out)
        return 0;
    n = ws_serialise(out);
    json_decref(out);
    if (n == 0)
        return -1;
    rc = lws_write(c->wsi, ws_out + LWS_PRE, n, LWS_WRITE_TEXT);
    if (rc < (int)n)
        return -1;
    if (more || c->error[0])
        lws_callback_on_writable(c->wsi);
    return 0;
}

/* Poked (ws_notify): wakes the clients whose session changed. */
static void ws_wake_changed(void)
{
    int sessions[WS_TABLE_SIZE];
    unsigned char wake[WS_TABLE_SIZE];
    int i;

    ws_wake_begin();
    for (i = 0; i < WS_TABLE_SIZE; i++)
        sessions[i] = ws_clients[i] && !ws_clients[i]->closing ? ws_clients[i]->cur.session_id : 0;
    if (ws_wake_select(sessions, WS_TABLE_SIZE, wake) == 0)
        return;
    for (i = 0; i < WS_TABLE_SIZE; i++)
        if (wake[i])
            lws_callback_on_writable(ws_clients[i]->wsi);
}

/* Every second: summaries, and closing clients that stopped reading or never subscribed. */
static void ws_tick(lws_sorted_usec_list_t *sul)
{
    int64_t now = (int64_t)clock_mono_ns();
    int i, silent = 0;

    for (i = 0; i < WS_TABLE_SIZE; i++) {
        ws_client *c = ws_clients[i];
        if (!c || c->closing)
            continue;
        if (!c->cur.session_id) {
            if (now >= c->subscribe_by_ns) {
                silent++;
                ws_close_1008(c, "no subscription", WS_KICK_SECONDS);
            }
            continue;
        }
        if (now - c->cur.last_progress_ns > (int64_t)WS_STALL_SECONDS * 1000000000) {
            lwsl_user("jitscope: WebSocket client stalled for %d s, closing it (1008)\n",
                      WS_STALL_SECONDS);
            /* the close frame goes out after what the client has not read yet,
             * if it reads again within WS_CLOSE_GRACE_SECONDS */
            ws_close_1008(c, "stalled: not reading", WS_CLOSE_GRACE_SECONDS);
            continue;
        }
        lws_callback_on_writable(c->wsi);
    }
    if (silent)
        lwsl_user("jitscope: closed %d WebSocket client(s) that subscribed to nothing within %d "
                  "s (1008)\n",
                  silent, WS_SUBSCRIBE_SECONDS);
    lws_sul_schedule(ws_context, 0, sul, ws_tick, 1000 * LWS_US_PER_MS);
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len)
{
    ws_client *c = user;
    int i;

    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION: {
        int fd = (int)(intptr_t)in, size = WS_SNDBUF;
        /* the per-client memory bound rests on this buffer: no buffer, no client */
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) != 0) {
            lwsl_warn("jitscope: refused a WebSocket client: setsockopt(SO_SNDBUF, %d): %s\n", size,
                      strerror(errno));
            return 1;
        }
        return 0;
    }
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: return ws_filter(wsi);
    case LWS_CALLBACK_ESTABLISHED:
        memset(c, 0, sizeof(*c));
        c->wsi = wsi;
        c->cur.last_progress_ns = (int64_t)clock_mono_ns();
        c->subscribe_by_ns = c->cur.last_progress_ns + (int64_t)WS_SUBSCRIBE_SECONDS * 1000000000;
        for (i = 0; i < WS_TABLE_SIZE; i++) {
            if (!ws_clients[i]) {
                ws_clients[i] = c;
                atomic_fetch_add(&ws_connected, 1);
                return 0;
            }
        }
        return -1;
    case LWS_CALLBACK_CLOSED: ws_forget(c); return 0;
    case LWS_CALLBACK_RECEIVE:
        if (c->closing)
            return 0; /* on its way out: nothing it says counts */
        /* the frame's declared length counts, not only what has arrived: a
         * header promising 2^62 bytes is refused at its first payload bytes */
        if (lws_frame_is_binary(wsi)) { /* commands are JSON text */
            lws_close_reason(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, NULL, 0);
            return -1;
        }
        if (c->rx_length + len + lws_remaining_packet_payload(wsi) > WS_RX_MAX) {
            lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, NULL, 0);
            return -1;
        }
        memcpy(c->rx + c->rx_length, in, len);
        c->rx_length += len;
        if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
            ws_command(c);
            c->rx_length = 0;
        }
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE: return ws_write(c);
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: ws_wake_changed(); return 0;
    default: return 0;
    }
}

static const struct lws_protocols ws_protocols[] = {
    {"jitscope", ws_callback, sizeof(ws_client), WS_RX_MAX, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void *ws_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&ws_stopping))
        if (lws_service(ws_context, 0) < 0)
            break;
    return NULL;
}

int ws_start(const ws_config *cfg, int *bound_port, char *err, size_t errsz)
{
    struct lws_context_creation_info info;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    const char *host = cfg->bind_host ? cfg->bind_host : "127.0.0.1";
    int family = netaddr_parse(host, 0, &addr, &addr_len), port = cfg->port;

    if (family < 0) {
        snprintf(err, errsz, "--host must be a numeric IP address, not '%s'", host);
        return -1;
    }
    if (!netaddr_is_loopback(host) && !cfg->api_key) {
        snprintf(err, errsz, "binding %s (not loopback) requires an API key (--api-key)", host);
        return -1;
    }
    if (port && !netaddr_port_free(host, port)) {
        if (!cfg->port_is_default) {
            snprintf(err, errsz,
                     "cannot start the WebSocket listener on %s:%d: the port is taken (choose "
                     "another with --ws-port)",
                     host, port);
            return -1;
        }
        port = 0; /* HTTP + 1 is taken (another server's): any free port, /api/config says which */
    }
    lws_set_log_level(LLL_ERR | LLL_WARN | LLL_USER, NULL);
    memset(&info, 0, sizeof(info));
    info.port = port;
    /* libwebsockets binds `iface` (a numeric address here) on an IPv6 socket
     * unless IPv6 is off, and 4.1 then leaves an IPv4 address out of the IPv6
     * socket address: it would listen on every address. So IPv4 gets an IPv4
     * socket; IPv6 is V6ONLY, like the HTTP socket (netaddr.h). */
    info.iface = host;
    info.protocols = ws_protocols;
    info.gid = (gid_t)-1;
    info.uid = (uid_t)-1;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
    info.options |= family == AF_INET6
                        ? LWS_SERVER_OPTION_IPV6_V6ONLY_MODIFY | LWS_SERVER_OPTION_IPV6_V6ONLY_VALUE
                        : LWS_SERVER_OPTION_DISABLE_IPV6;
    if (cfg->tls_cert) { /* wss:// only; libwebsockets reads the PEM files (OpenSSL) */
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = cfg->tls_cert;
        info.ssl_private_key_filepath = cfg->tls_key;
    }
    info.timeout_secs = 30;
    /* an upgrade's headers must be complete within this, however they trickle
     * (the header table is not freed by bytes arriving): HTTP's deadline too */
    info.timeout_secs_ah_idle = WS_UPGRADE_SECONDS;
    ws_api_key = cfg->api_key;
    ws_context = lws_create_context(&info);
    if (!ws_context) {
        snprintf(err, errsz, "cannot start the WebSocket listener on %s:%d%s", host, port,
                 cfg->tls_cert ? ": libwebsockets refused --tls-cert/--tls-key (is the key the "
                                 "certificate's, both PEM?)"
                               : "");
        return -1;
    }
    ws_port = lws_get_vhost_listen_port(lws_get_vhost_by_name(ws_context, "default"));
    *bound_port = ws_port;
    lws_sul_schedule(ws_context, 0, &ws_tick_sul, ws_tick, 1000 * LWS_US_PER_MS);
    if (pthread_create(&ws_thread, NULL, ws_main, NULL) != 0) {
        lws_context_destroy(ws_context);
        ws_context = NULL;
        snprintf(err, errsz, "pthread_create: WebSocket thread");
        return -1;
    }
    atomic_store(&ws_running, 1);
    return 0;
}

void ws_stop(void)
{
    if (!atomic_load(&ws_running))
        return;
    atomic_store(&ws_stopping, 1);
    lws_cancel_service(ws_context);
    pthread_join(ws_thread, NULL);
    atomic_store(&ws_running, 0);
    lws_context_destroy(ws_context);
    ws_context = NULL;
    free(ws_out);
    ws_out = NULL;
    ws_out_cap = 0;
}
