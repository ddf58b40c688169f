/* test_store_damage.c -- unit tests of damaged storage read back: a
 * damaged log chunk (checksum, unpacked size, unknown codec) ends the read
 * with what came before it served and says where and why; damage in two
 * places is reported whole; snapshot parts come in order, and a damaged or
 * missing part ends the read.
 *
 * The storage fixture (a directory per test, sessions folded from hand-made
 * records and read back) is storefix.h's.
 * Build: make build/tests/test_store_damage && build/tests/test_store_damage
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zstd.h>

#include "check.h"
#include "persist.h"
#include "sessions.h"
#include "store.h"
#include "store_db.h"
#include "storefix.h"

/* A session's log in three rounds committed apart; `damage` (an UPDATE of
 * the log with %lld for a chunk number) is done to round 1's first chunk; the
 * read must end there, say `reason` and where, and serve round 0. */
static void damaged_chunk_ends_the_read(const char *damage, const char *reason)
{
    char path[128], err[512], sql[200];
    session *s;
    long long chunks[3] = {0, 0, 0};
    int id = 0, round;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    for (round = 0; round < 3; round++) { /* each round's records committed apart */
        sessions_lock();
        s = round == 0 ? new_session(SESSION_MODE_RUN, 4242, "dotnet app.dll") : sessions_get(id);
        id = s->id;
        jit_functions(s, 100, 0, 0x7f0000300000ull + (uint64_t)round * 0x100000);
        sessions_unlock();
        CHECK(wait_synced(id), "round %d committed", round);
        chunks[round] = count_rows_of(storefix_dir,
                                      "SELECT max(chunk) FROM log WHERE session_id = %d", id);
    }
    close_store();
    /* the first chunk of round 1's records: everything of round 0 comes before it
     * (however many chunks the writer made of each) */
    snprintf(path, sizeof(path), "%s/jitscope.db", storefix_dir);
    snprintf(sql, sizeof(sql), damage, chunks[0] + 1);
    CHECK(chunks[0] >= 1 && chunks[1] > chunks[0] && exec_sql(path, sql) == 0,
          "chunk %lld (round 1's first) damaged on disk", chunks[0] + 1);
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "opened again");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    snprintf(sql, sizeof(sql), "chunk %lld", chunks[0] + 1);
    CHECK(s && strstr(s->persist.load_error, sql) && strstr(s->persist.load_error, reason) &&
              s->functions_jitted == 100,
          "the read ends at the damage and says where and why (%s), what came before is served "
          "(%zu)",
          s ? s->persist.load_error : "?", s ? s->functions_jitted : 0);
    sessions_unlock();
    close_store();
}

TEST(a_damaged_chunk_ends_the_read)
{
    damaged_chunk_ends_the_read(
        "UPDATE log SET bytes = CAST(zeroblob(length(bytes)) AS BLOB) WHERE chunk = %lld",
        "checksum");
}

/* Log chunks are stored compressed: one whose row says another unpacked size
 * than its bytes unpack to (its checksum, of what is stored, still right) is
 * damaged too, and so is one of a codec this server does not know. */
TEST(a_chunk_that_does_not_unpack_ends_the_read)
{
    damaged_chunk_ends_the_read("UPDATE log SET raw_bytes = raw_bytes + 1 WHERE chunk = %lld",
                                "unpacked size");
}

TEST(a_chunk_of_an_unknown_codec_ends_the_read)
{
    damaged_chunk_ends_the_read("UPDATE log SET codec = 9 WHERE chunk = %lld", "does not know");
}

/* Damage in two places: the read ends at the first (what came before it is
 * served) and the report says all that could not be read: how many chunks
 * of how many, that the later one is damaged too, and the bytes. */
