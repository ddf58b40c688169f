/* store_read.c -- a session's log read back, and the header rows (see store.h).
 *
 * A session's content is its newest snapshot (part 0: the folded state; parts
 * 1..n: the observation entries kept beside it), then its log chunks after
 * the snapshot's cut, in order. Every part and chunk is checked (zstd's own
 * checksum, and a chunk's XXH3 of what is stored) before anything in it is
 * delivered; the
 * first one that fails, a chunk marked as following a loss, or a gap in the
 * chunk numbers ends the read with the reason, after everything before it.
 * Runs on the caller's thread with storage's reading connection, never with
 * the sessions lock held (store.c). */
#include "store_db.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

static int read_statement(sqlite3 *db, const char *sql, int session_id, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return -1;
    if (session_id)
        sqlite3_bind_int(*st, 1, session_id);
    return 0;
}

/* Parts unpacked ahead of the one being folded, each on a thread of its own
 * (zstd is about half of reading a big snapshot back): with two, both cores
 * stay busy while the fold waits for a part (docs/STORAGE.md). */
#define READ_AHEAD 2

/* One snapshot part on its way: its row's fields, a copy of its stored bytes,
 * and what unpacking them gave. READ_AHEAD + 1 take turns, so that the next
 * parts are unpacked while one is folded. */
typedef struct read_part {
    int part, codec, parts, kind;
    uint64_t upto;
    size_t raw_length;
    void *stored; /* the row's blob, copied: SQLite's pointer dies at the next step */
    size_t stored_length, stored_cap;
    void *raw; /* unpacked */
    size_t raw_cap;
    int damaged;
    const char *why;
    pthread_t thread;
    int threaded; /* a thread unpacks it: join before reading the result */
} read_part;

static void read_part_unpack(read_part *p)
{
    p->why = NULL;
    if (p->raw_length > STORE_PART_RAW_MAX) {
        p->why = "says it unpacks to more than a part can hold";
        p->damaged = 1;
        return;
    }
    p->damaged = p->codec != STORE_CODEC_ZSTD ||
                 store_decompress(p->stored, p->stored_length, p->raw_length, &p->raw, &p->raw_cap,
                                  &p->why) != 0;
}

static void *read_part_thread(void *arg)
{
    read_part_unpack(arg);
    return NULL;
}

/* Takes the current row into p and starts unpacking it (on a thread; here
 * when no thread can be had). -1 when memory for the copy ran out. */
static int read_part_begin(read_part *p, sqlite3_stmt *st)
{
    const void *bytes = sqlite3_column_blob(st, 4);
    size_t length = (size_t)sqlite3_column_bytes(st, 4);

    p->part = sqlite3_column_int(st, 0);
    p->upto = (uint64_t)sqlite3_column_int64(st, 1);
    p->codec = sqlite3_column_int(st, 2);
    p->raw_length = (size_t)sqlite3_column_int64(st, 3);
    p->parts = sqlite3_column_int(st, 5);
    p->kind = sqlite3_column_int(st, 6);
    if (grow_reserve(&p->stored, &p->stored_cap, length, 1, 1u << 16, SIZE_MAX, GROW_KEEP) != 0)
        return -1;
    if (length)
        memcpy(p->stored, bytes, length);
    p->stored_length = length;
    p->threaded = pthread_create(&p->thread, NULL, read_part_thread, p) == 0;
    if (!p->threaded)
        read_part_unpack(p);
    return 0;
}

static void read_part_wait(read_part *p)
{
    if (p->threaded)
        pthread_join(p->thread, NULL);
    p->threaded = 0;
}

/* Delivers one unpacked part in order, or only counts it after a failure. */
static int read_part_deliver(read_part *p, store_entry_fn fn, void *ctx, uint64_t *upto,
                             int *expect, int *parts, int rc, store_read_report *rep, char *err,
                             size_t errsz)
{
    const char *why = NULL;

    rep->parts++;
    if (rc != 0 || p->part != *expect) { /* past the failure, or a part missing: looked at only */
        if (rc == 0) {
            snprintf(err, errsz, "its snapshot lacks part %d", *expect);
            rc = -1;
        }
        rep->parts_damaged += p->damaged;
        rep->bytes_unread += p->raw_length;
        return rc;
    }
    (*expect)++;
    *upto = p->upto;
    *parts = p->parts;
    if (p->damaged) {
        snprintf(err, errsz, "its snapshot's part %d: %s", p->part,
                 p->why ? p->why : "stored in a way this server does not know");
        rep->parts_damaged++;
        rep->bytes_unread += p->raw_length;
        return -1;
    }
    if (p->kind == STORE_SNAPSHOT_STATE)
        rc = fn(ctx, STORE_PART_SNAPSHOT, 0, p->raw, p->raw_length);
    else if ((rc = store_entries(p->raw, p->raw_length, fn, ctx, STORE_PART_OBSERVATION, &why)) <
                 0 &&
             why)
        snprintf(err, errsz, "its snapshot's part %d: %s", p->part, why);
    if (rc == 0)
        rep->parts_read++;
    else
        rep->bytes_unread += p->raw_length;
    return rc;
}

