/* test_cpuprof.c -- unit tests for the CPU profiler's naming and folding,
 * which need no perf events: the frame naming and its prolog reading
 * (server/cpusym.c, on this process), the fold of a batch of samples into a
 * session's profile with its labels for lost frames (server/cpufold.c),
 * reading that profile back from its log records (server/profile_cpu.c) and
 * the pprof export (server/pprof.c, decoded again with protobuf-c after
 * gunzip). What they are made from (code map, perf records, maps, ELF
 * symbols, /proc files, the probe, hash slots) is test_cpuinputs.c's.
 *
 * The fold test builds, in this process, an anonymous executable mapping with
 * three "methods": a framed one (push rbp; mov rbp, rsp), a frameless one and
 * an on-stack-replacement one (mov rax, [rbp]; push rax ...), registers them
 * in a session's code map, and folds samples whose chains go through them,
 * through a native function of this binary, a stub address the agent called
 * not managed, and an address in no mapping.
 * Build: make build/tests/test_cpuprof && build/tests/test_cpuprof
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "fixtures.h"
#include "check.h"
#include "codemap.h"
#include "cpufold.h"
#include "cpusym.h"
#include "logrec.h"
#include "pprof.h"
#include "profile.pb-c.h"
#include "profile_cpu.h"
#include "profile_view.h"
#include "sessions.h"

__attribute__((noinline)) int test_cpuprof_known_function(int x) { return x * 7 + 1; }

/* ---- naming, prologs, folding ---------------------------------------------------------- */

enum { CODE_FRAMED = 0, CODE_FRAMELESS = 0x100, CODE_OSR = 0x200, CODE_OSR_OLD = 0x300 };

/* An anonymous executable mapping with three "methods" (see the top). */
static uint8_t *fake_code(void)
{
    static const uint8_t framed[] = {0x55, 0x48, 0x8b, 0xec, 0x90, 0x90, 0x90,
                                     0x90, 0x90, 0x90, 0x90, 0x90, 0x5d, 0xc3};
    static const uint8_t frameless[] = {0x48, 0x83, 0xec, 0x28, 0x90, 0x90, 0x90,
                                        0x90, 0x48, 0x83, 0xc4, 0x28, 0xc3};
    static const uint8_t osr[] = {0x48, 0x8b, 0x45, 0x00, 0x50, 0x48, 0x83, 0xec, 0x10,
                                  0x48, 0x8d, 0x6c, 0x24, 0x10, 0x90, 0x90, 0x90, 0xc3};
    uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return NULL;
    memset(p, 0xcc, 4096);
    memcpy(p + CODE_FRAMED, framed, sizeof(framed));
    memcpy(p + CODE_FRAMELESS, frameless, sizeof(frameless));
    memcpy(p + CODE_OSR, osr, sizeof(osr));
    memcpy(p + CODE_OSR_OLD, framed, sizeof(framed));
    if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
        munmap(p, 4096);
        return NULL;
    }
    return p;
}

TEST(prologs_read_from_the_process)
{
    uint8_t *code = fake_code();
    cpusym y;
    cpusym_code c;
    cpusym_ip *e;

    CHECK(code != NULL, "an executable mapping");
    if (!code)
        return;
    CHECK(cpusym_init(&y, getpid()) == 0, "naming set up on this process");
    c = cpusym_code_info(&y, (uint64_t)(uintptr_t)code + CODE_FRAMED);
    CHECK(c.flags == (CPUSYM_CODE_KNOWN | CPUSYM_CODE_FRAMED) && c.prolog_end == 4,
          "push rbp; mov rbp, rsp: framed, the frame set after 4 bytes (%u, %u)", c.flags,
          c.prolog_end);
    c = cpusym_code_info(&y, (uint64_t)(uintptr_t)code + CODE_FRAMELESS);
    CHECK(c.flags == CPUSYM_CODE_KNOWN, "sub rsp first: no frame pointer (%u)", c.flags);
    c = cpusym_code_info(&y, (uint64_t)(uintptr_t)code + CODE_OSR);
    CHECK(c.flags == (CPUSYM_CODE_KNOWN | CPUSYM_CODE_FRAMED | CPUSYM_CODE_OSR) &&
              c.prolog_end == 14,
          "mov rax, [rbp]; push rax ...: on-stack replacement, frame set after 14 bytes (%u, %u)",
          c.flags, c.prolog_end);
    c = cpusym_code_info(&y, 0x10);
    CHECK(c.flags == 0, "an address that cannot be read: nothing known");
    CHECK(cpusym_code_peek(&y, (uint64_t)(uintptr_t)code + CODE_FRAMED, &c) &&
              c.flags & CPUSYM_CODE_FRAMED,
          "read once, then cached");
    e = cpusym_lookup(&y, (uint64_t)(uintptr_t)code + 5, 0);
    CHECK(e && e->kind == CPUSYM_MANAGED && e->state == CPUSYM_UNKNOWN,
          "anonymous executable memory: managed, not known yet");
    e = cpusym_lookup(&y, (uint64_t)(uintptr_t)&test_cpuprof_known_function + 2, 0);
    CHECK(e && e->kind == CPUSYM_NATIVE && e->symbol >= CPUSYM_LABELS &&
              strcmp(y.names[e->symbol].name, "test_cpuprof_known_function") == 0 &&
              y.names[e->symbol].module && strcmp(y.names[e->symbol].module, "test_cpuprof") == 0,
          "a function of this binary: its name and module");
    e = cpusym_lookup(&y, 0x10, 0);
    CHECK(e && e->kind == CPUSYM_NATIVE && e->symbol == CPUSYM_LABEL_UNMAPPED,
          "an address in no mapping");
    CHECK(cpusym_lookup(&y, 0x10, 0) == e, "cached");
    cpusym_free(&y);
    munmap(code, 4096);
}

