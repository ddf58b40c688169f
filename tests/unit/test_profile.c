/* test_profile.c -- unit tests for the sampling profile: server/profile.c
 * (aggregation), server/profile_view.c (filters) and server/profile_export.c
 * (call tree, folded stacks, speedscope).
 *
 * Identical FunctionID sequences share one stack id across threads and walks;
 * a cut stack differs from a whole one; the caps (PROFILE_MAX_STACKS,
 * PROFILE_MAX_FRAMES, PROFILE_MAX_SAMPLES, PROFILE_MAX_THREADS) hold and
 * count what they drop; the status follows start/stop and the agent's
 * PROFILE_STATUS records (each a `profile` event); suspension p50 within 1/32,
 * max and total; filters by thread name, ThreadID, OS id and wall-clock window,
 * with per-thread and per-second counts; the folded text exactly (sorted, root
 * first, identical lines merged, ';' in a name replaced, [native], [unknown],
 * [truncated], an unnamed function as its id); the speedscope file's structure
 * (schema, frames with name and file, one sampled profile per thread, samples
 * root first, consecutive identical stacks merged, weights adding up); the
 * call tree's sums, also when pruned to PROFILE_TREE_MAX_NODES.
 * Build: make build/tests/test_profile && build/tests/test_profile
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "profile_export.h"
#include "profile_view.h"
#include "record_kinds.h"
#include "records.h"
#include "session.h"
#include "srcline.h"

#define WALL(t) ((int64_t)(t) + REC_OFFSET)
#define SEC 1000000000ull

static uint64_t g_snap;             /* the last walk's snapshot id */
static uint64_t g_ip_base = 0x7f00; /* frame k's IP in sample_walk: g_ip_base + k */

static session *live_session(void)
{
    g_snap = 0;
    return rec_live_session(1);
}

static void name_function(session *s, uint64_t fid, const char *name)
{
    rec_apply(s, rec_function_name(fid, 0x200000, name, 0));
}

static void thread_named(session *s, uint64_t tid, uint32_t os, const char *name)
{
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, tid, os, 0, name, REC_MONO));
}

/* One sample walk at target time t of up to 4 threads: tids[i] with fids[i]
 * (leaf first, END-terminated; NULL: a failed walk with no frames, its
 * HRESULT CORPROF_E_STACKSNAPSHOT_UNSAFE unless hresult says otherwise). */
typedef struct one_thread {
    uint64_t tid;
    const uint64_t *fids;
    uint32_t flags;
    int32_t hresult;
} one_thread;

#define E_FAIL_HR ((int32_t)0x80004005)
#define UNSAFE_HR ((int32_t)0x80131360)

static void sample_walk(session *s, uint64_t t, const one_thread *threads, unsigned n)
{
    static wire_stack_frame frames[WIRE_STACK_MAX_FRAMES];
    uint64_t snap = ++g_snap;

    for (unsigned i = 0; i < n; i++) {
        uint32_t k = 0;
        while (threads[i].fids && threads[i].fids[k] != UINT64_MAX)
            frames[k] = (wire_stack_frame){threads[i].fids[k], g_ip_base + k}, k++;
        rec_apply(s, rec_stack_thread((wire_stack_thread){snap, threads[i].tid,
                                                          (uint32_t)threads[i].tid + 4000,
                                                          threads[i].hresult ? threads[i].hresult
                                                          : threads[i].fids  ? 0
                                                                             : UNSAFE_HR,
                                                          100, k, threads[i].flags},
                                      frames, t));
    }
    rec_apply(
        s, rec_stack_end((wire_stack_end){snap, 0, WIRE_STACK_SAMPLE, n, n, 0, 0, 49000, 1000, 500},
                         t));
}

#define END UINT64_MAX
enum { A = 0xA0, B = 0xB0, C = 0xC0, D = 0xD0, E = 0xE0 };
static const uint64_t S_CBA[] = {C, B, A, END}, S_BA[] = {B, A, END}, S_NDA[] = {0, D, A, END},
                      S_CB[] = {C, B, END}, S_E[] = {E, END};

/* The fixture: T1 (0x71, "worker", os 4071) and T2 (0x72, unnamed), 10 samples at
 * REC_MONO + k/2 s, k = 0..7 (two threads in some walks). */
