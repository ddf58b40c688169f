/* test_store_room.c -- unit tests of storage when room runs out: a
 * journal too small for the load breaks the log (the read stops there and
 * says so) until a snapshot heals it; a disk that fills up (RLIMIT_FSIZE) is
 * retried and nothing is lost; what waits for the writer counts in the memory
 * budget, and an ended session's snapshot waits while it would not fit; a
 * committed log's memory is kept for the next log (no fresh pages for every
 * round) and let go in a round that needs much less.
 *
 * The storage fixture (a directory per test, sessions folded from hand-made
 * records and read back) is storefix.h's.
 * Build: make build/tests/test_store_room && build/tests/test_store_room
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "check.h"
#include "records.h"
#include "persist.h"
#include "sessions.h"
#include "store.h"
#include "store_db.h"
#include "storefix.h"

TEST(a_full_journal_breaks_the_log_until_a_snapshot)
{
    char err[512];
    store_stats st;
    session *s;
    int id;

    CHECK(open_with(storefix_dir, 0, 0, 16 * 1024, err, sizeof(err)) == 0,
          "open with a 16 KiB journal");
    id = stored_session("dotnet app.dll", 3000, 0);
    store_get_stats(&st);
    CHECK(st.lost > 0 && store_broken(id),
          "entries dropped and counted (%llu bytes), the log broken", (unsigned long long)st.lost);
    close_store(); /* no sweep: no snapshot */
    CHECK(open_with(storefix_dir, 0, 0, 16 * 1024, err, sizeof(err)) == 0, "opened again");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && strstr(s->persist.load_error, "broken") && s->functions_jitted < 3000,
          "the read stops at the break and says so (%s; %zu functions before it)",
          s ? s->persist.load_error : "?", s ? s->functions_jitted : 0);
    sessions_unlock();
    close_store();

    CHECK(open_with(storefix_dir, 0, 0, 16 * 1024, err, sizeof(err)) == 0,
          "and again, for a new session");
    sessions_lock();
    s = new_session(SESSION_MODE_RUN, 4243, "dotnet app.dll");
    id = s->id;
    jit_functions(s, 3000, 0, 0x7f0000300000ull);
    sessions_unlock();
    CHECK(store_broken(id), "broken again");
    persist_sweep(); /* a broken log: a snapshot of what memory holds */
    CHECK(wait_synced(id) && !store_broken(id), "the snapshot committed heals it");
    close_store();
    CHECK(open_with(storefix_dir, 0, 0, 16 * 1024, err, sizeof(err)) == 0, "opened once more");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && s->functions_jitted == 3000 && s->persist.load_error[0] == '\0',
          "every function is served, no error (%zu)", s ? s->functions_jitted : 0);
    sessions_unlock();
    close_store();
}

TEST(a_full_disk_is_retried)
{
    char err[512];
    store_stats st = {0};
    struct rlimit unlimited;
    session *s;
    int id, i;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    id = stored_session("dotnet app.dll", 100, 0);
    CHECK(wait_synced(id), "the first records are on disk");
    disk_full(&unlimited);
    sessions_lock();
    s = sessions_get(id);
    jit_functions(s, 2000, 0, 0x7f0000800000ull);
    sessions_unlock();
    for (i = 0; i < 500 && st.write_errors < 2; i++) {
        usleep(10000);
        store_get_stats(&st);
    }
    CHECK(st.write_errors >= 2 && st.last_error[0] && !store_synced(id),
          "writes fail and are tried again (%llu errors: %s)", (unsigned long long)st.write_errors,
          st.last_error);
    setrlimit(RLIMIT_FSIZE, &unlimited); /* room again */
    CHECK(wait_synced(id), "it all goes in once there is room");
    store_get_stats(&st);
    CHECK(st.last_error[0] == '\0' && st.last_error_ns > 0 && st.lost == 0,
          "the error is over (when it was is kept), nothing was lost");
    close_store();
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "opened again");
    persist_prepare(id);
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && s->functions_jitted == 2100 && s->persist.load_error[0] == '\0',
          "all 2100 functions are served (%zu)", s ? s->functions_jitted : 0);
    sessions_unlock();
    close_store();
}

/* What waits for the writer is held too (budget.h): while the disk is full,
 * a session's log counts in its share, so it is refused long before its
 * state alone would be; once written it is given back, and the session
 * takes names again. */
