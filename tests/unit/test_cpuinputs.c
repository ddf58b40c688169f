/* test_cpuinputs.c -- unit tests for what the CPU profiler is made from,
 * each piece alone and without perf events: the code map (server/codemap.c),
 * the perf record decoder and the event it asks for (server/perfring.c), the
 * maps parser (server/procmaps.c), ELF symbols (server/elfsyms.c, on this
 * test binary and libc), the permission probe (server/cpuprof.c), a whole
 * /proc file read (server/procfile.c) and the open-addressing index the
 * symbol tables stand on (server/hashslots.c). The naming and folding of
 * samples built from them is test_cpuprof.c's.
 * Build: make build/tests/test_cpuinputs && build/tests/test_cpuinputs
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "codemap.h"
#include "cpuprof.h"
#include "elfsyms.h"
#include "hashslots.h"
#include "perfring.h"
#include "procfile.h"
#include "procmaps.h"

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

    CHECK(perfring_parse(buf, n, &rec) == 0 && rec.kind == PERFRING_SAMPLE && rec.tid == 101 &&
              rec.pid == 100 && rec.time_ns == 123456789 && rec.nr == 3 &&
              rec.ips[0] == 0x7f0000001000ull && rec.ips[2] == 0x7f0000003000ull && !rec.kernel,
          "a user-mode sample: the context marker left out, leaf first");
    n = sample_record(buf, PERF_RECORD_MISC_KERNEL, ips, 4);
    CHECK(perfring_parse(buf, n, &rec) == 0 && rec.kernel && rec.nr == 3,
          "taken in the kernel: said so, the user frames kept");
    CHECK(perfring_parse(buf, n - 1, &rec) == -1, "a length that is not the header's: bad");
    n = sample_record(buf, PERF_RECORD_MISC_USER, ips, 4);
    {
        uint64_t huge = 1000;
        memcpy(buf + sizeof(h) + 16, &huge, 8);
        CHECK(perfring_parse(buf, n, &rec) == -1, "more frames than bytes: bad");
    }
    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), lost, 16);
    CHECK(perfring_parse(buf, sizeof(h) + 16, &rec) == 0 && rec.kind == PERFRING_LOST &&
              rec.lost == 42,
          "a lost record: how many");
    h.type = PERF_RECORD_THROTTLE;
    memcpy(buf, &h, sizeof(h));
    CHECK(perfring_parse(buf, sizeof(h) + 16, &rec) == 0 && rec.kind == PERFRING_OTHER,
          "other records: ignored");
}

TEST(perf_event_asks_only_what_is_read)
{
    perfring_config c = {1001001u, 0, 8};
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
}

/* ---- maps ------------------------------------------------------------------------- */

TEST(maps_parsed_and_classified)
{
    static const char text[] =
        "556f5b7f2000-556f5b7fe000 r-xp 00005000 fe:00 345402   /usr/share/dotnet/dotnet\n"
        "556f5b7fe000-556f5b800000 r--p 00011000 fe:00 345402   /usr/share/dotnet/dotnet\n"
        "7f43b6a50000-7f43b6a51000 r-xs 00000000 00:01 170024   /memfd:doublemapper (deleted)\n"
        "7f43b6a90000-7f43b75dc000 r-xp 00000000 fe:00 350922   /x/System.Private.CoreLib.dll\n"
        "7f43b7000000-7f43b7001000 r-xp 00000000 fe:00 350922   /x/overlap.so\n" /* overlaps */
        "7f43b8000000-7f43b8001000 rwxp 00000000 00:00 0 \n"
        "garbage line\n"
        "7ffd1c3f5000-7ffd1c3f7000 r-xp 00000000 00:00 0          [vdso]";
    procmaps m;
    const procmaps_entry *e;

    CHECK(procmaps_parse(&m, text, sizeof(text) - 1) == 0, "parsed");
    CHECK(m.count == 5, "the executable, ordered mappings (%zu)", m.count);
    e = procmaps_find(&m, 0x556f5b7f3000ull);
    CHECK(e && e->kind == PROCMAPS_ELF && e->offset == 0x5000 && e->inode == 345402 &&
              e->dev_major == 0xfe && strcmp(procmaps_path(&m, e), "/usr/share/dotnet/dotnet") == 0,
          "an ELF file with its offset, inode and device");
    e = procmaps_find(&m, 0x7f43b6a50010ull);
    CHECK(e && e->kind == PROCMAPS_JIT, "the JIT's double mapping");
    e = procmaps_find(&m, 0x7f43b6a90010ull);
    CHECK(e && e->kind == PROCMAPS_IMAGE, "a managed image (.dll)");
    e = procmaps_find(&m, 0x7f43b8000010ull);
    CHECK(e && e->kind == PROCMAPS_JIT && procmaps_path(&m, e)[0] == '\0',
          "anonymous executable memory");
    e = procmaps_find(&m, 0x7ffd1c3f5000ull);
    CHECK(e && e->kind == PROCMAPS_SPECIAL, "the vDSO (last line without a newline)");
    CHECK(!procmaps_find(&m, 0x556f5b7fe000ull) && !procmaps_find(&m, 0x1000),
          "a mapping that is not executable, and nothing, are not found");
    procmaps_free(&m);
    CHECK(procmaps_parse(&m, "", 0) == 0 && m.count == 0, "an empty file");
    procmaps_free(&m);
}

