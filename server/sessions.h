/* sessions.h -- the server's registry of sessions and the one lock guarding them.
 *
 * Writers (the agent link thread, the launcher's reaper, HTTP handlers that
 * change state) and readers (HTTP handlers building JSON) take sessions_lock()
 * for as long as they touch any session; handlers copy what they need into JSON
 * and release it, so a slow client never holds the lock. */
#ifndef JITSCOPE_SESSIONS_H
#define JITSCOPE_SESSIONS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "session.h"

#define SESSIONS_MAX 256

void sessions_lock(void);
void sessions_unlock(void);
/* For a reader that works through a session in steps (the functions query,
 * per-module totals): with the lock held, releases it, lets the threads
 * waiting for it (the link thread's ingest) take their turn, waiting for them
 * at most SESSIONS_LET_IN_NS, and takes it again. Pin the session first. */
#define SESSIONS_LET_IN_NS 5000000
void sessions_let_others_in(void);
/* How many times sessions_let_others_in() ran (tests count it). */
uint64_t sessions_let_in_count(void);
/* Wakes every sessions_wait(): records were applied or a link changed. Caller
 * holds the lock. */
void sessions_changed(void);
/* Releases the lock until sessions_changed() or the CLOCK_MONOTONIC deadline,
 * then holds it again (the way a handler waits for the agent without blocking
 * ingest). 0 when woken (the caller re-checks), -1 at the deadline. */
int sessions_wait(const struct timespec *deadline);

/* Who hears that a session changed (records applied, state changed, a
 * command sent): the live stream's ws_notify, installed by main.c. The
 * listener must be cheap and must not take the sessions lock; it may be called
 * with or without the lock held, from any thread. */
void sessions_set_listener(void (*on_change)(int session_id));
/* Calls the listener, if any, for one session. */
void sessions_notify(int session_id);

/* Creates a session with a fresh random token; when SESSIONS_MAX are kept, the
 * oldest ended one (not the root of a run whose other sessions go on) is
 * forgotten first. NULL when all are in use or out of
 * memory. Caller holds the lock. */
session *sessions_create(int mode, pid_t pid, const char *command_line);
/* A session for another process of root's run (a child of the launched
 * process, or further down): root's mode and token, root_id = root->id. NULL
 * when full or out of memory. Making room never forgets root (an ended root
 * whose run goes on is kept). Caller holds the lock. */
session *sessions_create_child(session *root, pid_t pid, pid_t parent_pid,
                               const char *command_line);
/* The newest session of pid under root_id (not the root itself), or NULL. */
session *sessions_child_by_pid(int root_id, pid_t pid);
/* The session with that id, or NULL. A stored session's content may not be
 * in memory (persist.loaded 0): a request that needs it calls
 * persist_prepare() before taking the lock. */
session *sessions_get(int id);
session *sessions_peek(int id); /* the same (kept for the callers that only list or delete) */
session *sessions_by_token(const char *token, size_t length); /* roots only */
/* The newest session of this server with an agent in pid or coming (starting,
 * live, disconnected, detaching): never one read back from storage. */
session *sessions_by_pid(pid_t pid);
size_t sessions_count(void);
session *sessions_at(size_t index);
/* The liveness sweep (the link thread, every 500 ms; takes the lock): an
 * attached process, or a process of a run other than the launched one, is not
 * our child, so /proc tells when it is gone (no such pid, or a zombie); once
 * its agent link is closed its session becomes EXITED and ended. Sessions
 * that already ended (detached ones too) are not watched. */
void sessions_sweep(void);
/* 1 when s has ended (exited, detached, failed, interrupted; no agent
 * connected) and is not the root of a run that goes on: what a full table or
 * storage's retention may forget. Caller holds the lock. */
int sessions_may_forget(const session *s);
/* Puts a session read back from storage into the registry under its own id
 * (later sessions get higher ids). -1 when the table is full of sessions
 * that may not be forgotten. Caller holds the lock. */
int sessions_adopt(session *s);
/* Forgets a session (a failed attach, a DELETE, or an ended one making room).
 * A pinned session is only taken out of the registry (sessions_get no longer
 * finds it) and freed at its last unpin. */
void sessions_remove(int id);
/* A reader that releases the lock while it works on s (the functions query)
 * pins it first and unpins it after, both with the lock held: meanwhile s is
 * not freed and what session.h promises stable (function positions, interned
 * names) stays valid; everything else is read with the lock held. */
void sessions_pin(session *s);
void sessions_unpin(session *s);
void sessions_free_all(void);

#endif