/* The snapshot's parts, in order; *upto is the last chunk it covers (0: none).
 * After a failure (rc != 0, err says it) the remaining parts are still
 * looked at, never delivered: rep counts them, and those that are damaged.
 * Parts n + 1 .. n + READ_AHEAD are unpacked while part n is delivered. */
static int read_snapshot(sqlite3 *db, int session_id, store_entry_fn fn, void *ctx, uint64_t *upto,
                         store_read_report *rep, char *err, size_t errsz)
{
    sqlite3_stmt *st = NULL;
    int rc = 0, step, expect = 0, parts = 0, oldest = 0, pending = 0, out_of_memory = 0, i;
    read_part ring[READ_AHEAD + 1];

    *upto = 0;
    memset(ring, 0, sizeof(ring));
    if (read_statement(
            db,
            "SELECT part, upto_chunk, codec, raw_bytes, bytes, parts, kind FROM snapshots"
            " WHERE session_id = ? ORDER BY part",
            session_id, &st) != 0) {
        snprintf(err, errsz, "reading its snapshot: %s", sqlite3_errmsg(db));
        return -1;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (pending == READ_AHEAD + 1) { /* every slot busy: the oldest part goes first */
            read_part_wait(&ring[oldest]);
            rc = read_part_deliver(&ring[oldest], fn, ctx, upto, &expect, &parts, rc, rep, err,
                                   errsz);
            oldest = (oldest + 1) % (READ_AHEAD + 1);
            pending--;
        }
        if (read_part_begin(&ring[(oldest + pending) % (READ_AHEAD + 1)], st) != 0) {
            out_of_memory = 1;
            break;
        }
        pending++;
    }
    for (; pending > 0; pending--, oldest = (oldest + 1) % (READ_AHEAD + 1)) {
        read_part_wait(&ring[oldest]);
        rc = read_part_deliver(&ring[oldest], fn, ctx, upto, &expect, &parts, rc, rep, err, errsz);
    }
    if (out_of_memory && rc == 0) {
        snprintf(err, errsz, "reading its snapshot: out of memory");
        rc = -1;
    }
    for (i = 0; i < READ_AHEAD + 1; i++) {
        free(ring[i].stored);
        free(ring[i].raw);
    }
    if (rc == 0 && step != SQLITE_DONE) {
        snprintf(err, errsz, "reading its snapshot: %s", sqlite3_errmsg(db));
        rc = -1;
    }
    if (rc == 0 && expect != parts) {
        snprintf(err, errsz, "its snapshot has %d of its %d parts", expect, parts);
        rc = -1;
    }
    if (parts > (int)rep->parts) /* parts that are not there at all */
        rep->parts = (uint32_t)parts;
    sqlite3_finalize(st);
    return rc;
}

/* After the read stopped: what it could not read, said after the reason. */
static void read_say_rest(const store_read_report *rep, char *err, size_t errsz)
{
    size_t used = strlen(err);

    if (used >= errsz - 1)
        return;
    snprintf(err + used, errsz - used,
             "; read: %u of %u snapshot parts, %llu of %llu log chunks; not read: %llu KiB"
             " (damaged: %u parts, %llu chunks)",
             rep->parts_read, rep->parts, (unsigned long long)rep->chunks_read,
             (unsigned long long)rep->chunks, (unsigned long long)(rep->bytes_unread >> 10),
             rep->parts_damaged, (unsigned long long)rep->chunks_damaged);
}

