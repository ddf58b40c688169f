/* test_exceptions.c -- unit tests for the exception records (proto/wire.h,
 * records 31-32 and WIRE_CMD_EXCEPTIONS) and their fold per throw site
 * (server/excsites.c), driven through the wire and session_apply with
 * hand-made records (tests/unit/records.h).
 *
 * A site is (type, method, IL offset): its exact count, its first message,
 * every catch clause entered for its exceptions by method, its per-second
 * series, its newest exceptions with their stacks. A catch closes its
 * thread's open exception; a second catch with no throw between (a rethrow
 * .NET 10 does not report) counts its catcher, not a second catch; a rethrow
 * the runtime reports opens the same exception again; a throw over an open
 * one replaces it; an ended session's open ones are its unhandled ones.
 * Build: make build/tests/test_exceptions && build/tests/test_exceptions
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "records.h"
#include "session.h"
#include "views_event.h"
#include "wire_decode.h"
#include "wire_encode.h"

#define THROWER 0x7f0000001000ull
#define OTHER 0x7f0000002000ull
#define CATCHER 0x7f0000003000ull
#define OUTER 0x7f0000004000ull
#define IOE "System.InvalidOperationException"

static const exc_site *site_of(const session *s, uint64_t fid, uint32_t il, const char *type)
{
    for (uint32_t i = 0; s->exceptions && i < s->exceptions->count; i++) {
        const exc_site *x = &s->exceptions->sites[i];
        if (x->function_id == fid && x->il_offset == il && strcmp(x->type, type) == 0)
            return x;
    }
    return NULL;
}

static uint64_t catches_by(const exc_site *x, uint64_t fid)
{
    for (uint32_t i = 0; i < x->catcher_count; i++)
        if (x->catchers[i].function_id == fid)
            return x->catchers[i].count;
    return 0;
}

/* ---- the wire ---- */

TEST(exception_records_round_trip)
{
    static uint8_t buf[sizeof(wire_frame_header) + WIRE_MAX_PAYLOAD];
    wire_stack_frame frames[3] = {
        {THROWER, THROWER + 0x4a}, {CATCHER, CATCHER + 0x20}, {0, 0x1234}};
    wire_record r = rec_exception(0x7f00000b0000ull, THROWER, 10, IOE, "bad \xC3\xA7", frames, 3,
                                  7);
    wire_record back;
    wire_frame f;
    const char *why = NULL;
    size_t n, used;

    n = rec_frame(&r, buf);
    CHECK(wire_decode_frame(buf, n, &f, &used, &why) == WIRE_DECODE_OK &&
              wire_decode_record(&f, &back, &why) == WIRE_DECODE_OK,
          "decoded (%s)", why ? why : "");
    CHECK(back.u.exception.function_id == THROWER && back.u.exception.il_offset == 10 &&
              back.u.exception.frame_count == 3 && back.stack_frame_count == 3 &&
              wire_record_frame(&back, 1).function_id == CATCHER &&
              wire_record_frame(&back, 2).ip == 0x1234,
          "fixed part and frames");
    CHECK(back.string_count == 2 && back.strings[0].length == strlen(IOE) &&
              memcmp(back.strings[1].text, "bad \xC3\xA7", back.strings[1].length) == 0,
          "type and message");
    r = rec_exception_caught(0x7f00000b0000ull, CATCHER, 8);
    n = rec_frame(&r, buf);
    CHECK(wire_decode_frame(buf, n, &f, &used, &why) == WIRE_DECODE_OK &&
              wire_decode_record(&f, &back, &why) == WIRE_DECODE_OK &&
              back.u.exception_caught.function_id == CATCHER,
          "a catch");
}