TEST(a_damaged_log_is_reported_whole)
{
    char path[128], err[512], sql[160], count[48];
    session *s;
    long long chunks;
    int id = 0, round;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    for (round = 0; round < 5; round++) { /* five commits: five chunks at least */
        sessions_lock();
        s = round == 0 ? new_session(SESSION_MODE_RUN, 4242, "dotnet app.dll") : sessions_get(id);
        id = s->id;
        jit_functions(s, 100, 0, 0x7f0000300000ull + (uint64_t)round * 0x100000);
        sessions_unlock();
        CHECK(wait_synced(id), "round %d committed", round);
    }
    close_store();
    snprintf(path, sizeof(path), "%s/jitscope.db", storefix_dir);
    /* a round's commit may be cut into two chunks: the first round is in chunk 1 at
     * least, and chunk 2 is never the last (five rounds, five commits) */
    chunks = count_rows(storefix_dir, "SELECT count(*) FROM log");
    snprintf(sql, sizeof(sql),
             "UPDATE log SET bytes = CAST(zeroblob(length(bytes)) AS BLOB) WHERE chunk IN (2, "
             "%lld)",
             chunks);
    CHECK(chunks >= 5 && exec_sql(path, sql) == 0,
          "its second and last chunks zeroed on disk (of %lld)", chunks);
    snprintf(count, sizeof(count), "1 of %lld log chunks", chunks);
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "opened again");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    if (CHECK(s != NULL, "the session")) {
        const session_load_report *r = &s->persist.load_report;
        CHECK(strstr(s->persist.load_error, "chunk 2 is damaged") &&
                  strstr(s->persist.load_error, count) &&
                  strstr(s->persist.load_error, "2 chunks)"),
              "the reason and the rest: %s", s->persist.load_error);
        CHECK(r->failed && r->chunks == (uint64_t)chunks && r->chunks_read == 1 &&
                  r->chunks_damaged == 2 && r->bytes_unread > 0 && r->parts == 0,
              "in numbers: %llu of %llu chunks read, %llu damaged, %llu bytes not read",
              (unsigned long long)r->chunks_read, (unsigned long long)r->chunks,
              (unsigned long long)r->chunks_damaged, (unsigned long long)r->bytes_unread);
        CHECK(s->functions_jitted <= 100, "what came before is served (%zu)", s->functions_jitted);
    }
    sessions_unlock();
    close_store();
}

/* What a snapshot read delivered: its parts' first bytes, in order. */
typedef struct parts_seen {
    int n;
    uint8_t first[16];
} parts_seen;

static int note_part(void *ctx, int part, int64_t now_ns, const uint8_t *bytes, size_t length)
{
    parts_seen *seen = ctx;

    (void)now_ns;
    if (part != STORE_PART_SNAPSHOT || length != 1000 || seen->n >= 16)
        return -1;
    seen->first[seen->n++] = bytes[0];
    return 0;
}

/* A snapshot of `parts` state parts (part i: 1000 bytes of i), written as the
 * writer writes them but for `damage` (an UPDATE, %d for the session), read
 * back by store_read_log; the parts delivered in *seen, its result. */
