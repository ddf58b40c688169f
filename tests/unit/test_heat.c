/* test_heat.c -- unit tests for a profile's samples by instruction:
 * profile_heat.c (the leaf's sampled address and each caller's call
 * instruction, once per sample, bounded), a wall profile's walks attributed
 * by their frames' addresses, a CPU profile's LOGREC_CPU_HEAT read back, and
 * codeheat.c through the code view (codeview.c): a caller's return address
 * counts on the call before it, not on the instruction it returns to.
 * Build: make build/tests/test_heat && build/tests/test_heat
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codeview.h"
#include "logrec.h"
#include "profile_cpu.h"
#include "records.h"
#include "session_kinds.h"

#define FID_HOT 0x7f0000001000ull
#define FID_CALLER 0x7f0000001040ull
#define MODULE 0x7f0000200000ull
#define TID 0x7f00000a0000ull
#define CODE 0x7f1000000000ull

static const profile_heat_entry *heat_at(const profile_heat *h, uint64_t address)
{
    size_t i = 0;
    const profile_heat_entry *e;

    while ((e = profile_heat_next(h, &i)))
        if (e->address == address)
            return e;
    return NULL;
}

TEST(leaf_and_callers_counted_once_a_sample)
{
    profile_heat h;
    uint64_t frames[40], *ranges = (uint64_t[]){0x1000, 0x1010, 0x3000, 0x3001};
    const profile_heat_entry *e;
    profile_heat_entry *list = NULL;
    long n;
    unsigned i;

    memset(&h, 0, sizeof(h));
    /* leaf 0x1000; a caller at 0x2004 twice (recursion through one call); a native frame */
    profile_heat_sample(&h, (uint64_t[]){0x1000, 0x2004, 0, 0x2004}, 4, 1);
    profile_heat_sample(&h, (uint64_t[]){0x1000}, 1, 1);
    profile_heat_sample(&h, (uint64_t[]){0x2004}, 1, 0); /* a native leaf: no self */
    e = heat_at(&h, 0x1000);
    CHECK(e && e->self == 2 && e->total == 2, "the leaf: self and total");
    e = heat_at(&h, 0x2004);
    CHECK(e && e->self == 0 && e->total == 2, "a caller: total once a sample, never self");
    for (i = 0; i < 40; i++) /* a deep stack, sorted to find repeats: 0x3000 leaf, 4 addresses */
        frames[i] = 0x3000 + (i % 4);
    profile_heat_sample(&h, frames, 40, 1);
    e = heat_at(&h, 0x3000);
    CHECK(e && e->self == 1 && e->total == 1 && heat_at(&h, 0x3003)->total == 1,
          "a deep stack: each address once");
    n = profile_heat_collect(&h, ranges, 2, &list);
    CHECK(n == 2 && list[0].address == 0x1000 && list[1].address == 0x3000,
          "collected inside the ranges, by address (%ld)", n);
    free(list);
    profile_heat_free(&h);
    for (i = 0; i < PROFILE_HEAT_MAX; i++)
        (void)profile_heat_add(&h, 0x100000 + i, 0, 1);
    CHECK(h.count == PROFILE_HEAT_MAX && profile_heat_add(&h, 0x10, 1, 1) == -1 && h.dropped == 1 &&
              profile_heat_add(&h, 0x100000, 1, 1) == 0,
          "full: a new address is counted as dropped, a known one still counts");
    CHECK(h.cap * sizeof(profile_heat_entry) <= (8u << 20), "at most 8 MiB");
    profile_heat_free(&h);
}

/* Hot's code: push rbp @0, call [rip+0x10] @1, nop @7, jne @8, ret @10. */
static const uint8_t HOT[] = {0x55, 0xff, 0x15, 0x10, 0x00, 0x00, 0x00, 0x90, 0x75, 0xf6, 0xc3};

static session *heat_session(void)
{
    session *s = rec_live_session(1);
    wire_record r;
    wire_code_map_entry map[2] = {{0xFFFFFFFEu, 0, 1}, {6, 1, 11}};
    uint64_t t = REC_MONO + 100;

    rec_apply(s, rec_module_loaded(MODULE, "/app/App.dll", "App", 0, t++));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, TID, 101, 0, NULL, t++));
    rec_apply(s, rec_function_name(FID_HOT, MODULE, "Ns.C.Hot()", 0));
    rec_apply(s, rec_function_name(FID_CALLER, MODULE, "Ns.C.Main()", 0));
    rec_apply(s, rec_jit_started(FID_HOT, TID, t));
    r = rec_jit_finished(FID_HOT, TID, CODE, sizeof(HOT), t + 1000, 0);
    r.u.jit_finished.tier = WIRE_TIER_1;
    rec_apply(s, r);
    rec_apply(s, rec_code_version((wire_code_version_info){7, FID_HOT, 0, CODE, 0, sizeof(HOT), 0,
                                                           0, sizeof(HOT), 2, 2, 0, 0, 0, 0},
                                  REC_MONO + 9000));
    rec_apply(s, rec_code_part((wire_code_part){7, 0, WIRE_CODE_PART_CODE, 0, 0, 0}, HOT,
                               sizeof(HOT), REC_MONO + 9001));
    rec_apply(s, rec_code_part((wire_code_part){7, 0, WIRE_CODE_PART_MAP, 0, 0, 0}, map,
                               sizeof(map), REC_MONO + 9001));
    rec_apply(s, rec_code_end((wire_code_end){7, FID_HOT, MODULE, 5000, 0, WIRE_CODE_OK, 0, 1, 1, 0,
                                              0, 0x06000001u, 0},
                              REC_MONO + 9002));
    return s;
}