/* Server records the fold logs, kept to be read back. */
static uint8_t *g_log;
static size_t g_log_used, g_log_cap;
static void capture(session *s, int64_t now_ns, const void *frame, size_t length)
{
    (void)s, (void)now_ns;
    if (g_log_used + length > g_log_cap) {
        g_log_cap = (g_log_used + length) * 2;
        g_log = realloc(g_log, g_log_cap);
    }
    memcpy(g_log + g_log_used, frame, length);
    g_log_used += length;
}

typedef struct fold_fixture {
    uint8_t *code;
    session *s;
    cpuprof_run *r;
    uint64_t fid_framed, fid_frameless, fid_osr;
    uint64_t native;
} fold_fixture;

static void fixture_sample(cpuprof_run *r, uint32_t tid, int kernel, const uint64_t *ips,
                           uint16_t nr)
{
    cpuprof_sample *e = &r->samples[r->sample_count++];

    memset(e, 0, sizeof(*e));
    e->wall_ns = 1700000000000000000ll + (int64_t)r->sample_count * 1000000;
    e->tid = tid;
    e->first = (uint32_t)r->ip_count;
    e->nr = nr;
    e->kernel = (uint8_t)kernel;
    memcpy(&r->ips[r->ip_count], ips, nr * sizeof(uint64_t));
    r->ip_count += nr;
}

static int fixture_setup(fold_fixture *x)
{
    session_function *f;
    uint64_t base;
    cpuprof_thread *t;

    memset(x, 0, sizeof(*x));
    if (!(x->code = fake_code()))
        return -1;
    base = (uint64_t)(uintptr_t)x->code;
    x->native = (uint64_t)(uintptr_t)&test_cpuprof_known_function + 2;
    sessions_lock();
    x->s = sessions_create(SESSION_MODE_RUN, getpid(), "test");
    x->s->state = SESSION_LIVE;
    x->fid_framed = 0x7f0000001000ull;
    x->fid_frameless = 0x7f0000002000ull;
    x->fid_osr = 0x7f0000003000ull;
    f = session_function_append(x->s, x->fid_framed);
    session_function_set_name(x->s, f, "A.Framed()", 10);
    codemap_add(&x->s->codemap, base + CODE_FRAMED, 14, 0);
    f = session_function_append(x->s, x->fid_frameless);
    session_function_set_name(x->s, f, "A.Frameless()", 13);
    codemap_add(&x->s->codemap, base + CODE_FRAMELESS, 13, 1);
    f = session_function_append(x->s, x->fid_osr);
    session_function_set_name(x->s, f, "A.Loop()", 8);
    codemap_add(&x->s->codemap, base + CODE_OSR, 18, 2);               /* its OSR code */
    codemap_add(&x->s->codemap, base + CODE_OSR_OLD, 14, 2);           /* its Tier0 code */
    codemap_add(&x->s->codemap, base + 0x400, 1, CODEMAP_NOT_MANAGED); /* a stub */
    session_profile_start_cpu(x->s, 999, 1001001, 7, 1700000000000000000ll);
    sessions_unlock();

    x->r = calloc(1, sizeof(*x->r));
    x->r->session_id = x->s->id;
    x->r->run = 7;
    x->r->pid = getpid();
    x->r->counts.period_ns = 1001001;
    x->r->samples = calloc(64, sizeof(*x->r->samples));
    x->r->ips = calloc(1024, sizeof(*x->r->ips));
    if (cpusym_init(&x->r->sym, getpid()) != 0)
        return -1;
    x->r->threads = calloc(1, sizeof(*x->r->threads));
    t = &x->r->threads[0];
    t->tid = 4242;
    t->index = UINT32_MAX;
    snprintf(t->name, sizeof(t->name), "worker");
    x->r->thread_count = 1;
    idmap_put(&x->r->thread_by_tid, 4242, 0);
    return 0;
}

