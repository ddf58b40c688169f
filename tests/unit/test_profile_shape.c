/* test_profile_shape.c -- unit tests for what a profile view shows, against a
 * hand-built CPU profile: server/profile_view.c (jitscope's own threads
 * marked and left out of the totals, unless asked for or named by the thread
 * filter), server/profile_shape.c (native frames folded into the managed
 * frame that called them, a thread's native start and a native-only thread
 * into one [native]; stacks without a managed frame and idle waits hidden and
 * counted either way; the folded frames dropped for the exports) and
 * server/profile_tree.c (what each node folded in and in how many samples;
 * the inverted tree; the sandwich's callers and callees, recursion counted
 * once; the functions table; every node's kind). Every number is worked out
 * by hand from the fixture below.
 * Build: make build/tests/test_profile_shape && build/tests/test_profile_shape
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "profile_cpu.h"
#include "profile_export.h"
#include "profile_shape.h"
#include "profile_tree.h"
#include "profile_view.h"
#include "records.h"
#include "session.h"

enum { MAIN = 0xA0, WORK_INT = 0xB0, WORK_STR = 0xC0, WAIT = 0xD0, RECURSE = 0xE0 };
/* the CPU symbol table: labels 0-7 as the sampler makes them, then natives */
enum { KERNEL = 4, START = 8, CORECLR = 9, MEMMOVE = 10, POLL = 11, GCMARK = 12 };
#define SYM(i) (PROFILE_FRAME_SYMBOL | (uint64_t)(i))
#define END UINT64_MAX

static const char *const label_names[8] = {"[incomplete stack]",
                                           "[missing frame: no frame pointer]",
                                           "[missing frame: stub]",
                                           "[unnamed managed code]",
                                           "[kernel]",
                                           "[unmapped]",
                                           "[symbol table full]",
                                           "[missing frame: on-stack replacement]"};

static void add_stack(session *s, uint32_t thread, const uint64_t *leaf_first, unsigned times)
{
    uint64_t seq[64];
    uint32_t depth = 0;
    int created, stack;

    while (leaf_first[depth] != END)
        seq[depth] = leaf_first[depth], depth++;
    stack = profile_stack_intern(&s->profile, seq, depth, &created);
    for (unsigned k = 0; k < times; k++)
        profile_add_sample(&s->profile, REC_OFFSET + (int64_t)k * 1000000, thread, (uint32_t)stack);
}

static void add_symbol(session *s, uint32_t i, const char *name, const char *module)
{
    CHECK(profile_cpu_symbol(&s->profile, i, name, strlen(name), module,
                             module ? strlen(module) : 0) == 0,
          "symbol %u", i);
}

/* Three threads: "main" (managed), "jitscope-agent" (jitscope's), ".NET BGC"
 * (native only). 23 samples, 4 of them the agent's:
 *  s1  main  x5  memmove <- Work(int) <- Main <- coreclr <- start_thread
 *  s2  main  x3  [kernel] <- memmove <- Work(string) <- Main <- coreclr <- start
 *  s3  main  x2  Work(int) <- Main <- coreclr <- start
 *  s4  agent x4  [kernel] <- __poll <- start
 *  s5  BGC   x6  gc_heap::mark <- start
 *  s6  main  x2  [kernel] <- Monitor.Wait <- Main <- coreclr <- start   (idle)
 *  s7  main  x1  Work(int) <- Recurse <- Work(int) <- Recurse <- Main <- coreclr <- start */