static session *fixture(void)
{
    session *s = live_session();

    name_function(s, A, "App.Main");
    name_function(s, B, "App.Run");
    name_function(s, C, "App.Work");
    name_function(s, D, "App.Semi;colon");
    thread_named(s, 0x71, 4071, "worker");
    thread_named(s, 0x72, 4072, "other");
    sample_walk(s, REC_MONO, (one_thread[]){{0x71, S_CBA, 0, 0}, {0x72, S_NDA, 0, 0}}, 2);
    sample_walk(s, REC_MONO + SEC / 2, (one_thread[]){{0x71, S_CBA, 0, 0}, {0x72, S_CBA, 0, 0}}, 2);
    sample_walk(s, REC_MONO + SEC, (one_thread[]){{0x71, S_CBA, 0, 0}}, 1);
    sample_walk(s, REC_MONO + 3 * SEC / 2, (one_thread[]){{0x71, S_BA, 0, 0}, {0x72, NULL, 0, 0}},
                2);
    sample_walk(s, REC_MONO + 2 * SEC, (one_thread[]){{0x71, S_BA, 0, 0}}, 1);
    sample_walk(s, REC_MONO + 5 * SEC / 2, (one_thread[]){{0x71, S_CB, WIRE_STACK_TRUNCATED, 0}},
                1);
    sample_walk(s, REC_MONO + 3 * SEC, (one_thread[]){{0x72, S_E, 0, 0}}, 1);
    return s;
}

static char *folded(session *s, const profile_query *q)
{
    profile_view v;
    textbuf out;
    const char *why = NULL;
    char *text;
    size_t n;

    if (profile_view_take(&v, s, q) != 0)
        return NULL;
    textbuf_init(&out, 1 << 20);
    profile_export_folded(&v, &out, &why);
    text = textbuf_take(&out, &n);
    profile_view_free(&v);
    return text;
}

static const profile_query ALL = {NULL, 0, 0, INT64_MAX, 0, 0, 0};

/* ---- aggregation ----------------------------------------------------------- */

TEST(dedup_across_threads_and_walks)
{
    session *s = fixture();
    const profile_state *p = &s->profile;

    CHECK(p->walks == 7 && p->thread_samples == 10 && p->sample_count == 10,
          "7 walks, 10 thread samples kept");
    CHECK(p->stack_count == 6, "6 distinct stacks: CBA, NDA, BA, [], CB+cut, E (got %zu)",
          p->stack_count);
    CHECK(p->samples[0].stack == p->samples[2].stack &&
              p->samples[2].stack == p->samples[3].stack &&
              p->samples[0].thread != p->samples[3].thread,
          "the same FunctionIDs on two threads and in two walks: one stack id");
    CHECK(p->stacks[p->samples[8].stack].depth == 3 &&
              p->frames[p->stacks[p->samples[8].stack].first + 2] == PROFILE_FRAME_TRUNCATED,
          "a cut stack ends (root side) with the truncation mark: not the same as CB");
    CHECK(p->thread_count == 2 && p->threads[0].thread_id == 0x71 &&
              p->threads[0].os_thread_id == 0x71 + 4000,
          "two threads, with the OS id from the records");
    CHECK(p->samples[0].t_ms == 0 && p->samples[2].t_ms == 500 && p->samples[9].t_ms == 3000,
          "sample times in ms from the first sample");
    CHECK(p->dropped_samples == 0 && p->dropped_stacks == 0, "nothing dropped");
    session_free(s);
}

/* Adds one sample walk straight into a profile: `threads` threads from tid0,
 * each with the stack fids[0..n) (leaf first). */
static void add_walk(profile_state *p, uint64_t tid0, unsigned threads, const uint64_t *fids,
                     uint32_t n, int64_t t)
{
    static wire_stack_frame frames[WIRE_STACK_MAX_FRAMES];
    static stacks_thread th[256];
    stacks_walk w = {0};

    for (uint32_t k = 0; k < n; k++)
        frames[k] = (wire_stack_frame){fids[k], 0};
    for (unsigned i = 0; i < threads; i++)
        th[i] = (stacks_thread){.thread_id = tid0 + i, .first_frame = 0, .frame_count = n};
    w.time_ns = t;
    w.suspend_ns = 1000;
    w.threads = th;
    w.thread_count = threads;
    w.frames = frames;
    w.frame_count = n;
    profile_add_walk(p, &w, 0);
}

