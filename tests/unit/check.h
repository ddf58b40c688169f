/* check.h -- the tiny harness shared by the unit tests in tests/unit.
 *
 * A test file defines its tests with TEST(name) and lists them, in order, in a
 * table at the bottom (in the spirit of libuv's test-list.h):
 *
 *   TEST(ring_init_rounding) { ...; CHECK(r.capacity == 4096, "rounded up to %u", 4096u); }
 *
 *   static const check_test tests[] = {
 *       TEST_ENTRY(ring_init_rounding),
 *       TEST_END
 *   };
 *   int main(int argc, char **argv) { return check_main(argc, argv, tests); }
 *
 * CHECK(cond, fmt, ...) records one pass or one failure; a failure prints
 * "FAIL <test>: <what> (file:line: cond)". Passes are printed only with
 * CHECK_VERBOSE=1 in the environment. Each test's name and run time are printed,
 * and the last line is exactly "<binary name>: N passed, N failed"; the exit
 * status is 1 when any check failed. `./test_x name...` runs only those tests,
 * `./test_x --list` prints the table's names, one a line.
 * Every test has a time limit (CHECK_TIMEOUT seconds in the environment, else
 * CHECK_TIMEOUT_DEFAULT): a test that overruns it is a failure, reported with
 * the usual last line, and the binary exits at once. The limit counts the time
 * the test ran or waited for something, not the time its thread stood ready
 * while others had the CPUs (the run-queue wait of /proc/self/schedstat): a
 * hang fails in the same time on a loaded machine, and a test that needs 8 s
 * of CPU does not fail because a machine loaded 15 times over gives it 120 s.
 *
 * Every test stands alone: it makes what it needs and removes what it made,
 * so it passes run by itself and in any order. CHECK_SHUFFLE=<seed> (a
 * decimal number) runs the tests in an order drawn from that seed, printed
 * first ("shuffled: CHECK_SHUFFLE=<seed>"), so a failing order can be run
 * again. A file whose tests share a fixture passes check_main_each() a
 * function run before each test and one run after it (either may be NULL).
 */
#ifndef JITSCOPE_TEST_CHECK_H
#define JITSCOPE_TEST_CHECK_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_TIMEOUT_DEFAULT 120 /* seconds per test */

typedef struct check_test {
    const char *name;
    void (*fn)(void);
} check_test;

#define TEST(name) static void test_##name(void)
#define TEST_ENTRY(name)                                                                           \
    {                                                                                              \
#name, test_##name                                                                         \
    }
#define TEST_END                                                                                   \
    {                                                                                              \
        NULL, NULL                                                                                 \
    }

static unsigned long check_passed, check_failed;
static const char *check_current = "?";
static int check_verbose = -1;

__attribute__((format(printf, 5, 6))) static inline int
check_record(int ok, const char *expr, const char *file, int line, const char *fmt, ...)
{
    char what[512];
    va_list ap;

    if (check_verbose < 0) {
        const char *v = getenv("CHECK_VERBOSE");
        check_verbose = v && *v && strcmp(v, "0") != 0;
    }
    if (ok) {
        check_passed++;
        if (!check_verbose)
            return 1;
    } else {
        check_failed++;
    }
    va_start(ap, fmt);
    if (vsnprintf(what, sizeof(what), fmt, ap) < 0)
        what[0] = '\0';
    va_end(ap);
    if (ok)
        printf("  ok   %s: %s\n", check_current, what);
    else
        printf("  FAIL %s: %s (%s:%d: %s)\n", check_current, what, file, line, expr);
    fflush(stdout);
    return ok;
}

/* CHECK(cond, "what", args...): evaluates to cond (0/1), so tests may stop early. */
#define CHECK(cond, ...) check_record(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)

static inline double check_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *check_binary = "?";

/* Appends text to a fixed buffer (what the alarm handler may do: no stdio). */
static inline size_t check_append(char *buf, size_t used, size_t size, const char *text)
{
    while (*text && used + 1 < size)
        buf[used++] = *text++;
    buf[used] = '\0';
    return used;
}

static inline size_t check_append_number(char *buf, size_t used, size_t size, unsigned long n)
{
    char digits[24];
    size_t i = sizeof(digits) - 1;

    digits[i] = '\0';
    do
        digits[--i] = (char)('0' + n % 10);
    while ((n /= 10) && i > 0);
    return check_append(buf, used, size, digits + i);
}

static unsigned check_limit;                /* seconds: the running test's time limit */
static unsigned long long check_started_ns; /* CLOCK_MONOTONIC when it started */
static unsigned long long check_queued0_ns; /* the main thread's run-queue wait then */

static inline unsigned long long check_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* The nanoseconds the main thread has stood on a run queue, ready but not
 * running (the second field of /proc/self/schedstat); 0 when not known.
 * open, read and close only: the alarm handler calls it. */
static inline unsigned long long check_queued_ns(void)
{
    char buf[96];
    unsigned long long v = 0;
    ssize_t n;
    int fd = open("/proc/self/schedstat", O_RDONLY | O_CLOEXEC), i = 0;

    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    while (buf[i] >= '0' && buf[i] <= '9') /* the time it ran */
        i++;
    while (buf[i] == ' ')
        i++;
    while (buf[i] >= '0' && buf[i] <= '9')
        v = v * 10 + (unsigned long long)(buf[i++] - '0');
    return v;
}

/* SIGALRM: the running test's limit may be over. The time it stood ready for
 * a CPU does not count: if that leaves time, the alarm is set again for it.
 * Async-signal-safe. */
