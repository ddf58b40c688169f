/* driver.c -- standalone runner for libFuzzer-style targets, used where clang's
 * -fsanitize=fuzzer is not available (gcc). Runs LLVMFuzzerTestOneInput over
 * pseudo-random inputs and mutations of a few valid seed streams (hello with
 * the input's token, then JIT, name, module, thread, catch-up, drops, detach,
 * stack walk, profile, GC and suspension frames), each in its own exact-size
 * allocation so ASan sees any overread.
 * Deterministic for a given seed. A crash (ASan/UBSan report, abort on a broken
 * invariant) is the failure; undefined behaviour stops the run too
 * (halt_on_error). On a crash the input is written to fuzz-crash-<iteration>.bin
 * in the current directory; pass that file as an argument to replay it.
 *
 * Build (from the repository root; same flags as the unit tests):
 *   mkdir -p build/tests && gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g \
 *     -fsanitize=address,undefined -fno-omit-frame-pointer -pthread -Iagent -Iserver \
 *     tests/fuzz/driver.c tests/fuzz/fuzz_wire_decode.c proto/wire_decode.c \
 *     server/session.c proto/idmap.c server/stacks.c server/profile.c server/timeline.c \
 *     -fsanitize=address,undefined -o build/tests/fuzz_wire_decode
 * Run:
 *   build/tests/fuzz_wire_decode [-n ITERATIONS] [-t SECONDS] [-s SEED] [FILE...]
 *   build/tests/fuzz_wire_decode SECONDS      (as tests/run.sh does: time-bound only)
 *   (defaults: -n 200000 -t 10 -s 1; whichever limit comes first; FILEs are run
 *   once each, instead of the generated inputs)
 * Last line: "fuzz_wire_decode: N passed, 0 failed".
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "wire.h"

#ifndef FUZZ_NAME /* the target's name in messages: -DFUZZ_NAME=\"fuzz_x\" */
#define FUZZ_NAME "fuzz_wire_decode"
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

/* Undefined behaviour is a failure like a memory error: stop at the first report
 * (the sanitizer runtimes call these for their defaults; the environment's
 * UBSAN_OPTIONS / ASAN_OPTIONS still win). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:abort_on_error=1:print_stacktrace=1";
}

#define FUZZ_MAX_INPUT 8192

static uint64_t rng;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the input being run, for the crash dump ---------------------------- */

static const uint8_t *current;
static size_t current_size;
static unsigned long current_iteration;

/* Writes the input being run to fuzz-crash-<iteration>.bin (async-signal-safe). */
static void dump_current(void)
{
    static volatile sig_atomic_t dumped;
    char name[64], msg[128];
    int fd, len;

    if (dumped || !current)
        return;
    dumped = 1;
    snprintf(name, sizeof(name), "fuzz-crash-%lu.bin", current_iteration);
    fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    if (write(fd, current, current_size) == (ssize_t)current_size) {
        len = snprintf(msg, sizeof(msg), FUZZ_NAME ": crashing input (%zu bytes) in %s\n",
                       current_size, name);
        if (len > 0 && write(2, msg, (size_t)len) < 0)
            len = 0;
    }
    close(fd);
}

static void on_fatal_signal(int sig)
{
    dump_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void run_one(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);

    memcpy(copy, data, size);
    current = copy;
    current_size = size;
    LLVMFuzzerTestOneInput(copy, size);
    current = NULL;
    free(copy);
}

/* ---- seed streams --------------------------------------------------------- */

typedef struct stream {
    uint8_t b[FUZZ_MAX_INPUT];
    size_t n;
    uint64_t seq;
} stream;