TEST(caps_and_drop_counts)
{
    profile_state p = {0};
    uint64_t fids[WIRE_STACK_MAX_FRAMES];

    for (uint64_t i = 0; i < PROFILE_MAX_STACKS + 10; i++) {
        fids[0] = 0x10000 + i;
        add_walk(&p, 0x71, 1, fids, 1, REC_NOW);
    }
    CHECK(p.stack_count == PROFILE_MAX_STACKS && p.dropped_stacks == 10 &&
              p.dropped_samples == 10 && p.sample_count == PROFILE_MAX_STACKS,
          "%u distinct stacks kept; 10 more dropped with their samples", PROFILE_MAX_STACKS);
    fids[0] = 0x10000;
    add_walk(&p, 0x71, 1, fids, 1, REC_NOW);
    CHECK(p.sample_count == PROFILE_MAX_STACKS + 1 && p.dropped_samples == 10,
          "a known stack still takes samples at the cap");
    profile_free(&p);

    for (uint64_t i = 0; i < PROFILE_MAX_FRAMES / WIRE_STACK_MAX_FRAMES + 1; i++) {
        for (uint32_t k = 0; k < WIRE_STACK_MAX_FRAMES; k++)
            fids[k] = 0x100000 * (i + 1) + k;
        add_walk(&p, 0x71, 1, fids, WIRE_STACK_MAX_FRAMES, REC_NOW);
    }
    CHECK(p.frame_count == PROFILE_MAX_FRAMES && p.dropped_stacks == 1 &&
              p.stack_count == PROFILE_MAX_FRAMES / WIRE_STACK_MAX_FRAMES,
          "stacks of 512 frames fill PROFILE_MAX_FRAMES exactly; the next is dropped");
    profile_free(&p);

    fids[0] = 0x42;
    for (unsigned i = 0; i < PROFILE_MAX_SAMPLES / 256 + 1; i++)
        add_walk(&p, 0x1000, 256, fids, 1, REC_NOW + (int64_t)i * 1000000);
    CHECK(p.sample_count == PROFILE_MAX_SAMPLES && p.dropped_samples == 256 &&
              p.thread_samples == PROFILE_MAX_SAMPLES + 256 && p.stack_count == 1,
          "PROFILE_MAX_SAMPLES samples kept, the next walk's 256 counted as dropped");
    profile_free(&p);

    for (uint64_t i = 0; i < PROFILE_MAX_THREADS + 3; i++)
        add_walk(&p, 0x100000 + i, 1, fids, 1, REC_NOW);
    CHECK(p.thread_count == PROFILE_MAX_THREADS && p.dropped_samples == 3,
          "PROFILE_MAX_THREADS threads told apart; samples of more are dropped");
    add_walk(&p, 0, 1, fids, 1, REC_NOW);
    CHECK(p.dropped_samples == 4, "ThreadID 0 is not a thread: dropped");
    profile_free(&p);
}

TEST(status_and_suspension_stats)
{
    session *s = live_session();
    profile_state *p = &s->profile;
    static const uint64_t susp[] = {100, 200, 300, 400, 1000};
    wire_record r;
    uint64_t fid = 0x42, events;
    const eventlog_entry *e;

    CHECK(p->state == PROFILE_IDLE && strcmp(profile_state_name(p->state), "idle") == 0,
          "idle at first");
    profile_start(p, 49, REC_NOW);
    CHECK(p->state == PROFILE_RUNNING && p->requested_millihz == 49000 &&
              p->effective_millihz == 49000 &&
              p->budget_permille == WIRE_PROFILE_DEFAULT_BUDGET_PERMILLE &&
              p->started_ns == REC_NOW,
          "started: running at the requested rate, default budget");
    for (unsigned i = 0; i < 5; i++) {
        stacks_walk w = {0};
        stacks_thread th = {.thread_id = 0x71, .frame_count = 1};
        wire_stack_frame f = {fid, 0};
        w.suspend_ns = susp[i];
        w.time_ns = REC_NOW;
        w.threads = &th, w.thread_count = 1, w.frames = &f, w.frame_count = 1;
        profile_add_walk(p, &w, i == 4 ? 24500 : 0);
    }
    CHECK(p->suspended_ns_total == 2000 && p->suspend_ns_max == 1000, "total and max suspension");
    CHECK(profile_suspend_p50(p) >= 300 * 31 / 32 && profile_suspend_p50(p) <= 300 * 33 / 32,
          "p50 of 100, 200, 300, 400, 1000 is 300 within 1/32 (%llu)",
          (unsigned long long)profile_suspend_p50(p));
    CHECK(p->effective_millihz == 24500, "a sample walk's END updates the effective rate");

    events = s->events.last_seq;
    r = rec_profile_status(
        (wire_profile_status){WIRE_PROFILE_RATE, 49000, 12500, 20, 5, 2000, 0, 0}, REC_MONO + SEC);
    rec_apply(s, r);
    e = eventlog_at(&s->events, s->events.last_seq);
    CHECK(p->state == PROFILE_RUNNING && p->effective_millihz == 12500 && p->agent_samples == 5,
          "RATE: still running at the lowered rate");
    CHECK(s->events.last_seq == events + 1 && e->type == WIRE_PROFILE_STATUS &&
              e->extra == WIRE_PROFILE_RATE && e->value == 12500 && (uint32_t)e->id == 49000 &&
              (e->id >> 32) == 20 && strcmp(record_kind_event_name(e->type), "profile") == 0,
          "a profile event with the state, rates and budget");
    r.u.profile_status.state = WIRE_PROFILE_STOPPED;
    rec_apply(s, r);
    CHECK(p->state == PROFILE_STOPPED && p->stopped_ns == WALL(REC_MONO + SEC),
          "STOPPED: stopped, when");
    r.u.profile_status.state = WIRE_PROFILE_STARTED;
    rec_apply(s, r);
    CHECK(p->state == PROFILE_RUNNING && p->stopped_ns == 0 && p->started_ns == REC_NOW,
          "STARTED: running again, the start time kept");
    r.u.profile_status.state = WIRE_PROFILE_REFUSED;
    r.u.profile_status.hresult = (int32_t)0x80131388;
    rec_apply(s, r);
    CHECK(p->state == PROFILE_STOPPED && p->hresult == (int32_t)0x80131388,
          "REFUSED: stopped with the reason");
    profile_start(p, 99, REC_NOW + 5);
    CHECK(p->walks == 0 && p->sample_count == 0 && p->suspend_ns_max == 0 && p->hresult == 0 &&
              p->requested_millihz == 99000,
          "a new start discards the previous profile");
    session_mark_ended(s, REC_NOW + 10);
    CHECK(p->state == PROFILE_STOPPED && p->stopped_ns == REC_NOW + 10,
          "the process ending stops it");
    session_free(s);
}