static session *fixture(void)
{
    session *s = rec_live_session(1);
    profile_state *p = &s->profile;

    rec_apply(s, rec_function_name(MAIN, 0x200000, "App.Main", 0));
    rec_apply(s, rec_function_name(WORK_INT, 0x200000, "App.Work(int)", 0));
    rec_apply(s, rec_function_name(WORK_STR, 0x200000, "App.Work(string)", 0));
    rec_apply(s,
              rec_function_name(WAIT, 0x200000, "System.Threading.Monitor.Wait(object, int)", 0));
    rec_apply(s, rec_function_name(RECURSE, 0x200000, "App.Recurse(int)", 0));
    profile_cpu_start(p, 999, 1001001, REC_OFFSET, 1);
    for (uint32_t i = 0; i < 8; i++)
        add_symbol(s, i, label_names[i], NULL);
    add_symbol(s, START, "start_thread", "libc.so.6");
    add_symbol(s, CORECLR, "libcoreclr.so+0x100", "libcoreclr.so");
    add_symbol(s, MEMMOVE, "memmove", "libc.so.6");
    add_symbol(s, POLL, "__poll", "libc.so.6");
    add_symbol(s, GCMARK, "gc_heap::mark", "libcoreclr.so");
    CHECK(profile_cpu_thread(p, 0, 501, 0, 0, "main", 4) == 0 &&
              profile_cpu_thread(p, 1, 502, 0, 0, "jitscope-agent", 14) == 0 &&
              profile_cpu_thread(p, 2, 503, 0, 0, ".NET BGC", 8) == 0,
          "three threads");
    add_stack(s, 0, (const uint64_t[]){SYM(MEMMOVE), WORK_INT, MAIN, SYM(CORECLR), SYM(START), END},
              5);
    add_stack(s, 0,
              (const uint64_t[]){SYM(KERNEL), SYM(MEMMOVE), WORK_STR, MAIN, SYM(CORECLR),
                                 SYM(START), END},
              3);
    add_stack(s, 0, (const uint64_t[]){WORK_INT, MAIN, SYM(CORECLR), SYM(START), END}, 2);
    add_stack(s, 1, (const uint64_t[]){SYM(KERNEL), SYM(POLL), SYM(START), END}, 4);
    add_stack(s, 2, (const uint64_t[]){SYM(GCMARK), SYM(START), END}, 6);
    add_stack(s, 0, (const uint64_t[]){SYM(KERNEL), WAIT, MAIN, SYM(CORECLR), SYM(START), END}, 2);
    add_stack(s, 0,
              (const uint64_t[]){WORK_INT, RECURSE, WORK_INT, RECURSE, MAIN, SYM(CORECLR),
                                 SYM(START), END},
              1);
    return s;
}

/* The view of s as asked, shaped; its JSON (trees and all) in *out. */
static int view_json(session *s, profile_query q, const profile_shape_opts *shape,
                     const profile_tree_opts *tree, profile_shape_counts *counts, json_t **out,
                     profile_view *keep)
{
    profile_view v;
    profile_shape_counts c;
    const char *why = NULL;
    int rc;

    q.to_ns = q.to_ns ? q.to_ns : INT64_MAX;
    if (profile_view_take(&v, s, &q) != 0)
        return -1;
    rc = profile_shape_apply(&v, shape, counts ? counts : &c);
    *out = json_object();
    if (rc == 0)
        rc = profile_export_json(&v, tree, *out, &why);
    if (rc == 0 && tree && tree->focus)
        rc = profile_tree_functions(&v, *out, &why);
    if (keep)
        *keep = v;
    else
        profile_view_free(&v);
    return rc;
}

static json_t *child(json_t *node, const char *name)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(node, "children"), i,
                       c) if (strcmp(json_string_value(json_object_get(c, "name")), name) ==
                              0) return c;
    return NULL;
}

static json_int_t num(json_t *node, const char *key)
{
    return node ? json_integer_value(json_object_get(node, key)) : -1;
}

/* The samples node folded `name` into, -1 when it did not. */
static json_int_t folded(json_t *node, const char *name)
{
    size_t i;
    json_t *f;

    json_array_foreach(json_object_get(node, "folded"), i,
                       f) if (strcmp(json_string_value(json_object_get(f, "name")), name) ==
                              0) return num(f, "samples");
    return -1;
}

static const char *kind(json_t *node)
{
    return node ? json_string_value(json_object_get(node, "kind")) : "";
}

static json_t *thread_named(json_t *o, const char *name)
{
    size_t i;
    json_t *t;

    json_array_foreach(json_object_get(o, "threads"), i,
                       t) if (json_is_string(json_object_get(t, "name")) &&
                              strcmp(json_string_value(json_object_get(t, "name")), name) ==
                                  0) return t;
    return NULL;
}

static const profile_shape_opts NONE = {0, 0, 0}, FOLD = {1, 0, 0};
static const profile_tree_opts TREE = {0, NULL, NULL}, INVERTED = {1, NULL, NULL};

/* ---- jitscope's own threads ------------------------------------------------------ */