static void fixture_free(fold_fixture *x)
{
    cpusym_free(&x->r->sym);
    free(x->r->samples);
    free(x->r->ips);
    free(x->r->threads);
    idmap_free(&x->r->thread_by_tid);
    free(x->r);
    munmap(x->code, 4096);
}

/* Stack i of the profile as names (frames leaf first, joined by " < "). */
static void stack_names(session *s, uint32_t stack, char *out, size_t size)
{
    const profile_state *p = &s->profile;
    const profile_stack *st = &p->stacks[stack];
    size_t used = 0;

    out[0] = '\0';
    for (uint32_t k = 0; k < st->depth && used < size; k++) {
        uint64_t key = p->frames[st->first + k];
        const char *name = "?";
        if (key & PROFILE_FRAME_SYMBOL)
            name = profile_cpu_text(p, p->cpu.symbols[key & ~PROFILE_FRAME_SYMBOL].name);
        else if (key == PROFILE_FRAME_TRUNCATED)
            name = "[truncated]";
        else if (session_find_function(s, key))
            name = fixture_fn_name(session_find_function(s, key));
        used += (size_t)snprintf(out + used, size - used, "%s%s", k ? " < " : "", name);
    }
}

/* Whether some stack of the profile reads exactly `want`. */
static int has_stack(session *s, const char *want)
{
    char text[2048];

    for (uint32_t i = 0; i < s->profile.stack_count; i++) {
        stack_names(s, i, text, sizeof(text));
        if (strcmp(text, want) == 0)
            return 1;
    }
    return 0;
}