/* ---- filters ----------------------------------------------------------------- */

TEST(filters)
{
    session *s = fixture();
    profile_view v;
    profile_query q = ALL;

    CHECK(profile_view_take(&v, s, &q) == 0 && v.total == 10 && v.thread_count == 2 &&
              v.threads[0].samples == 6 && v.threads[1].samples == 4 &&
              strcmp(v.threads[0].name, "worker") == 0 && v.threads[0].os_thread_id == 0x71 + 4000,
          "no filter: 10 samples, worker 6, other 4");
    CHECK(v.second_count == 4 && v.seconds[0].t_ms == WALL(REC_MONO) / 1000000 / 1000 * 1000 &&
              v.seconds[0].samples + v.seconds[1].samples + v.seconds[2].samples +
                      v.seconds[3].samples ==
                  10,
          "per second, from the first sample's second, adding up");
    profile_view_free(&v);
    q.thread = "worker";
    CHECK(profile_view_take(&v, s, &q) == 0 && v.total == 6 && v.thread_count == 1 &&
              v.threads[0].thread_id == 0x71,
          "by name");
    profile_view_free(&v);
    q.thread = "0x72";
    CHECK(profile_view_take(&v, s, &q) == 0 && v.total == 4 && v.threads[0].thread_id == 0x72,
          "by ThreadID");
    profile_view_free(&v);
    q.thread = "4072";
    CHECK(profile_view_take(&v, s, &q) == 0 && v.total == 4, "by OS thread id");
    profile_view_free(&v);
    q.thread = "nobody";
    CHECK(profile_view_take(&v, s, &q) == 0 && v.total == 0 && v.thread_count == 0 &&
              v.stack_count == 0 && v.second_count == 0,
          "an unknown name: nothing");
    profile_view_free(&v);
    q.thread = "0x";
    CHECK(profile_view_take(&v, s, &q) == 0 && v.total == 0, "\"0x\" alone matches nothing");
    profile_view_free(&v);
    q = ALL;
    q.from_ns = WALL(REC_MONO + SEC / 2);
    q.to_ns = WALL(REC_MONO + 3 * SEC / 2);
    CHECK(profile_view_take(&v, s, &q) == 0 && v.total == 5,
          "a window [0.5 s, 1.5 s] keeps the 5 samples in it, both ends included");
    profile_view_free(&v);
    q.from_ns = WALL(REC_MONO + 10 * SEC);
    q.to_ns = INT64_MAX;
    CHECK(profile_view_take(&v, s, &q) == 0 && v.total == 0, "a window after the profile: nothing");
    profile_view_free(&v);
    session_free(s);
}

/* Two threads, one after the other, with the same ThreadID (the runtime reuses
 * them): two profile threads, each with its own row, name and samples; the
 * thread_key filter takes one. */
