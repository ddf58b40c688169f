/* linkcost.c -- the link thread's cost per stage of a record (see linkcost.h). */
#include "linkcost.h"

#include <stdatomic.h>
#include <string.h>

#include "clock.h"

_Thread_local int linkcost_timing;
_Thread_local int linkcost_thread;

static atomic_int linkcost_enabled;
/* link thread only: the sampled record's stages, then the kept samples' sums */
static uint64_t linkcost_record_ns[LINKCOST_STAGES], linkcost_ns[LINKCOST_STAGES];
static uint64_t linkcost_timed, linkcost_dropped, linkcost_total, linkcost_next;
static uint64_t linkcost_whole_dropped, linkcost_grows; /* whole stages dropped; growths */

int linkcost_configure(const char *value, char *err, size_t errsz)
{
    if (!value || !value[0] || strcmp(value, "0") == 0) {
        atomic_store(&linkcost_enabled, 0);
        return 0;
    }
    if (strcmp(value, "1") == 0) {
        atomic_store(&linkcost_enabled, 1);
        return 0;
    }
    snprintf(err, errsz, "JITSCOPE_LINK_COST must be 0 or 1, not '%.40s'", value);
    return -1;
}

int linkcost_on(void) { return atomic_load_explicit(&linkcost_enabled, memory_order_relaxed); }

/* The sampled record that ended: kept, or dropped when a stage of it took
 * longer than a record's fold ever should (the thread was preempted). */
static void linkcost_close_sample(void)
{
    uint64_t sum = 0;
    int i;

    if (!linkcost_timing)
        return;
    linkcost_timing = 0;
    for (i = 0; i < LINKCOST_JOURNAL; i++)
        sum += linkcost_record_ns[i];
    if (sum == 0) { /* a frame not yet whole ended the batch: no record */
    } else if (sum > LINKCOST_PREEMPTED_NS) {
        linkcost_dropped++;
    } else {
        linkcost_timed++;
        for (i = 0; i < LINKCOST_JOURNAL; i++)
            linkcost_ns[i] += linkcost_record_ns[i];
    }
    memset(linkcost_record_ns, 0, sizeof(linkcost_record_ns));
}

int linkcost_sample(void)
{
    linkcost_close_sample();
    if (!linkcost_on())
        return 0;
    if (++linkcost_next < LINKCOST_EVERY)
        return 0;
    linkcost_next = 0;
    linkcost_timing = 1;
    return 1;
}

void linkcost_end_batch(void) { linkcost_close_sample(); }

uint64_t linkcost_start(void) { return linkcost_timing ? clock_mono_ns() : 0; }

uint64_t linkcost_start_whole(void)
{
    return linkcost_thread && linkcost_on() ? clock_mono_ns() : 0;
}

uint64_t linkcost_add(int stage, uint64_t start)
{
    uint64_t now;

    if (!start || stage < 0 || stage >= LINKCOST_STAGES)
        return 0;
    now = clock_mono_ns();
    linkcost_grows += stage == LINKCOST_GROW;
    if (stage < LINKCOST_JOURNAL)
        linkcost_record_ns[stage] += now - start;
    else if (stage == LINKCOST_CONSUME || now - start <= LINKCOST_WHOLE_PREEMPTED_NS)
        linkcost_ns[stage] += now - start;
    else
        linkcost_whole_dropped++;
    return now;
}

void linkcost_records(uint64_t n)
{
    if (linkcost_on())
        linkcost_total += n;
}

void linkcost_report(FILE *out, int link_id)
{
    static const char *const names[LINKCOST_STAGES] = {"decode",  "check", "budget", "fold",
                                                       "journal", "grow",  "consume"};
    double scale = linkcost_timed ? (double)linkcost_total / (double)linkcost_timed : 0;
    int i;

    if (!linkcost_on() || !linkcost_total)
        return;
    fprintf(out,
            "jitscope: link cost %d: records %llu timed %llu dropped %llu whole_dropped %llu "
            "grows %llu",
            link_id, (unsigned long long)linkcost_total, (unsigned long long)linkcost_timed,
            (unsigned long long)linkcost_dropped, (unsigned long long)linkcost_whole_dropped,
            (unsigned long long)linkcost_grows);
    for (i = 0; i < LINKCOST_STAGES; i++) {
        /* the sampled stages scaled to every record; the others timed whole */
        double ns = i >= LINKCOST_JOURNAL ? (double)linkcost_ns[i] : (double)linkcost_ns[i] * scale;
        fprintf(out, " %s %.0f", names[i], ns);
    }
    fputc('\n', out);
    fflush(out);
    memset(linkcost_ns, 0, sizeof(linkcost_ns));
    linkcost_timed = linkcost_dropped = linkcost_total = linkcost_next = 0;
    linkcost_whole_dropped = linkcost_grows = 0;
}
