/* store_db.h -- what the storage files share among themselves (store.h is the
 * rest of the server's view): the schema, the stored formats, the journal
 * between the appenders and the writer, the writer thread and the reader.
 *
 *   store.c          open/close, the data directory and its lock, stats
 *   store_schema.c   the schema and its migrations
 *   store_journal.c  what waits for the writer, per session (bounded)
 *   store_writer.c   the writer thread: chunks, snapshots, headers, deletes
 *   store_read.c     a session's log back, and the header rows
 *   store_codec.c    checksums and compression of what is stored
 *   store_legacy.c   files of versions 1-3 (rows) converted to logs at open
 */
#ifndef JITSCOPE_STORE_DB_H
#define JITSCOPE_STORE_DB_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store_types.h"

#define STORE_SCHEMA_VERSION 6
#define STORE_APPLICATION_ID 0x4a495453 /* "JITS" */
#define STORE_CHUNK_BYTES (4u << 20)    /* a log chunk's bytes, about (entries are whole) */
#define STORE_PART_BYTES (16u << 20)    /* a snapshot part's bytes before compression, about */
/* Snapshots: level 1 compresses a 16 MiB part of a million realistic functions in
 * 23 ms against level 3's 41 (8.0x against 8.6x; the event log's parts 7.0x
 * against 5.6x), and both unpack at the same speed. */
#define STORE_ZSTD_LEVEL 1
/* Log chunks: written while the app runs, so the fastest level that still
 * packs a JIT storm's frames about 8 times (zstd -1: about 1 GB/s here, 8.3x
 * on a 20,000-method storm's log; level 1 is 8.5x at 12% more time). */
#define STORE_LOG_ZSTD_LEVEL (-1)

/* A log entry as stored: this header, then `length` bytes of whole frames. */
typedef struct store_entry_header {
    uint32_t length;
    uint32_t reserved;
    int64_t now_ns; /* the server's wall clock when the frames arrived */
} store_entry_header;
_Static_assert(sizeof(store_entry_header) == 16, "store_entry_header layout");
#define STORE_ENTRY_MAX (64u << 20) /* longest entry a reader accepts */

/* log.flags */
enum { STORE_CHUNK_BREAK = 1 }; /* bytes of the log were lost just before this chunk */
/* snapshots.kind: the folded state (first, in order), or observation entries */
enum { STORE_SNAPSHOT_STATE = 0, STORE_SNAPSHOT_OBSERVATIONS = 1 };
/* snapshots.codec, and log.codec since version 6 (before it every chunk was raw) */
enum { STORE_CODEC_RAW = 0, STORE_CODEC_ZSTD = 1 };
/* The most a log chunk unpacks to: its entries up to STORE_CHUNK_BYTES, or one
 * longer entry (a reader refuses a chunk that says more: damaged). */
#define STORE_CHUNK_RAW_MAX ((size_t)STORE_CHUNK_BYTES + STORE_ENTRY_MAX + 16u)
/* The same for a snapshot part: its frames or entries up to STORE_PART_BYTES,
 * or one longer entry. */
#define STORE_PART_RAW_MAX ((size_t)STORE_PART_BYTES + STORE_ENTRY_MAX + 16u)

/* ---- store_schema.c ---- */
/* Opens path (creating it), checks that it is jitscope's and not newer than
 * this server, sets WAL and migrates it to `target` (STORE_SCHEMA_VERSION;
 * older versions only in tests). 0, or -1 and why. */
int store_schema_open(const char *path, int target, sqlite3 **out, char *err, size_t errsz);
/* One statement or script, with the error text in err. */
int store_exec(sqlite3 *db, const char *sql, char *err, size_t errsz);
/* A connection's page cache after a use: past STORE_CACHE_MAX it is given
 * back (SQLite keeps as many pages as one transaction or vacuum ever had
 * dirty, and the writer's grew with the sessions it deleted). Its bytes now. */
#define STORE_CACHE_MAX (2u << 20)
size_t store_cache_bound(sqlite3 *db);

/* ---- store_codec.c ---- */
uint64_t store_checksum(const void *bytes, size_t length);
/* Compresses (zstd, with its own content checksum) into a malloc'd buffer. 0 or -1. */
int store_compress(const void *bytes, size_t length, void **out, size_t *out_length);
/* A compressor that keeps its zstd context and its output buffer from one
 * call to the next (the writer's: no allocation, no page faults per chunk). */
