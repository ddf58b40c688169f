/* test_cpuprof.c -- unit tests for the CPU profiler's pieces that need no
 * perf events, but naming (test_cpusym.c): the code map (server/codemap.c),
 * the perf record decoder (server/perfring.c) and the event it asks for, the
 * fold of a batch of samples into a session's profile with its labels for
 * lost frames (server/cpufold.c), reading that profile back from its log
 * records (server/profile_cpu.c), the pprof export (server/pprof.c, decoded
 * again with protobuf-c after gunzip), what the machine allows
 * (cpuprof_probe) and the open-addressing index of the symbol tables
 * (server/hashslots.c).
 *
 * The fold test registers the "methods" of fakecode.h in a session's code map
 * and folds samples whose chains go through them, through a native function
 * of this binary, a stub address the agent called not managed, and an
 * address in no mapping, after a managed frame and after a native one.
 * Build: make build/tests/test_cpuprof && build/tests/test_cpuprof
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "fakecode.h"
#include "fixtures.h"
#include "codemap.h"
#include "cpuprof.h"
#include "cpufold.h"
#include "cpusym.h"
#include "frames.h"
#include "hashslots.h"
#include "logrec.h"
#include "perfring.h"
#include "pprof.h"
#include "profile.pb-c.h"
#include "profile_cpu.h"
#include "profile_view.h"
#include "sessions.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ---- code map ------------------------------------------------------------------- */

TEST(codemap_finds_ranges_sorted_or_not)
{
    codemap m = {0};
    codemap_range r;
    enum { N = 5000 };
    static uint64_t starts[N];
    int wrong = 0;

    CHECK(!codemap_find(&m, 0x1000, &r), "empty: nothing");
    /* disjoint ranges of 64 bytes every 256, added in random order, looked up
     * between additions (so the tail is sorted, merged, and grown again) */
    for (int i = 0; i < N; i++)
        starts[i] = 0x7f0000000000ull + (uint64_t)i * 256;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)(next_rand() % (uint64_t)(i + 1));
        uint64_t t = starts[i];
        starts[i] = starts[j];
        starts[j] = t;
    }
    for (int i = 0; i < N; i++) {
        codemap_add(&m, starts[i], 64, (uint32_t)((starts[i] - 0x7f0000000000ull) / 256));
        if (i % 97 == 0) {
            uint64_t s = starts[next_rand() % (uint64_t)(i + 1)];
            if (!codemap_find(&m, s + 63, &r) || r.start != s)
                wrong++;
        }
    }
    CHECK(codemap_count(&m) == N, "all %d kept", N);
    for (int i = 0; i < N; i++) {
        uint64_t s = 0x7f0000000000ull + (uint64_t)i * 256;
        if (!codemap_find(&m, s, &r) || r.function != (uint32_t)i || r.size != 64 ||
            !codemap_find(&m, s + 63, &r) || r.function != (uint32_t)i ||
            codemap_find(&m, s + 64, &r) || codemap_find(&m, s - 1, &r))
            wrong++;
    }
    CHECK(wrong == 0,
          "every range found at its first and last byte, nothing in the gaps (%d wrong)", wrong);
    CHECK(m.tail_count * 8 < m.sorted_count + 8, "the tail was merged (%zu in the tail)",
          m.tail_count);
    codemap_add(&m, 0x7f0000000000ull, 64, 99999); /* the same start again: the newer wins */
    CHECK(codemap_find(&m, 0x7f0000000010ull, &r) && r.function == 99999,
          "a start added again: the newest range wins");
    codemap_add(&m, 0x7f0000000000ull + 16, 8, 77777); /* inside an older range */
    CHECK(codemap_find(&m, 0x7f0000000000ull + 20, &r) && r.function == 77777 &&
              codemap_find(&m, 0x7f0000000000ull + 30, &r) && r.function == 99999,
          "a range inside another: the inner one where it is, the outer one past it");
    CHECK(codemap_add(&m, 0x500000, 0, 1) == 0 && !codemap_find(&m, 0x500000, &r),
          "size 0 is ignored");
    CHECK(codemap_bytes(&m) >= codemap_count(&m) * sizeof(codemap_range),
          "16 bytes a range: %zu bytes for %zu", codemap_bytes(&m), codemap_count(&m));
    codemap_free(&m);
}

