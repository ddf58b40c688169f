/* logrec.h -- the records the server writes into a session's log itself.
 *
 * A session's log (store.h) is what its agent sent, frame by frame, with the
 * server's clock at arrival. A few things that change what a session shows
 * come from the server, not the agent (a profile started or stopped on a
 * user's request, a session taken back after a restart); they go into the
 * same log as frames of the same format (wire.h's header), with record types
 * of their own from LOGREC_FIRST up, which no agent may send (the decoder
 * refuses them from an agent). Snapshots (snapshot.h) use the same range.
 */
#ifndef JITSCOPE_LOGREC_H
#define JITSCOPE_LOGREC_H

#include <stdint.h>

enum logrec_type {
    LOGREC_FIRST = 200,
    LOGREC_PROFILE_START = 200, /* payload: uint32_t hz */
    LOGREC_PROFILE_STOP = 201,  /* no payload */
    LOGREC_RESUMED = 202,       /* logrec_resumed: the session was taken back after a gap */
    /* 210-219: snapshot.h */
    LOGREC_LAST = 219
};

/* LOGREC_RESUMED: a server started on the session's data directory took the
 * session back when its agent reconnected. */
typedef struct logrec_resumed {
    int64_t since_ns;    /* wall clock of the last record before the gap */
    uint64_t gap_ns;     /* how long nothing was received */
    uint64_t lost;       /* records the agent counted as lost meanwhile (no server) */
    uint64_t server_pid; /* the server that took it back */
} logrec_resumed;
_Static_assert(sizeof(logrec_resumed) == 32, "logrec_resumed layout");

static inline int logrec_is_server_type(uint16_t type)
{
    return type >= LOGREC_FIRST && type <= LOGREC_LAST;
}

#endif
