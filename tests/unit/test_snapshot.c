/* test_snapshot.c -- unit tests for server/snapshot.c: a session's folded
 * state written as SNAPSHOT_* frames and restored into a session that has
 * only its header serves exactly what the original served (every view:
 * detail, functions with their compilations, modules, threads, events), IDs
 * reused after an unload or a thread's end included; a restored session
 * goes on folding records as the original would; damaged snapshots are
 * refused with a reason, never a crash.
 * Build: make build/tests/test_snapshot && build/tests/test_snapshot
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "fixtures.h"
#include "records.h"
#include "snapshot.h"
#include "views.h"
#include "wire_decode.h"

#define MID_APP 0x7f0000100000ull
#define MID_PLUGIN 0x7f0000200000ull

/* A session with a bit of everything a long-running app makes. */
static session *rich_session(void)
{
    session *s = rec_live_session(1);
    uint64_t t = REC_MONO + 100;
    unsigned i;

    rec_apply(s, rec_module_loaded(MID_APP, "/app/App.dll", "App", 0, t++));
    rec_apply(s, rec_module_loaded(MID_PLUGIN, "/app/Plugin.dll", "Plugin", 0, t++));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x71, 0, 0, NULL, t++));
    rec_apply(s, rec_thread(WIRE_THREAD_OS_ID, 0x71, 1001, 0, NULL, t++));
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 0, 0, "worker-1", t++));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x72, 1002, 0, NULL, t++));
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x72, 0, 0, "", t++)); /* named "" */
    for (i = 0; i < 50; i++) {
        uint64_t fid = 0xF000 + i;
        char name[64];
        snprintf(name, sizeof(name), "App.Type%u.Method%u(int)", i % 7, i);
        rec_apply(s, rec_function_name(fid, i % 5 ? MID_APP : MID_PLUGIN, name, 0));
        rec_apply(s, rec_jit_started(fid, 0x71, t));
        rec_apply(s, rec_jit_finished(fid, 0x71, 0x10000 + i * 0x100, 100 + i, t + 500, 0));
        t += 1000;
    }
    for (i = 0; i < 20; i++) { /* tier-ups: second and third compilations */
        uint64_t fid = 0xF000 + i;
        rec_apply(s, rec_jit_started(fid, 0x72, t));
        rec_apply(s, rec_jit_finished(fid, 0x72, 0x90000 + i * 0x100, 300 + i, t + 900, 0));
        if (i < 5) {
            rec_apply(s, rec_jit_started(fid, 0x72, t + 1000));
            rec_apply(s, rec_jit_finished(fid, 0x72, 0xA0000 + i * 0x100, 200, t + 1400, 0));
        }
        t += 2000;
    }
    /* a dynamic method, renamed when its FunctionID is reused */
    rec_apply(s,
              rec_function_name(0xD1, 0, "[dynamic] Regex1_Scan(RegexRunner)", WIRE_FLAG_DYNAMIC));
    rec_apply(s, rec_jit_started(0xD1, 0x71, t));
    rec_apply(s, rec_jit_finished(0xD1, 0x71, 0xB0000, 64, t + 10, WIRE_FLAG_DYNAMIC));
    rec_apply(s,
              rec_function_name(0xD1, 0, "[dynamic] Regex2_Scan(RegexRunner)", WIRE_FLAG_DYNAMIC));
    /* a function only catch-up knows */
    rec_apply(s, rec_jit_finished(0xC1, 0, 0xC0000, 77, t + 20, WIRE_FLAG_CATCHUP));
    /* the plugin unloads: its FunctionIDs are retired, one is given to a new method */
    rec_apply(s, rec_module_unloaded(MID_PLUGIN, t + 30));
    rec_apply(s, rec_module_loaded(MID_PLUGIN, "/app/Plugin2.dll", "Plugin2", 0, t + 40));
    rec_apply(s, rec_function_name(0xF000, MID_PLUGIN, "Plugin2.Fresh()", 0));
    rec_apply(s, rec_jit_started(0xF000, 0x71, t + 50));
    rec_apply(s, rec_jit_finished(0xF000, 0x71, 0xE0000, 33, t + 60, 0));
    /* a thread ends and its ThreadID is given to a new one */
    rec_apply(s, rec_thread(WIRE_THREAD_DESTROYED, 0x72, 0, 0, NULL, t + 70));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, 0x72, 1003, 0, NULL, t + 80));
    rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x72, 0, 0, "worker-3", t + 81));
    /* a compilation under way at the cut */
    rec_apply(s, rec_jit_started(0xF0F0, 0x71, t + 90));
    /* GC, drops, cost, catch-up, tiers */
    rec_apply(s, rec_gc_started(1u << 2, 1, t + 100));
    rec_apply(s, rec_gc_finished(t + 200));
    rec_apply(s,
              rec_drops((wire_drops){.dropped[WIRE_DROP_RING_FULL] = 3, .produced = 400}, t + 300));
    rec_apply(s, rec_agent_cost((wire_agent_cost){.callbacks = 280,
                                                  .total_ns = 15000,
                                                  .buckets[2] = 280,
                                                  .metadata_direct_modules = 2},
                                t + 300));
    rec_apply(s, rec_catchup(WIRE_CATCHUP_END, (wire_catchup){3, 40, 2, 0, 1234567}, t + 310));
    rec_apply(s, rec_tiers_status(1, 0, 7, t + 320));
    /* the runtime ended the tier source as the process began to exit */
    rec_apply(s, rec_tiers_status(WIRE_TIERS_ENDED_BY_RUNTIME, 0, 7, t + 330));
    return s;
}