TEST(fold_names_frames_and_says_where_they_are_lost)
{
    fold_fixture x;
    uint64_t b, ips[8];
    session *back;
    size_t off = 0;
    int bad = 0;

    session_set_record_sink(capture); /* from the profile's start on */
    g_log_used = 0;
    CHECK(fixture_setup(&x) == 0, "fixture");
    b = (uint64_t)(uintptr_t)x.code;
    /* 1: framed leaf (past its prolog) < native: whole */
    ips[0] = b + CODE_FRAMED + 6, ips[1] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 2);
    /* 2: framed leaf inside its prolog: its caller is lost */
    ips[0] = b + CODE_FRAMED + 1, ips[1] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 2);
    /* 3: a frameless method in the middle: its caller is lost */
    ips[0] = b + CODE_FRAMED + 6, ips[1] = b + CODE_FRAMELESS + 5, ips[2] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 3);
    /* 4: OSR code, then its old code's call site (the same method): the caller is lost */
    ips[0] = b + CODE_FRAMED + 6, ips[1] = b + CODE_OSR + 15, ips[2] = b + CODE_OSR_OLD + 8,
    ips[3] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 4);
    /* 5: a stub at the leaf; 6: a chain that ends in managed code; 7: one into nowhere */
    ips[0] = b + 0x400, ips[1] = b + CODE_FRAMED + 6, ips[2] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 3);
    ips[0] = x.native, ips[1] = b + CODE_FRAMED + 6;
    fixture_sample(x.r, 4242, 0, ips, 2);
    ips[0] = b + CODE_FRAMED + 6, ips[1] = 0x10, ips[2] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 3);
    /* 8: taken in the kernel; 9: code no method was found for (no agent to ask) */
    ips[0] = b + CODE_FRAMED + 6, ips[1] = x.native;
    fixture_sample(x.r, 4242, 1, ips, 2);
    ips[0] = b + 0x800, ips[1] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 2);

    CHECK(cpufold_batch(x.r, 0) == 0, "first batch");
    CHECK(x.r->sample_count == 8 && x.s->profile.sample_count == 1,
          "the samples through found code wait for its prologs (read after the lock) (%zu "
          "waiting), the one without folds",
          x.r->sample_count);
    CHECK(cpufold_batch(x.r, 0) == 0, "second batch");
    CHECK(x.r->sample_count == 0 && x.s->profile.sample_count == 9, "then all fold (%zu)",
          x.s->profile.sample_count);
    CHECK(has_stack(x.s, "A.Framed() < test_cpuprof_known_function"), "1: whole");
    CHECK(has_stack(x.s, "A.Framed() < [missing frame: no frame pointer] < "
                         "test_cpuprof_known_function"),
          "2: in the prolog");
    CHECK(has_stack(x.s, "A.Framed() < A.Frameless() < [missing frame: no frame pointer] < "
                         "test_cpuprof_known_function"),
          "3: frameless caller");
    CHECK(has_stack(x.s, "A.Framed() < A.Loop() < [missing frame: on-stack replacement] < "
                         "test_cpuprof_known_function"),
          "4: on-stack replacement");
    CHECK(has_stack(x.s, "[missing frame: stub] < A.Framed() < test_cpuprof_known_function"),
          "5: a stub");
    CHECK(has_stack(x.s, "test_cpuprof_known_function < A.Framed() < "
                         "[incomplete stack: the frame chain ended in managed code]"),
          "6: ends in managed code");
    CHECK(has_stack(x.s, "A.Framed() < [incomplete stack: the frame chain ended in managed code]"),
          "7: runs into nowhere: cut there");
    CHECK(has_stack(x.s, "[kernel] < A.Framed() < test_cpuprof_known_function"), "8: kernel");
    CHECK(has_stack(x.s, "[unnamed managed code] < test_cpuprof_known_function"), "9: unnamed");
    {
        const profile_cpu_counts *c = &x.s->profile.cpu.counts;
        CHECK(c->complete == 3 && c->missing == 4 && c->broken == 2 && c->kernel == 1 &&
                  c->unresolved == 1,
              "counts: complete %llu, missing %llu, broken %llu, kernel %llu, unresolved %llu",
              (unsigned long long)c->complete, (unsigned long long)c->missing,
              (unsigned long long)c->broken, (unsigned long long)c->kernel,
              (unsigned long long)c->unresolved);
    }
    CHECK(x.s->profile.thread_count == 1 && x.s->profile.threads[0].os_thread_id == 4242 &&
              strcmp(profile_cpu_text(&x.s->profile, x.s->profile.threads[0].name), "worker") == 0,
          "the thread, by its OS id and name");

    CHECK(cpufold_batch(x.r, 1) == 0, "the run's last batch (its counters logged)");
    /* read back from the records the fold logged */
    back = session_new(99, SESSION_MODE_RUN, 1, "back", "0123456789abcdef0123456789abcdef");
    back->persist.quiet = 1;
    {
        uint8_t *bytes = malloc(g_log_used ? g_log_used : 1);
        memcpy(bytes, g_log, g_log_used);
        /* the functions are the session's own (the agent's records in a real log) */
        for (size_t i = 0; i < x.s->function_count; i++) {
            session_function *f = session_function_append(back, x.s->functions[i].function_id);
            session_function_set_name(back, f, fixture_fn_name(&x.s->functions[i]),
                                      strlen(fixture_fn_name(&x.s->functions[i])));
        }
        while (off < g_log_used) {
            wire_frame_header h;
            memcpy(&h, bytes + off, sizeof(h));
            if (!logrec_is_server_type(h.type) ||
                session_apply_server(back, h.type, bytes + off + sizeof(h), h.length, 1) != 0)
                bad++;
            off += sizeof(h) + h.length;
        }
        free(bytes);
    }
    CHECK(bad == 0 && off == g_log_used, "every logged record reads back (%d bad)", bad);
    CHECK(back->profile.mode == PROFILE_MODE_CPU &&
              back->profile.sample_count == x.s->profile.sample_count &&
              back->profile.stack_count == x.s->profile.stack_count &&
              back->profile.frame_count == x.s->profile.frame_count &&
              memcmp(back->profile.frames, x.s->profile.frames,
                     x.s->profile.frame_count * sizeof(uint64_t)) == 0 &&
              memcmp(back->profile.samples, x.s->profile.samples,
                     x.s->profile.sample_count * sizeof(profile_sample)) == 0 &&
              back->profile.cpu.symbol_count == x.s->profile.cpu.symbol_count &&
              memcmp(&back->profile.cpu.counts, &x.s->profile.cpu.counts,
                     sizeof(profile_cpu_counts)) == 0,
          "the profile read back is the same: stacks, samples, symbols, counters");
    CHECK(has_stack(back, "A.Loop() < [missing frame: on-stack replacement] < "
                          "test_cpuprof_known_function") ||
              has_stack(back, "A.Framed() < A.Loop() < [missing frame: on-stack replacement] < "
                              "test_cpuprof_known_function"),
          "with the same names");
    session_set_record_sink(NULL);
    session_free(back);

    /* another profile replaces this one: the run is told to end */
    sessions_lock();
    session_profile_start(x.s, 49, 1700000000000000000ll);
    sessions_unlock();
    CHECK(cpufold_batch(x.r, 0) == -1, "a run whose profile is gone ends");
    fixture_free(&x);
}

