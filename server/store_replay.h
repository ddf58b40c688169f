/* store_replay.h -- a session's replay log: what storage keeps of stack
 * snapshots, sampling profiles and the GC/suspension timeline.
 *
 * Those three are built by folding records (stacks.c, profile.c, timeline.c)
 * into structures that have no natural rows, so storage keeps the records
 * themselves, as the agent framed them, with the server's clock at arrival
 * and the server's own profile start/stop, in order (session_persist_log,
 * session.h, writes the entries). Reading a stored session back folds the
 * log again (session_replay), so its snapshots, profile and timeline are
 * exactly what the live session served. */
#ifndef JITSCOPE_STORE_REPLAY_H
#define JITSCOPE_STORE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

/* Folds a log (or one stored chunk of it) into s. Returns 0, or -1 when it is
 * malformed; what came before the bad entry stays applied. */
int store_replay_apply(session *s, const unsigned char *log, size_t length);

#endif