TEST(threads_on_a_reused_id)
{
    session *s = live_session();
    static const wire_stack_frame frames[1] = {{A, 0x7f00}};
    profile_query q = ALL;
    profile_view v;

    name_function(s, A, "App.Main");
    for (uint32_t k = 0; k < 2; k++) {
        rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 5000 + k, 0, NULL, REC_MONO + k * SEC));
        thread_named(s, 0x71, 5000 + k, k ? "second" : "first");
        for (uint32_t n = 0; n <= k; n++) { /* 1 sample of the first, 2 of the second */
            uint64_t snap = ++g_snap, t = REC_MONO + k * SEC + 1 + n;
            rec_apply(s, rec_stack_thread((wire_stack_thread){snap, 0x71, 5000 + k, 0, 100, 1, 0},
                                          frames, t));
            rec_apply(
                s, rec_stack_end(
                       (wire_stack_end){snap, 0, WIRE_STACK_SAMPLE, 1, 1, 0, 0, 49000, 10, 10}, t));
        }
        rec_apply(
            s, rec_thread(WIRE_THREAD_DESTROYED, 0x71, 5000 + k, 0, NULL, REC_MONO + k * SEC + 9));
    }
    CHECK(s->profile.thread_count == 2, "two profile threads (%zu)", s->profile.thread_count);
    CHECK(profile_view_take(&v, s, &q) == 0 && v.thread_count == 2, "both in the view");
    CHECK(v.thread_count == 2 && v.threads[0].thread_key == 0 && v.threads[1].thread_key == 1 &&
              strcmp(v.threads[0].name, "first") == 0 && strcmp(v.threads[1].name, "second") == 0 &&
              v.threads[0].samples == 1 && v.threads[1].samples == 2 &&
              v.threads[0].os_thread_id == 5000 && v.threads[1].os_thread_id == 5001,
          "each with its own row, name, OS id and samples");
    profile_view_free(&v);
    q.thread_row = 2;
    CHECK(profile_view_take(&v, s, &q) == 0 && v.thread_count == 1 && v.total == 2 &&
              strcmp(v.threads[0].name, "second") == 0,
          "thread_key 1: the second thread only");
    profile_view_free(&v);
    q.thread_row = 0;
    q.thread = "0x71";
    CHECK(profile_view_take(&v, s, &q) == 0 && v.thread_count == 2 && v.total == 3,
          "the ThreadID: both threads that had it");
    profile_view_free(&v);
    session_free(s);
}

/* ---- exports ------------------------------------------------------------------ */

static const profile_tree_opts TREE = {0, NULL, NULL};

TEST(folded_exactly)
{
    session *s = fixture();
    static const char expected[] = "0xe0 1\n"
                                   "App.Main;App.Run 2\n"
                                   "App.Main;App.Run;App.Work 4\n"
                                   "App.Main;App.Semi:colon;[native] 1\n"
                                   "[truncated];App.Run;App.Work 1\n"
                                   "[unknown] 1\n";
    profile_query q = ALL;
    char *text = folded(s, &q);

    CHECK(text && strcmp(text, expected) == 0, "folded output:\n%s", text ? text : "(null)");
    free(text);
    q.thread = "worker";
    text = folded(s, &q);
    CHECK(text && strcmp(text, "App.Main;App.Run 2\nApp.Main;App.Run;App.Work 3\n"
                               "[truncated];App.Run;App.Work 1\n") == 0,
          "one thread's folded output:\n%s", text ? text : "(null)");
    free(text);
    q.thread = "nobody";
    text = folded(s, &q);
    CHECK(text && text[0] == '\0', "no samples: empty text");
    free(text);
    /* a thread the runtime finds no managed frame on (E_FAIL, or S_OK for a
     * thread that never ran managed code) is in native code, not a failure */
    sample_walk(s, REC_MONO + 4 * SEC,
                (one_thread[]){{0x71, NULL, 0, E_FAIL_HR}, {0x72, (const uint64_t[]){END}, 0, 0}},
                2);
    q.thread = NULL;
    text = folded(s, &q);
    CHECK(text && strstr(text, "\n[native] 2\n") && strstr(text, "\n[unknown] 1\n"),
          "E_FAIL and S_OK without frames: [native]; an unsafe walk stays [unknown]:\n%s",
          text ? text : "(null)");
    free(text);
    {
        profile_view v;
        textbuf small;
        const char *why = NULL;
        profile_view_take(&v, s, &ALL);
        textbuf_init(&small, 40);
        CHECK(profile_export_folded(&v, &small, &why) == -1 && why,
              "output over its cap is refused with a reason");
        textbuf_free(&small);
        profile_view_free(&v);
    }
    session_free(s);
}