static inline void check_timed_out(int sig)
{
    unsigned long long wall = check_now_ns() - check_started_ns, queued, own, left;
    char line[512];
    size_t n = 0;
    ssize_t w;

    (void)sig;
    queued = check_queued_ns();
    queued = queued > check_queued0_ns ? queued - check_queued0_ns : 0;
    own = queued < wall ? wall - queued : 0;
    if (own < (unsigned long long)check_limit * 1000000000ull) {
        left = ((unsigned long long)check_limit * 1000000000ull - own + 999999999ull) /
               1000000000ull;
        alarm(left ? (unsigned)left : 1);
        return;
    }
    n = check_append(line, n, sizeof(line), "FAIL ");
    n = check_append(line, n, sizeof(line), check_current);
    n = check_append(line, n, sizeof(line), ": over its time limit\n");
    n = check_append(line, n, sizeof(line), check_binary);
    n = check_append(line, n, sizeof(line), ": ");
    n = check_append_number(line, n, sizeof(line), check_passed);
    n = check_append(line, n, sizeof(line), " passed, ");
    n = check_append_number(line, n, sizeof(line), check_failed + 1);
    n = check_append(line, n, sizeof(line), " failed\n");
    w = write(STDOUT_FILENO, line, n);
    (void)w;
    _exit(1);
}

static inline unsigned check_timeout_seconds(void)
{
    const char *v = getenv("CHECK_TIMEOUT");
    long n = v && *v ? strtol(v, NULL, 10) : 0;

    return n > 0 && n < 86400 ? (unsigned)n : CHECK_TIMEOUT_DEFAULT;
}

/* The next number of a seeded sequence (splitmix64): the shuffle's dice, and
 * made-up data for the tests (the same for the same seed, whatever ran
 * before: a test starts its own sequence). */
static inline uint64_t check_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* CHECK_SHUFFLE from the environment: 1 and *seed when set, 0 when not set,
 * -1 when it is not a decimal number. */
static inline int check_shuffle_seed(uint64_t *seed)
{
    const char *v = getenv("CHECK_SHUFFLE");
    char *end = NULL;

    if (!v || !*v)
        return 0;
    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    *seed = strtoull(v, &end, 10);
    return errno || *end ? -1 : 1;
}

/* Is test `name` among the names on the command line (all of them when none)? */
static inline int check_selected(int argc, char **argv, const char *name)
{
    int a;

    for (a = 1; a < argc; a++)
        if (strcmp(argv[a], name) == 0)
            return 1;
    return argc < 2;
}

/* Runs one test with its fixture and time limit, and prints its line. */
static inline void check_run_one(const check_test *t, void (*before)(void), void (*after)(void),
                                 unsigned limit)
{
    unsigned long failed_before = check_failed, passed_before = check_passed;
    double t0 = check_seconds();

    check_current = t->name;
    check_limit = limit;
    check_started_ns = check_now_ns();
    check_queued0_ns = check_queued_ns();
    alarm(limit);
    if (before)
        before();
    t->fn();
    if (after)
        after();
    alarm(0);
    printf("%s %-44s %4lu checks  %7.3f s\n", check_failed > failed_before ? "FAIL" : "ok  ",
           t->name, (check_passed - passed_before) + (check_failed - failed_before),
           check_seconds() - t0);
}

/* Runs the tests named on the command line (all without names), in table
 * order or shuffled (CHECK_SHUFFLE), each between before() and after(). */
static inline int check_main_each(int argc, char **argv, const check_test *tests,
                                  void (*before)(void), void (*after)(void))
{
    const char *binary = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    double start = check_seconds();
    unsigned limit = check_timeout_seconds();
    size_t count = 0, ran = 0, i, *order;
    uint64_t seed = 0;
    int shuffle = check_shuffle_seed(&seed);

    check_binary = binary;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (i = 0; tests[i].name; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    signal(SIGALRM, check_timed_out);
    while (tests[count].name)
        count++;
    order = calloc(count ? count : 1, sizeof(*order));
    if (!order) {
        printf("%s: out of memory\n%s: 0 passed, 1 failed\n", binary, binary);
        return 1;
    }
    for (i = 0; i < count; i++)
        if (check_selected(argc, argv, tests[i].name))
            order[ran++] = i;
    if (shuffle < 0) {
        printf("%s: CHECK_SHUFFLE=%s is not a seed (a decimal number)\n", binary,
               getenv("CHECK_SHUFFLE"));
        check_failed++;
        ran = 0;
    } else if (shuffle > 0) {
        uint64_t state = seed;

        printf("shuffled: CHECK_SHUFFLE=%llu\n", (unsigned long long)seed);
        for (i = ran; i > 1; i--) { /* Fisher-Yates */
            size_t j = (size_t)(check_random(&state) % i), k = order[i - 1];

            order[i - 1] = order[j];
            order[j] = k;
        }
    }
    for (i = 0; i < ran; i++)
        check_run_one(&tests[order[i]], before, after, limit);
    free(order);
    if (ran == 0 && shuffle >= 0) {
        printf("%s: no test named", binary);
        for (i = 1; i < (size_t)argc; i++)
            printf(" %s", argv[i]);
        printf("\n");
        check_failed++;
    }
    printf("(%.3f s)\n", check_seconds() - start);
    printf("%s: %lu passed, %lu failed\n", binary, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

static inline int check_main(int argc, char **argv, const check_test *tests)
{
    return check_main_each(argc, argv, tests, NULL, NULL);
}

#endif
