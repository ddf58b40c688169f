/* store_replay.c -- a session's replay log (see store_replay.h).
 *
 * An entry is a 16-byte header (kind u8, 3 zero bytes, data length u32, the
 * server's wall clock i64, host byte order) and its data padded to 8 bytes. */
#include "store_replay.h"

#include <string.h>

#include "grow.h"
#include "wire_decode.h"

typedef struct store_replay_header {
    uint8_t kind;
    uint8_t zero[3];
    uint32_t length;
    int64_t now_ns;
} store_replay_header;

_Static_assert(sizeof(store_replay_header) == 16, "replay entry header layout");

static size_t store_replay_padded(uint32_t length) { return ((size_t)length + 7u) & ~(size_t)7u; }

int store_replay_wants(uint16_t record_type)
{
    switch (record_type) {
    case WIRE_HELLO:
    case WIRE_STACK_THREAD:
    case WIRE_STACK_END:
    case WIRE_PROFILE_STATUS:
    case WIRE_GC_STARTED:
    case WIRE_GC_FINISHED:
    case WIRE_RUNTIME_SUSPEND: return 1;
    default: return 0;
    }
}

void store_replay_log(session_persist *p, unsigned kind, int64_t now_ns, const void *data,
                      uint32_t length)
{
    size_t need = sizeof(store_replay_header) + store_replay_padded(length);
    store_replay_header h = {(uint8_t)kind, {0, 0, 0}, length, now_ns};
    size_t cap = p->replay_cap;

    if (p->replay_len + need > STORE_REPLAY_PENDING_MAX ||
        p->replay_total + need > STORE_REPLAY_SESSION_MAX ||
        grow_reserve((void **)&p->replay, &cap, p->replay_len + need - 1, 1, 64 * 1024,
                     STORE_REPLAY_PENDING_MAX, GROW_KEEP) != 0) {
        p->replay_lost += need;
        return;
    }
    p->replay_cap = cap;
    memcpy(p->replay + p->replay_len, &h, sizeof(h));
    if (length)
        memcpy(p->replay + p->replay_len + sizeof(h), data, length);
    memset(p->replay + p->replay_len + sizeof(h) + length, 0, store_replay_padded(length) - length);
    p->replay_len += need;
    p->replay_total += need;
}

int store_replay_apply(session *s, const unsigned char *log, size_t length)
{
    size_t at = 0;

    while (at < length) {
        store_replay_header h;
        const unsigned char *data = log + at + sizeof(h);
        const char *why = NULL;

        if (length - at < sizeof(h))
            return -1;
        memcpy(&h, log + at, sizeof(h));
        if (store_replay_padded(h.length) > length - at - sizeof(h))
            return -1;
        if (h.kind == STORE_REPLAY_FRAME) {
            wire_frame f;
            wire_record r;
            size_t used;
            if (wire_decode_frame(data, h.length, &f, &used, &why) != WIRE_DECODE_OK ||
                used != h.length || wire_decode_record(&f, &r, &why) != WIRE_DECODE_OK ||
                session_replay(s, &r, h.now_ns) != 0)
                return -1;
        } else if (h.kind == STORE_REPLAY_PROFILE_START && h.length == sizeof(uint32_t)) {
            uint32_t hz;
            memcpy(&hz, data, sizeof(hz));
            profile_start(&s->profile, hz, h.now_ns);
        } else if (h.kind == STORE_REPLAY_PROFILE_STOP) {
            profile_stop(&s->profile, h.now_ns);
        } else {
            return -1;
        }
        at += sizeof(h) + store_replay_padded(h.length);
    }
    return 0;
}
