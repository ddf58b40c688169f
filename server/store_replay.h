/* store_replay.h -- a session's replay log: what storage keeps of stack
 * snapshots, sampling profiles and the GC/suspension timeline.
 *
 * Those three are built by folding records (stacks.c, profile.c, timeline.c)
 * into structures that have no natural rows, so storage keeps the records
 * themselves, as the agent framed them, with the server's clock at arrival
 * and the server's own profile start/stop, in order. Reading a stored session
 * back folds the log again (session_replay), so its snapshots, profile and
 * timeline are exactly what the live session served. The log waits in
 * session_persist until the storage writer takes it; past
 * STORE_REPLAY_PENDING_MAX bytes waiting, or STORE_REPLAY_SESSION_MAX logged
 * for one session, entries are counted as lost instead. */
#ifndef JITSCOPE_STORE_REPLAY_H
#define JITSCOPE_STORE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

enum store_replay_kind {
    STORE_REPLAY_FRAME = 1,         /* an agent record's frame */
    STORE_REPLAY_PROFILE_START = 2, /* the server started a profile: data uint32 hz */
    STORE_REPLAY_PROFILE_STOP = 3,  /* the server stopped it (command, link lost, end) */
};

#define STORE_REPLAY_PENDING_MAX (64u << 20)   /* bytes waiting for the writer */
#define STORE_REPLAY_SESSION_MAX (1024u << 20) /* bytes logged for one session */

/* 1 for the record types the log keeps (hello, stacks, profile, timeline). */
int store_replay_wants(uint16_t record_type);

/* Appends one entry (caller holds the sessions lock). */
void store_replay_log(session_persist *p, unsigned kind, int64_t now_ns, const void *data,
                      uint32_t length);

/* Folds a log (or one stored chunk of it) into s. Returns 0, or -1 when it is
 * malformed; what came before the bad entry stays applied. */
int store_replay_apply(session *s, const unsigned char *log, size_t length);

#endif
