/* store.h -- durable sessions in SQLite (--data DIR).
 *
 * The server keeps working from memory; storage follows it. Record folders
 * mark what changed (session_persist, session.h) under the sessions lock, and
 * one writer thread (store_writer.c) copies the changes out in bounded slices
 * under that lock, then writes them in one transaction per tick, outside it,
 * so ingest and the app never wait for the disk. The database is in WAL mode;
 * a round runs at least every STORE_TICK_MS, so a kill -9 of the server
 * loses at most the last round or so (under a second) of what is new. An
 * idle live session costs no write but a "still seen" mark on its row every
 * STORE_SEEN_MS (with the counters the agent's periodic records move); a
 * round with nothing to write commits nothing. A
 * function already written that compiles again (a tier-up) has its row
 * rewritten in a batch, within rewrite_ms (STORE_REWRITE_MS by default), when
 * its session ends, or when the server stops: a kill -9 can lose that long of
 * re-JITs. Rewrites land all over the table, a page each, so one per re-JIT
 * every tick cost a service with 500,000 methods and 10,000 re-JITs/s 0.23
 * cores and 139 MB/s of disk writes (docs/BENCHMARKS.md).
 *
 * At start (store_open) past sessions are listed from their stored summaries
 * without reading their content; a session that was still live when its
 * server died is marked interrupted. The first request that needs one
 * (sessions_get) reads it back (store_load.c), read-only, so every REST
 * route, the stream's replay and the dashboard work on it unchanged.
 *
 * The schema is versioned (PRAGMA user_version) and migrated forward on open
 * (store_schema.c); the file is marked as jitscope's (PRAGMA application_id).
 * A corrupt, foreign, newer, locked or unwritable database is a clear error
 * at open (the caller exits STORE_EXIT_CODE), never an empty list. */
#ifndef JITSCOPE_STORE_H
#define JITSCOPE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

#define STORE_EXIT_CODE 3          /* jitscope's exit code when its data directory is unusable */
#define STORE_TICK_MS 250          /* the writer commits at least this often while busy */
#define STORE_SEEN_MS 5000         /* an idle live session's row says it is alive this often */
#define STORE_SLICE_FUNCTIONS 8192 /* functions copied per hold of the sessions lock */
#define STORE_SLICE_EVENTS 16384   /* events copied per hold of the sessions lock */
#define STORE_SCAN_FUNCTIONS 65536 /* functions looked at for rewrites per hold of the lock */
#define STORE_KEEP_DEFAULT 100     /* sessions kept (--keep) */
#define STORE_KEEP_MAX 200         /* under SESSIONS_MAX, so live sessions find room */

#define STORE_KEEP_EVENTS_MIN 1000u /* --keep-events bounds; the most is EVENTLOG_MAX */
#define STORE_REWRITE_MS 30000u     /* --rewrite-delay's default, in ms */
#define STORE_REWRITE_MAX_S 3600u   /* --rewrite-delay's most, in s */

typedef struct store_options {
    const char *dir;      /* NULL or "none": storage off */
    unsigned keep;        /* ended sessions kept, oldest deleted first (0: the default) */
    unsigned keep_events; /* newest events kept per session (0: EVENTLOG_MAX) */
    unsigned rewrite_ms;  /* longest wait of a written function's rewrite (0: none) */
    unsigned seen_ms;     /* an idle live session's "still seen" mark (0: STORE_SEEN_MS) */
} store_options;

/* What storage is doing, for /api/config, /metrics and the dashboard. */
typedef struct store_stats {
    int enabled;
    char path[512];  /* the database file */
    uint64_t rounds; /* the writer's rounds done (a round with nothing to write commits nothing) */
    uint64_t commits, rows, bytes_replay;
    uint64_t backlog;  /* functions, events and replay bytes to write at the next round */
    uint64_t deferred; /* functions written before and changed again, waiting for their batch */
    unsigned rewrite_delay_ms; /* --rewrite-delay: the longest such a wait (0: none) */
    uint64_t lost;             /* changes that could not be kept (memory, caps, write errors) */
    uint64_t write_errors;
    int64_t last_commit_ns;   /* wall clock */
    uint64_t sessions_stored; /* sessions in the database */
    char last_error[256];
} store_stats;

/* Opens (creating or migrating) DIR/jitscope.db, takes DIR's lock, lists the
 * past sessions into the registry and starts the writer. 0, or -1 with why
 * in err (the caller prints it and exits STORE_EXIT_CODE). */
int store_open(const store_options *o, char *err, size_t errsz);
/* Stops the writer after a last flush of everything, closes the database. */
void store_close(void);
int store_enabled(void);

/* The default data directory: $XDG_STATE_HOME/jitscope, else
 * ~/.local/state/jitscope. -1 when neither is known. */
int store_default_dir(char *out, size_t outsz);

/* Reads a past session's content (caller holds the sessions lock). 0, or -1
 * with why in err (the session stays header-only). */
int store_load(session *s, char *err, size_t errsz);

/* Reads a past session's content without the sessions lock held (the
 * caller does not hold it), so ingest goes on meanwhile: the content is read
 * into a copy and put into the session under the lock. Request handlers call
 * it before they take the lock; sessions_get reads under the lock only when
 * this was not done (or lost a race). */
void store_prepare(int session_id);

/* Deletes a session from the database (asynchronously, by the writer). */
void store_forget(int session_id);

/* The writer should run now (a session ended, a delete). */
void store_kick(void);

void store_get_stats(store_stats *out);

#endif