TEST(exception_records_out_of_bounds_are_refused)
{
    static uint8_t buf[sizeof(wire_frame_header) + WIRE_MAX_PAYLOAD];
    static wire_stack_frame frames[WIRE_EXCEPTION_MAX_FRAMES + 1];
    static char message[WIRE_EXCEPTION_MESSAGE_MAX + 2];
    wire_record r, back;
    wire_frame f;
    const char *why;
    size_t n, used;

    memset(message, 'm', sizeof(message) - 1);
    struct {
        const char *what;
        wire_record r;
    } bad[] = {
        {"more frames than allowed",
         rec_exception(1, THROWER, 0, IOE, "", frames, WIRE_EXCEPTION_MAX_FRAMES + 1, 1)},
        {"no thread", rec_exception(0, THROWER, 0, IOE, "", NULL, 0, 1)},
        {"no type", rec_exception(1, THROWER, 0, "", "", NULL, 0, 1)},
        {"a message past its cap", rec_exception(1, THROWER, 0, IOE, message, NULL, 0, 1)},
        {"a catch without a thread", rec_exception_caught(0, CATCHER, 1)},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        n = rec_frame(&bad[i].r, buf);
        CHECK(wire_decode_frame(buf, n, &f, &used, &why) == WIRE_DECODE_OK &&
                  wire_decode_record(&f, &back, &why) == WIRE_DECODE_BAD && why,
              "%s: refused (%s)", bad[i].what, why ? why : "");
    }
    r = rec_exception(1, THROWER, 0, IOE, "", frames, 2, 1);
    n = rec_frame(&r, buf);
    memcpy(&f.header, buf, sizeof(f.header)); /* cut the last frame and the strings off */
    f.header.length = (uint32_t)(sizeof(wire_exception) + sizeof(wire_stack_frame));
    f.payload = buf + sizeof(wire_frame_header);
    CHECK(wire_decode_record(&f, &back, &why) == WIRE_DECODE_BAD, "frames missing: refused");
}

TEST(exceptions_command)
{
    uint8_t buf[64];
    wire_frame_header h = {.type = WIRE_CMD_EXCEPTIONS};
    wire_cmd_exceptions cmd = {.enabled = 1};
    wire_command c;
    const char *why = NULL;
    size_t used, n = wire_encode(buf, &h, &cmd, sizeof(cmd), NULL, 0, NULL, 0);

    CHECK(wire_decode_command(buf, n, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_EXCEPTIONS && c.u.exceptions.enabled == 1,
          "on");
    n = wire_encode(buf, &h, &cmd, 4, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, n, &c, &used, &why) == WIRE_DECODE_BAD, "too short: bad");
}

/* ---- the fold ---- */

TEST(sites_count_exactly_and_know_their_catchers)
{
    session *s = rec_live_session(1);
    wire_stack_frame frames[2] = {{THROWER, THROWER + 0x4a}, {CATCHER, CATCHER + 0x20}};
    uint64_t events = s->events.last_seq, sum = 0;
    const exc_site *a, *b;
    char message[32];
    unsigned i;

    for (i = 0; i < 100; i++) {
        snprintf(message, sizeof(message), "invalid %u", i);
        CHECK(rec_feed(s, rec_exception(11, THROWER, 22, IOE, message, i < 8 ? frames : NULL,
                                        i < 8 ? 2 : 0, 100 + i * 1000000ull)) == 0,
              "thrown %u (%s)", i, rec_why ? rec_why : "");
        CHECK(rec_feed(s, rec_exception_caught(11, CATCHER, 101 + i * 1000000ull)) == 0, "caught");
    }
    rec_feed(s, rec_exception(11, THROWER, 30, IOE, "other offset", NULL, 0, 200000000));
    rec_feed(s, rec_exception_caught(11, CATCHER, 200000001));
    a = site_of(s, THROWER, 22, IOE);
    b = site_of(s, THROWER, 30, IOE);
    CHECK(a && b && a != b, "two IL offsets, two sites");
    CHECK(a->count == 100 && a->caught == 100 && a->open == 0 && catches_by(a, CATCHER) == 100 &&
              a->catcher_count == 1,
          "100 thrown, 100 caught in one method");
    CHECK(strcmp(a->message, "invalid 0") == 0, "the first message: %s", a->message);
    for (i = 0; i < EXC_SERIES; i++)
        sum += a->series[i];
    CHECK(sum == 100, "the series holds them (%llu)", (unsigned long long)sum);
    CHECK(a->recent_total == 100 && a->recent[99 % EXC_RECENT].frames == NULL &&
              a->recent[7 % EXC_RECENT].frame_count == 0,
          "recent ones: the newest kept, the newest not sampled");
    CHECK(s->events.last_seq - events == 101, "one event per exception");
    CHECK(s->exceptions->total == 101, "101 in all");
    session_free(s);
}