TEST(codemap_bounds_what_is_not_managed)
{
    codemap m = {0};
    codemap_range r;
    uint32_t i;

    for (i = 0; i < CODEMAP_MAX_NOT_MANAGED + 10; i++)
        codemap_add(&m, 0x10000 + (uint64_t)i * 2, 1, CODEMAP_NOT_MANAGED);
    CHECK(m.not_managed == CODEMAP_MAX_NOT_MANAGED && m.dropped == 10,
          "at most %u stub addresses kept, the rest counted (%llu)", CODEMAP_MAX_NOT_MANAGED,
          (unsigned long long)m.dropped);
    CHECK(codemap_find(&m, 0x10000, &r) && r.function == CODEMAP_NOT_MANAGED,
          "a stub address is found as such");
    CHECK(codemap_add(&m, 0x900000, 16, 5) == 0, "managed ranges still fit");
    codemap_free(&m);
}

/* ---- perf records --------------------------------------------------------------- */

static size_t sample_record(uint8_t *buf, uint16_t misc, const uint64_t *ips, uint64_t nr)
{
    struct perf_event_header h = {PERF_RECORD_SAMPLE, misc, 0};
    uint32_t pid = 100, tid = 101;
    uint64_t time = 123456789;
    size_t n = sizeof(h);

    memcpy(buf + n, &pid, 4);
    memcpy(buf + n + 4, &tid, 4);
    memcpy(buf + n + 8, &time, 8);
    memcpy(buf + n + 16, &nr, 8);
    n += 24;
    memcpy(buf + n, ips, nr * 8);
    n += nr * 8;
    h.size = (uint16_t)n;
    memcpy(buf, &h, sizeof(h));
    return n;
}

TEST(perf_records_decoded)
{
    static perfring_record rec;
    uint8_t buf[4096];
    uint64_t ips[4] = {(uint64_t)PERF_CONTEXT_USER, 0x7f0000001000ull, 0x7f0000002000ull,
                       0x7f0000003000ull};
    uint64_t lost[2] = {5, 42};
    struct perf_event_header h = {PERF_RECORD_LOST, 0, sizeof(h) + 16};
    size_t n = sample_record(buf, PERF_RECORD_MISC_USER, ips, 4);

    CHECK(perfring_parse(buf, n, 0, &rec) == 0 && rec.kind == PERFRING_SAMPLE && rec.tid == 101 &&
              rec.pid == 100 && rec.time_ns == 123456789 && rec.nr == 3 &&
              rec.ips[0] == 0x7f0000001000ull && rec.ips[2] == 0x7f0000003000ull && !rec.kernel,
          "a user-mode sample: the context marker left out, leaf first");
    n = sample_record(buf, PERF_RECORD_MISC_KERNEL, ips, 4);
    CHECK(perfring_parse(buf, n, 0, &rec) == 0 && rec.kernel && rec.nr == 3,
          "taken in the kernel: said so, the user frames kept");
    CHECK(perfring_parse(buf, n - 1, 0, &rec) == -1, "a length that is not the header's: bad");
    n = sample_record(buf, PERF_RECORD_MISC_USER, ips, 4);
    {
        uint64_t huge = 1000;
        memcpy(buf + sizeof(h) + 16, &huge, 8);
        CHECK(perfring_parse(buf, n, 0, &rec) == -1, "more frames than bytes: bad");
    }
    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), lost, 16);
    CHECK(perfring_parse(buf, sizeof(h) + 16, 0, &rec) == 0 && rec.kind == PERFRING_LOST &&
              rec.lost == 42,
          "a lost record: how many");
    h.type = PERF_RECORD_THROTTLE;
    memcpy(buf, &h, sizeof(h));
    CHECK(perfring_parse(buf, sizeof(h) + 16, 0, &rec) == 0 && rec.kind == PERFRING_OTHER,
          "other records: ignored");
    { /* with registers and a stack copy: abi, rbp, rsp, rip, size, 16 bytes, dyn_size */
        uint64_t tail[9] = {PERF_SAMPLE_REGS_ABI_64,
                            0x7ffd10,
                            0x7ffd00,
                            0x7f0000001000ull,
                            16,
                            0x1111,
                            0x2222,
                            8,
                            0};
        n = sample_record(buf, PERF_RECORD_MISC_USER, ips, 4);
        memcpy(buf + n, tail, 8 * 8);
        h.type = PERF_RECORD_SAMPLE, h.misc = PERF_RECORD_MISC_USER, h.size = (uint16_t)(n + 64);
        memcpy(buf, &h, sizeof(h));
        CHECK(perfring_parse(buf, n + 64, 1, &rec) == 0 && rec.nr == 3 && rec.has_regs &&
                  rec.bp == 0x7ffd10 && rec.sp == 0x7ffd00 && rec.ip == 0x7f0000001000ull &&
                  rec.stack_bytes == 8 && rec.stack && memcmp(rec.stack, &tail[5], 8) == 0,
              "registers and the stack copy (as much as the kernel could copy: dyn_size)");
        CHECK(perfring_parse(buf, n + 56, 1, &rec) == -1, "a stack copy past the record: bad");
        tail[8] = 17;
        memcpy(buf + n + 56, &tail[8], 8);
        CHECK(perfring_parse(buf, n + 64, 1, &rec) == 0 && rec.stack_bytes == 0,
              "more copied than the copy holds: no copy");
    }
}

