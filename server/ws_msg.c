/* ws_msg.c -- a live-stream client's messages (see ws_msg.h). */
#include "ws_msg.h"

#include <jansson.h>

#include "session.h"

ws_msg ws_msg_parse(const char *text, size_t length)
{
    ws_msg out = {WS_MSG_BAD, 0, 0, NULL};
    json_error_t jerr;
    json_t *msg = json_loadb(text, length, 0, &jerr), *sub, *after;

    if (!json_is_object(msg)) {
        out.error = "messages must be JSON objects";
        goto done;
    }
    if (json_is_true(json_object_get(msg, "unsubscribe"))) {
        out.kind = WS_MSG_UNSUBSCRIBE;
        goto done;
    }
    sub = json_object_get(msg, "subscribe");
    after = json_object_get(msg, "after");
    if (!json_is_integer(sub) || json_integer_value(sub) <= 0 ||
        json_integer_value(sub) > SESSION_ID_MAX ||
        (after && (!json_is_integer(after) || json_integer_value(after) < 0))) {
        out.error = "expected {\"subscribe\": SESSION_ID, \"after\": SEQ}";
        goto done;
    }
    out.kind = WS_MSG_SUBSCRIBE;
    out.session_id = (int)json_integer_value(sub);
    out.after = after ? (uint64_t)json_integer_value(after) : 0;
done:
    json_decref(msg);
    return out;
}
