/* test_store_compact.c -- unit tests of what storage writes of an ended
 * session and what its writer keeps: a short ended session stays its log
 * (compressed, no snapshot), a long one is compacted into a snapshot, both
 * read back the same; an idle session writes nothing; sessions deleted by
 * --keep leave the writer's journal; the writer's page cache stays bounded.
 *
 * The storage fixture (a directory per test, sessions folded from hand-made
 * records and read back) is storefix.h's.
 * Build: make build/tests/test_store_compact && build/tests/test_store_compact
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "records.h"
#include "persist.h"
#include "sessions.h"
#include "store.h"
#include "store_db.h"
#include "storefix.h"

/* With the default bound (PERSIST_COMPACT_MIN) a short ended session is not
 * compacted: no snapshot is written, its log stays, compressed, under 100
 * bytes a function on disk; it leaves memory and comes back the same from
 * its log, and so after a restart. */
TEST(a_short_ended_session_stays_its_log)
{
    char err[512], *before, *after;
    session *s;
    long long stored, raw;
    int id;

    storefix_compact_min = 0;
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open (unload after 1 ms): %s", err);
    before = stored_and_ended(3000, 200, &s);
    id = s->id;
    persist_sweep(); /* its header: ended */
    CHECK(wait_synced(id), "its log and header committed");
    sessions_lock();
    CHECK(s->persist.snapshotted && s->persist.snapshot_bytes == 0, "settled without a snapshot");
    sessions_unlock();
    stored = count_rows_of(storefix_dir, "SELECT sum(length(bytes)) FROM log WHERE session_id = %d",
                           id);
    raw = count_rows_of(storefix_dir, "SELECT sum(raw_bytes) FROM log WHERE session_id = %d", id);
    CHECK(count_rows_of(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d", id) ==
                  0 &&
              count_rows_of(storefix_dir,
                            "SELECT count(*) FROM log WHERE session_id = %d AND codec = 1",
                            id) >= 1,
          "no snapshot; its log compressed");
    CHECK(stored > 0 && stored * 3 < raw && stored < 3000 * 100,
          "under 100 bytes a function, names included, a third of what came or less (%lld of %lld)",
          stored, raw);
    usleep(2000);
    persist_sweep(); /* nobody asked for it since */
    sessions_lock();
    CHECK(!sessions_get(id)->persist.loaded, "its content left memory");
    sessions_unlock();
    after = content_of(id);
    CHECK(same_text(before, after), "read back from its log when asked: the same");
    free(after);
    close_store();
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "opened again: %s", err);
    after = content_of(id);
    sessions_lock();
    CHECK(same_text(before, after) && sessions_get(id)->persist.load_error[0] == '\0',
          "and after a restart, without a load error");
    sessions_unlock();
    free(before), free(after);
    close_store();
}

/* An ended session whose log passed the bound is compacted; one under it is
 * not; both read back the same. */
TEST(a_long_ended_log_is_compacted)
{
    char err[512], *before[2], *after[2];
    int id[2], k;

    storefix_compact_min = 200 * 1024; /* about 1,000 of these functions' records */
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    id[0] = stored_session("dotnet short.dll", 100, 0);
    id[1] = stored_session("dotnet long.dll", 3000, 0);
    sessions_lock();
    for (k = 0; k < 2; k++) {
        end_session(sessions_get(id[k]));
        before[k] = content(sessions_get(id[k]));
    }
    sessions_unlock();
    persist_sweep();
    CHECK(wait_synced(id[0]) && wait_synced(id[1]), "committed");
    CHECK(count_rows_of(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d",
                        id[0]) == 0,
          "the short log stays a log");
    CHECK(count_rows_of(storefix_dir, "SELECT count(*) FROM snapshots WHERE session_id = %d",
                        id[1]) >= 1 &&
              count_rows_of(storefix_dir, "SELECT count(*) FROM log WHERE session_id = %d",
                            id[1]) == 0,
          "the long one is a snapshot, its log compacted away");
    close_store();
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "opened again: %s", err);
    for (k = 0; k < 2; k++) {
        after[k] = content_of(id[k]);
        CHECK(same_text(before[k], after[k]), "session %d reads back the same", id[k]);
        free(before[k]), free(after[k]);
    }
    close_store();
}

TEST(an_idle_session_writes_nothing)
{
    char err[512];
    store_stats a, b;
    int id, i;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    id = stored_session("dotnet app.dll", 10, 0);
    persist_sweep();
    CHECK(wait_synced(id), "caught up");
    store_get_stats(&a);
    for (i = 0; i < 3; i++) {
        persist_sweep();
        usleep(300 * 1000); /* more than a round */
    }
    store_get_stats(&b);
    CHECK(b.commits == a.commits && b.rounds > a.rounds,
          "rounds go by (%llu), nothing is committed (%llu then %llu)",
          (unsigned long long)(b.rounds - a.rounds), (unsigned long long)a.commits,
          (unsigned long long)b.commits);
    close_store();
}

