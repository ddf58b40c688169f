/* test_ws.c -- unit tests for the live stream's two halves that run without a
 * socket: who a change wakes (server/ws_wake.c) and how a client's next
 * message is made (server/ws_next.c).
 *
 *   - a change wakes only the clients subscribed to that session (each of
 *     them, however many), a mark is taken once, the service thread is poked
 *     once per round, an id out of range wakes every subscribed client;
 *   - a batch of events, the session's summary, a lagged notice: what
 *     ws_next_take copied is shaped by ws_next_render after the session was
 *     removed and freed (ASan would see any pointer into it), into exactly the
 *     JSON the views make from the live session;
 *   - a batch whose names do not fit in the copy's room stops early and the
 *     next one goes on from there: nothing lost, nothing twice.
 * Build: make build/tests/test_ws && build/tests/test_ws
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "records.h"
#include "sessions.h"
#include "views.h"
#include "views_event.h"
#include "ws_next.h"
#include "ws_wake.h"

#define TEST_NOW 1000000000000ll /* the stream's clock (CLOCK_MONOTONIC ns) */

TEST(a_change_wakes_only_its_subscribers)
{
    /* clients: session 1, session 2 twice, session 3, none, session 4 */
    const int sessions[] = {1, 2, 2, 3, 0, 4};
    const size_t n = sizeof(sessions) / sizeof(sessions[0]);
    unsigned char wake[6];
    size_t woken;

    ws_wake_begin();
    ws_wake_select(sessions, n, wake); /* whatever an earlier test left */
    CHECK(ws_wake_mark(2) == 1, "the first change pokes the service thread");
    CHECK(ws_wake_mark(3) == 0, "a second before it looked does not poke again");
    CHECK(ws_wake_mark(2) == 0, "nor a repeat");
    ws_wake_begin();
    woken = ws_wake_select(sessions, n, wake);
    CHECK(woken == 3 && !wake[0] && wake[1] && wake[2] && wake[3] && !wake[4] && !wake[5],
          "sessions 2 and 3 changed: their three clients, no other (%zu: %d%d%d%d%d%d)", woken,
          wake[0], wake[1], wake[2], wake[3], wake[4], wake[5]);
    CHECK(ws_wake_select(sessions, n, wake) == 0, "a mark is taken once");
    CHECK(ws_wake_mark(4) == 1, "after the service looked, a change pokes again");
    ws_wake_begin();
    woken = ws_wake_select(sessions, n, wake);
    CHECK(woken == 1 && wake[5], "session 4 changed: its client only (%zu)", woken);
    ws_wake_mark(9); /* a session nobody watches */
    ws_wake_begin();
    CHECK(ws_wake_select(sessions, n, wake) == 0, "a session nobody watches wakes nobody");
    CHECK(ws_wake_mark(0) == 1 && ws_wake_mark(SESSION_ID_MAX + 1) == 0, "ids out of range");
    ws_wake_begin();
    woken = ws_wake_select(sessions, n, wake);
    CHECK(woken == 5 && !wake[4], "an id out of range wakes every subscribed client (%zu)", woken);
}

/* A registered live session: a module, a thread with a name, `functions`
 * compiled and named (names of name_length bytes when that is not 0), a
 * profile status. Caller holds the lock. */
static session *stream_session(unsigned functions, size_t name_length)
{
    static char name[WIRE_MAX_STRING];
    session *s = sessions_create(SESSION_MODE_RUN, 4242, "dotnet app.dll --flag");
    unsigned i;

    if (!s)
        return NULL;
    rec_apply(s, rec_hello(s->token));
    rec_apply(s, rec_module_loaded(0x200000, "/app/App.dll", "App", 0, REC_MONO + 1));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x7000, 0, 0, NULL, REC_MONO + 2));
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x7000, 0, 0, "worker-1", REC_MONO + 3));
    for (i = 0; i < functions; i++) {
        uint64_t fid = 0x7f0000001000ull + i * 16;
        if (name_length) {
            memset(name, 'a' + (char)(i % 26), name_length);
            name[name_length] = '\0';
        } else {
            snprintf(name, sizeof(name), "App.Type.Method%u(int)", i);
        }
        rec_apply(s, rec_function_name(fid, 0x200000, name, 0));
        rec_apply(s, rec_jit_started(fid, 0x7000, REC_MONO + 10 + i * 4));
        rec_apply(s, rec_jit_finished(fid, 0x7000, fid + 0x100, 64, REC_MONO + 12 + i * 4, 0));
    }
    rec_apply(s, rec_profile_status(
                     (wire_profile_status){WIRE_PROFILE_STARTED, 49000, 48000, 50, 3, 900, 0, 0},
                     REC_MONO + 20 + functions * 4));
    return s;
}

/* What GET .../events shows of s's events from `from` on: the reference. */
static json_t *events_as_viewed(session *s, uint64_t from)
{
    json_t *list = json_array();
    uint64_t seq;

    for (seq = from; seq <= s->events.last_seq; seq++)
        json_array_append_new(list, view_event(s, eventlog_at(&s->events, seq)));
    return list;
}

/* A stream_session and a cursor subscribed to it from its first event; with
 * `want`, its events as GET .../events shows them. Returns the session's id
 * (0 when it could not be made); *last: its newest event. */