static void put_frame(stream *s, uint16_t type, uint16_t flags, const void *fixed, size_t fixed_len,
                      const char *s1, const char *s2)
{
    const char *strs[2] = {s1, s2};
    wire_frame_header h = {
        .type = type, .flags = flags, .seq = ++s->seq, .time_ns = 5000000000ull + s->seq * 1000};
    size_t start = s->n, pos = s->n + sizeof(h);

    memcpy(s->b + pos, fixed, fixed_len);
    pos += fixed_len;
    for (int i = 0; i < 2; i++) {
        if (!strs[i])
            continue;
        uint16_t n = (uint16_t)strlen(strs[i]);
        memcpy(s->b + pos, &n, 2);
        memcpy(s->b + pos + 2, strs[i], n);
        pos += 2 + n;
    }
    h.length = (uint32_t)(pos - start - sizeof(h));
    memcpy(s->b + start, &h, sizeof(h));
    s->n = pos;
}

static const char TOKEN[] = "feedfacecafebeef0123456789abcdef";

static void put_hello(stream *s)
{
    wire_hello h;

    memset(&h, 0, sizeof(h));
    memcpy(h.magic, WIRE_MAGIC, 8);
    h.version = WIRE_VERSION;
    h.pid = 1234;
    h.mode = WIRE_MODE_ATTACH;
    h.runtime_type = 2;
    h.major = 10, h.build = 12;
    h.monotonic_ns = 5000000000ull;
    h.realtime_ns = 1700000000000000000ull;
    memcpy(h.token, TOKEN, WIRE_TOKEN_LEN);
    h.ring_bytes = 1u << 20;
    memcpy(s->b, TOKEN, WIRE_TOKEN_LEN); /* the target takes its token from the input */
    s->n = WIRE_TOKEN_LEN;
    s->seq = 0;
    put_frame(s, WIRE_HELLO, 0, &h, sizeof(h), NULL, NULL);
}

#define N_SEEDS 6
static stream seeds[N_SEEDS];

static void make_stack_seeds(void);