/* ---- pprof ------------------------------------------------------------------------------ */

static uint8_t *gunzip(const uint8_t *in, size_t n, size_t *out_n)
{
    z_stream z;
    size_t cap = 1 << 20;
    uint8_t *out = malloc(cap);

    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return NULL;
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (inflate(&z, Z_FINISH) != Z_STREAM_END) {
        inflateEnd(&z);
        free(out);
        return NULL;
    }
    *out_n = cap - z.avail_out;
    inflateEnd(&z);
    return out;
}

TEST(pprof_file_decodes_with_types_functions_and_values)
{
    fold_fixture x;
    uint64_t b, ips[3];
    profile_query q = {.from_ns = 0, .to_ns = INT64_MAX, .with_samples = 1};
    profile_view v;
    pprof_options o = {1, 1001001, 1700000000000000000ll, 3000000000ll};
    uint8_t *file = NULL, *raw;
    size_t length = 0, raw_n = 0;
    const char *why = NULL;
    Perftools__Profiles__Profile *p;
    int64_t samples = 0, cpu = 0;
    int inner_leaf = 0;

    CHECK(fixture_setup(&x) == 0, "fixture");
    b = (uint64_t)(uintptr_t)x.code;
    for (int i = 0; i < 5; i++) {
        ips[0] = b + CODE_FRAMED + 6, ips[1] = x.native;
        fixture_sample(x.r, 4242, 0, ips, 2);
    }
    ips[0] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 1);
    cpufold_batch(x.r, 0);
    cpufold_batch(x.r, 0);
    sessions_lock();
    CHECK(profile_view_take(&v, x.s, &q) == 0, "view");
    sessions_unlock();
    CHECK(pprof_export(&v, &o, 1 << 20, &file, &length, &why) == 0 && length > 20,
          "exported (%zu bytes)", length);
    CHECK(file && file[0] == 0x1f && file[1] == 0x8b, "gzip");
    raw = file ? gunzip(file, length, &raw_n) : NULL;
    p = raw ? perftools__profiles__profile__unpack(NULL, raw_n, raw) : NULL;
    CHECK(p != NULL, "a profile.proto message");
    if (p) {
        CHECK(p->n_string_table > 0 && strcmp(p->string_table[0], "") == 0,
              "string 0 is the empty string");
        CHECK(p->n_sample_type == 2 &&
                  strcmp(p->string_table[p->sample_type[0]->type], "samples") == 0 &&
                  strcmp(p->string_table[p->sample_type[1]->type], "cpu") == 0 &&
                  strcmp(p->string_table[p->sample_type[1]->unit], "nanoseconds") == 0 &&
                  p->period == 1001001 && strcmp(p->string_table[p->period_type->type], "cpu") == 0,
              "sample types samples/count and cpu/nanoseconds, the period");
        for (size_t i = 0; i < p->n_sample; i++) {
            Perftools__Profiles__Sample *s = p->sample[i];
            uint64_t leaf = s->n_location_id ? s->location_id[0] : 0;
            samples += s->value[0];
            cpu += s->value[1];
            for (size_t k = 0; k < p->n_location; k++)
                if (p->location[k]->id == leaf && p->location[k]->n_line == 1)
                    for (size_t j = 0; j < p->n_function; j++)
                        if (p->function[j]->id == p->location[k]->line[0]->function_id &&
                            strcmp(p->string_table[p->function[j]->name], "A.Framed()") == 0)
                            inner_leaf += (int)s->value[0];
            CHECK(s->n_label >= 1, "a sample carries its thread");
        }
        CHECK(samples == 6 && cpu == 6 * 1001001, "values add up: %lld samples, %lld ns",
              (long long)samples, (long long)cpu);
        CHECK(inner_leaf == 5, "the method is the leaf of its 5 samples (%d)", inner_leaf);
        CHECK(p->n_mapping >= 1, "a mapping per module");
        perftools__profiles__profile__free_unpacked(p, NULL);
    }
    free(raw);
    free(file);
    CHECK(pprof_export(&v, &o, 10, &file, &length, &why) == -1 && why,
          "over the size limit: refused with a reason");
    profile_view_free(&v);
    fixture_free(&x);
}

static const check_test tests[] = {
    TEST_ENTRY(prologs_read_from_the_process),
    TEST_ENTRY(fold_names_frames_and_says_where_they_are_lost),
    TEST_ENTRY(pprof_file_decodes_with_types_functions_and_values),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
