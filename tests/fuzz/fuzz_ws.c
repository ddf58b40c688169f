/* fuzz_ws.c -- libFuzzer target for the live stream's client messages,
 * server/ws_msg.c (ws_msg_parse: what a WebSocket client sends, parsed with
 * jansson).
 *
 * The input is one text message (ws.c hands over at most 4096 bytes; longer
 * inputs are parsed too). Checked: the answer is one of the three kinds; a
 * subscription names a session id in 1..SESSION_ID_MAX and a sequence number
 * that fits an int64; a refusal says why; and an accepted message written back
 * as JSON by jansson parses to the same request (round trip).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "session.h"
#include "ws_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ws_msg m = ws_msg_parse((const char *)data, size), again;
    json_t *j = NULL;
    char *text;

    switch (m.kind) {
    case WS_MSG_BAD: FUZZ_REQUIRE(m.error != NULL && m.error[0] != '\0'); return 0;
    case WS_MSG_UNSUBSCRIBE: j = json_pack("{s:b}", "unsubscribe", 1); break;
    case WS_MSG_SUBSCRIBE:
        FUZZ_REQUIRE(m.session_id >= 1 && m.session_id <= SESSION_ID_MAX);
        FUZZ_REQUIRE(m.after <= (uint64_t)INT64_MAX);
        j = json_pack("{s:i, s:I}", "subscribe", m.session_id, "after", (json_int_t)m.after);
        break;
    default: FUZZ_REQUIRE(0);
    }
    FUZZ_REQUIRE(j != NULL && m.error == NULL);
    text = json_dumps(j, JSON_COMPACT);
    FUZZ_REQUIRE(text != NULL);
    again = ws_msg_parse(text, strlen(text));
    FUZZ_REQUIRE(again.kind == m.kind && again.session_id == m.session_id &&
                 again.after == m.after);
    free(text);
    json_decref(j);
    return 0;
}