static int read_snapshot_parts(int parts, const char *damage, parts_seen *seen,
                               store_read_report *rep, char *err, size_t errsz)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    uint8_t raw[1000];
    char sql[200];
    int i, rc = -1;

    memset(seen, 0, sizeof(*seen));
    if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
        sqlite3_exec(db,
                     "CREATE TABLE snapshots (session_id INTEGER, part INTEGER, parts INTEGER,"
                     " kind INTEGER, upto_chunk INTEGER, codec INTEGER, raw_bytes INTEGER,"
                     " bytes BLOB);"
                     "CREATE TABLE log (session_id INTEGER, chunk INTEGER, flags INTEGER,"
                     " bytes BLOB, checksum INTEGER, codec INTEGER, raw_bytes INTEGER);",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO snapshots VALUES (7, ?, ?, 0, 0, 1, 1000, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        goto done;
    for (i = 0; i < parts; i++) {
        void *packed = NULL;
        size_t length = 0;
        memset(raw, i, sizeof(raw));
        if (store_compress(raw, sizeof(raw), &packed, &length) != 0)
            goto done;
        sqlite3_bind_int(st, 1, i);
        sqlite3_bind_int(st, 2, parts);
        sqlite3_bind_blob(st, 3, packed, (int)length, free);
        if (sqlite3_step(st) != SQLITE_DONE || sqlite3_reset(st) != SQLITE_OK)
            goto done;
    }
    snprintf(sql, sizeof(sql), damage ? damage : "SELECT 1", 7);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    rc = store_read_log(db, 7, note_part, seen, rep, err, errsz);
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

/* The start of a zstd frame that says it unpacks to `size` bytes (its
 * header and a block of one byte), into out; its length, 0 on failure. */
static size_t zstd_frame_claiming(uint64_t size, uint8_t *out, size_t cap)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_inBuffer in = {"x", 1, 0};
    ZSTD_outBuffer o = {out, cap, 0};
    size_t rc = c ? ZSTD_CCtx_setPledgedSrcSize(c, size) : 1;

    if (!ZSTD_isError(rc) && c)
        rc = ZSTD_compressStream2(c, &o, &in, ZSTD_e_flush);
    ZSTD_freeCCtx(c);
    return c && !ZSTD_isError(rc) ? o.pos : 0;
}

/* A snapshot of more parts than are unpacked at once is delivered whole and
 * in order; a damaged part, or a missing one, ends the read there (what came
 * before it is delivered), and the parts after it are still counted. */
TEST(snapshot_parts_in_order_and_a_damaged_one_ends_the_read)
{
    store_read_report rep;
    parts_seen seen;
    char err[512];
    int rc, i, ordered = 1;

    rc = read_snapshot_parts(9, NULL, &seen, &rep, err, sizeof(err));
    for (i = 0; i < seen.n; i++)
        ordered &= seen.first[i] == i;
    CHECK(rc == 0 && seen.n == 9 && ordered && rep.parts == 9 && rep.parts_read == 9,
          "nine parts delivered in order (%d: %d, read %u of %u; %s)", rc, seen.n, rep.parts_read,
          rep.parts, err);

    rc = read_snapshot_parts(9,
                             "UPDATE snapshots SET bytes = zeroblob(length(bytes))"
                             " WHERE session_id = %d AND part = 4",
                             &seen, &rep, err, sizeof(err));
    ordered = 1;
    for (i = 0; i < seen.n; i++)
        ordered &= seen.first[i] == i;
    CHECK(rc < 0 && seen.n == 4 && ordered && strstr(err, "part 4") && rep.parts == 9 &&
              rep.parts_read == 4 && rep.parts_damaged == 1 && rep.bytes_unread == 5 * 1000,
          "a damaged part 4 ends the read after parts 0-3 (%d parts; read %u of %u, damaged %u, "
          "%llu bytes unread: %s)",
          seen.n, rep.parts_read, rep.parts, rep.parts_damaged,
          (unsigned long long)rep.bytes_unread, err);

    rc = read_snapshot_parts(9, "DELETE FROM snapshots WHERE session_id = %d AND part = 6", &seen,
                             &rep, err, sizeof(err));
    CHECK(rc < 0 && seen.n == 6 && strstr(err, "lacks part 6") && rep.parts == 9 &&
              rep.parts_read == 6,
          "a missing part 6 ends the read after parts 0-5 (%d parts; read %u of %u: %s)", seen.n,
          rep.parts_read, rep.parts, err);

    { /* a part whose frame and row both say 8 GiB: refused before memory is asked for it */
        uint8_t frame[64];
        char hex[2 * sizeof(frame) + 1] = "", damage[256];
        size_t n = zstd_frame_claiming((uint64_t)8 << 30, frame, sizeof(frame)), k;
        for (k = 0; k < n; k++)
            snprintf(hex + 2 * k, 3, "%02x", frame[k]);
        snprintf(damage, sizeof(damage),
                 "UPDATE snapshots SET bytes = X'%s', raw_bytes = %llu"
                 " WHERE session_id = %%d AND part = 2",
                 hex, 8ull << 30);
        rc = n ? read_snapshot_parts(9, damage, &seen, &rep, err, sizeof(err)) : 0;
        CHECK(rc < 0 && seen.n == 2 && rep.parts_damaged == 1 &&
                  strstr(err, "more than a part can hold"),
              "a part that says it unpacks to 8 GiB ends the read after parts 0-1 (%d parts: %s)",
              seen.n, err);
    }
}

static const check_test tests[] = {
    TEST_ENTRY(a_damaged_chunk_ends_the_read),
    TEST_ENTRY(a_chunk_that_does_not_unpack_ends_the_read),
    TEST_ENTRY(a_chunk_of_an_unknown_codec_ends_the_read),
    TEST_ENTRY(a_damaged_log_is_reported_whole),
    TEST_ENTRY(snapshot_parts_in_order_and_a_damaged_one_ends_the_read),
    TEST_END,
};

/* Each test has a directory of its own for storage, removed after it with
 * whatever the test left open. */
static void setup(void) { CHECK(storefix_setup() == 0, "a directory for storage"); }

int main(int argc, char **argv)
{
    return check_main_each(argc, argv, tests, setup, storefix_teardown);
}