TEST(unwritten_log_counts_in_the_budget)
{
    static char big[1001]; /* a 1,000-byte name and its NUL */
    char err[512], prefix[32];
    struct rlimit unlimited;
    uint64_t state, share;
    session *s;
    int id, rc = 0;
    unsigned i;

    memset(big, 'y', sizeof(big) - 1);
    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    sessions_lock();
    s = new_session(SESSION_MODE_RUN, 4242, "dotnet app.dll");
    id = s->id;
    session_budget_connected(s, 1); /* as link.c binds it */
    jit_functions(s, 100, 0, 0x7f0000300000ull);
    sessions_unlock();
    CHECK(wait_synced(id), "the first records are on disk");
    persist_sweep(); /* storage is asked what of it waits */
    sessions_lock();
    CHECK(s->budget.unwritten == 0 && s->budget.unlogged == 0,
          "written: nothing of its log is held (%llu, %llu)",
          (unsigned long long)s->budget.unwritten, (unsigned long long)s->budget.unlogged);
    budget_set_max(2 * (s->budget.held + (512u << 10))); /* its share: 512 KiB more */
    share = budget_share();
    sessions_unlock();
    disk_full(&unlimited);
    sessions_lock();
    for (i = 0; i < 5000 && rc == 0; i++) {
        snprintf(prefix, sizeof(prefix), "Big.Method%u", i);
        memcpy(big, prefix, strlen(prefix));
        rc = rec_feed(s, rec_function_name(0x7f0000800000ull + i * 16, MID, big, 0));
    }
    state = s->budget.held - s->budget.unwritten - s->budget.unlogged;
    CHECK(rc == SESSION_REFUSED && s->budget.refused[SESSION_REFUSED_FUNCTIONS] == 1 &&
              s->budget.held <= share,
          "refused at its share (%u names taken; held %llu of %llu)", i - 1,
          (unsigned long long)s->budget.held, (unsigned long long)share);
    CHECK(store_unwritten(id) > (200u << 10) && s->budget.unwritten >= store_unwritten(id),
          "its log waits for the writer and counts in what it holds (%zu bytes; %llu counted)",
          store_unwritten(id), (unsigned long long)s->budget.unwritten);
    CHECK((i - 1) * sizeof(big) < (384u << 10),
          "refused long before its names alone filled the 512 KiB (%u names)", i - 1);
    sessions_unlock();
    setrlimit(RLIMIT_FSIZE, &unlimited); /* room again */
    CHECK(wait_synced(id), "it all goes in once there is room");
    persist_sweep();
    sessions_lock();
    CHECK(s->budget.unwritten == 0 && s->budget.held == state,
          "written: given back (held %llu, its state %llu)", (unsigned long long)s->budget.held,
          (unsigned long long)state);
    CHECK(rec_feed(s, rec_function_name(0x7f0000900000ull, MID, "Small.Method()", 0)) == 0,
          "it takes names again");
    session_budget_connected(s, 0);
    sessions_unlock();
    budget_set_max(0);
    close_store();
}

/* An ended session's snapshot holds it a second time until written: while
 * it would take the total past the budget and the writer has other work
 * (here: the disk is full), the sweep leaves it for later; once the writer
 * is done, it is taken. */
TEST(an_ended_snapshot_waits_for_the_writer)
{
    char err[512];
    struct rlimit unlimited;
    session *s;
    int id;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open: %s", err);
    id = stored_session("dotnet app.dll", 2000, 0);
    CHECK(wait_synced(id), "its first records are on disk");
    disk_full(&unlimited);
    sessions_lock();
    s = sessions_get(id);
    jit_functions(s, 100, 0, 0x7f0000800000ull); /* they wait for the writer */
    end_session(s);
    session_memory_unwritten(s); /* storage says what still waits, as a sweep would */
    budget_set_max(budget_held() + s->budget.held / 2); /* its snapshot would not fit */
    sessions_unlock();
    persist_sweep();
    sessions_lock();
    CHECK(!s->persist.snapshotted && budget_held() <= budget_max(),
          "its snapshot waits (held %llu of %llu)", (unsigned long long)budget_held(),
          (unsigned long long)budget_max());
    sessions_unlock();
    setrlimit(RLIMIT_FSIZE, &unlimited); /* room again */
    CHECK(wait_synced(id), "the writer caught up");
    persist_sweep();
    sessions_lock();
    CHECK(s->persist.snapshotted, "then the snapshot is taken");
    sessions_unlock();
    CHECK(wait_synced(id), "and written");
    budget_set_max(0);
    close_store();
}

/* n appends of 4 KiB to session id's log. */
static void append_kib(int id, unsigned n)
{
    static uint8_t frames[4096];
    unsigned i;

    for (i = 0; i < n; i++)
        store_append(id, 1, frames, sizeof(frames));
}

TEST(a_committed_log_is_written_into_again)
{
    store_work *w;
    size_t n;
    uint8_t *first;

    CHECK(store_journal_init(256u << 20) == 0, "a journal (no writer: this test is the writer)");
    append_kib(7, 600);
    w = store_journal_take(&n);
    CHECK(w && n == 1 && w[0].log_length >= 600u * 4096 && w[0].log_cap >= w[0].log_length,
          "2.4 MiB taken");
    first = w ? w[0].log : NULL;
    store_journal_done(w, n, 1);
    CHECK(store_journal_spare() >= 600u * 4096, "its memory kept (%zu bytes)",
          store_journal_spare());
    append_kib(7, 600);
    CHECK(store_journal_spare() == 0, "the next log took it");
    w = store_journal_take(&n);
    CHECK(w && n == 1 && w[0].log == first, "and wrote into the same memory");
    store_journal_done(w, n, 1);
    CHECK(store_journal_spare() > 0, "kept again");
    append_kib(7, 1);
    w = store_journal_take(&n);
    CHECK(w && n == 1 && store_journal_spare() == 0, "a round of 4 KiB lets it go");
    store_journal_done(w, n, 1);
    CHECK(store_journal_spare() == 0, "a small log's memory is not kept");
    w = store_journal_take(&n);
    CHECK(!w && n == 0, "nothing more to take");
    store_journal_free();
}

static const check_test tests[] = {
    TEST_ENTRY(a_full_journal_breaks_the_log_until_a_snapshot),
    TEST_ENTRY(a_full_disk_is_retried),
    TEST_ENTRY(unwritten_log_counts_in_the_budget),
    TEST_ENTRY(an_ended_snapshot_waits_for_the_writer),
    TEST_ENTRY(a_committed_log_is_written_into_again),
    TEST_END,
};

/* Each test has a directory of its own for storage, removed after it with
 * whatever the test left open. */
static void setup(void) { CHECK(storefix_setup() == 0, "a directory for storage"); }

int main(int argc, char **argv)
{
    return check_main_each(argc, argv, tests, setup, storefix_teardown);
}