TEST(own_threads_marked_and_left_out)
{
    session *s = fixture();
    json_t *o = NULL, *agent, *tree;
    profile_view v;

    CHECK(view_json(s, (profile_query){0}, &NONE, &TREE, NULL, &o, &v) == 0, "view");
    tree = json_object_get(o, "tree");
    agent = thread_named(o, "jitscope-agent");
    CHECK(num(tree, "value") == 19 && v.total == 19 && v.excluded == 4,
          "the agent's 4 samples are not in the 19 counted (%lld, excluded %llu)",
          (long long)num(tree, "value"), (unsigned long long)v.excluded);
    CHECK(agent && json_is_true(json_object_get(agent, "jitscope")) &&
              json_is_false(json_object_get(agent, "counted")) && num(agent, "samples") == 4,
          "the agent's thread is listed, marked jitscope's and not counted, with its samples");
    CHECK(json_is_false(json_object_get(thread_named(o, "main"), "jitscope")) &&
              json_is_true(json_object_get(thread_named(o, "main"), "counted")),
          "the app's thread is counted");
    CHECK(!child(child(tree, "start_thread"), "__poll"), "no agent frame in the tree");
    json_decref(o);
    profile_view_free(&v);

    CHECK(view_json(s, (profile_query){.own_threads = 1}, &NONE, &TREE, NULL, &o, NULL) == 0 &&
              num(json_object_get(o, "tree"), "value") == 23,
          "asked for: counted too (23)");
    json_decref(o);
    CHECK(view_json(s, (profile_query){.thread = "jitscope-agent"}, &NONE, &TREE, NULL, &o, NULL) ==
                  0 &&
              num(json_object_get(o, "tree"), "value") == 4 &&
              child(child(json_object_get(o, "tree"), "start_thread"), "__poll"),
          "named by the thread filter: its own graph");
    json_decref(o);
    session_free(s);
}

/* ---- folding ------------------------------------------------------------------------------ */

TEST(native_frames_folded_into_their_managed_caller)
{
    session *s = fixture();
    json_t *o = NULL, *tree, *native, *main_node, *work, *work_s, *wait;

    CHECK(view_json(s, (profile_query){0}, &FOLD, &TREE, NULL, &o, NULL) == 0, "view");
    tree = json_object_get(o, "tree");
    CHECK(json_array_size(json_object_get(tree, "children")) == 1, "one root child");
    native = child(tree, "[native]");
    CHECK(native && num(native, "value") == 19 && num(native, "self") == 6 &&
              strcmp(kind(native), "label") == 0,
          "every thread entered from native code: [native] 19, 6 of them the GC thread's own");
    CHECK(folded(native, "start_thread") == 19 && folded(native, "libcoreclr.so+0x100") == 13 &&
              folded(native, "gc_heap::mark") == 6,
          "[native] says what it folded: start_thread 19, the runtime's frame 13, the GC 6");
    main_node = child(native, "App.Main");
    CHECK(main_node && num(main_node, "value") == 13 && num(main_node, "self") == 0 &&
              !json_object_get(main_node, "folded") && strcmp(kind(main_node), "method") == 0,
          "Main 13, nothing folded into it");
    work = child(main_node, "App.Work(int)");
    work_s = child(main_node, "App.Work(string)");
    wait = child(main_node, "System.Threading.Monitor.Wait(object, int)");
    CHECK(work && num(work, "value") == 7 && num(work, "self") == 7 && folded(work, "memmove") == 5,
          "Work(int): 7 samples, its own time, 5 of them in memmove");
    CHECK(work_s && num(work_s, "self") == 3 && folded(work_s, "memmove") == 3 &&
              folded(work_s, "[kernel]") == 3,
          "Work(string): memmove and the kernel folded in, 3 each");
    CHECK(wait && num(wait, "self") == 2 && folded(wait, "[kernel]") == 2,
          "the wait's kernel time");
    CHECK(num(child(main_node, "App.Recurse(int)"), "value") == 1, "the recursion under Main");
    json_decref(o);

    CHECK(view_json(s, (profile_query){0}, &NONE, &TREE, NULL, &o, NULL) == 0, "unfolded");
    tree = json_object_get(o, "tree");
    native = child(tree, "start_thread");
    CHECK(native && num(native, "value") == 19 && strcmp(kind(native), "native") == 0 &&
              num(child(native, "gc_heap::mark"), "self") == 6 &&
              strcmp(kind(child(child(child(child(child(native, "libcoreclr.so+0x100"), "App.Main"),
                                            "App.Work(string)"),
                                      "memmove"),
                                "[kernel]")),
                     "label") == 0,
          "without folding every native frame is its own node; [kernel] is a label");
    CHECK(!child(tree, "[native]"), "and no [native] is made up");
    json_decref(o);
    session_free(s);
}