static void make_seeds(void)
{
    stream *s;
    wire_module_loaded ml = {0x200000, 0x300000, 0x7f0000000000ull, 0, 0};
    wire_assembly_loaded al = {0x300000, 0x200000, 0, 0};
    wire_thread th = {0x71, 4242, 0};
    wire_catchup cu = {1, 2, 1, 0, 1000000};
    wire_drops dr = {{1, 0, 0, 0, 0, 0, 0}, 50, 64};
    wire_function_name fn = {0xF1, 0x200000, 0x06000001, 0};

    /* 0: a startup-mode session: module, thread, nested JITs with names, re-JIT */
    s = &seeds[0];
    put_hello(s);
    put_frame(s, WIRE_MODULE_LOADED, 0, &ml, sizeof(ml), "/app/App.dll", "App");
    put_frame(s, WIRE_ASSEMBLY_LOADED, 0, &al, sizeof(al), "App", NULL);
    put_frame(s, WIRE_THREAD_CREATED, 0, &th, sizeof(th), NULL, NULL);
    put_frame(s, WIRE_THREAD_NAME, 0, &th, sizeof(th), "worker \xE4\xB8\xAD", NULL);
    put_frame(s, WIRE_JIT_STARTED, 0, &(wire_jit_started){0xF1, 0x71, 20, 0},
              sizeof(wire_jit_started), NULL, NULL);
    put_frame(s, WIRE_JIT_STARTED, 0, &(wire_jit_started){0xF2, 0x71, 0, 0},
              sizeof(wire_jit_started), NULL, NULL);
    put_frame(s, WIRE_FUNCTION_NAME, 0, &(wire_function_name){0xF2, 0x200000, 0x06000002, 0},
              sizeof(fn), "App.Program+Inner.Get", NULL);
    put_frame(s, WIRE_JIT_FINISHED, 0, &(wire_jit_finished){0xF2, 0x71, 0x2000, 64, 10, 0, 0, 0, 0},
              sizeof(wire_jit_finished), NULL, NULL);
    put_frame(s, WIRE_FUNCTION_NAME, 0, &fn, sizeof(fn), "App.Box<System.Int64>.Main", NULL);
    put_frame(s, WIRE_JIT_FINISHED, 0,
              &(wire_jit_finished){0xF1, 0x71, 0x1000, 200, 20, 0, 0, 0, 0},
              sizeof(wire_jit_finished), NULL, NULL);
    put_frame(s, WIRE_JIT_FINISHED, 0,
              &(wire_jit_finished){0xF1, 0x71, 0x3000, 150, 20, 0, 0, 0, 0},
              sizeof(wire_jit_finished), NULL, NULL);
    put_frame(s, WIRE_THREAD_DESTROYED, 0, &th, sizeof(th), NULL, NULL);
    put_frame(s, WIRE_DROPS, 0, &dr, sizeof(dr), NULL, NULL);

    /* 1: an attach: catch-up duplicates of live records */
    s = &seeds[1];
    put_hello(s);
    put_frame(s, WIRE_CATCHUP_BEGIN, WIRE_FLAG_CATCHUP, &cu, sizeof(cu), NULL, NULL);
    put_frame(s, WIRE_MODULE_LOADED, 0, &ml, sizeof(ml), "/app/App.dll", "App");
    put_frame(s, WIRE_MODULE_LOADED, WIRE_FLAG_CATCHUP, &ml, sizeof(ml), "/old/App.dll", "Old");
    put_frame(s, WIRE_THREAD_CREATED, WIRE_FLAG_CATCHUP, &th, sizeof(th), NULL, NULL);
    put_frame(s, WIRE_FUNCTION_NAME, 0, &fn, sizeof(fn), "App.Program.Main", NULL);
    put_frame(s, WIRE_JIT_FINISHED, WIRE_FLAG_CATCHUP,
              &(wire_jit_finished){0xF1, 0, 0x1000, 200, 20, 0, 0, 0, 0}, sizeof(wire_jit_finished),
              NULL, NULL);
    put_frame(s, WIRE_JIT_FINISHED, WIRE_FLAG_CATCHUP | WIRE_FLAG_DYNAMIC,
              &(wire_jit_finished){0xF9, 0, 0x9000, 20, 0, 0, 0, 0, 0}, sizeof(wire_jit_finished),
              NULL, NULL);
    put_frame(s, WIRE_CATCHUP_END, WIRE_FLAG_CATCHUP, &cu, sizeof(cu), NULL, NULL);
    put_frame(s, WIRE_THREAD_NAME, WIRE_FLAG_CATCHUP, &th, sizeof(th), "", NULL);
    put_frame(s, WIRE_PONG, 0, &(wire_cmd_ping){77}, sizeof(wire_cmd_ping), NULL, NULL);

    /* 2: detach sequence and an unload of a never-seen module */
    s = &seeds[2];
    put_hello(s);
    put_frame(s, WIRE_MODULE_UNLOADED, 0, &(wire_module_unloaded){0xABC000},
              sizeof(wire_module_unloaded), NULL, NULL);
    put_frame(s, WIRE_DETACH_STATUS, 0, &(wire_detach_status){WIRE_DETACH_REQUESTED, 0},
              sizeof(wire_detach_status), NULL, NULL);
    put_frame(s, WIRE_DETACH_STATUS, 0,
              &(wire_detach_status){WIRE_DETACH_REFUSED, (int32_t)0x80131367},
              sizeof(wire_detach_status), NULL, NULL);
    put_frame(s, WIRE_DETACH_STATUS, 0, &(wire_detach_status){WIRE_DETACH_SUCCEEDED, 0},
              sizeof(wire_detach_status), NULL, NULL);

    /* 3: many small JIT records on several threads */
    s = &seeds[3];
    put_hello(s);
    for (uint64_t i = 0; i < 40 && s->n < FUZZ_MAX_INPUT - 200; i++) {
        put_frame(s, WIRE_JIT_STARTED, 0, &(wire_jit_started){0x100 + i % 7, 0x70 + i % 3, 0, 0},
                  sizeof(wire_jit_started), NULL, NULL);
        put_frame(
            s, WIRE_JIT_FINISHED, 0,
            &(wire_jit_finished){0x100 + i % 7, 0x70 + i % 3, 0x1000 * (i % 11), 32, 8, 0, 0, 0, 0},
            sizeof(wire_jit_finished), NULL, NULL);
    }
    make_stack_seeds();
}

