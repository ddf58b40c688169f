/* test_linkcost.c -- the link thread's cost per stage (server/linkcost.c):
 * off, nothing is timed and nothing is written; on, on the link thread, one
 * record in LINKCOST_EVERY is timed through the stages session_apply passes
 * (checks, budget, fold), the journal and growth whole, and the report says
 * how many records, how many timed, and each stage's total; off the link
 * thread (a stored session read back on another thread) nothing whole is
 * timed. The value of JITSCOPE_LINK_COST is checked.
 * Build: make build/tests/test_linkcost && build/tests/test_linkcost
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixtures.h"
#include "linkcost.h"
#include "records.h"
#include "session.h"

/* n JITs (started, name, finished), each record sampled as link.c does. */
static void feed(session *s, unsigned n)
{
    unsigned i;

    for (i = 0; i < n; i++) {
        uint64_t fid = 0x1000 + i;
        linkcost_sample();
        rec_apply(s, rec_jit_started(fid, 0x71, REC_MONO + i));
        linkcost_sample();
        rec_apply(s, rec_function_name(fid, 0, "Ns.T<Ns.Item>.M()", 0));
        linkcost_sample();
        rec_apply(s, rec_jit_finished(fid, 0x71, 0x10000 + i * 64, 64, REC_MONO + i + 1, 0));
    }
    linkcost_records(3ull * n);
    linkcost_end_batch();
}

/* The report's line, written to a temporary file and read back. */
static int report(char *line, size_t size)
{
    FILE *f = tmpfile();
    size_t n = 0;

    if (!f)
        return -1;
    linkcost_report(f, 7);
    rewind(f);
    n = fread(line, 1, size - 1, f);
    line[n] = '\0';
    fclose(f);
    return (int)n;
}

static double field(const char *line, const char *name)
{
    char key[32];
    const char *p;

    snprintf(key, sizeof(key), " %s ", name);
    p = strstr(line, key);
    return p ? strtod(p + strlen(key), NULL) : -1;
}

TEST(configure_checks_its_value)
{
    char err[128] = "";

    CHECK(linkcost_configure(NULL, err, sizeof(err)) == 0 && !linkcost_on(), "unset: off");
    CHECK(linkcost_configure("0", err, sizeof(err)) == 0 && !linkcost_on(), "0: off");
    CHECK(linkcost_configure("1", err, sizeof(err)) == 0 && linkcost_on(), "1: on");
    CHECK(linkcost_configure("yes", err, sizeof(err)) == -1 && strstr(err, "JITSCOPE_LINK_COST"),
          "anything else refused, named (%s)", err);
    linkcost_configure("0", err, sizeof(err));
}

TEST(off_times_nothing)
{
    char err[64], line[512];
    session *s = rec_live_session(1);

    linkcost_configure("0", err, sizeof(err));
    linkcost_thread = 1;
    feed(s, 64);
    CHECK(!linkcost_timing && linkcost_start() == 0 && linkcost_start_whole() == 0,
          "no clock read when off");
    CHECK(report(line, sizeof(line)) == 0, "no report when off (%s)", line);
    linkcost_thread = 0;
    session_free(s);
}

TEST(on_times_one_record_in_every_and_reports_the_stages)
{
    char err[64], line[512];
    session *s = rec_live_session(1);
    unsigned n = 4000; /* past the function array's first growths */

    linkcost_configure("1", err, sizeof(err));
    linkcost_thread = 1;
    feed(s, n);
    CHECK(report(line, sizeof(line)) > 0, "a report");
    CHECK(strstr(line, "link cost 7: records 12000 ") != NULL, "the connection and the records: %s",
          line);
    CHECK(field(line, "timed") + field(line, "dropped") == 12000 / LINKCOST_EVERY,
          "one record in %u timed or dropped: %s", LINKCOST_EVERY, line);
    CHECK(field(line, "check") > 0 && field(line, "budget") > 0 && field(line, "fold") > 0,
          "the stages session_apply passes took time: %s", line);
    CHECK(field(line, "grows") > 0, "the arrays grew, timed whole on the link thread: %s", line);
    CHECK(report(line, sizeof(line)) == 0, "a report starts again from zero");
    linkcost_thread = 0;
    feed(s, 100);
    CHECK(report(line, sizeof(line)) > 0 && field(line, "grows") == 0 && field(line, "grow") == 0,
          "off the link thread nothing is timed whole: %s", line);
    linkcost_configure("0", err, sizeof(err));
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(configure_checks_its_value),
    TEST_ENTRY(off_times_nothing),
    TEST_ENTRY(on_times_one_record_in_every_and_reports_the_stages),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