TEST(exports_drop_the_folded_frames)
{
    session *s = fixture();
    profile_query q = {.to_ns = INT64_MAX};
    profile_shape_counts c;
    profile_view v;
    textbuf out;
    const char *why = NULL;
    char *text;
    size_t n;

    CHECK(profile_view_take(&v, s, &q) == 0 && profile_shape_apply(&v, &FOLD, &c) == 0, "view");
    profile_shape_drop_folded(&v);
    textbuf_init(&out, 1 << 16);
    CHECK(profile_export_folded(&v, &out, &why) == 0, "folded");
    text = textbuf_take(&out, &n);
    CHECK(text &&
              strcmp(text, "[native] 6\n"
                           "[native];App.Main;App.Recurse(int);App.Work(int);App.Recurse(int);"
                           "App.Work(int) 1\n"
                           "[native];App.Main;App.Work(int) 7\n"
                           "[native];App.Main;App.Work(string) 3\n"
                           "[native];App.Main;System.Threading.Monitor.Wait(object, int) 2\n") == 0,
          "the folded lines keep the managed frames only:\n%s", text ? text : "(none)");
    free(text);
    textbuf_free(&out);
    profile_view_free(&v);
    session_free(s);
}

/* ---- hiding ---------------------------------------------------------------------------------- */

TEST(unmanaged_and_idle_stacks_hidden_and_counted)
{
    session *s = fixture();
    profile_shape_counts c;
    profile_shape_opts hide_unmanaged = {0, 1, 0}, hide_idle = {1, 0, 1}, both = {0, 1, 1};
    json_t *o = NULL;

    CHECK(view_json(s, (profile_query){0}, &NONE, &TREE, &c, &o, NULL) == 0 && c.unmanaged == 6 &&
              c.idle == 2 && num(json_object_get(o, "tree"), "value") == 19,
          "counted while shown: 6 without a managed frame, 2 idle (got %llu, %llu)",
          (unsigned long long)c.unmanaged, (unsigned long long)c.idle);
    json_decref(o);
    CHECK(view_json(s, (profile_query){0}, &hide_unmanaged, &TREE, &c, &o, NULL) == 0 &&
              c.unmanaged == 6 && num(json_object_get(o, "tree"), "value") == 13 &&
              !child(child(json_object_get(o, "tree"), "start_thread"), "gc_heap::mark"),
          "the GC thread's samples hidden: 13 left");
    json_decref(o);
    CHECK(view_json(s, (profile_query){0}, &hide_idle, &TREE, &c, &o, NULL) == 0 && c.idle == 2 &&
              num(json_object_get(o, "tree"), "value") == 17 &&
              !child(child(child(json_object_get(o, "tree"), "[native]"), "App.Main"),
                     "System.Threading.Monitor.Wait(object, int)"),
          "the wait hidden, also when folded (its deepest managed frame waits): 17 left");
    json_decref(o);
    CHECK(view_json(s, (profile_query){.own_threads = 1}, &both, &TREE, &c, &o, NULL) == 0 &&
              c.unmanaged == 10 && num(json_object_get(o, "tree"), "value") == 11,
          "with the agent's thread counted it is native only too: 10 hidden, 11 left");
    json_decref(o);
    CHECK(profile_shape_is_idle_wait("System.Threading.WaitHandle.WaitOneNoCheck(int)") &&
              profile_shape_is_idle_wait(
                  "System.Threading.Tasks.Task<System.Int32>.InternalWaitCore(int, "
                  "CancellationToken)") &&
              profile_shape_is_idle_wait("Interop+Sys.WaitForSocketEvents(IntPtr, int*)") &&
              profile_shape_is_idle_wait("System.Threading.Thread.Sleep(int)") &&
              !profile_shape_is_idle_wait("System.Threading.Monitor.Enter(object)") &&
              !profile_shape_is_idle_wait("App.WaitForIt()") &&
              !profile_shape_is_idle_wait("System.IO.StreamReader.ReadLine()"),
          "waits are waits; a lock, the app's own method and a read are not");
    session_free(s);
}

/* ---- inverted, sandwich, functions --------------------------------------------------------- */

