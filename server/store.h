/* store.h -- durable sessions in SQLite (--data DIR): each session's log.
 *
 * What an agent sends is the truth; what the server shows is a fold of it.
 * So storage keeps, per session, the log of what arrived: entries of frames
 * (the agent's, and the few the server writes itself, logrec.h) with the
 * server's clock at arrival, appended in chunks (zstd-compressed at a fast
 * level) by one writer thread and committed at least every STORE_TICK_MS in
 * WAL mode. Reading a session back
 * is folding its log again with the code that folds a live agent. A prefix of
 * a log is always a consistent state, so a kill -9 loses only the tail that
 * was not committed, never a hole in the middle.
 *
 * A long log is slow to fold, so it is compacted (the caller decides when;
 * a short one is about as small as its snapshot would be): the caller hands
 * over a snapshot of the session's folded state (snapshot.h) taken right after
 * the entries it has appended so far; the writer stores it, with the log's
 * observation frames (those the caller's `observation` predicate names: the
 * records behind stack snapshots, profiles and the GC timeline, which are
 * folded again rather than snapshotted), compressed, in place of the chunks it
 * covers. Reading back is then: restore the snapshot, fold its observations,
 * fold the chunks after it.
 *
 * Each session also has a header row: its own fields (state, pid, command
 * line...: JSON the caller makes) and its list entry, so the session list is
 * read without reading any log.
 *
 * Storage knows nothing of sessions beyond ids, bytes and the JSON texts it is
 * given; the registry calls it, never the other way round. The one exception
 * is the conversion of files of versions 1-3 at open (store_legacy.c): it
 * reads their rows into a private session (session_new, the session's table
 * appends, session_header.h) and stores it as a snapshot (snapshot_encode),
 * before the writer starts; it never calls the registry or persist. Appends never
 * block on the disk: they are copied into a bounded journal (store_journal.c)
 * under storage's own mutex, which may be taken inside the sessions lock;
 * storage never takes the sessions lock, and SQLite runs only in the writer
 * thread and in store_read/store_list, which callers must not call with the
 * sessions lock held. When the journal is full (the disk is slow or full),
 * entries are dropped and counted, the session's log is marked broken there
 * (a read stops at the break and says so) until the caller's next snapshot,
 * which makes the log whole again.
 *
 * The schema is versioned (PRAGMA user_version) and migrated forward on open;
 * files of versions 1-3 (a table per kind of row) are converted to logs at
 * open (store_legacy.c). The file is marked as jitscope's (application_id).
 * A corrupt, foreign, newer, locked or unwritable database is a clear error
 * at open (the caller exits STORE_EXIT_CODE), never an empty list.
 */
#ifndef JITSCOPE_STORE_H
#define JITSCOPE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "store_types.h"

/* Opens (creating or migrating) DIR/jitscope.db, takes DIR's lock and starts
 * the writer. 0, or -1 with why in err (the caller prints it and exits
 * STORE_EXIT_CODE). The legacy conversion needs the session model: it runs
 * here, before the writer starts. */
int store_open(const store_options *o, char *err, size_t errsz);
/* Stops the writer after writing everything handed over, closes the database. */
void store_close(void);
int store_enabled(void);

/* The default data directory: $XDG_STATE_HOME/jitscope, else
 * ~/.local/state/jitscope. -1 when neither is known. */
int store_default_dir(char *out, size_t outsz);

/* Every stored session's header row, oldest first. 0, or -1 with why. */
int store_list(store_header_fn fn, void *ctx, char *err, size_t errsz);

/* Appends one entry to a session's log: frames (each whole) received at
 * now_ns. Copied; never waits for the disk. Returns the bytes it now takes
 * waiting for the writer (0: not kept). */
size_t store_append(int session_id, int64_t now_ns, const void *frames, size_t length);
/* A snapshot of the session's folded state after every entry appended so far
 * (the caller appends and snapshots under one lock, so the cut is exact).
 * Takes over `state` (malloc'd) whether or not it is kept; returns the bytes
 * it takes waiting for the writer (0: not kept). */
size_t store_snapshot(int session_id, void *state, size_t length);
/* The bytes of the session's log and snapshot that wait for the writer or
 * are being written (what the memory budget counts of storage, budget.h). */
size_t store_unwritten(int session_id);
/* The session's header row, written at the writer's next round (copied). */
void store_put_header(const store_header *h);
/* Deletes a session (its header and log) at the writer's next round. */
void store_forget(int session_id);
/* The writer should run now (a session ended, a delete, a test). */
void store_kick(void);
/* 1 when everything handed over for this session so far is committed and its
 * log has no break (what may be unloaded from memory and read back). */
int store_synced(int session_id);
/* 1 when the session's log has a break a snapshot has not yet healed. */
int store_broken(int session_id);

/* Reading a session back: fn is called for each part in order: the snapshot
 * state (kind STORE_PART_SNAPSHOT, now_ns 0), then every observation entry
 * kept beside it (STORE_PART_OBSERVATION), then every log entry after it
 * (STORE_PART_LOG). A non-zero return from fn stops the read (returned). A
 * damaged chunk or snapshot ends the read there: -1 with why in err (what
 * came before it was delivered), and the rest is still looked at (never
 * delivered) so that *report says all that could not be read and err ends
 * with it ("; read: 3 of 3 snapshot parts, 1 of 4 log chunks; not read: ..."). */
int store_read(int session_id, store_entry_fn fn, void *ctx, store_read_report *report, char *err,
               size_t errsz);

void store_get_stats(store_stats *out);

#endif
