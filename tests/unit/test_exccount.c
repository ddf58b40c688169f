/* test_exccount.c -- unit tests for the agent's exception counting
 * (agent/exccount.c): which exceptions go out as records and which are only
 * counted, the thread's newest exception kept as the server keeps it (caught,
 * replaced, reopened by a reported rethrow), and the counts' changes sent as
 * WIRE_EXCEPTION_COUNTS by the sender's flush: exact, once, kept when there
 * is no room, counted as drops when the server is gone. The connection and
 * the naming are stubs here; each test runs on a thread of its own (the
 * thread's exception state is thread-local).
 * Build: make build/tests/test_exccount && build/tests/test_exccount
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "agent.h"
#include "check.h"
#include "conn.h"
#include "exccount.h"
#include "naming.h"
#include "wire.h"

agent_state agent; /* what agent/agent.c defines in the library */

#define CATCHER 0x7f0000003000ull
#define OUTER 0x7f0000004000ull
#define NOW 5000000000ull /* one time for all: no sample for the time passed */

/* ---- stubs: what the flush sends, and whether it may ---- */

typedef struct sent {
    wire_exception_counts c;
    char type[64];
} sent;

static sent out[64];
static unsigned out_count;
static int emit_answer; /* 0 sent, CONN_NO_ROOM, -1 dropped */
static unsigned named;

int conn_connected(void) { return 1; }

int conn_emit_or_keep(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                      uint32_t fixed_length, const char *s1, size_t n1, const char *s2, size_t n2)
{
    (void)flags, (void)time_ns, (void)s2, (void)n2;
    if (emit_answer != 0)
        return emit_answer;
    if (type == WIRE_EXCEPTION_COUNTS && fixed_length == sizeof(wire_exception_counts) &&
        out_count < 64) {
        memcpy(&out[out_count].c, fixed, sizeof(wire_exception_counts));
        memcpy(out[out_count].type, s1, n1 < 63 ? n1 : 63);
        out[out_count].type[n1 < 63 ? n1 : 63] = '\0';
        out_count++;
    }
    return 0;
}

int naming_function(uint64_t function_id, int has_metadata, uint16_t flags, uint64_t ring_pos)
{
    (void)function_id, (void)has_metadata, (void)flags, (void)ring_pos;
    named++;
    return 0;
}

void naming_live_since(uint64_t generation) { (void)generation; }

/* ---- helpers ---- */

/* `name` as the event gives it: UTF-16LE. */
static size_t utf16(const char *name, uint8_t *buf)
{
    size_t i, n = strlen(name);

    for (i = 0; i < n; i++)
        buf[2 * i] = (uint8_t)name[i], buf[2 * i + 1] = 0;
    return n;
}

static enum exccount_verdict thrown(uint64_t ip, const char *type, int rethrown)
{
    uint8_t buf[256];
    size_t n = utf16(type, buf);

    return exccount_thrown(ip, ip & ~0xFFFull, (uint32_t)(ip & 0xFF), buf, n, rethrown, NOW);
}

/* The flush's records of the site at ip, summed (catches: by catcher). */
static wire_exception_counts flushed(uint64_t ip, uint64_t catcher, unsigned *records)
{
    wire_exception_counts sum;
    unsigned i;

    memset(&sum, 0, sizeof(sum));
    out_count = 0;
    exccount_flush();
    *records = 0;
    for (i = 0; i < out_count; i++) {
        if (out[i].c.ip != ip)
            continue;
        (*records)++;
        sum.thrown += out[i].c.thrown;
        sum.caught += out[i].c.caught;
        sum.replaced += out[i].c.replaced;
        sum.open += out[i].c.open;
        if (out[i].c.catcher_id == catcher)
            sum.catches += out[i].c.catches;
    }
    return sum;
}

static void on_a_thread(void *(*body)(void *))
{
    pthread_t t;

    if (pthread_create(&t, NULL, body, NULL) == 0)
        pthread_join(t, NULL);
}

/* The first WIRE_EXCEPTION_SAMPLED_FIRST of a site: records, and their catches. */
static int sample_away(uint64_t ip, const char *type)
{
    unsigned i;
    int ok = 1;

    for (i = 0; i < WIRE_EXCEPTION_SAMPLED_FIRST; i++) {
        ok &= thrown(ip, type, 0) == EXCCOUNT_SEND_STACK;
        ok &= exccount_caught(CATCHER) == 1;
    }
    return ok;
}

/* ---- tests ---- */

static void *storm(void *arg)
{
    wire_exception_counts c;
    unsigned i, records, counted = 0, caught_sent = 0;

    (void)arg;
    CHECK(sample_away(0x7f0000001116ull, "System.ArgumentException"),
          "the site's first 8: records with their stacks, their catches too");
    for (i = 0; i < 92; i++) {
        counted += thrown(0x7f0000001116ull, "System.ArgumentException", 0) == EXCCOUNT_COUNTED;
        caught_sent += exccount_caught(CATCHER);
    }
    CHECK(counted == 92 && caught_sent == 0, "the other 92 only counted (%u), catches too (%u)",
          counted, caught_sent);
    c = flushed(0x7f0000001116ull, CATCHER, &records);
    CHECK(records == 1 && c.thrown == 92 && c.caught == 92 && c.open == 0 && c.catches == 92,
          "one record: 92 thrown, caught, in CatchArgument (%u records, %u %u %d %u)", records,
          c.thrown, c.caught, c.open, c.catches);
    CHECK(strcmp(out[0].type, "System.ArgumentException") == 0 && out[0].c.il_offset == 0x16,
          "its type in UTF-8 and its IL offset");
    c = flushed(0x7f0000001116ull, CATCHER, &records);
    CHECK(records == 0, "nothing new: nothing sent");
    return NULL;
}
TEST(a_storm_is_counted_past_the_first_samples) { on_a_thread(storm); }

