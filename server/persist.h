/* persist.h -- the sessions' side of storage: what goes into each session's
 * log, when it is compacted, how a stored session comes back.
 *
 * Storage (store.h) keeps bytes and knows no live session (one exception,
 * at open: store_legacy.c reads files of storage versions 1-3 into a private
 * session with the session model, session.h's tables, snapshot.h's encoder
 * and session_header.h, to store each as a snapshot; it never calls the
 * registry or this module); the registry (sessions.h) knows sessions and no
 * storage. This module is between them and calls both, never the other way
 * round:
 *   - the link thread hands it each batch of an agent's frames once they are
 *     folded (persist_frames), and the session's own records reach it through
 *     session_set_record_sink; both go into the session's log in order;
 *   - its sweep (the link thread, every 500 ms) hands storage the header row
 *     of every session whose own fields or list entry changed, a snapshot of
 *     each session that ended with a long log (PERSIST_COMPACT_MIN), or whose
 *     log grew past a bound, or broke, and
 *     takes the content of ended sessions nobody has asked for in a while out
 *     of memory;
 *   - at start it lists the stored sessions into the registry (header only),
 *     and persist_prepare reads one back when a request needs its content:
 *     the snapshot restored, its observations folded quietly, the rest of its
 *     log folded with the code that folds a live agent.
 * SQLite runs only in persist_open and persist_prepare, never with the
 * sessions lock held.
 */
#ifndef JITSCOPE_PERSIST_H
#define JITSCOPE_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

#define PERSIST_SUMMARY_MS 5000u /* a live session's list entry is rewritten at most this often */
#define PERSIST_UNLOAD_MS 60000u /* an ended session nobody asked for leaves memory after this */
#define PERSIST_LOADED_MAX 4u    /* stored sessions kept in memory besides the live ones */
#define PERSIST_LOG_BOUND (1024u << 20) /* log bytes that make a live session's snapshot due */
#define PERSIST_RESUME_WAIT_MS 90000u /* a session waits this long for its agent after a restart */
/* An ended session is compacted (snapshotted) only when its log since the
 * last snapshot holds at least this many bytes as the agent sent them (or it
 * broke, or holds more events than --keep-events): a shorter log is already
 * small on disk (compressed, about as small as its snapshot would be) and
 * folds again quickly (about 1.5 times its snapshot's time: 0.2 s at the
 * bound), so its snapshot would cost CPU and save little. JITSCOPE_COMPACT_MIN (bytes; 0: every ended
 * session) sets another bound. */
#define PERSIST_COMPACT_MIN (64u << 20)

typedef struct persist_options {
    const char *dir;      /* NULL or "none": storage off */
    unsigned keep;        /* ended sessions kept (0: STORE_KEEP_DEFAULT) */
    unsigned keep_events; /* newest events a snapshot keeps (0: all memory keeps) */
    unsigned unload_ms;   /* 0: PERSIST_UNLOAD_MS */
    size_t journal_max;   /* 0: storage's default */
    size_t compact_min;   /* 0: JITSCOPE_COMPACT_MIN, else PERSIST_COMPACT_MIN */
} persist_options;

/* Opens storage and lists its sessions into the registry (its lock taken
 * here). 0, or -1 with why (the caller exits STORE_EXIT_CODE). */
int persist_open(const persist_options *o, char *err, size_t errsz);
/* Writes what the sessions hold that storage does not have yet, then closes it. */
void persist_close(void);
int persist_enabled(void);

/* A batch of frames an agent sent, folded into s (caller holds the sessions lock). */
void persist_frames(session *s, int64_t now_ns, const void *frames, size_t length);
/* The sweep (caller does not hold the sessions lock). */
void persist_sweep(void);
/* Reads a stored session's content back if it is not in memory; call it
 * before taking the sessions lock for a request that needs the content. */
void persist_prepare(int session_id);
/* The agent of a session that was live when the server before this one died
 * came back (link.c, at its hello; lock held): the session is live again,
 * same id, with a LOGREC_RESUMED record of the gap in its log and events. */
void persist_resumed(session *s, int64_t now_ns);
/* The memory budget (budget.h) is nearly spent: ended sessions give their
 * memory back until a sixteenth of the budget is free again or none is left
 * that may: with storage, one whose snapshot is committed leaves memory now
 * (as an idle one does after PERSIST_UNLOAD_MS) and is read back on its next
 * request; without, it is forgotten, as a full registry forgets. Never a
 * pinned one, a connected one, or the root of a run that goes on. Returns
 * how many gave memory back. Caller holds the sessions lock; the link thread
 * calls it before ingest when less than a thirty-second of the budget is left. */
unsigned persist_make_room(void);
/* A session forgotten (DELETE, retention): out of storage too. */
void persist_forget(int session_id);

#endif
