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
 * status is 1 when any check failed. `./test_x name...` runs only those tests.
 * Every test has a time limit (CHECK_TIMEOUT seconds in the environment, else
 * CHECK_TIMEOUT_DEFAULT): a test that overruns it is a failure, reported with
 * the usual last line, and the binary exits at once.
 */
#ifndef JITSCOPE_TEST_CHECK_H
#define JITSCOPE_TEST_CHECK_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* SIGALRM: the running test overran its limit. Async-signal-safe. */
static inline void check_timed_out(int sig)
{
    char line[512];
    size_t n = 0;
    ssize_t w;

    (void)sig;
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

static inline int check_main(int argc, char **argv, const check_test *tests)
{
    const char *binary = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    double start = check_seconds();
    int i, ran = 0;

    unsigned limit = check_timeout_seconds();

    check_binary = binary;
    signal(SIGALRM, check_timed_out);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 0; tests[i].name; i++) {
        unsigned long failed_before = check_failed, passed_before = check_passed;
        double t0;
        int selected = argc < 2, a;

        for (a = 1; a < argc; a++)
            if (strcmp(argv[a], tests[i].name) == 0)
                selected = 1;
        if (!selected)
            continue;
        check_current = tests[i].name;
        t0 = check_seconds();
        alarm(limit);
        tests[i].fn();
        alarm(0);
        ran++;
        printf("%s %-44s %4lu checks  %7.3f s\n", check_failed > failed_before ? "FAIL" : "ok  ",
               tests[i].name, (check_passed - passed_before) + (check_failed - failed_before),
               check_seconds() - t0);
    }
    if (ran == 0) {
        printf("%s: no test named", binary);
        for (i = 1; i < argc; i++)
            printf(" %s", argv[i]);
        printf("\n");
        check_failed++;
    }
    printf("(%.3f s)\n", check_seconds() - start);
    printf("%s: %lu passed, %lu failed\n", binary, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