TEST(sampled_stacks_are_kept)
{
    session *s = rec_live_session(1);
    wire_stack_frame frames[2] = {{THROWER, THROWER + 0x4a}, {CATCHER, CATCHER + 0x20}};
    const exc_site *a;

    rec_feed(s, rec_exception(11, THROWER, 22, IOE, "x", frames, 2, 100));
    a = site_of(s, THROWER, 22, IOE);
    CHECK(a && a->recent[0].frame_count == 2 && a->recent[0].frames[1].function_id == CATCHER &&
              a->recent[0].outcome == EXC_OPEN,
          "its stack, open");
    session_free(s);
}

TEST(rethrow_unreported_counts_its_catcher_not_a_catch)
{
    session *s = rec_live_session(1);
    const exc_site *f;

    for (unsigned i = 0; i < 5; i++) {
        rec_feed(s, rec_exception(12, THROWER, 10, "System.FormatException", "format", NULL, 0,
                                  100 + i * 10));
        rec_feed(s, rec_exception_caught(12, CATCHER, 101 + i * 10)); /* Middle: throw; */
        rec_feed(s, rec_exception_caught(12, OUTER, 102 + i * 10));   /* Outer */
    }
    f = site_of(s, THROWER, 10, "System.FormatException");
    CHECK(f && f->count == 5 && f->caught == 5 && catches_by(f, CATCHER) == 5 &&
              catches_by(f, OUTER) == 5 && f->recent[4].caught_by == OUTER,
          "5 thrown, 5 caught, in Middle 5 and Outer 5, the last catch Outer");
    CHECK(s->exceptions->catches_unpaired == 0, "no catch left unpaired");
    session_free(s);
}

TEST(rethrow_reported_is_the_same_exception)
{
    session *s = rec_live_session(1);
    wire_record again = rec_exception(12, CATCHER, 7, "System.FormatException", "format", NULL, 0,
                                      102);
    const exc_site *f;

    again.u.exception.runtime_flags = WIRE_EXCEPTION_RETHROWN;
    rec_feed(s, rec_exception(12, THROWER, 10, "System.FormatException", "format", NULL, 0, 100));
    rec_feed(s, rec_exception_caught(12, CATCHER, 101));
    CHECK(rec_feed(s, again) == 0, "the rethrow");
    f = site_of(s, THROWER, 10, "System.FormatException");
    CHECK(f && f->open == 1 && s->exceptions->count == 1 && s->exceptions->total == 1,
          "open again, no new site, no new throw");
    rec_feed(s, rec_exception_caught(12, OUTER, 103));
    CHECK(f->count == 1 && f->caught == 1 && f->open == 0 && catches_by(f, OUTER) == 1,
          "caught once, in two methods");
    session_free(s);
}

TEST(open_replaced_and_unhandled)
{
    session *s = rec_live_session(1);
    const exc_site *a, *b;

    rec_feed(s, rec_exception(13, THROWER, 1, IOE, "first", NULL, 0, 100));
    rec_feed(s, rec_exception(13, OTHER, 2, "System.ArgumentException", "second", NULL, 0, 101));
    rec_feed(s, rec_exception(14, THROWER, 1, IOE, "on another thread", NULL, 0, 102));
    a = site_of(s, THROWER, 1, IOE);
    b = site_of(s, OTHER, 2, "System.ArgumentException");
    CHECK(a && a->count == 2 && a->replaced == 1 && a->open == 1, "one replaced, one open");
    CHECK(b && b->open == 1 && b->recent[0].outcome == EXC_OPEN, "the newer one open");
    CHECK(rec_feed(s, rec_exception_caught(15, CATCHER, 103)) == 0 &&
              s->exceptions->catches_unpaired == 1,
          "a catch on a thread with no exception: counted");
    session_free(s);
}

