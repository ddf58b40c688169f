/* ws_wake.c -- which live-stream clients a change wakes (see ws_wake.h).
 *
 * Ordering: a marker sets its session's bit, then swaps ws_wake_pending to 1;
 * the service thread stores 0 there (ws_wake_begin), then takes the bits. All
 * sequentially consistent, so a marker that finds a poke pending set its bit
 * before the service thread's next look at it. */
#include "ws_wake.h"

#include <stdatomic.h>
#include <stdint.h>

#include "session.h"

#define WS_WAKE_WORDS (SESSION_ID_MAX / 64 + 1)

static _Atomic uint64_t ws_wake_bits[WS_WAKE_WORDS]; /* bit id % 64 of word id / 64 */
static _Atomic int ws_wake_all;                      /* an id out of range was marked */
static _Atomic int ws_wake_pending;                  /* poked, and not looked yet */

static int ws_wake_in_range(int id) { return id > 0 && id <= SESSION_ID_MAX; }

int ws_wake_mark(int session_id)
{
    if (ws_wake_in_range(session_id))
        atomic_fetch_or(&ws_wake_bits[session_id / 64], 1ull << (session_id % 64));
    else
        atomic_store(&ws_wake_all, 1);
    return !atomic_exchange(&ws_wake_pending, 1);
}

void ws_wake_begin(void) { atomic_store(&ws_wake_pending, 0); }

/* Takes session_id's mark: 1 when it was set. */
static int ws_wake_take(int session_id)
{
    uint64_t bit = 1ull << (session_id % 64);

    return (atomic_fetch_and(&ws_wake_bits[session_id / 64], ~bit) & bit) != 0;
}

size_t ws_wake_select(const int *sessions, size_t n, unsigned char *wake)
{
    int all = atomic_exchange(&ws_wake_all, 0);
    size_t i, j, woken = 0;

    for (i = 0; i < n; i++) {
        wake[i] = 0;
        if (!ws_wake_in_range(sessions[i]))
            continue;
        for (j = 0; j < i && sessions[j] != sessions[i]; j++)
            ;
        /* a session's mark is taken once, for all of its clients */
        wake[i] = j < i ? wake[j] : (unsigned char)(ws_wake_take(sessions[i]) | all);
        woken += wake[i];
    }
    return woken;
}