TEST(perf_event_asks_only_what_is_read)
{
    perfring_config c = {1001001u, 0, 8, 0};
    struct perf_event_attr a;

    perfring_fill_attr(&a, &c);
    CHECK(a.size == sizeof(a) && a.type == PERF_TYPE_SOFTWARE &&
              a.config == PERF_COUNT_SW_CPU_CLOCK && a.sample_period == 1001001u && !a.freq,
          "the software CPU clock, every period_ns of the thread's CPU time");
    CHECK(a.sample_type == (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN),
          "per sample: tid, time and the call chain, nothing the decoder does not read");
    CHECK(a.exclude_callchain_kernel && !a.exclude_callchain_user &&
              a.sample_max_stack == PERFRING_MAX_STACK,
          "the user chain only, at most PERFRING_MAX_STACK frames");
    CHECK(!a.inherit && !a.mmap && !a.mmap2 && !a.comm && !a.task && !a.sample_id_all &&
              !a.context_switch && !a.precise_ip && !a.disabled,
          "one thread's event, no side records, no skid correction");
    CHECK(a.watermark && a.wakeup_watermark == 8u * 4096u / 2u,
          "the reader is woken at half the ring, not per sample");
    CHECK(a.use_clockid && a.clockid == CLOCK_MONOTONIC && !a.exclude_kernel && a.exclude_hv,
          "times on CLOCK_MONOTONIC; samples in the kernel kept when allowed");
    c.exclude_kernel = 1;
    perfring_fill_attr(&a, &c);
    CHECK(a.exclude_kernel, "user mode only when the machine allows no more");
    c.stack_copy = 1024;
    perfring_fill_attr(&a, &c);
    CHECK(a.sample_type == (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
                            PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER) &&
              a.sample_regs_user == ((1ull << 6) | (1ull << 7) | (1ull << 8)) &&
              a.sample_stack_user == 1024,
          "with a stack copy: the user rbp, rsp, rip and 1 KiB from rsp");
}

/* ---- folding ----------------------------------------------------------------------------- */

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
    x->native = (uint64_t)(uintptr_t)&fake_known_function + 2;
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