/* The agent sends a site's first exceptions as records and counts the rest
 * (agent/exccount.h): the counts add to the same site, its series, its
 * catchers; their open ones are unhandled once the process ended. */
TEST(counted_exceptions_add_to_their_site)
{
    session *s = rec_live_session(1);
    wire_stack_frame frames[2] = {{THROWER, THROWER + 0x4a}, {CATCHER, CATCHER + 0x20}};
    uint64_t events, sum = 0;
    const exc_site *a;
    unsigned i;

    for (i = 0; i < 8; i++) {
        rec_feed(s, rec_exception(11, THROWER, 22, IOE, "invalid 0", frames, 2, 100 + i));
        rec_feed(s, rec_exception_caught(11, CATCHER, 101 + i));
    }
    events = s->events.last_seq;
    CHECK(rec_feed(s, rec_exception_counts(THROWER, 22, IOE, 50, 50, 0, 0, CATCHER, 50, 200)) == 0,
          "counts folded (%s)", rec_why ? rec_why : "");
    CHECK(rec_feed(s, rec_exception_counts(THROWER, 22, IOE, 42, 40, 1, 1, OUTER, 3, 300)) == 0 &&
              rec_feed(s, rec_exception_counts(THROWER, 22, IOE, 0, 0, 0, 0, CATCHER, 37, 300)) ==
                  0 &&
              rec_feed(s, rec_exception_counts(THROWER, 22, IOE, 0, 0, 0, 0, WIRE_EXC_CATCHER_OTHER,
                                               2, 300)) == 0,
          "more counts, catches by three");
    a = site_of(s, THROWER, 22, IOE);
    CHECK(a && a->count == 100 && a->caught == 98 && a->replaced == 1 && a->open == 1,
          "100 thrown, 98 caught, 1 replaced, 1 open (%llu %llu %llu %llu)",
          a ? (unsigned long long)a->count : 0, a ? (unsigned long long)a->caught : 0,
          a ? (unsigned long long)a->replaced : 0, a ? (unsigned long long)a->open : 0);
    CHECK(catches_by(a, CATCHER) == 95 && catches_by(a, OUTER) == 3 && a->catchers_other == 2,
          "catchers: 8 + 50 + 37, 3, 2 past the agent's table");
    for (i = 0; i < EXC_SERIES; i++)
        sum += a->series[i];
    CHECK(sum == 100 && s->exceptions->total == 100, "the series and the total hold them all");
    CHECK(s->events.last_seq - events == 2, "one event per counts record that threw");
    CHECK(a->recent_total == 8, "recent: the records only");
    session_free(s);
}

TEST(counts_before_their_sites_first_record)
{
    session *s = rec_live_session(1);
    const exc_site *a;

    CHECK(rec_feed(s, rec_exception_counts(THROWER, 10, IOE, 3, 0, 0, 3, 0, 0, 100)) == 0,
          "counts of a site not seen yet");
    a = site_of(s, THROWER, 10, IOE);
    CHECK(a && a->count == 3 && a->open == 3 && strcmp(a->message, "") == 0, "made, no message");
    rec_feed(s, rec_exception(11, THROWER, 10, IOE, "its message", NULL, 0, 101));
    a = site_of(s, THROWER, 10, IOE);
    CHECK(a && a->count == 4 && strcmp(a->message, "its message") == 0,
          "the first record's message");
    session_free(s);
}