/* A wall sample walk of one thread: frames leaf first. */
static void walk(session *s, uint64_t snap, const wire_stack_frame *frames, uint32_t n)
{
    rec_apply(s, rec_stack_thread((wire_stack_thread){snap, TID, 101, 0, 100, n, 0}, frames,
                                  REC_MONO + 10000 + snap));
    rec_apply(s,
              rec_stack_end((wire_stack_end){snap, 0, WIRE_STACK_SAMPLE, 1, 1, 0, 0, 49000, 10, 10},
                            REC_MONO + 10000 + snap));
}

static json_t *instruction(json_t *code, size_t i)
{
    return json_array_get(
        json_object_get(json_array_get(json_object_get(code, "versions"), 0), "instructions"), i);
}

static long long field(json_t *o, const char *name)
{
    return json_integer_value(json_object_get(o, name));
}

TEST(wall_samples_on_their_instructions)
{
    session *s = heat_session();
    const session_function *f = session_find_function(s, FID_HOT);
    const code_reply *r = code_reply_find(&s->code, 7, CODE_NONE);
    codeview v;
    json_t *o, *version;
    textbuf out;
    char *text;
    size_t len;

    CHECK(f && r && !r->broken, "the reply arrived whole");
    if (!f || !r)
        goto done;
    CHECK(codeview_take(&v, s, f, r, 0) == 0, "copied out");
    o = codeview_json(&v, NULL);
    CHECK(json_is_null(json_object_get(o, "profile")) && field(instruction(o, 3), "samples") == 0,
          "no profile: none, every instruction 0");
    json_decref(o);
    codeview_free(&v);

    session_profile_start(s, 49, REC_NOW);
    /* the leaf in Hot at jne (offset 8), twice */
    walk(s, 1, (wire_stack_frame[]){{FID_HOT, CODE + 8}, {FID_CALLER, 0x7f5000000100ull}}, 2);
    walk(s, 2, (wire_stack_frame[]){{FID_HOT, CODE + 8}, {FID_CALLER, 0x7f5000000100ull}}, 2);
    /* Hot called something native: its frame's address is the return address
     * CODE + 7, after the call at 1..6 */
    walk(s, 3, (wire_stack_frame[]){{0, 0x7f6000000000ull}, {FID_HOT, CODE + 7}}, 2);
    CHECK(codeview_take(&v, s, f, r, 0) == 0, "copied out");
    o = codeview_json(&v, NULL);
    version = json_array_get(json_object_get(o, "versions"), 0);
    CHECK(field(json_object_get(o, "profile"), "number") == 1 &&
              strcmp(json_string_value(json_object_get(json_object_get(o, "profile"), "mode")),
                     "wall") == 0 &&
              field(json_object_get(o, "profile"), "samples") == 3,
          "the profile: its number, mode, samples");
    CHECK(field(instruction(o, 3), "self_samples") == 2 && field(instruction(o, 3), "samples") == 2,
          "the leaf's instruction: 2 self");
    CHECK(field(instruction(o, 1), "samples") == 1 && field(instruction(o, 1), "self_samples") == 0,
          "the caller's call instruction (return address - 1): 1, not self");
    CHECK(field(instruction(o, 2), "samples") == 0, "the instruction at the return address: none");
    CHECK(field(version, "samples") == 3 && field(version, "self_samples") == 2,
          "the version's totals");
    textbuf_init(&out, 1 << 20);
    CHECK(codeview_text(&v, NULL, 0, &out) == 0, "a listing");
    text = textbuf_take(&out, &len);
    CHECK(text && strstr(text, "  ; samples 1, self 0\n") &&
              strstr(text, "  ; samples 2, self 2\n"),
          "the listing says the samples after the sampled instructions");
    free(text);
    textbuf_free(&out);
    json_decref(o);
    codeview_free(&v);
done:
    session_free(s);
}

TEST(cpu_heat_read_back)
{
    session *s = rec_live_session(1);
    logrec_cpu_start start = {999, 0, 1001001};
    uint8_t buf[sizeof(logrec_cpu_heat) + 2 * sizeof(profile_heat_entry)];
    logrec_cpu_heat h = {2, 0};
    profile_heat_entry e[2] = {{0x5000, 3, 4}, {0x5010, 0, 7}};
    const profile_heat_entry *got;

    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), e, sizeof(e));
    CHECK(session_apply_server(s, LOGREC_CPU_HEAT, buf, sizeof(buf), REC_NOW) == -1,
          "before a CPU profile's start: refused");
    CHECK(session_apply_server(s, LOGREC_CPU_START, (const uint8_t *)&start, sizeof(start),
                               REC_NOW) == 0,
          "a CPU profile");
    CHECK(session_apply_server(s, LOGREC_CPU_HEAT, buf, sizeof(buf), REC_NOW) == 0 &&
              session_apply_server(s, LOGREC_CPU_HEAT, buf, sizeof(buf), REC_NOW) == 0,
          "two batches read back");
    got = heat_at(&s->profile.heat, 0x5000);
    CHECK(got && got->self == 6 && got->total == 8 &&
              heat_at(&s->profile.heat, 0x5010)->total == 14,
          "added up as the sampler added them");
    CHECK(session_apply_server(s, LOGREC_CPU_HEAT, buf, sizeof(buf) - 1, REC_NOW) == -1,
          "a short payload: refused");
    e[0].self = 9; /* more self than total: not a count the server writes */
    memcpy(buf + sizeof(h), e, sizeof(e));
    CHECK(session_apply_server(s, LOGREC_CPU_HEAT, buf, sizeof(buf), REC_NOW) == -1,
          "an impossible entry: refused");
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(leaf_and_callers_counted_once_a_sample),
    TEST_ENTRY(wall_samples_on_their_instructions),
    TEST_ENTRY(cpu_heat_read_back),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