/* A session as storage's header gives it: the same id, token and command, no content. */
static session *header_only(const session *of)
{
    session *s = session_new(of->id, of->mode, of->pid, of->command_line, of->token);

    if (s) {
        s->state = of->state, s->parent_pid = of->parent_pid;
        s->created_ns = of->created_ns, s->ended_ns = of->ended_ns;
    }
    return s;
}

/* Restores every frame of bytes[0..n) into s; 0, or -1 with the reason in *why. */
static int restore(session *s, const char *bytes, size_t n, const char **why)
{
    snapshot_reader rd = {0};
    size_t off = 0;

    while (off < n) {
        wire_frame f;
        size_t used;
        int rc = wire_decode_frame((const uint8_t *)bytes + off, n - off, &f, &used, why);
        if (rc == WIRE_DECODE_NEED_MORE)
            *why = "a frame cut short";
        if (rc != WIRE_DECODE_OK || snapshot_apply(s, &rd, f.header.type, f.header.flags, f.payload,
                                                   f.header.length, why) != 0) {
            snapshot_reader_free(&rd);
            return -1;
        }
        off += used;
    }
    return snapshot_finish(s, &rd, why);
}

/* Everything the views serve of s, as one JSON text (caller frees). */
static char *everything(session *s)
{
    json_t *all = fixture_views(s), *f;
    size_t i;
    char *text;

    json_object_set_new(all, "detail", view_session_detail(s));
    json_object_del(json_object_get(all, "detail"), "memory"); /* capacities may differ */
    json_array_foreach(json_object_get(all, "functions"), i, f)
    {
        const session_function *row = &s->functions[i];
        json_object_set_new(f, "indexed",
                            json_boolean(session_find_function(s, row->function_id) == row));
    }
    text = json_dumps(all, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(all);
    return text;
}

static char *encode(const session *s, size_t *n)
{
    textbuf out;

    textbuf_init(&out, (size_t)1 << 30);
    if (snapshot_encode(s, 0, &out) != 0) {
        textbuf_free(&out);
        return NULL;
    }
    return textbuf_take(&out, n);
}

TEST(round_trip_serves_the_same)
{
    session *s = rich_session(), *r = header_only(s);
    size_t n = 0;
    char *bytes = encode(s, &n), *before, *after;
    const char *why = NULL;

    CHECK(bytes && n > 0, "encoded: %zu bytes", n);
    CHECK(restore(r, bytes, n, &why) == 0, "restored (%s)", why ? why : "ok");
    before = everything(s);
    after = everything(r);
    CHECK(before && after && strcmp(before, after) == 0,
          "every view of the restored session is the original's (%zu and %zu bytes of JSON)",
          before ? strlen(before) : 0, after ? strlen(after) : 0);
    if (before && after && strcmp(before, after) != 0) {
        size_t i = 0;
        while (before[i] && before[i] == after[i])
            i++;
        printf("    first difference at %zu:\n    before ...%.160s\n    after  ...%.160s\n", i,
               before + (i > 40 ? i - 40 : 0), after + (i > 40 ? i - 40 : 0));
    }
    CHECK(session_find_function(r, 0xF000) &&
              strcmp(fixture_fn_name(session_find_function(r, 0xF000)), "Plugin2.Fresh()") == 0,
          "a FunctionID reused after its module's unload finds the new method");
    CHECK(session_find_thread(r, 0x72) &&
              strcmp(session_find_thread(r, 0x72)->name, "worker-3") == 0 && r->thread_count == 3,
          "a reused ThreadID finds the new thread; the old one stays as a row");
    CHECK(session_find_function(r, 0xF001) && session_find_function(r, 0xF001)->thread_row == 2 &&
              session_find_function(r, 0xF030) && session_find_function(r, 0xF030)->thread_row == 1,
          "a function names the row of the thread that compiled it, the old 0x72 included");
    CHECK(session_thread_match(r, 0x72, 1002) == &r->threads[1] &&
              session_thread_match(r, 0x72, 1003) == &r->threads[2],
          "the OS thread ids find their rows again");
    free(before);
    free(after);

    /* both go on alike: the compilation under way finishes, a new JIT comes */
    rec_apply(s, rec_jit_finished(0xF0F0, 0x71, 0xF0000, 90, REC_MONO + 900000, 0));
    rec_apply(r, rec_jit_finished(0xF0F0, 0x71, 0xF0000, 90, REC_MONO + 900000, 0));
    before = everything(s);
    after = everything(r);
    CHECK(before && after && strcmp(before, after) == 0,
          "after one more record each (a JIT started before the cut), still the same");
    CHECK(session_find_function(r, 0xF0F0) &&
              session_function_last_jit_time(session_find_function(r, 0xF0F0)) > 0,
          "its JIT time is measured from the start the snapshot kept");
    free(before);
    free(after);
    free(bytes);
    session_free(s);
    session_free(r);
}

/* Whether two functions have the same name (or none). */
static int same_name(const session_function *a, const session_function *b)
{
    const char *x = fixture_fn_name(a), *y = fixture_fn_name(b);
    return x && y ? strcmp(x, y) == 0 : x == y;
}

/* A session with megabytes of names reads them back into one reserved block
 * (strpool_reserve from the snapshot's name_bytes), not chunk by chunk. */
TEST(names_read_back_into_one_block)
{
    session *s = rec_live_session(1), *r;
    uint64_t t = REC_MONO + 100;
    size_t n = 0;
    char *bytes, name[256];
    const char *why = NULL;
    unsigned i, same = 1;

    rec_apply(s, rec_module_loaded(MID_APP, "/app/App.dll", "App", 0, t++));
    for (i = 0; i < 20000; i++) { /* about 4 MiB of names */
        snprintf(name, sizeof(name), "Contoso.Orders.Service%04u.Handlers.Handler%u.Handle(%0150u)",
                 i / 24, i, i);
        rec_apply(s, rec_function_name(0x100000 + i, MID_APP, name, 0));
    }
    r = header_only(s);
    bytes = encode(s, &n);
    CHECK(bytes && restore(r, bytes, n, &why) == 0, "restored (%s)", why ? why : "ok");
    CHECK(r->names.region && r->names.region_chunks >= 3 &&
              r->names.region_taken == r->names.chunk_count,
          "every name chunk is in the reserved block (%u of %u)", r->names.region_taken,
          r->names.region_chunks);
    for (i = 0; i < r->function_count && i < s->function_count; i++)
        same &= same_name(&r->functions[i], &s->functions[i]);
    CHECK(same && r->function_count == 20000, "every name read back (%zu)", r->function_count);
    free(bytes);
    session_free(s);
    session_free(r);
}

/* Pages of [p, p + bytes) that are resident, and *pages the whole ones in it. */
static size_t resident_pages(const void *p, size_t bytes, size_t *pages)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(page - 1);
    unsigned char *in;
    size_t i, n = 0;

    *pages = end > start ? (end - start) / page : 0;
    if (!*pages || !(in = malloc(*pages)))
        return 0;
    if (mincore((void *)start, end - start, in) == 0)
        for (i = 0; i < *pages; i++)
            n += in[i] & 1;
    free(in);
    return n;
}

