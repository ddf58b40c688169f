/* ws_msg.h -- what a live-stream client may say: its text messages parsed
 * into a request (docs/API.md, "WebSocket").
 *
 *   {"subscribe": SESSION_ID, "after": SEQ}   events of a session after SEQ
 *   {"unsubscribe": true}                     stop
 *
 * Pure (jansson only, no lock, no lws call), so ws.c's service thread acts on
 * the result and tests/fuzz/fuzz_ws.c feeds it garbage. */
#ifndef JITSCOPE_WS_MSG_H
#define JITSCOPE_WS_MSG_H

#include <stddef.h>
#include <stdint.h>

enum ws_msg_kind { WS_MSG_BAD, WS_MSG_SUBSCRIBE, WS_MSG_UNSUBSCRIBE };

typedef struct ws_msg {
    enum ws_msg_kind kind;
    int session_id;    /* SUBSCRIBE: 1..SESSION_ID_MAX */
    uint64_t after;    /* SUBSCRIBE: events after this sequence number (0: all kept) */
    const char *error; /* BAD: what to tell the client (a static string) */
} ws_msg;

/* Parses one complete text message of length bytes (not NUL-terminated). */
ws_msg ws_msg_parse(const char *text, size_t length);

#endif