static int tree_sums_ok(json_t *node, size_t *nodes)
{
    json_t *kids = json_object_get(node, "children"), *c;
    json_int_t sum = json_integer_value(json_object_get(node, "self"));
    size_t i;

    (*nodes)++;
    json_array_foreach(kids, i, c)
    {
        if (!tree_sums_ok(c, nodes))
            return 0;
        sum += json_integer_value(json_object_get(c, "value"));
    }
    return sum == json_integer_value(json_object_get(node, "value"));
}

TEST(call_tree)
{
    session *s = fixture();
    profile_view v;
    json_t *o = json_object(), *tree, *main_node, *kids;
    const char *why = NULL;
    size_t nodes = 0;

    profile_view_take(&v, s, &ALL);
    CHECK(profile_export_json(&v, &TREE, o, &why) == 0, "the JSON builds");
    tree = json_object_get(o, "tree");
    CHECK(strcmp(json_string_value(json_object_get(tree, "name")), "all") == 0 &&
              json_integer_value(json_object_get(tree, "value")) == 10 &&
              json_is_null(json_object_get(tree, "module")),
          "root \"all\" with all 10 samples");
    CHECK(tree_sums_ok(tree, &nodes), "every node: value = self + the children's values");
    kids = json_object_get(tree, "children");
    main_node = json_array_get(kids, 0);
    CHECK(strcmp(json_string_value(json_object_get(main_node, "name")), "App.Main") == 0 &&
              json_integer_value(json_object_get(main_node, "value")) == 7,
          "the heaviest child first: App.Main, 7 samples");
    CHECK(json_array_size(json_object_get(o, "threads")) == 2 &&
              json_array_size(json_object_get(o, "timeline")) == 4,
          "threads and per-second timeline");
    json_decref(o);
    profile_view_free(&v);
    session_free(s);

    /* more distinct nodes than PROFILE_TREE_MAX_NODES: pruned, sums kept */
    s = live_session();
    for (uint64_t i = 0; i < PROFILE_TREE_MAX_NODES + 5000; i++) {
        uint64_t stack[] = {0x100000 + i, 0xA0, END};
        sample_walk(s, REC_MONO + i, (one_thread[]){{0x71, stack, 0, 0}, {0x72, S_BA, 0, 0}}, 2);
    }
    o = json_object();
    nodes = 0;
    profile_view_take(&v, s, &ALL);
    CHECK(profile_export_json(&v, &TREE, o, &why) == 0, "a big tree builds");
    tree = json_object_get(o, "tree");
    CHECK(tree_sums_ok(tree, &nodes) && nodes <= PROFILE_TREE_MAX_NODES + 1,
          "pruned to %zu nodes (at most %u and one [pruned]), sums hold", nodes,
          PROFILE_TREE_MAX_NODES);
    main_node = json_array_get(json_object_get(tree, "children"), 0);
    kids = json_object_get(main_node, "children");
    CHECK(strcmp(json_string_value(
                     json_object_get(json_array_get(kids, json_array_size(kids) - 1), "name")),
                 "[pruned]") == 0,
          "the node that lost children has a [pruned] child");
    json_decref(o);
    profile_view_free(&v);
    session_free(s);
}