/* ---- ELF symbols ------------------------------------------------------------------ */

__attribute__((noinline)) int test_cpuinputs_known_function(int x) { return x * 7 + 1; }

/* The file offset of addr in this process, and its mapping's path. */
static int own_offset(uint64_t addr, uint64_t *offset, char *path, size_t size)
{
    procmaps m;
    const procmaps_entry *e;

    if (procmaps_read(&m, getpid()) != 0)
        return -1;
    e = procmaps_find(&m, addr);
    if (e) {
        *offset = addr - e->start + e->offset;
        snprintf(path, size, "%s", procmaps_path(&m, e));
    }
    procmaps_free(&m);
    return e ? 0 : -1;
}

TEST(elf_symbols_of_this_binary_and_libc)
{
    uint64_t offset = 0, start = 0;
    char path[PROCMAPS_PATH_MAX + 1] = "";
    const char *name = NULL;
    elfsyms t;
    int fd;

    CHECK(own_offset((uint64_t)(uintptr_t)&test_cpuinputs_known_function + 3, &offset, path,
                     sizeof(path)) == 0,
          "this function is in a mapping");
    fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && elfsyms_load(&t, fd) == 0, "this binary's symbols read (%s)", path);
    CHECK(elfsyms_find(&t, offset, &name, &start) == 1 && name &&
              strcmp(name, "test_cpuinputs_known_function") == 0,
          "an address inside a function names it (%s)", name ? name : "none");
    elfsyms_free(&t);
    close(fd);

    CHECK(own_offset((uint64_t)(uintptr_t)&getpid + 1, &offset, path, sizeof(path)) == 0,
          "libc's getpid is in a mapping");
    fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && elfsyms_load(&t, fd) == 0 && t.start_count > 100,
          "libc read, with its unwind table's function starts (%zu)", t.start_count);
    name = NULL;
    CHECK(elfsyms_find(&t, offset, &name, &start) == 1 && name &&
              (strcmp(name, "getpid") == 0 || strcmp(name, "__getpid") == 0),
          "getpid by its exported name (%s in %s)", name ? name : "none", path);
    elfsyms_free(&t);
    close(fd);
    fd = open("/proc/self/status", O_RDONLY);
    CHECK(elfsyms_load(&t, fd) == -1, "a file that is not ELF: refused");
    close(fd);
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

/* A whole /proc file: this process's maps, read to its end, name this test
 * binary; under a bound smaller than the file, what fits is kept and it says
 * so; a file that is not there fails with errno. */
TEST(proc_files_read_whole_or_cut)
{
    char *text = NULL, self[512];
    size_t length = 0;
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    int rc;

    CHECK(n > 0, "readlink");
    self[n > 0 ? n : 0] = '\0';
    rc = procfile_read(getpid(), "maps", 64u << 20, &text, &length);
    CHECK(rc == 0 && text && length > 0, "read to its end (%d, %zu bytes)", rc, length);
    CHECK(text && memmem(text, length, self, strlen(self)) != NULL, "it names this binary (%s)",
          self);
    free(text);
    rc = procfile_read(getpid(), "maps", 1024, &text, &length);
    CHECK(rc == 1 && text == NULL && length == 0, "a bound below the first block: cut (%d)", rc);
    free(text);
    rc = procfile_read(getpid(), "environ", 65536, &text, &length);
    CHECK(rc == 0 || rc == 1, "environ read (%d)", rc);
    free(text);
    errno = 0;
    rc = procfile_read(getpid(), "no-such-file", 65536, &text, &length);
    CHECK(rc == -1 && errno == ENOENT && text == NULL, "a missing file: -1, ENOENT (%d)", rc);
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

static const check_test tests[] = {
    TEST_ENTRY(codemap_finds_ranges_sorted_or_not),
    TEST_ENTRY(codemap_bounds_what_is_not_managed),
    TEST_ENTRY(perf_records_decoded),
    TEST_ENTRY(perf_event_asks_only_what_is_read),
    TEST_ENTRY(maps_parsed_and_classified),
    TEST_ENTRY(elf_symbols_of_this_binary_and_libc),
    TEST_ENTRY(probe_says_why_not),
    TEST_ENTRY(proc_files_read_whole_or_cut),
    TEST_ENTRY(hash_slots_find_what_was_put),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
