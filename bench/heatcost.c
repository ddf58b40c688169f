/* heatcost.c -- the server's part of the code view's heat at its bound
 * (server/profile_heat.c): a profile whose address table is full
 * (PROFILE_HEAT_MAX distinct addresses, what 10,000 samples of 26 distinct
 * managed frames each would fill), then, ROUNDS times, what GET .../code does
 * under the sessions lock (codeheat.c's profile_heat_collect over the
 * versions' ranges) for three methods: 3 versions of 700 bytes (its
 * addresses looked up one by one), 16 versions with 4 KiB hot and cold
 * ranges, and 16 versions of 64 KiB (the 1 MiB a code request reads at most;
 * both: one pass over the table); and, per sample, what the fold adds
 * (profile_heat_sample of a 40-frame stack). CPU time of this
 * thread (CLOCK_THREAD_CPUTIME_ID), so other jobs on the machine move it
 * little; prints p50, p95 and max in microseconds.
 *
 * Build: make build/bench/heatcost; run: build/bench/heatcost [ROUNDS]
 * (bench/codeheat.mjs runs it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "profile_heat.h"

static double heatcost_us(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e6 + (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

static int heatcost_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void heatcost_print(const char *what, double *us, int n)
{
    qsort(us, (size_t)n, sizeof(*us), heatcost_cmp);
    printf("| %s | %d | %.1f | **%.1f** | %.1f |\n", what, n, us[n / 2], us[n * 95 / 100],
           us[n - 1]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 200, r;
    uint64_t state = 0x9e3779b97f4a7c15ull, ranges[64], frames[40];
    double *collect[3], *fold;
    profile_heat h = {0};
    struct timespec t0, t1;
    unsigned i, c;

    if (rounds < 1)
        return 2;
    for (c = 0; c < 3; c++)
        if (!(collect[c] = malloc((size_t)rounds * sizeof(double))))
            return 2;
    if (!(fold = malloc((size_t)rounds * sizeof(double))))
        return 2;
    for (i = 0; h.count < PROFILE_HEAT_MAX; i++) { /* code spread over 1 GiB */
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        (void)profile_heat_add(&h, 0x7f0000000000ull + (state & 0x3fffffffull), i & 1, 1);
    }
    for (c = 0; c < 3; c++) {
        static const unsigned count[3] = {3, 32, 16}, size[3] = {700, 4096, 65536};
        for (i = 0; i < count[c]; i++) { /* spread over the code heap, 32 MiB apart */
            ranges[2 * i] = 0x7f0000000000ull + (uint64_t)i * 0x2000000ull;
            ranges[2 * i + 1] = ranges[2 * i] + size[c];
        }
        for (r = 0; r < rounds; r++) {
            profile_heat_entry *out;
            long n;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
            n = profile_heat_collect(&h, ranges, count[c], &out);
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
            free(out);
            if (n < 0)
                return 1;
            collect[c][r] = heatcost_us(&t0, &t1);
        }
    }
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < 40; i++) /* a stack of known addresses: no new entry */
            frames[i] = h.slots[((size_t)r * 41 + i * 7) % h.cap].address;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        profile_heat_sample(&h, frames, 40, 1);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        fold[r] = heatcost_us(&t0, &t1);
    }
    printf("A full address table (%u addresses, %zu KiB), CPU time of one thread (us):\n\n",
           PROFILE_HEAT_MAX, h.cap * sizeof(profile_heat_entry) / 1024);
    printf("| step | n | p50 | p95 | max |\n| --- | --- | --- | --- | --- |\n");
    heatcost_print("GET .../code under the lock: 3 versions, 2 KiB of code", collect[0], rounds);
    heatcost_print("GET .../code under the lock: 16 versions, 128 KiB (hot and cold)", collect[1],
                   rounds);
    heatcost_print("GET .../code under the lock: 16 versions, 1 MiB (a code request's cap)",
                   collect[2], rounds);
    heatcost_print("the fold: one sample of 40 frames counted", fold, rounds);
    profile_heat_free(&h);
    for (c = 0; c < 3; c++)
        free(collect[c]);
    free(fold);
    return 0;
}