TEST(speedscope_structure)
{
    session *s = fixture();
    profile_view v;
    profile_query q = ALL;
    const char *why = NULL;
    json_t *file, *frames, *profiles, *p, *samples, *weights, *x;
    size_t i, j, k;
    int indexes_ok = 1;
    json_int_t total = 0;

    q.with_samples = 1;
    profile_view_take(&v, s, &q);
    file = profile_export_speedscope(&v, "jitscope session 1", 1 << 20, &why);
    if (!CHECK(file, "builds (%s)", why ? why : ""))
        goto done;
    CHECK(strcmp(json_string_value(json_object_get(file, "$schema")),
                 "https://www.speedscope.app/file-format-schema.json") == 0,
          "the schema URL");
    frames = json_object_get(json_object_get(file, "shared"), "frames");
    json_array_foreach(frames, i, x) indexes_ok &= json_is_string(json_object_get(x, "name")) &&
                                                   json_is_string(json_object_get(x, "file"));
    CHECK(json_array_size(frames) == v.syms.count && indexes_ok,
          "shared.frames: name and file each");
    profiles = json_object_get(file, "profiles");
    CHECK(json_array_size(profiles) == 2, "one profile per thread with samples");
    json_array_foreach(profiles, i, p)
    {
        json_int_t sum = 0;
        samples = json_object_get(p, "samples");
        weights = json_object_get(p, "weights");
        CHECK(strcmp(json_string_value(json_object_get(p, "type")), "sampled") == 0 &&
                  strcmp(json_string_value(json_object_get(p, "unit")), "none") == 0 &&
                  json_integer_value(json_object_get(p, "startValue")) == 0 &&
                  json_array_size(samples) == json_array_size(weights),
              "profile %zu: sampled, unit none, from 0, one weight per sample", i);
        json_array_foreach(weights, j, x) sum += json_integer_value(x);
        json_array_foreach(samples, j, x)
        {
            json_t *idx;
            json_array_foreach(x, k, idx)
                indexes_ok &= json_is_integer(idx) && json_integer_value(idx) >= 0 &&
                              (size_t)json_integer_value(idx) < json_array_size(frames);
        }
        CHECK(sum == json_integer_value(json_object_get(p, "endValue")),
              "profile %zu: endValue = the sum of the weights", i);
        total += sum;
    }
    CHECK(indexes_ok && total == 10, "every index names a frame; 10 samples in all");
    p = json_array_get(profiles, 0);
    CHECK(strcmp(json_string_value(json_object_get(p, "name")),
                 "Thread 0x71 (os 4113) \"worker\"") == 0,
          "named after the thread");
    samples = json_object_get(p, "samples");
    weights = json_object_get(p, "weights");
    CHECK(json_array_size(samples) == 3 && json_integer_value(json_array_get(weights, 0)) == 3 &&
              json_integer_value(json_array_get(weights, 1)) == 2,
          "worker: CBA x3, BA x2, cut CB x1: consecutive identical stacks merged");
    x = json_array_get(samples, 0);
    CHECK(json_array_size(x) == 3 &&
              strcmp(json_string_value(json_object_get(
                         json_array_get(frames, (size_t)json_integer_value(json_array_get(x, 0))),
                         "name")),
                     "App.Main") == 0 &&
              strcmp(json_string_value(json_object_get(
                         json_array_get(frames, (size_t)json_integer_value(json_array_get(x, 2))),
                         "name")),
                     "App.Work") == 0,
          "samples are root first (App.Main ... App.Work)");
    json_decref(file);
    file = profile_export_speedscope(&v, "x", 100, &why);
    CHECK(!file && why, "a file over the size limit is refused with a reason");
done:
    profile_view_free(&v);
    session_free(s);
}

TEST(sparse_seconds_for_a_wide_window)
{
    session *s = live_session();
    profile_view v;

    sample_walk(s, REC_MONO, (one_thread[]){{0x71, S_BA, 0, 0}}, 1);
    sample_walk(s, REC_MONO + 200000 * SEC, (one_thread[]){{0x71, S_BA, 0, 0}}, 1);
    sample_walk(s, REC_MONO + 200000 * SEC, (one_thread[]){{0x71, S_CBA, 0, 0}}, 1);
    CHECK(profile_view_take(&v, s, &ALL) == 0 && v.second_count == 2 && v.seconds[0].samples == 1 &&
              v.seconds[1].samples == 2 && v.seconds[1].t_ms - v.seconds[0].t_ms == 200000000,
          "samples 200,000 s apart: only the two seconds that have samples");
    profile_view_free(&v);
    session_free(s);
}

/* Each sample's frames by code address (profile_addr.h): the same FunctionIDs
 * at other addresses are one stack of the profile but two of a by_address
 * view; file:line then splits a method's frame by line (profile_view_lines,
 * srcline_at over a hand-made map and sequence points), a hidden point, an
 * address in no version read and the native frame staying as they were. */