int store_read_log(sqlite3 *db, int session_id, store_entry_fn fn, void *ctx,
                   store_read_report *rep, char *err, size_t errsz)
{
    sqlite3_stmt *st = NULL;
    uint64_t upto, expect;
    void *raw = NULL; /* one buffer for every compressed chunk */
    size_t cap = 0;
    int rc, step;

    err[0] = '\0';
    memset(rep, 0, sizeof(*rep));
    rc = read_snapshot(db, session_id, fn, ctx, &upto, rep, err, errsz);
    if (rc > 0)
        return rc; /* fn stopped it */
    if (read_statement(db,
                       "SELECT chunk, flags, bytes, checksum, codec, raw_bytes FROM log"
                       " WHERE session_id = ? AND chunk > ? ORDER BY chunk",
                       session_id, &st) != 0) {
        snprintf(err, errsz, "reading its log: %s", sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(st, 2, (sqlite3_int64)upto);
    expect = upto + 1;
    /* after a failure (the snapshot's, or a chunk's) the rest is looked at only */
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        uint64_t chunk = (uint64_t)sqlite3_column_int64(st, 0);
        int flags = sqlite3_column_int(st, 1);
        const uint8_t *bytes = sqlite3_column_blob(st, 2);
        size_t length = (size_t)sqlite3_column_bytes(st, 2);
        int damaged = (uint64_t)sqlite3_column_int64(st, 3) != store_checksum(bytes, length);
        const char *why = NULL;
        rep->chunks++;
        rep->chunks_damaged += damaged;
        if (rc != 0) {
            rep->bytes_unread += length;
            continue;
        }
        if (chunk != expect) {
            snprintf(err, errsz, "its log lacks chunk %llu: what came after it is not served",
                     (unsigned long long)expect);
            rc = -1;
        } else if (flags & STORE_CHUNK_BREAK) {
            snprintf(err, errsz,
                     "its log was broken at chunk %llu (the server could not keep up with "
                     "storage, or the disk was full): what came after it is not served",
                     (unsigned long long)chunk);
            rc = -1;
        } else if (damaged) {
            snprintf(err, errsz,
                     "its log's chunk %llu is damaged (checksum): what came after "
                     "it is not served",
                     (unsigned long long)chunk);
            rc = -1;
        } else if (store_chunk_unpack(sqlite3_column_int(st, 4), sqlite3_column_int64(st, 5),
                                      &bytes, &length, &raw, &cap, &why) != 0) {
            snprintf(err, errsz, "its log's chunk %llu: %s: what came after it is not served",
                     (unsigned long long)chunk, why);
            rep->chunks_damaged++;
            rc = -1;
        } else if ((rc = store_entries(bytes, length, fn, ctx, STORE_PART_LOG, &why)) != 0) {
            if (rc < 0 && why)
                snprintf(err, errsz, "its log's chunk %llu: %s", (unsigned long long)chunk, why);
        } else {
            rep->chunks_read++;
            expect++;
            continue;
        }
        rep->bytes_unread += length;
        if (rc > 0)
            break; /* fn stopped it: nothing to say */
    }
    if (rc == 0 && step != SQLITE_DONE) {
        snprintf(err, errsz, "reading its log: %s", sqlite3_errmsg(db));
        rc = -1;
    }
    sqlite3_finalize(st);
    free(raw);
    if (rc < 0)
        read_say_rest(rep, err, errsz);
    return rc;
}

int store_read_headers(sqlite3 *db, store_header_fn fn, void *ctx, char *err, size_t errsz)
{
    sqlite3_stmt *st = NULL;
    int rc = 0, step;

    if (read_statement(db,
                       "SELECT id, state, header, summary, created_ns, ended_ns, updated_ns,"
                       " EXISTS (SELECT 1 FROM log WHERE session_id = id) OR"
                       " EXISTS (SELECT 1 FROM snapshots WHERE session_id = id)"
                       " FROM sessions ORDER BY id",
                       0, &st) != 0) {
        snprintf(err, errsz, "listing sessions: %s", sqlite3_errmsg(db));
        return -1;
    }
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        store_header h = {
            .id = sqlite3_column_int(st, 0),
            .state = (const char *)sqlite3_column_text(st, 1),
            .header = (const char *)sqlite3_column_text(st, 2),
            .summary = (const char *)sqlite3_column_text(st, 3),
            .created_ns = sqlite3_column_int64(st, 4),
            .ended_ns = sqlite3_column_int64(st, 5),
            .updated_ns = sqlite3_column_int64(st, 6),
            .has_log = sqlite3_column_int(st, 7),
        };
        if (h.state && h.header && h.summary)
            rc = fn(ctx, &h);
    }
    if (rc == 0 && step != SQLITE_DONE) {
        snprintf(err, errsz, "listing sessions: %s", sqlite3_errmsg(db));
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}