/* One STACK_THREAD with `frames` frames (function ids from `fid`, 0 = native). */
static void put_stack_thread(stream *s, uint64_t snapshot_id, uint64_t thread_id, uint32_t frames,
                             uint64_t fid, uint32_t flags)
{
    uint8_t p[sizeof(wire_stack_thread) + 8 * sizeof(wire_stack_frame)];
    wire_stack_thread t = {snapshot_id, thread_id, 4000 + (uint32_t)thread_id % 100,
                           0,           5000,      frames < 8 ? frames : 8,
                           flags};

    memcpy(p, &t, sizeof(t));
    for (uint32_t i = 0; i < t.frame_count; i++) {
        wire_stack_frame f = {i == 1 ? 0 : fid + (i % 3), 0x7f0000001000ull + i * 64};
        memcpy(p + sizeof(t) + i * sizeof(f), &f, sizeof(f));
    }
    put_frame(s, WIRE_STACK_THREAD, 0, p, sizeof(t) + t.frame_count * sizeof(wire_stack_frame),
              NULL, NULL);
}

static void put_stack_end(stream *s, uint64_t snapshot_id, uint64_t request_id, uint32_t kind,
                          uint32_t sent)
{
    wire_stack_end e = {snapshot_id, request_id, kind, sent,
                        sent + 1,    0,          0,    kind == WIRE_STACK_SAMPLE ? 49000 : 0,
                        90000,       40000};
    put_frame(s, WIRE_STACK_END, 0, &e, sizeof(e), NULL, NULL);
}

static void put_suspend(stream *s, uint32_t phase, uint32_t reason)
{
    wire_runtime_suspend r = {phase, reason};
    put_frame(s, WIRE_RUNTIME_SUSPEND, 0, &r, sizeof(r), NULL, NULL);
}

static void make_stack_seeds(void)
{
    wire_function_name fn = {0xA1, 0x200000, 0x06000001, 0};
    wire_profile_status ps = {WIRE_PROFILE_STARTED, 49000, 49000, 20, 0, 0, 0, 0};
    stream *s;

    /* 4: a snapshot on request, a repeated END, a late thread, an END never seen */
    s = &seeds[4];
    put_hello(s);
    put_frame(s, WIRE_FUNCTION_NAME, 0, &fn, sizeof(fn), "App.Deep.Recurse", NULL);
    put_suspend(s, WIRE_SUSPEND_STARTED, 9);
    put_suspend(s, WIRE_SUSPEND_FINISHED, 9);
    put_suspend(s, WIRE_SUSPEND_STARTED, 1); /* a GC's start before our resume finished */
    put_suspend(s, WIRE_RESUME_STARTED, 9);
    put_suspend(s, WIRE_RESUME_FINISHED, 9);
    put_suspend(s, WIRE_RESUME_FINISHED, 1);
    put_stack_thread(s, 1, 0x71, 4, 0xA1, 0);
    put_stack_thread(s, 1, 0x72, 0, 0xA1, 0);
    put_stack_thread(s, 1, 0x73, 8, 0xB1, WIRE_STACK_TRUNCATED);
    put_stack_end(s, 1, 5, WIRE_STACK_SNAPSHOT, 3);
    put_stack_end(s, 1, 5, WIRE_STACK_SNAPSHOT, 3);
    put_stack_thread(s, 1, 0x74, 2, 0xA1, 0);
    put_stack_end(s, 2, 6, WIRE_STACK_SNAPSHOT, 2);

    /* 5: a profile: status, samples of two threads, GCs, a rate change, stop */
    s = &seeds[5];
    put_hello(s);
    put_frame(s, WIRE_PROFILE_STATUS, 0, &ps, sizeof(ps), NULL, NULL);
    for (uint64_t i = 1; i <= 12 && s->n < FUZZ_MAX_INPUT - 800; i++) {
        put_stack_thread(s, 10 + i, 0x71, 3 + (uint32_t)(i % 3), 0xC0 + i % 2, 0);
        put_stack_thread(s, 10 + i, 0x72, 2, 0xD0, 0);
        put_stack_end(s, 10 + i, 0, WIRE_STACK_SAMPLE, 2);
        if (i % 4 == 0) {
            put_frame(s, WIRE_GC_STARTED, 0, &(wire_gc_started){0x3, 0}, sizeof(wire_gc_started),
                      NULL, NULL);
            put_suspend(s, WIRE_SUSPEND_STARTED, 1);
            put_suspend(s, WIRE_RESUME_FINISHED, 1);
            put_frame(s, WIRE_GC_FINISHED, 0, &(wire_gc_finished){0}, sizeof(wire_gc_finished),
                      NULL, NULL);
        }
    }
    ps.state = WIRE_PROFILE_RATE;
    ps.effective_millihz = 12500;
    put_frame(s, WIRE_PROFILE_STATUS, 0, &ps, sizeof(ps), NULL, NULL);
    put_suspend(s, WIRE_SUSPEND_STARTED, 9);
    put_suspend(s, WIRE_SUSPEND_ABORTED, 9);
    put_frame(s, WIRE_GC_FINISHED, 0, &(wire_gc_finished){0}, sizeof(wire_gc_finished), NULL, NULL);
    ps.state = WIRE_PROFILE_STOPPED;
    put_frame(s, WIRE_PROFILE_STATUS, 0, &ps, sizeof(ps), NULL, NULL);
}