static void *rethrow(void *arg)
{
    wire_exception_counts c;
    unsigned records;

    (void)arg;
    sample_away(0x7f0000002210ull, "System.FormatException");
    (void)flushed(0x7f0000002210ull, CATCHER, &records);
    CHECK(thrown(0x7f0000002210ull, "System.FormatException", 0) == EXCCOUNT_COUNTED &&
              exccount_caught(CATCHER) == 0,
          "counted, caught in Middle");
    CHECK(thrown(0x7f0000002210ull, "System.FormatException", 1) == EXCCOUNT_COUNTED,
          "the rethrow the runtime reports: the same exception, open again");
    c = flushed(0x7f0000002210ull, CATCHER, &records);
    CHECK(c.thrown == 1 && c.caught == 1 && c.open == 1, "open again (%u %u %d)", c.thrown,
          c.caught, c.open);
    CHECK(exccount_caught(OUTER) == 0 && exccount_caught(OUTER) == 0, "caught in Outer");
    c = flushed(0x7f0000002210ull, OUTER, &records);
    CHECK(c.thrown == 0 && c.caught == 0 && c.open == -1 && c.catches == 2,
          "closed, not a second catch; Outer's catches counted (%u %u %d %u)", c.thrown, c.caught,
          c.open, c.catches);
    return NULL;
}
TEST(a_reported_rethrow_reopens_and_is_not_a_throw) { on_a_thread(rethrow); }

static void *replace(void *arg)
{
    wire_exception_counts c;
    unsigned records;

    (void)arg;
    sample_away(0x7f0000005501ull, "System.InvalidOperationException");
    (void)flushed(0x7f0000005501ull, CATCHER, &records);
    CHECK(thrown(0x7f0000005501ull, "System.InvalidOperationException", 0) == EXCCOUNT_COUNTED,
          "counted, not caught");
    CHECK(thrown(0x7f0000006602ull, "System.ArgumentException", 0) == EXCCOUNT_SEND_STACK,
          "a new site's first: a record");
    c = flushed(0x7f0000005501ull, CATCHER, &records);
    CHECK(c.thrown == 1 && c.replaced == 1 && c.open == 0, "the older one replaced (%u %u %d)",
          c.thrown, c.replaced, c.open);
    CHECK(exccount_caught(CATCHER) == 1, "the newer one's catch: a record (it was one)");
    /* a sampled exception still open: the next throw must go out to replace it */
    sample_away(0x7f0000007703ull, "System.NotSupportedException");
    CHECK(thrown(0x7f0000006602ull, "System.ArgumentException", 0) == EXCCOUNT_SEND_STACK,
          "the site's second: sampled, open");
    CHECK(thrown(0x7f0000007703ull, "System.NotSupportedException", 0) == EXCCOUNT_SEND,
          "past its samples, but over an open record: a record (without its stack)");
    return NULL;
}
TEST(a_throw_over_an_open_one_replaces_it) { on_a_thread(replace); }

static void *no_room(void *arg)
{
    wire_exception_counts c;
    unsigned records;
    uint64_t drops;

    (void)arg;
    sample_away(0x7f0000008810ull, "System.TimeoutException");
    (void)flushed(0x7f0000008810ull, CATCHER, &records);
    thrown(0x7f0000008810ull, "System.TimeoutException", 0);
    exccount_caught(CATCHER);
    emit_answer = CONN_NO_ROOM;
    c = flushed(0x7f0000008810ull, CATCHER, &records);
    CHECK(records == 0, "no room: kept");
    emit_answer = 0;
    thrown(0x7f0000008810ull, "System.TimeoutException", 0);
    c = flushed(0x7f0000008810ull, CATCHER, &records);
    CHECK(c.thrown == 2 && c.caught == 1 && c.open == 1 && c.catches == 1,
          "then all of it (%u %u %d %u)", c.thrown, c.caught, c.open, c.catches);
    thrown(0x7f0000008810ull, "System.TimeoutException", 0);
    drops = atomic_load(&agent.no_server_drops);
    emit_answer = -1;
    c = flushed(0x7f0000008810ull, CATCHER, &records);
    emit_answer = 0;
    CHECK(atomic_load(&agent.no_server_drops) == drops + 1,
          "no server: its throws counted as drops");
    exccount_caught(CATCHER);
    c = flushed(0x7f0000008810ull, CATCHER, &records);
    CHECK(records == 1 && c.thrown == 0 && c.caught == 1 && c.open == -1,
          "the dropped throw not sent again, its catch is (%u %u %u %d)", records, c.thrown,
          c.caught, c.open);
    CHECK(named > 0, "the methods named before their records");
    return NULL;
}
TEST(counts_without_room_are_kept_without_server_dropped) { on_a_thread(no_room); }

static const check_test tests[] = {
    TEST_ENTRY(a_storm_is_counted_past_the_first_samples),
    TEST_ENTRY(a_reported_rethrow_reopens_and_is_not_a_throw),
    TEST_ENTRY(a_throw_over_an_open_one_replaces_it),
    TEST_ENTRY(counts_without_room_are_kept_without_server_dropped),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
