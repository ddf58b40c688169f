/* store_replay.c -- a session's replay log (see store_replay.h).
 *
 * An entry is a session_replay_header (16 bytes, host byte order) and its
 * data padded to 8 bytes. */
#include "store_replay.h"

#include <string.h>

#include "wire_decode.h"

int store_replay_apply(session *s, const unsigned char *log, size_t length)
{
    size_t at = 0;

    while (at < length) {
        session_replay_header h;
        const unsigned char *data = log + at + sizeof(h);
        const char *why = NULL;

        if (length - at < sizeof(h))
            return -1;
        memcpy(&h, log + at, sizeof(h));
        if (SESSION_REPLAY_PADDED(h.length) > length - at - sizeof(h))
            return -1;
        if (h.kind == SESSION_REPLAY_FRAME) {
            wire_frame f;
            wire_record r;
            size_t used;
            if (wire_decode_frame(data, h.length, &f, &used, &why) != WIRE_DECODE_OK ||
                used != h.length || wire_decode_record(&f, &r, &why) != WIRE_DECODE_OK ||
                session_replay(s, &r, h.now_ns) != 0)
                return -1;
        } else if (h.kind == SESSION_REPLAY_PROFILE_START && h.length == sizeof(uint32_t)) {
            uint32_t hz;
            memcpy(&hz, data, sizeof(hz));
            profile_start(&s->profile, hz, h.now_ns);
        } else if (h.kind == SESSION_REPLAY_PROFILE_STOP) {
            profile_stop(&s->profile, h.now_ns);
        } else {
            return -1;
        }
        at += sizeof(h) + SESSION_REPLAY_PADDED(h.length);
    }
    return 0;
}
