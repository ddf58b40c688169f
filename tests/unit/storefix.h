/* storefix.h -- the fixture of the test_store_* binaries: storage
 * (server/store*.c) and the sessions' side of it (server/persist.c), each
 * session kept as the log of what its agent sent, folded again when read back.
 *
 * Each test has a storage directory of its own (storefix_setup, before it),
 * removed after it with whatever the test left open (storefix_teardown).
 * Sessions are folded from hand-made records (records.h) through the same
 * path as the link's: framed, decoded, folded, logged; a second open reads
 * them back, and content() is what the views serve of one, to compare. The
 * database file itself is looked at with SQLite (count_rows, exec_sql).
 * Nothing here checks: the tests say what a result means.
 */
#ifndef JITSCOPE_TEST_STOREFIX_H
#define JITSCOPE_TEST_STOREFIX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "session.h"

#define MID 0x7f0000200000ull /* the module every function here belongs to */

extern char storefix_dir[64]; /* the running test's storage directory */
/* open_with's compaction bound: 1 (storefix_setup) compacts every ended
 * session, what most tests are about; 0 is the server's default
 * (PERSIST_COMPACT_MIN) */
extern size_t storefix_compact_min;

/* A new storage directory for the test (0), or -1; its compaction bound 1. */
int storefix_setup(void);
/* Storage closed, the budget unbounded, the directory removed. */
void storefix_teardown(void);
/* Removes a storage directory and the files storage makes in it. */
void remove_dir(const char *dir);

/* persist_open on dir with --keep, --keep-events and a journal bound (0: the
 * defaults), sessions unloaded 1 ms after they could be; 0 or -1 (err). */
int open_with(const char *dir, unsigned keep, unsigned keep_events, size_t journal, char *err,
              size_t size);
int open_store(const char *dir, char *err, size_t size); /* open_with the defaults */
/* As a server stops: the last word, then every session forgotten (the next
 * open reads them back from the file). */
void close_store(void);
/* Waits (at most 20 s) until storage has committed all it was given for id;
 * 1 when it has. */
int wait_synced(int id);

/* A new session, its hello folded and logged. Caller holds the lock. */
session *new_session(int mode, pid_t pid, const char *command);
/* n functions named and JITed in s (fids from base, 16 apart), the first
 * `rejits` compiled twice. Lock held. */
void jit_functions(session *s, unsigned n, unsigned rejits, uint64_t base);
/* A new session of `functions` functions (jit_functions), its records handed
 * to storage; its id. Takes the lock. */
int stored_session(const char *command, unsigned functions, unsigned rejits);
/* The session ends as a launched app does: exit code, link lost. Lock held. */
void end_session(session *s);
/* What the views serve of s's content (its own fields left out), as JSON
 * text the caller frees. Lock held. */
char *content(session *s);
/* A session made by stored_session, then ended; its content as served before
 * storage touched it (in *s the session). Takes the lock. */
char *stored_and_ended(unsigned functions, unsigned rejits, session **s);
/* An ended session of `functions` functions (`rejits` of them compiled again)
 * beside a live one of `live_functions`, made in the registry; the ended
 * one's content as served before storage touched it. Lock held. */
char *ended_and_live(unsigned functions, unsigned rejits, int live_mode, unsigned live_functions,
                     session **ended, session **live);
/* Session id's content, read back first if it is not in memory; NULL if none. */
char *content_of(int id);
/* 1 when a and b are the same text; else 0, the first difference printed. */
int same_text(const char *a, const char *b);

/* Three threads, one after another, on ThreadID 0x1000 (the runtime reuses
 * them), each named before it starts and compiling one method; a stack
 * snapshot while the second runs. Lock held. */
void three_threads_on_one_id(session *s);
/* What a session read back must say of those three threads; 1 when it does. */
int three_threads_read_back(session *s);

/* One number a query of the database file in `dir` answers, or -1. */
long long count_rows(const char *dir, const char *sql);
/* count_rows with the session's id put into sql (one %d). */
long long count_rows_of(const char *dir, const char *sql, int id);
/* Runs sql on the SQLite file at path; 0 or -1. */
int exec_sql(const char *path, const char *sql);
/* The size of dir/name, 0 when there is none. */
off_t file_size(const char *dir, const char *name);
/* The disk is full: no file of this process may grow past the database's
 * files as they are (SIGXFSZ ignored: a write fails instead); *unlimited is
 * the limit to set back (setrlimit RLIMIT_FSIZE) for room again. */
void disk_full(struct rlimit *unlimited);

#endif