/* The room a snapshot's BEGIN makes (its functions, their index, their
 * names) is made resident beside the reading (prefault.h), before a single
 * function has been read into it. */
TEST(begin_populates_the_room_it_makes)
{
    session *s = rec_live_session(1), *r = header_only(s);
    snapshot_begin b = {.format = SNAPSHOT_FORMAT,
                        .name_bytes = 16u << 20,
                        .functions = 100000,
                        .modules = 1,
                        .threads = 1};
    snapshot_reader rd = {0};
    const char *why = NULL;
    size_t pages, in;

    CHECK(snapshot_apply(r, &rd, SNAPSHOT_BEGIN, 0, (const uint8_t *)&b, sizeof(b), &why) == 0,
          "BEGIN taken (%s)", why ? why : "ok");
    prefault_wait(&rd.room); /* the populating is over */
    CHECK(prefault_refused() == 0, "the kernel populates (MADV_POPULATE_WRITE, Linux 5.14)");
    in = resident_pages(r->functions, r->function_cap * sizeof(*r->functions), &pages);
    CHECK(r->function_count == 0 && pages > 1000 && in == pages,
          "every page of the functions' array is resident (%zu of %zu)", in, pages);
    in = resident_pages(r->function_index.slots,
                        r->function_index.capacity * sizeof(*r->function_index.slots), &pages);
    CHECK(pages > 0 && in == pages, "every page of their index is resident (%zu of %zu)", in,
          pages);
    in = resident_pages(r->names.region, b.name_bytes, &pages);
    CHECK(r->names.region && pages > 4000 && in == pages,
          "every page of the names' block is resident (%zu of %zu)", in, pages);
    snapshot_reader_free(&rd);
    session_free(r);
    session_free(s);
}