TEST(frames_by_address_and_lines)
{
    session *s = live_session();
    const profile_state *p = &s->profile;
    profile_query q = ALL;
    profile_view v;
    const uint64_t *at;
    uint32_t depth, *fn_of, k;
    srcline L = {0};
    srcline_fn *e;
    size_t i, split = 0;

    name_function(s, A, "App.Main");
    name_function(s, B, "App.Run");
    sample_walk(s, REC_MONO, (one_thread[]){{0x71, S_BA, 0, 0}}, 1);
    sample_walk(s, REC_MONO + 1, (one_thread[]){{0x71, S_BA, 0, 0}}, 1);
    g_ip_base = 0x7f20; /* B at its hidden point */
    sample_walk(s, REC_MONO + 2, (one_thread[]){{0x71, S_BA, 0, 0}}, 1);
    g_ip_base = 0x9f00; /* in no version */
    sample_walk(s, REC_MONO + 3, (one_thread[]){{0x71, S_BA, 0, 0}}, 1);
    g_ip_base = 0x7f10; /* B at its second line */
    sample_walk(s, REC_MONO + 4, (one_thread[]){{0x71, S_BA, 0, 0}}, 1);
    sample_walk(s, REC_MONO + 5, (one_thread[]){{0x71, S_NDA, 0, 0}}, 1);
    g_ip_base = 0x7f00;
    CHECK(p->sample_count == 6 && p->stack_count == 2 && p->addr.stack_count == 5,
          "5 address stacks of 2 stacks (got %zu of %zu)", p->addr.stack_count, p->stack_count);
    at = profile_addr_get(&p->addr, 0, &depth);
    CHECK(at && depth == 2 && at[0] == 0x7f00 && at[1] == 0x7f00,
          "the leaf's IP, the caller's return address - 1");
    at = profile_addr_get(&p->addr, 5, &depth);
    CHECK(at && depth == 3 && at[0] == 0 && at[1] == 0x7f10 && at[2] == 0x7f11,
          "a native frame has no address");
    CHECK(profile_addr_get(&p->addr, 6, &depth) == NULL && depth == 0, "no such sample");

    CHECK(profile_view_take(&v, s, &q) == 0 && v.stack_count == 2 && !v.addrs, "by FunctionIDs");
    profile_view_free(&v);
    q.by_address = 1;
    q.with_samples = 1;
    CHECK(profile_view_take(&v, s, &q) == 0 && v.stack_count == 5 && v.addrs &&
              v.stacks[0].count == 2 && v.sample_count == 6 && v.samples[1].stack == 0 &&
              v.samples[2].stack == 1,
          "by address: 5 stacks, the first of 2 samples");

    /* B: one version at 0x7f00 (0x40 bytes): IL 0 at +0, IL 5 at +0x10, IL 8 at +0x20 */
    CHECK((fn_of = malloc(v.syms.count * sizeof(*fn_of))) != NULL, "memory");
    for (i = 0; i < v.syms.count; i++)
        fn_of[i] = v.syms.items[i].function_id == B ? 0 : UINT32_MAX;
    L.fns = calloc(1, sizeof(*L.fns));
    L.count = L.cap = 1;
    e = &L.fns[0];
    e->function_id = B;
    e->module = -1;
    e->file = strdup("/src/App.cs");
    e->first_line = 10;
    e->main_document = 1;
    e->have_code = 1;
    e->version_count = 1;
    e->versions[0] = (srcline_version){.hot_start = 0x7f00, .hot_size = 0x40, .map_count = 3};
    e->versions[0].map = malloc(3 * sizeof(wire_code_map_entry));
    e->versions[0].map[0] = (wire_code_map_entry){0, 0, 0x10};
    e->versions[0].map[1] = (wire_code_map_entry){5, 0x10, 0x20};
    e->versions[0].map[2] = (wire_code_map_entry){8, 0x20, 0x40};
    e->points = calloc(3, sizeof(pdb_point));
    e->point_count = 3;
    e->points[0] = (pdb_point){.il_offset = 0, .document = 1, .start_line = 10};
    e->points[1] = (pdb_point){.il_offset = 5, .document = 1, .start_line = 12};
    e->points[2] = (pdb_point){
        .il_offset = 8, .document = 1, .start_line = PDB_HIDDEN_LINE, .hidden = 1};
    CHECK(profile_view_lines(&v, &L, fn_of, 1) == 0, "lines");
    for (i = 0; i < v.stack_count; i++) {
        const profile_view_stack *st = &v.stacks[i];
        for (k = 0; k < st->depth; k++) {
            const symbol *y = &v.syms.items[v.frames[st->first + k]];
            uint64_t a = 0;
            if (y->function_id != B)
                continue;
            if (y->split) {
                split++;
                a = v.addrs[st->first + k];
                CHECK(strcmp(y->file, "/src/App.cs") == 0 && y->base != v.frames[st->first + k] &&
                          y->line == (a < 0x7f10 ? 10u : 12u),
                      "B at 0x%llx: line %u", (unsigned long long)a, y->line);
            } else {
                CHECK(y->line == 10 && strcmp(y->file, "/src/App.cs") == 0,
                      "B unsplit (hidden point, no version): the method's file and first line");
            }
        }
    }
    CHECK(split == 2,
          "B split at 0x7f00 (line 10) and 0x7f10 (line 12), not at its hidden point "
          "or outside its code (got %zu)",
          split);
    srcline_free(&L);
    free(fn_of);
    profile_view_free(&v);
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(dedup_across_threads_and_walks),
    TEST_ENTRY(caps_and_drop_counts),
    TEST_ENTRY(status_and_suspension_stats),
    TEST_ENTRY(filters),
    TEST_ENTRY(threads_on_a_reused_id),
    TEST_ENTRY(folded_exactly),
    TEST_ENTRY(call_tree),
    TEST_ENTRY(speedscope_structure),
    TEST_ENTRY(sparse_seconds_for_a_wide_window),
    TEST_ENTRY(frames_by_address_and_lines),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