TEST(inverted_tree_starts_where_samples_ended)
{
    session *s = fixture();
    json_t *o = NULL, *tree, *work;

    CHECK(view_json(s, (profile_query){0}, &FOLD, &INVERTED, NULL, &o, NULL) == 0, "view");
    tree = json_object_get(o, "tree");
    work = child(tree, "App.Work(int)");
    CHECK(num(tree, "value") == 19 && work && num(work, "value") == 8 &&
              num(child(work, "App.Main"), "value") == 7 &&
              num(child(work, "App.Recurse(int)"), "value") == 1 &&
              num(child(child(work, "App.Main"), "[native]"), "self") == 7,
          "Work(int) ended 8 samples: 7 called by Main (from [native]), 1 by Recurse");
    CHECK(folded(work, "memmove") == 5, "what Work(int) folded in, in the inverted tree too");
    CHECK(num(child(tree, "[native]"), "value") == 6 &&
              num(child(tree, "App.Work(string)"), "value") == 3,
          "the GC thread's [native] 6, Work(string) 3");
    json_decref(o);
    session_free(s);
}

TEST(sandwich_callers_and_callees_of_one_method)
{
    session *s = fixture();
    profile_tree_opts focus = {0, "App.Work(int)", NULL}, rec = {0, "App.Recurse(int)", NULL};
    json_t *o = NULL, *callees, *callers, *fn;
    size_t i;
    int rows = 0;

    CHECK(view_json(s, (profile_query){0}, &FOLD, &focus, NULL, &o, NULL) == 0, "view");
    callees = child(json_object_get(o, "callees"), "App.Work(int)");
    callers = child(json_object_get(o, "callers"), "App.Work(int)");
    CHECK(!json_object_get(o, "tree") && num(json_object_get(o, "focus"), "samples") == 8,
          "the focus: 8 samples with Work(int) on the stack");
    CHECK(callees && num(callees, "value") == 8 && num(callees, "self") == 7 &&
              num(child(child(callees, "App.Recurse(int)"), "App.Work(int)"), "self") == 1,
          "callees from its outermost call: 7 in itself, then Recurse -> Work(int) once");
    CHECK(callers && num(callers, "value") == 8 && num(child(callers, "App.Main"), "value") == 7 &&
              num(child(child(callers, "App.Recurse(int)"), "App.Main"), "value") == 1,
          "callers: Main 7, Recurse (from Main) 1");
    json_decref(o);

    CHECK(view_json(s, (profile_query){0}, &FOLD, &rec, NULL, &o, NULL) == 0, "recursion");
    callees = child(json_object_get(o, "callees"), "App.Recurse(int)");
    CHECK(
        num(callees, "value") == 1 &&
            num(child(child(child(callees, "App.Work(int)"), "App.Recurse(int)"), "App.Work(int)"),
                "self") == 1,
        "a recursive method counted once, from its outermost call");
    json_array_foreach(json_object_get(o, "functions"), i, fn)
    {
        const char *name = json_string_value(json_object_get(fn, "name"));
        rows++;
        if (strcmp(name, "App.Work(int)") == 0)
            CHECK(num(fn, "self") == 8 && num(fn, "total") == 8, "Work(int): self 8, total 8");
        if (strcmp(name, "App.Recurse(int)") == 0)
            CHECK(num(fn, "self") == 0 && num(fn, "total") == 1, "Recurse: total 1 (once a stack)");
        if (strcmp(name, "App.Main") == 0)
            CHECK(num(fn, "total") == 13 && i == 1, "Main second, after [native]");
        CHECK(strcmp(name, "memmove") != 0, "folded frames are not functions of the table");
    }
    CHECK(rows == 6, "six rows: [native], Main, Work x2, Wait, Recurse (got %d)", rows);
    json_decref(o);
    session_free(s);
}

static const check_test tests[] = {TEST_ENTRY(own_threads_marked_and_left_out),
                                   TEST_ENTRY(native_frames_folded_into_their_managed_caller),
                                   TEST_ENTRY(exports_drop_the_folded_frames),
                                   TEST_ENTRY(unmanaged_and_idle_stacks_hidden_and_counted),
                                   TEST_ENTRY(inverted_tree_starts_where_samples_ended),
                                   TEST_ENTRY(sandwich_callers_and_callees_of_one_method),
                                   TEST_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