/* Whether the profile counted address with these samples. */
static int heat_is(const profile_heat *h, uint64_t address, uint32_t self, uint32_t total)
{
    size_t i = 0;
    const profile_heat_entry *e;

    while ((e = profile_heat_next(h, &i)))
        if (e->address == address)
            return e->self == self && e->total == total;
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
    /* 10: a native frame (that keeps no frame pointer), then an address in no mapping */
    ips[0] = x.native, ips[1] = 0x10;
    fixture_sample(x.r, 4242, 0, ips, 2);

    CHECK(cpufold_batch(x.r, 0) == 0, "first batch");
    CHECK(x.r->sample_count == 8 && x.s->profile.sample_count == 2,
          "the samples through found code wait for its prologs (read after the lock) (%zu "
          "waiting), the two without fold",
          x.r->sample_count);
    CHECK(cpufold_batch(x.r, 0) == 0, "second batch");
    CHECK(x.r->sample_count == 0 && x.s->profile.sample_count == 10, "then all fold (%zu)",
          x.s->profile.sample_count);
    CHECK(has_stack(x.s, "A.Framed() < fake_known_function"), "1: whole");
    CHECK(has_stack(x.s, "A.Framed() < [missing frame: no frame pointer] < "
                         "fake_known_function"),
          "2: in the prolog");
    CHECK(has_stack(x.s, "A.Framed() < A.Frameless() < [missing frame: no frame pointer] < "
                         "fake_known_function"),
          "3: frameless caller");
    CHECK(has_stack(x.s, "A.Framed() < A.Loop() < [missing frame: on-stack replacement] < "
                         "fake_known_function"),
          "4: on-stack replacement");
    CHECK(has_stack(x.s, "[missing frame: stub] < A.Framed() < fake_known_function"), "5: a stub");
    CHECK(has_stack(x.s, "fake_known_function < A.Framed() < "
                         "[incomplete stack: the frame chain ended in managed code]"),
          "6: ends in managed code");
    CHECK(has_stack(x.s, "A.Framed() < [incomplete stack: the frame chain ended in managed code]"),
          "7: runs into nowhere: cut there");
    CHECK(has_stack(x.s, "[kernel] < A.Framed() < fake_known_function"), "8: kernel");
    CHECK(has_stack(x.s, "[unnamed managed code] < fake_known_function"), "9: unnamed");
    CHECK(has_stack(x.s, "fake_known_function < "
                         "[incomplete stack: the frame chain broke after a native frame]"),
          "10: into nowhere after a native frame: said so, not blamed on managed code");
    {
        const profile_cpu_counts *c = &x.s->profile.cpu.counts;
        CHECK(c->complete == 3 && c->missing == 4 && c->broken == 3 && c->kernel == 1 &&
                  c->unresolved == 1,
              "counts: complete %llu, missing %llu, broken %llu, kernel %llu, unresolved %llu",
              (unsigned long long)c->complete, (unsigned long long)c->missing,
              (unsigned long long)c->broken, (unsigned long long)c->kernel,
              (unsigned long long)c->unresolved);
    }
    {
        /* by address: the leaf where it was sampled, a caller at its return address - 1 */
        const profile_heat *h = &x.s->profile.heat;
        CHECK(heat_is(h, b + CODE_FRAMED + 6, 4, 5) && heat_is(h, b + CODE_FRAMED + 1, 1, 1),
              "leaves: 1, 3, 4 and 7 at +6 (8 there too, under the kernel: not its leaf), 2 in "
              "the prolog");
        CHECK(heat_is(h, b + CODE_FRAMED + 5, 0, 2) && heat_is(h, b + CODE_FRAMELESS + 4, 0, 1) &&
                  heat_is(h, b + CODE_OSR + 14, 0, 1),
              "callers at the byte before their return address: 5 and 6, 3, 4's OSR code");
        CHECK(h->count == 5,
              "nothing else: not the stub, the unnamed code, the OSR frame's old "
              "call site, native frames (%zu)",
              h->count);
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
    {
        size_t i = 0, same = 0;
        const profile_heat_entry *e;
        while ((e = profile_heat_next(&x.s->profile.heat, &i)))
            same += heat_is(&back->profile.heat, e->address, e->self, e->total);
        CHECK(same == x.s->profile.heat.count && back->profile.heat.count == same,
              "the samples by address read back the same (LOGREC_CPU_HEAT)");
    }
    CHECK(has_stack(back, "A.Loop() < [missing frame: on-stack replacement] < "
                          "fake_known_function") ||
              has_stack(back, "A.Framed() < A.Loop() < [missing frame: on-stack replacement] < "
                              "fake_known_function"),
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

/* An on-stack-replaced frame's caller from the Tier0 frame under it, and a
 * native leaf's caller from its unwind rule (frames.h), through the stack
 * copy of a made-up sample, then folded. */
TEST(frames_recovered_from_the_stack_copy)
{
    static perfring_record rec;
    fold_fixture x;
    uint64_t b, st[24], ips[4], S = 0x7ffd0000;
    cpuprof_sample *e;

    CHECK(fixture_setup(&x) == 0, "fixture");
    b = (uint64_t)(uintptr_t)x.code;
    memset(st, 0, sizeof(st));
    /* OSR frame S+0x10 (saved rbp S+0x90), Tier0 rbp S+0x70 (rsp + 0x50), caller's S+0x90 */
    st[2] = S + 0x90, st[3] = b + CODE_OSR_OLD + 12;
    st[14] = S + 0x90, st[15] = b + CODE_FRAMED + 6;
    st[18] = S + 0xb0, st[19] = x.native;
    st[6] = S + 0x90, st[7] = b + CODE_FRAMELESS + 5; /* a Tier0 local holding the same value */
    rec.has_regs = 1, rec.bp = S + 0x10, rec.sp = S, rec.ip = b + CODE_OSR + 15;
    rec.stack = (const uint8_t *)st, rec.stack_bytes = sizeof(st);
    for (int wrong = 0; wrong < 2; wrong++) {
        ips[0] = b + CODE_OSR + 15, ips[1] = b + CODE_OSR_OLD + 12, ips[2] = x.native;
        fixture_sample(x.r, 4242, 0, ips, 3);
        e = &x.r->samples[x.r->sample_count - 1];
        if (wrong) /* the slot one word lower: not where the prolog says */
            st[13] = S + 0x90, st[14] = b + CODE_FRAMED + 6, st[15] = 0;
        frames_recover(x.r, &rec, e, 5);
        CHECK(e->nr == 3 && e->extra == 2 && e->cand_k[1] == 0 && e->cand_dist[0] == 0x20 &&
                  e->cand_dist[1] == (wrong ? 0x58 : 0x60) &&
                  x.r->ips[e->first + 4] == b + CODE_FRAMED + 6,
              "sample %d: the Tier0 frame's slot kept as a candidate (%u, %u)", wrong, e->extra,
              e->cand_dist[0]);
        x.r->ip_count += e->extra;
    }
    memset(st, 0, sizeof(st)); /* a native leaf without a frame pointer: its caller at rsp */
    st[0] = b + CODE_FRAMED + 6;
    rec.bp = S + 0x40, rec.ip = (uint64_t)(uintptr_t)&fake_frameless_function + 1;
    ips[0] = rec.ip, ips[1] = x.native;
    fixture_sample(x.r, 4242, 0, ips, 2);
    e = &x.r->samples[x.r->sample_count - 1];
    frames_recover(x.r, &rec, e, 5);
    CHECK(e->nr == 3 && x.r->ips[e->first + 1] == b + CODE_FRAMED + 6 &&
              x.r->ips[e->first + 2] == x.native,
          "the leaf's caller inserted as frame 1 (%u frames)", e->nr);
    x.r->ip_count = e->first + e->nr + e->extra;
    { /* a native leaf that saved rbp and holds another value in it: the chain rebuilt */
        const uint8_t *fn = (const uint8_t *)(uintptr_t)&fake_framed_function;
        size_t push = (size_t)((const uint8_t *)memchr(fn, 0x55, 16) - fn); /* push rbp */
        memset(st, 0, sizeof(st));
        st[0] = S + 0x20, st[1] = b + CODE_FRAMED + 6; /* saved rbp, return address */
        st[4] = S + 0x40, st[5] = x.native;            /* A.Framed's frame */
        rec.bp = 0xdead0, rec.ip = (uint64_t)(uintptr_t)fn + push + 1;
        ips[0] = rec.ip, ips[1] = 0x10;
        fixture_sample(x.r, 4242, 0, ips, 2);
        e = &x.r->samples[x.r->sample_count - 1];
        frames_recover(x.r, &rec, e, 5);
        CHECK(push < 16 && e->nr == 3 && e->cut && x.r->ips[e->first + 1] == b + CODE_FRAMED + 6 &&
                  x.r->ips[e->first + 2] == x.native,
              "rebuilt from the saved rbp through the copy, cut where it ends (%u frames)", e->nr);
        x.r->ip_count = e->first + e->nr + e->extra;
    }
    CHECK(cpufold_batch(x.r, 0) == 0 && cpufold_batch(x.r, 0) == 0 && x.r->sample_count == 0,
          "all fold");
    CHECK(has_stack(x.s, "fake_framed_function < A.Framed() < fake_known_function < "
                         "[incomplete stack: the frame chain broke after a native frame]"),
          "the rebuilt chain, and where it ends");
    CHECK(has_stack(x.s, "A.Loop() < A.Framed() < fake_known_function"),
          "the OSR method's caller, where the prolog says");
    CHECK(has_stack(x.s, "A.Loop() < [missing frame: on-stack replacement] < fake_known_function"),
          "a slot elsewhere: not taken");
    CHECK(has_stack(x.s, "fake_frameless_function < A.Framed() < fake_known_function"),
          "the native leaf's managed caller");
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
    pprof_options o = {.cpu = 1,
                       .period_ns = 1001001,
                       .time_ns = 1700000000000000000ll,
                       .duration_ns = 3000000000ll};
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

/* ---- what the machine allows ------------------------------------------------------------- */

TEST(probe_says_why_not)
{
    cpuprof_probe_result r;
    int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY);
    char buf[16] = "";

    cpuprof_probe(0, &r);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        CHECK(n > 0 && r.paranoid == (int)strtol(buf, NULL, 10), "perf_event_paranoid read (%d)",
              r.paranoid);
    }
    CHECK(r.available || r.reason[0], "either available or with a reason (%s)", r.reason);
    cpuprof_probe(4194304 + 5, &r); /* no such process */
    CHECK(!r.available && r.reason[0], "no such process: not available, with a reason (%s)",
          r.reason);
}

static uint64_t test_hash_of(const void *entries, size_t i)
{
    return ((const uint64_t *)entries)[i] * 0x9E3779B97F4A7C15ull;
}

static uint64_t test_hash_one(const void *entries, size_t i)
{
    (void)entries, (void)i;
    return 42;
}

static int test_same(const void *entries, size_t i, const void *key)
{
    return ((const uint64_t *)entries)[i] == *(const uint64_t *)key;
}

/* The index finds every entry put, through its rebuilds, and no other; hashes
 * that share their slot and tag (all the same) are told apart by same(). */
TEST(hash_slots_find_what_was_put)
{
    static uint64_t keys[5000];
    hashslots t = {NULL, 0};
    size_t i, found = 0;
    uint64_t missing = 5000 * 7 + 1;

    for (i = 0; i < 5000; i++) {
        keys[i] = i * 7;
        if (hashslots_reserve(&t, i, 16, test_hash_of, keys) != 0)
            break;
        hashslots_put(&t, test_hash_of(keys, i), i);
    }
    CHECK(i == 5000 && t.cap >= 2 * 5000 && (t.cap & (t.cap - 1)) == 0,
          "5000 put, at most half full (%zu slots)", t.cap);
    for (i = 0; i < 5000; i++)
        found += hashslots_find(&t, test_hash_of(keys, i), test_same, keys, &keys[i]) == i;
    CHECK(found == 5000, "each found at its position (%zu)", found);
    CHECK(hashslots_find(&t, missing * 0x9E3779B97F4A7C15ull, test_same, keys, &missing) ==
              HASHSLOTS_NONE,
          "a key never put: none");
    hashslots_free(&t);
    CHECK(t.cap == 0 && hashslots_find(&t, 1, test_same, keys, &keys[0]) == HASHSLOTS_NONE,
          "freed: empty");
    for (i = 0; i < 100; i++) { /* one hash for all: told apart by same() */
        CHECK(hashslots_reserve(&t, i, 16, test_hash_one, keys) == 0, "reserve");
        hashslots_put(&t, test_hash_one(keys, i), i);
    }
    found = 0;
    for (i = 0; i < 100; i++)
        found += hashslots_find(&t, 42, test_same, keys, &keys[i]) == i;
    CHECK(found == 100, "colliding hashes all found (%zu)", found);
    hashslots_free(&t);
}

static const check_test tests[] = {TEST_ENTRY(codemap_finds_ranges_sorted_or_not),
                                   TEST_ENTRY(codemap_bounds_what_is_not_managed),
                                   TEST_ENTRY(perf_records_decoded),
                                   TEST_ENTRY(perf_event_asks_only_what_is_read),
                                   TEST_ENTRY(fold_names_frames_and_says_where_they_are_lost),
                                   TEST_ENTRY(frames_recovered_from_the_stack_copy),
                                   TEST_ENTRY(pprof_file_decodes_with_types_functions_and_values),
                                   TEST_ENTRY(probe_says_why_not),
                                   TEST_ENTRY(hash_slots_find_what_was_put),
                                   TEST_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