static int stream_open(unsigned functions, size_t name_length, ws_cursor *c, uint64_t *last,
                       json_t **want)
{
    session *s;
    int id = 0;

    sessions_lock();
    s = stream_session(functions, name_length);
    if (s) {
        id = s->id;
        *last = s->events.last_seq;
        if (want)
            *want = events_as_viewed(s, 1);
    }
    sessions_unlock();
    *c = (ws_cursor){.session_id = id, .next_seq = 1, .last_state = -1};
    return id;
}

/* Removes the session (not pinned: it is freed now). */
static void stream_forget(int id)
{
    sessions_lock();
    sessions_remove(id);
    sessions_unlock();
}

TEST(a_batch_is_shaped_without_its_session)
{
    ws_next *m = malloc(sizeof(*m));
    json_t *want = NULL, *got = NULL, *summary = NULL;
    ws_cursor c;
    uint64_t last = 0;
    int more = 1, id = stream_open(5, 0, &c, &last, &want);

    if (!CHECK(m && id && want, "a session"))
        goto out;
    CHECK(ws_next_take(m, &c, TEST_NOW, &more) == WS_NEXT_EVENTS && !more,
          "every event in one batch (%zu of %llu)", m->count, (unsigned long long)last);
    stream_forget(id);
    got = ws_next_render(m);
    CHECK(got && json_equal(json_object_get(got, "events"), want),
          "the events as GET .../events shows them, shaped after the session was freed");
    CHECK(json_integer_value(json_object_get(got, "last_seq")) == (json_int_t)last &&
              json_integer_value(json_object_get(got, "session")) == id &&
              strcmp(json_string_value(json_object_get(got, "type")), "events") == 0,
          "type, session and last_seq");
    CHECK(c.next_seq == last + 1, "the cursor moved past them");
    CHECK(ws_next_take(m, &c, TEST_NOW, &more) == WS_NEXT_GONE, "then the session is gone");

    /* the summary, the same way */
    json_decref(got);
    got = NULL;
    id = stream_open(2, 0, &c, &last, NULL);
    sessions_lock();
    summary = id ? view_session_summary(sessions_get(id)) : NULL;
    sessions_unlock();
    while (ws_next_take(m, &c, TEST_NOW, &more) == WS_NEXT_EVENTS)
        ;
    CHECK(m->kind == WS_NEXT_SUMMARY, "once the events are out, the session's summary");
    stream_forget(id);
    got = ws_next_render(m);
    CHECK(got && summary && json_equal(json_object_get(got, "session"), summary) &&
              strcmp(json_string_value(json_object_get(got, "type")), "session") == 0,
          "the summary as GET /api/sessions shows it, shaped after the session was freed");
out:
    json_decref(want);
    json_decref(got);
    json_decref(summary);
    free(m);
}

TEST(a_batch_stops_where_its_names_no_longer_fit)
{
    ws_next *m = malloc(sizeof(*m));
    json_t *want = NULL, *all = json_array();
    unsigned batches = 0;
    int more = 1, short_batch = 0;
    uint64_t last = 0;
    ws_cursor c;
    /* 600 names of 4,000 bytes: 2.4 MB, more than one batch's room */
    int id = stream_open(600, 4000, &c, &last, &want);

    if (!CHECK(m && id && want, "a session"))
        goto out;
    while (more && ws_next_take(m, &c, TEST_NOW, &more) == WS_NEXT_EVENTS) {
        json_t *got = ws_next_render(m);
        short_batch |= m->count < WS_BATCH_EVENTS && more;
        json_array_extend(all, json_object_get(got, "events"));
        json_decref(got);
        batches++;
    }
    CHECK(short_batch && batches >= 3, "batches cut short by their names' room (%u batches)",
          batches);
    CHECK(json_equal(all, want), "together every event once, in order (%zu of %zu)",
          json_array_size(all), json_array_size(want));
    stream_forget(id);
out:
    json_decref(want);
    json_decref(all);
    free(m);
}

TEST(a_client_far_behind_is_told_what_it_missed)
{
    ws_next *m = malloc(sizeof(*m));
    json_t *got = NULL;
    uint64_t last = 0;
    ws_cursor c;
    int more = 0, id = stream_open(WS_MAX_BACKLOG + 10, 0, &c, &last, NULL); /* an event each */

    if (!CHECK(m && id && last > WS_MAX_BACKLOG, "a session with %llu events",
               (unsigned long long)last))
        goto out;
    CHECK(ws_next_take(m, &c, TEST_NOW, &more) == WS_NEXT_LAGGED && more, "a lagged notice");
    stream_forget(id);
    got = ws_next_render(m);
    CHECK(got &&
              json_integer_value(json_object_get(got, "resume_after")) ==
                  (json_int_t)(last - WS_KEEP_ON_LAG) &&
              json_integer_value(json_object_get(got, "missed")) ==
                  (json_int_t)(last - WS_KEEP_ON_LAG),
          "missed and resume_after: all but the newest %d", WS_KEEP_ON_LAG);
    CHECK(c.next_seq == last - WS_KEEP_ON_LAG + 1, "the cursor skipped ahead");
out:
    json_decref(got);
    free(m);
}

static const check_test tests[] = {
    TEST_ENTRY(a_change_wakes_only_its_subscribers),
    TEST_ENTRY(a_batch_is_shaped_without_its_session),
    TEST_ENTRY(a_batch_stops_where_its_names_no_longer_fit),
    TEST_ENTRY(a_client_far_behind_is_told_what_it_missed),
    TEST_END,
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, tests);

    sessions_free_all();
    return rc;
}
