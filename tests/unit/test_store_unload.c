/* test_store_unload.c -- unit tests of ended sessions leaving memory
 * (server/persist.c): one stays loaded a while after its end, then leaves and
 * comes back the same when asked; a spent memory budget unloads ended
 * sessions at once and leaves the live ones be.
 *
 * The storage fixture (a directory per test, sessions folded from hand-made
 * records and read back) is storefix.h's.
 * Build: make build/tests/test_store_unload && build/tests/test_store_unload
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "check.h"
#include "persist.h"
#include "sessions.h"
#include "storefix.h"

/* With the default unload delay, an ended session stays loaded that long after
 * it ended, however soon its snapshot is committed: its user is likely still
 * looking at it. */
TEST(an_ended_session_stays_loaded_a_while)
{
    persist_options o = {.dir = storefix_dir}; /* the default delay, PERSIST_UNLOAD_MS */
    char err[512];
    session *s;
    int id;

    CHECK(persist_open(&o, err, sizeof(err)) == 0, "open: %s", err);
    id = stored_session("dotnet app.dll", 200, 0);
    sessions_lock();
    end_session(sessions_get(id));
    sessions_unlock();
    persist_sweep(); /* its snapshot */
    CHECK(wait_synced(id), "its snapshot committed");
    persist_sweep(); /* committed now: the sweep looks at it again */
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && s->persist.loaded && s->function_count == 200,
          "it is still in memory right after its end (%zu functions)",
          s ? s->function_count : (size_t)0);
    sessions_unlock();
    close_store();
}

TEST(an_ended_session_leaves_memory_and_comes_back)
{
    char err[512], *before, *after;
    session *s;
    int id;

    CHECK(open_store(storefix_dir, err, sizeof(err)) == 0, "open (unload after 1 ms): %s", err);
    before = stored_and_ended(2000, 10, &s);
    id = s->id;
    persist_sweep(); /* its snapshot */
    CHECK(wait_synced(id), "its snapshot committed");
    usleep(2000);
    persist_sweep(); /* nobody asked for it since */
    sessions_lock();
    s = sessions_get(id);
    CHECK(s && !s->persist.loaded && s->function_count == 0 && s->persist.summary,
          "its content left memory; its list entry stays");
    sessions_unlock();
    after = content_of(id);
    CHECK(same_text(before, after), "read back when asked: the same");
    free(before), free(after);
    close_store();
}

/* The memory budget nearly spent: an ended session whose snapshot is
 * committed leaves memory at once (not after PERSIST_UNLOAD_MS) and comes
 * back the same; a live one stays. */
TEST(a_spent_budget_unloads_ended_sessions_at_once)
{
    /* the default unload delay (PERSIST_UNLOAD_MS): only the budget makes it leave
     * (with open_store's 1 ms, the sweep that hands the snapshot over could
     * unload it itself once the writer had committed it in the meantime) */
    persist_options o = {.dir = storefix_dir};
    char err[512], *before, *after;
    session *s, *live;
    int id, live_id;

    CHECK(persist_open(&o, err, sizeof(err)) == 0, "open: %s", err);
    sessions_lock();
    before = ended_and_live(2000, 10, SESSION_MODE_RUN, 100, &s, &live);
    id = s->id, live_id = live->id;
    sessions_unlock();
    persist_sweep(); /* its snapshot */
    CHECK(wait_synced(id), "its snapshot committed");
    sessions_lock();
    CHECK(s->persist.loaded && persist_make_room() == 0, "room enough: nothing leaves");
    budget_set_max(budget_held() + 4096); /* nearly spent */
    CHECK(persist_make_room() == 1 && !s->persist.loaded && s->function_count == 0 &&
              s->persist.summary,
          "the ended session left memory at once; its list entry stays");
    CHECK(sessions_get(live_id)->persist.loaded && sessions_get(live_id)->function_count == 100,
          "the live one keeps its own");
    sessions_unlock();
    budget_set_max(0);
    after = content_of(id);
    CHECK(same_text(before, after), "read back when asked: the same");
    free(before), free(after);
    close_store();
}

static const check_test tests[] = {
    TEST_ENTRY(an_ended_session_stays_loaded_a_while),
    TEST_ENTRY(an_ended_session_leaves_memory_and_comes_back),
    TEST_ENTRY(a_spent_budget_unloads_ended_sessions_at_once),
    TEST_END,
};

/* Each test has a directory of its own for storage, removed after it with
 * whatever the test left open. */
static void setup(void) { CHECK(storefix_setup() == 0, "a directory for storage"); }

int main(int argc, char **argv)
{
    return check_main_each(argc, argv, tests, setup, storefix_teardown);
}