typedef struct store_packer {
    void *cx; /* ZSTD_CCtx */
    int level;
    void *out;
    size_t cap;
} store_packer;
/* Packs bytes at p->level (set before the first call); *out points into the
 * packer's buffer, valid until its next call. 0, or -1 (out of memory). */
int store_pack(store_packer *p, const void *bytes, size_t length, const void **out,
               size_t *out_length);
void store_packer_free(store_packer *p);
/* Decompresses what store_compress made, expecting raw_length bytes, into
 * *buf (grown to *cap as needed: one buffer serves every part of a read).
 * 0, or -1 with why. */
int store_decompress(const void *bytes, size_t length, size_t raw_length, void **buf, size_t *cap,
                     const char **why);
/* A log chunk as stored (codec, raw_bytes: its row's) made into its entries:
 * a raw one as it is, a compressed one unpacked into *buf (grown to *cap).
 * *bytes and *length then say where the entries are. 0, or -1 with why. */
int store_chunk_unpack(int codec, int64_t raw_bytes, const uint8_t **bytes, size_t *length,
                       void **buf, size_t *cap, const char **why);
/* The end of the last whole frame of buf[0..length) at or before limit (at
 * least one frame; all of buf when it holds no whole frame). */
size_t store_frames_up_to(const uint8_t *buf, size_t length, size_t limit);
/* Walks the entries of buf[0..length): fn for each (its frames); 0, -1 when
 * an entry does not fit (*why), or fn's non-zero return. */
int store_entries(const uint8_t *buf, size_t length, store_entry_fn fn, void *ctx, int part,
                  const char **why);

/* ---- store_journal.c ---- */
/* One session's work for one writer round, taken out of the journal. */
typedef struct store_work {
    int id;
    uint8_t *log; /* entries to append as chunks (NULL: none) */
    size_t log_length;
    size_t log_cap; /* the bytes log has room for (it may be kept for reuse) */
    size_t cut;     /* with a snapshot: log[0..cut) comes before it, the rest after */
    void *snapshot; /* the folded state (NULL: none) */
    size_t snapshot_length;
    size_t break_at; /* SIZE_MAX, or: entries were lost before log[break_at] */
    int forget;      /* delete the session (everything else is then dropped) */
    int has_header;
    int header_ended;
    int64_t created_ns, ended_ns, updated_ns;
    char *state, *header, *summary;
    uint64_t handed; /* the journal's count for this session when taken */
} store_work;

int store_journal_init(size_t max_bytes);
void store_journal_free(void);
/* Moves every session's pending work into a malloc'd array (*count items),
 * NULL when there is none. */
store_work *store_journal_take(size_t *count);
/* The writer committed (ok) or could not write (not ok) the works taken: ok
 * ones count as synced; failed ones go back to the front of their sessions'
 * queues (or, past the journal's bound, are dropped and break the log). The
 * array and what it still holds are freed. */
void store_journal_done(store_work *works, size_t count, int ok);
/* The bytes of committed log memory kept for the next log (0: none). */
size_t store_journal_spare(void);
/* The journal's backlog, lost and logged bytes into out, read at one time. */
void store_journal_stats(store_stats *out);
/* The writer waits here for work, a kick, or the deadline (ms); 1 when stopping. */
int store_journal_wait(unsigned ms);
void store_journal_stop(void);
void store_journal_free_work(store_work *w);
/* Sessions the journal holds an entry for: those that handed something over
 * and were not deleted (a committed delete takes its session's entry away). */
size_t store_journal_sessions(void);

/* ---- store_writer.c ---- */
int store_writer_start(sqlite3 *db, const store_options *o, char *err, size_t errsz);
void store_writer_stop(void); /* writes everything first */
void store_writer_stats(store_stats *out);

/* ---- store_read.c ---- */
int store_read_log(sqlite3 *db, int session_id, store_entry_fn fn, void *ctx,
                   store_read_report *report, char *err, size_t errsz);
int store_read_headers(sqlite3 *db, store_header_fn fn, void *ctx, char *err, size_t errsz);

/* ---- store_legacy.c ---- */
/* Converts every session a version 1-3 file holds as rows into a snapshot
 * (with its replay log as observations), then drops the old tables. 0, or
 * -1 with why. */
int store_legacy_convert(sqlite3 *db, const store_options *o, char *err, size_t errsz);

#endif