/* Sessions deleted by --keep leave the writer's journal once their delete is
 * committed: the writer is not handed them again, so rounds go by with
 * nothing committed, and the journal holds only the session kept. (Before,
 * every deleted session stayed in it and was deleted again at every round,
 * a server's whole life long: a soak of 1,000 attach/detach cycles had the
 * writer run 2,700 deletes every 250 ms at the end.) */
TEST(deleted_sessions_leave_the_journal)
{
    char err[512];
    store_stats a, b;
    int i, ids[3];

    CHECK(open_with(storefix_dir, 1, 0, 0, err, sizeof(err)) == 0, "open with --keep 1: %s", err);
    for (i = 0; i < 3; i++) {
        ids[i] = stored_session("dotnet app.dll", 10, 0);
        sessions_lock();
        end_session(sessions_get(ids[i]));
        sessions_unlock();
        persist_sweep(); /* its snapshot; the older ones past --keep deleted */
    }
    CHECK(wait_synced(ids[0]) && wait_synced(ids[1]) && wait_synced(ids[2]),
          "the deletes and the newest's snapshot committed");
    CHECK(count_rows(storefix_dir, "SELECT count(*) FROM sessions") == 1,
          "one session in the file");
    CHECK(store_journal_sessions() == 1, "the journal holds the kept session only (%zu)",
          store_journal_sessions());
    store_get_stats(&a);
    for (i = 0; i < 2000; i++) { /* at most 20 s for three rounds */
        store_get_stats(&b);
        if (b.rounds >= a.rounds + 3)
            break;
        usleep(10000);
    }
    CHECK(b.rounds >= a.rounds + 3 && b.commits == a.commits,
          "%llu rounds go by, none commits (%llu commits then %llu)",
          (unsigned long long)(b.rounds - a.rounds), (unsigned long long)a.commits,
          (unsigned long long)b.commits);
    close_store();
}

/* n functions whose names are 64 hex digits of a pseudo-random sequence:
 * text zstd packs to about half, so their log and snapshot are megabytes
 * on disk. Lock held. */
static void jit_random_names(session *s, unsigned n)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    char text[80];
    unsigned i, k;

    rec_feed(s, rec_module_loaded(MID, "/app/App.dll", "App", 0, REC_MONO + 2));
    for (i = 0; i < n; i++) {
        uint64_t fid = 0x7f0000300000ull + (uint64_t)i * 16;
        for (k = 0; k < 4; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            snprintf(text + k * 16, sizeof(text) - k * 16, "%016llx", (unsigned long long)x);
        }
        rec_feed(s, rec_function_name(fid, MID, text, 0));
        rec_feed(s,
                 rec_jit_finished(fid, 0, 0x7f0000900000ull + i * 64, 64, REC_MONO + 105 + i, 0));
    }
}

/* The writer's page cache stays within STORE_CACHE_MAX after a round that
 * had far more pages dirty (a session's megabytes of log, compacted into a
 * snapshot, then deleted by --keep and vacuumed away): SQLite keeps every
 * page one transaction had until it is told to give them back, so the
 * writer's cache grew with the largest session it ever wrote or deleted. */
TEST(the_writer_page_cache_stays_bounded)
{
    char err[512];
    store_stats st;
    session *s;
    int ids[2];

    CHECK(open_with(storefix_dir, 1, 0, 0, err, sizeof(err)) == 0, "open with --keep 1: %s", err);
    sessions_lock();
    s = new_session(SESSION_MODE_RUN, 4242, "dotnet big.dll");
    ids[0] = s->id;
    jit_random_names(s, 60000);
    end_session(s);
    sessions_unlock();
    persist_sweep(); /* its snapshot, in the round that deletes its log */
    CHECK(wait_synced(ids[0]), "its snapshot committed");
    ids[1] = stored_session("dotnet small.dll", 10, 0);
    sessions_lock();
    end_session(sessions_get(ids[1]));
    sessions_unlock();
    persist_sweep(); /* --keep 1: the big one is deleted */
    CHECK(wait_synced(ids[0]) && wait_synced(ids[1]), "the delete committed");
    store_get_stats(&st);
    CHECK(st.bytes_written > 2 * STORE_CACHE_MAX,
          "the rounds wrote %llu bytes, more than the cache may keep",
          (unsigned long long)st.bytes_written);
    CHECK(st.cache_bytes > 0 && st.cache_bytes <= STORE_CACHE_MAX,
          "the writer's page cache after them: %llu bytes (at most %u)",
          (unsigned long long)st.cache_bytes, STORE_CACHE_MAX);
    close_store();
}

static const check_test tests[] = {
    TEST_ENTRY(a_short_ended_session_stays_its_log), TEST_ENTRY(a_long_ended_log_is_compacted),
    TEST_ENTRY(an_idle_session_writes_nothing),      TEST_ENTRY(deleted_sessions_leave_the_journal),
    TEST_ENTRY(the_writer_page_cache_stays_bounded), TEST_END,
};

/* Each test has a directory of its own for storage, removed after it with
 * whatever the test left open. */
static void setup(void) { CHECK(storefix_setup() == 0, "a directory for storage"); }

int main(int argc, char **argv)
{
    return check_main_each(argc, argv, tests, setup, storefix_teardown);
}