/* ---- mutation --------------------------------------------------------------- */

static const uint8_t interesting[] = {0x00, 0x01, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xE0,
                                      0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFE, 0xFF};

static size_t mutate(uint8_t *b, size_t n, size_t cap)
{
    unsigned rounds = 1 + (unsigned)(next() % 8);

    while (rounds-- > 0) {
        uint64_t r = next();
        size_t at = n ? (size_t)(r >> 16) % n : 0;

        switch (r % 11) {
        case 0: /* flip a bit */
            if (n)
                b[at] ^= (uint8_t)(1u << ((r >> 8) % 8));
            break;
        case 1: /* random byte */
            if (n)
                b[at] = (uint8_t)(r >> 8);
            break;
        case 2: /* interesting byte (UTF-8 leads, limits) */
            if (n)
                b[at] = interesting[(r >> 8) % sizeof(interesting)];
            break;
        case 3: /* truncate */ n = at; break;
        case 4: { /* delete a chunk */
            size_t len = 1 + (r >> 8) % 32;
            if (at + len <= n) {
                memmove(b + at, b + at + len, n - at - len);
                n -= len;
            }
            break;
        }
        case 5: { /* insert random bytes */
            size_t len = 1 + (r >> 8) % 16;
            if (n + len <= cap) {
                memmove(b + at + len, b + at, n - at);
                for (size_t k = 0; k < len; k++)
                    b[at + k] = (uint8_t)next();
                n += len;
            }
            break;
        }
        case 6: { /* duplicate a chunk (repeats frames, duplicates IDs) */
            size_t len = 1 + (r >> 8) % 128;
            if (at + len <= n && n + len <= cap) {
                memmove(b + at + len, b + at, n - at);
                n += len;
            }
            break;
        }
        case 7: { /* overwrite 16/32/64-bit value with an edge value */
            static const uint64_t edges[] = {0,
                                             1,
                                             0x7F,
                                             0x80,
                                             0xFF,
                                             0x100,
                                             0xFFFF,
                                             0x10000,
                                             WIRE_MAX_PAYLOAD,
                                             WIRE_MAX_PAYLOAD + 1,
                                             WIRE_MAX_STRING,
                                             WIRE_MAX_STRING + 1,
                                             0x7FFFFFFF,
                                             0xFFFFFFFF,
                                             UINT64_MAX};
            uint64_t v = edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))];
            size_t w = (size_t)2 << ((r >> 12) % 3);
            if (at + w <= n)
                memcpy(b + at, &v, w);
            break;
        }
        case 8: /* add or subtract a little from a byte (lengths, types) */
            if (n)
                b[at] = (uint8_t)(b[at] + (int)((r >> 8) % 9) - 4);
            break;
        case 9: { /* splice the tail of another seed */
            const stream *o = &seeds[(r >> 8) % N_SEEDS];
            size_t from = WIRE_TOKEN_LEN + (size_t)(next() % (o->n - WIRE_TOKEN_LEN));
            size_t len = o->n - from;
            if (at + len > cap)
                len = cap - at;
            memcpy(b + at, o->b + from, len);
            n = at + len;
            break;
        }
        default: /* swap two bytes */
            if (n) {
                size_t other = (size_t)(next() % n);
                uint8_t t = b[at];
                b[at] = b[other];
                b[other] = t;
            }
            break;
        }
    }
    return n;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        b = malloc((size_t)n + 1);
        if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
            free(b);
            b = NULL;
        }
        *size = (size_t)n;
    }
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    unsigned long iterations = 200000, done = 0, files = 0;
    double seconds = 10, t0;
    uint64_t seed = 1;
    static uint8_t buf[FUZZ_MAX_INPUT];

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            iterations = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            seconds = strtod(argv[++i], NULL);
        } else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (argv[i][0] == '-') {
            fprintf(stderr,
                    "usage: %s [-n ITERATIONS] [-t SECONDS] [-s SEED] [SECONDS | FILE...]\n",
                    argv[0]);
            return 2;
        } else if (argv[i][strspn(argv[i], "0123456789.")] == '\0' && access(argv[i], F_OK) != 0) {
            seconds = strtod(argv[i], NULL); /* bare number: run for that many seconds */
            iterations = ULONG_MAX;
        } else {
            size_t size = 0;
            uint8_t *data = read_file(argv[i], &size);
            if (!data) {
                fprintf(stderr, FUZZ_NAME ": cannot read %s\n", argv[i]);
                return 2;
            }
            run_one(data, size);
            free(data);
            files++;
        }
    }
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(dump_current);
#endif
    signal(SIGABRT, on_fatal_signal); /* FUZZ_REQUIRE, UBSan (abort_on_error) */
    signal(SIGSEGV, on_fatal_signal); /* builds without ASan */
    if (files) {
        printf(FUZZ_NAME ": %lu passed, 0 failed\n", files);
        return 0;
    }
    make_seeds();
    rng = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng)
        rng = 1;
    /* the seeds themselves, and every prefix of the first one */
    for (int i = 0; i < N_SEEDS; i++)
        run_one(seeds[i].b, seeds[i].n), done++;
    for (size_t n = 0; n < seeds[0].n; n++)
        run_one(seeds[0].b, n), done++;
    t0 = now_seconds();
    for (current_iteration = 0; done < iterations; current_iteration++) {
        size_t n;
        uint64_t kind = next() % 8;

        if ((current_iteration & 255) == 0 && now_seconds() - t0 > seconds)
            break;
        if (kind == 0) { /* pure noise */
            n = (size_t)(next() % 512);
            for (size_t k = 0; k < n; k++)
                buf[k] = (uint8_t)next();
        } else if (kind == 1) { /* the token and a random stream */
            n = WIRE_TOKEN_LEN + (size_t)(next() % 1024);
            memcpy(buf, TOKEN, WIRE_TOKEN_LEN);
            for (size_t k = WIRE_TOKEN_LEN; k < n; k++)
                buf[k] = (uint8_t)next();
        } else { /* a mutated seed */
            const stream *s = &seeds[next() % N_SEEDS];
            memcpy(buf, s->b, s->n);
            n = mutate(buf, s->n, sizeof(buf));
        }
        run_one(buf, n);
        done++;
    }
    printf(FUZZ_NAME ": %.1f s, seed %llu\n", now_seconds() - t0, (unsigned long long)seed);
    printf(FUZZ_NAME ": %lu passed, 0 failed\n", done);
    return 0;
}