TEST(empty_session)
{
    session *s = session_new(3, SESSION_MODE_ATTACH, 12, "x", REC_TOKEN), *r = header_only(s);
    size_t n = 0;
    char *bytes = encode(s, &n);
    const char *why = NULL;

    CHECK(bytes && restore(r, bytes, n, &why) == 0 && r->function_count == 0 &&
              r->events.last_seq == 0,
          "a session with nothing in it round-trips (%s)", why ? why : "ok");
    free(bytes);
    session_free(s);
    session_free(r);
}

TEST(damage_is_refused)
{
    session *s = rich_session();
    size_t n = 0, cut, i;
    char *bytes = encode(s, &n);
    unsigned refused = 0, tries = 0;
    uint32_t rng = 12345;

    /* cut short anywhere: no END, or half a frame */
    for (cut = 0; cut < n; cut += n / 97 + 1) {
        session *r = header_only(s);
        const char *why = NULL;
        refused += restore(r, bytes, cut, &why) != 0 && why && *why;
        tries++;
        session_free(r);
    }
    CHECK(refused == tries, "every cut snapshot is refused with a reason (%u of %u)", refused,
          tries);
    /* bytes flipped: refused, or (a flip in a name or a time) restored; never a crash
     * (ASan/UBSan watch) */
    for (i = 0; i < 3000; i++) {
        session *r = header_only(s);
        const char *why = NULL;
        char *copy = malloc(n);
        memcpy(copy, bytes, n);
        rng = rng * 1103515245u + 12345u;
        copy[(rng >> 8) % n] ^= (char)(1u << (rng % 8));
        restore(r, copy, n, &why);
        free(copy);
        session_free(r);
    }
    CHECK(1, "3000 single-bit flips restored or refused without a crash");
    free(bytes);
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(round_trip_serves_the_same),
    TEST_ENTRY(names_read_back_into_one_block),
    TEST_ENTRY(begin_populates_the_room_it_makes),
    TEST_ENTRY(empty_session),
    TEST_ENTRY(damage_is_refused),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