TEST(counts_records_are_checked)
{
    static uint8_t buf[sizeof(wire_frame_header) + WIRE_MAX_PAYLOAD];
    wire_record r = rec_exception_counts(THROWER, 10, IOE, 1, 1, 0, 0, 0, 1, 100), back;
    wire_frame f;
    const char *why = NULL;
    size_t n, used;

    n = rec_frame(&r, buf);
    CHECK(wire_decode_frame(buf, n, &f, &used, &why) == WIRE_DECODE_OK &&
              wire_decode_record(&f, &back, &why) == WIRE_DECODE_BAD,
          "catches without a catcher: bad");
    r = rec_exception_counts(THROWER, 10, "", 1, 0, 0, 1, 0, 0, 100);
    n = rec_frame(&r, buf);
    CHECK(wire_decode_frame(buf, n, &f, &used, &why) == WIRE_DECODE_OK &&
              wire_decode_record(&f, &back, &why) == WIRE_DECODE_BAD,
          "no type: bad");
    r = rec_exception_counts(THROWER, 10, IOE, 7, 6, 0, 1, CATCHER, 6, 100);
    n = rec_frame(&r, buf);
    CHECK(wire_decode_frame(buf, n, &f, &used, &why) == WIRE_DECODE_OK &&
              wire_decode_record(&f, &back, &why) == WIRE_DECODE_OK &&
              back.u.exception_counts.thrown == 7 && back.u.exception_counts.open == 1 &&
              back.u.exception_counts.catcher_id == CATCHER &&
              back.strings[0].length == strlen(IOE),
          "round trip");
}

TEST(site_cap_counts_the_rest)
{
    session *s = rec_live_session(1);

    for (uint32_t i = 0; i < EXC_SITES_MAX + 3; i++)
        rec_apply(s, rec_exception(16, THROWER, i, IOE, "", NULL, 0, 100 + i));
    CHECK(s->exceptions->count == EXC_SITES_MAX && s->exceptions->sites_dropped == 3 &&
              s->exceptions->total == EXC_SITES_MAX + 3,
          "%u sites kept, 3 counted", EXC_SITES_MAX);
    session_free(s);
}

TEST(rate_over_the_last_ten_seconds)
{
    session *s = rec_live_session(1);
    const exc_site *a;
    int64_t last;

    for (unsigned i = 0; i < 30; i++) /* 30 over 30 s: one a second */
        rec_apply(s, rec_exception(17, THROWER, 5, IOE, "", NULL, 0, 100 + i * 1000000000ull));
    a = site_of(s, THROWER, 5, IOE);
    last = a->last_ns / 1000000000;
    CHECK(exc_site_rate(a, last) > 0.99 && exc_site_rate(a, last) < 1.01, "1/s: %f",
          exc_site_rate(a, last));
    CHECK(exc_site_rate(a, last + 100) == 0, "none 100 s later");
    session_free(s);
}

TEST(event_json)
{
    session *s = rec_live_session(1);
    json_t *j;

    rec_apply(s, rec_function_name(THROWER, 0, "App.Thrower()", 0));
    rec_apply(s, rec_exception(18, THROWER, 3, IOE, "m", NULL, 0, 100));
    j = view_event(s, eventlog_at(&s->events, s->events.last_seq));
    CHECK(j && strcmp(json_string_value(json_object_get(j, "type")), "exception") == 0 &&
              strcmp(json_string_value(json_object_get(j, "exception_type")), IOE) == 0 &&
              strcmp(json_string_value(json_object_get(j, "method")), "App.Thrower()") == 0 &&
              json_integer_value(json_object_get(j, "site")) == 1,
          "an exception event names its type, method and site");
    json_decref(j);
    session_free(s);
}

static const check_test tests[] = {
    TEST_ENTRY(exception_records_round_trip),
    TEST_ENTRY(exception_records_out_of_bounds_are_refused),
    TEST_ENTRY(exceptions_command),
    TEST_ENTRY(sites_count_exactly_and_know_their_catchers),
    TEST_ENTRY(sampled_stacks_are_kept),
    TEST_ENTRY(rethrow_unreported_counts_its_catcher_not_a_catch),
    TEST_ENTRY(rethrow_reported_is_the_same_exception),
    TEST_ENTRY(open_replaced_and_unhandled),
    TEST_ENTRY(counted_exceptions_add_to_their_site),
    TEST_ENTRY(counts_before_their_sites_first_record),
    TEST_ENTRY(counts_records_are_checked),
    TEST_ENTRY(site_cap_counts_the_rest),
    TEST_ENTRY(rate_over_the_last_ten_seconds),
    TEST_ENTRY(event_json),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
