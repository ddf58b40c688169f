/* test_budget.c -- unit tests for the server-wide memory budget (server/budget.c,
 * and session.c's accounting and refusals, sessions.c's room-making).
 *
 * --max-memory's SIZE parser; a session that grows by 4 KB names stops at its
 * share (budget / (connected sessions + 1)) and refuses whole records, counted
 * by what they would have added, while what it holds stays readable; a second
 * connected session halves the shares and still gets its own; the budget's
 * total follows sessions that grow, end and are freed; ended sessions give
 * their memory back (forgotten without storage: persist_make_room) when the budget is nearly
 * spent, never a live one.
 * Build: make build/tests/test_budget && build/tests/test_budget
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "check.h"
#include "fixtures.h"
#include "persist.h"
#include "records.h"
#include "sessions.h"

#define MID 0x7f0000200000ull /* the module the names are of */

/* A FUNCTION_NAME for a new function with a 4,000-byte name. */
static wire_record big_name(uint64_t fid)
{
    static char text[4001];

    memset(text, 'x', sizeof(text) - 1);
    snprintf(text, 32, "Big.Name%llu", (unsigned long long)fid);
    text[strlen(text)] = 'x';
    return rec_function_name(fid, MID, text, 0);
}

static wire_record jit(uint64_t fid)
{
    return rec_jit_finished(fid, 0x71, fid * 2, 64, REC_MONO + 2, 0);
}

/* A connected session (as link.c binds one) that said hello. */
static session *connected_session(void)
{
    static int links;
    session *s = sessions_create(SESSION_MODE_ATTACH, 4242, "dotnet hog.dll");

    s->link_id = ++links;
    session_budget_connected(s, 1);
    rec_apply(s, rec_hello(s->token));
    return s;
}

/* Feeds big names until one is refused; returns how many were taken. */
static unsigned fill(session *s, uint64_t first_fid)
{
    unsigned n = 0;

    while (n < 100000 && rec_apply(s, big_name(first_fid + n * 16)) == 0)
        n++;
    return n;
}

TEST(size_parser)
{
    uint64_t v = 0;

    CHECK(budget_parse_size("512M", &v) == 0 && v == 512ull << 20, "512M");
    CHECK(budget_parse_size("2G", &v) == 0 && v == 2ull << 30, "2G");
    CHECK(budget_parse_size("1t", &v) == 0 && v == 1ull << 40, "1t");
    CHECK(budget_parse_size("67108864", &v) == 0 && v == 64ull << 20, "bytes");
    CHECK(budget_parse_size("65536K", &v) == 0 && v == 64ull << 20, "K");
    CHECK(budget_parse_size("50%", &v) == 0 && v > 0, "a percentage of the machine's memory");
    CHECK(budget_parse_size("63M", &v) == -1, "under 64M");
    CHECK(budget_parse_size("0%", &v) == -1 && budget_parse_size("101%", &v) == -1, "0%%, 101%%");
    CHECK(budget_parse_size("", &v) == -1 && budget_parse_size("M", &v) == -1, "no digits");
    CHECK(budget_parse_size("-1G", &v) == -1 && budget_parse_size("+1G", &v) == -1, "signs");
    CHECK(budget_parse_size("1GB", &v) == -1 && budget_parse_size("1 G", &v) == -1, "junk");
    CHECK(budget_parse_size("0128M", &v) == -1, "a leading zero");
    CHECK(budget_parse_size("99999999999999999999", &v) == -1, "too large");
    CHECK(budget_parse_size("20000000T", &v) == -1, "overflows with its suffix");
    CHECK(budget_default() >= BUDGET_MIN, "the default: %llu",
          (unsigned long long)budget_default());
}

TEST(a_session_stops_at_its_share)
{
    session *a, *b;
    unsigned taken, taken_b, i;
    uint64_t held, total;

    budget_set_max(64ull << 20);
    sessions_lock();
    a = connected_session();
    CHECK(budget_live() == 1 && budget_share() == 32ull << 20, "one connected: a half each");
    CHECK(rec_apply(
              a, rec_module_loaded(0x7f0000300000ull, "/app/Hog.dll", "Hog", 0, REC_MONO + 1)) == 0,
          "a module loaded");
    taken = fill(a, 0x7f0000100000ull);
    CHECK(taken > 1000 && taken < 32 * 256, "names taken up to the share: %u", taken);
    CHECK(a->budget.held <= budget_share() && a->budget.held > budget_share() - (1u << 20),
          "holds %llu of its %llu", (unsigned long long)a->budget.held,
          (unsigned long long)budget_share());
    CHECK(a->budget.refused[SESSION_REFUSED_FUNCTIONS] == 1 && a->budget.refused_records == 1,
          "the refused one is counted as a function");
    CHECK(a->function_count == taken && a->records_refused == 0, "no half record: %zu functions",
          a->function_count);
    /* known functions compile: an event each, until those do not fit either */
    for (i = 0; i < (unsigned)taken && rec_apply(a, jit(0x7f0000100000ull + i * 16)) == 0; i++)
        ;
    held = a->budget.held;
    CHECK(i < (unsigned)taken && a->jit_compilations == i &&
              a->budget.refused[SESSION_REFUSED_EVENTS] == 1 && held <= budget_share(),
          "at its share an event is refused too, whole (%u taken)", i);
    CHECK(rec_apply(a, jit(0x7f0000100000ull)) == SESSION_REFUSED && a->budget.held == held &&
              a->budget.refused_records == 3,
          "and stays refused");
    /* what only changes what is known is never refused: an unload retires its
     * module's IDs, a thread's end ends it, a detach moves the state */
    {
        CHECK(rec_apply(a, rec_module_unloaded(0x7f0000300000ull, REC_MONO + 3)) == 0 &&
                  session_find_module(a, 0x7f0000300000ull)->unloaded_ns != 0,
              "a known module's unload is taken at the share");
        CHECK(rec_apply(a, rec_detach(WIRE_DETACH_REQUESTED, 0)) == 0 &&
                  a->state == SESSION_DETACHING,
              "so is a detach's status");
        CHECK(a->budget.held <= budget_share(), "and the share holds (their log entries wait)");
    }
    CHECK(session_find_function(a, 0x7f0000100000ull) &&
              strncmp(fixture_fn_name(session_find_function(a, 0x7f0000100000ull)), "Big.Name",
                      8) == 0,
          "what it holds stays readable");

    /* a second session: the shares shrink, the newcomer gets its own */
    b = connected_session();
    CHECK(budget_live() == 2 && budget_share() == (64ull << 20) / 3, "two connected: a third each");
    taken_b = fill(b, 0x7f0000900000ull);
    CHECK(taken_b > 1000 && b->budget.held <= budget_share(), "the newcomer took %u names",
          taken_b);
    total = budget_held();
    CHECK(total == a->budget.held + b->budget.held && total <= budget_max(),
          "the total is theirs, within the budget: %llu", (unsigned long long)total);

    session_link_lost(a, REC_NOW);
    CHECK(budget_live() == 1 && !a->budget.connected, "a's agent gone: one connected");
    sessions_remove(a->id);
    CHECK(budget_held() == b->budget.held, "a freed: its bytes leave the total");
    sessions_remove(b->id);
    CHECK(budget_held() == 0 && budget_live() == 0, "nothing held, nobody connected");
    sessions_unlock();
}

/* The code view's state (code.h) counts in what a session holds, and its
 * records pass the share like the rest: a code reply's version that would
 * take a session past its share is refused whole (its buffers never made),
 * an inline of methods never seen and a code lookup's answer naming one are
 * refused as new functions (the code map counts too); what only
 * fills or ends a reply begun is still taken. */
TEST(code_records_within_the_share)
{
    session *a;
    uint64_t held;
    wire_code_version_info v = {.request_id = 7,
                                .function_id = 0x7f0000100000ull,
                                .code_start = 0x7f5500001000ull,
                                .hot_size = 65536,
                                .code_sent = 65536};
    static uint8_t code[4096];

    budget_set_max(64ull << 20);
    sessions_lock();
    a = connected_session();
    CHECK(rec_apply(a, rec_function_name(0x7f00000d0000ull, MID, "Small.Method()", 0)) == 0,
          "a method named");
    held = a->budget.held;
    {
        wire_record range = {.type = WIRE_CODE_RANGE, .time_ns = REC_MONO + 4};
        range.u.code_range = (wire_code_range){0x7f00000d0010ull, 0x7f00000d0000ull,
                                               0x7f00000d0000ull, 64, 0};
        CHECK(rec_apply(a, range) == 0 && codemap_count(&a->codemap) == 1 &&
                  a->budget.held >= held + codemap_bytes(&a->codemap) &&
                  codemap_bytes(&a->codemap) > 0,
              "a code lookup's answer: the code map counts in what the session holds (%llu)",
              (unsigned long long)(a->budget.held - held));
    }
    held = a->budget.held;
    CHECK(rec_apply(a, rec_code_version(v, REC_MONO + 5)) == 0 && a->code.reply_count == 1,
          "a code reply's first version, 64 KiB of code announced");
    CHECK(a->budget.held >= held + 65536, "its buffers count in what the session holds (%llu)",
          (unsigned long long)(a->budget.held - held));
    fill(a, 0x7f0000200000ull); /* up to its share */
    held = a->budget.held;
    CHECK(rec_apply(a, rec_code_part((wire_code_part){7, 0, WIRE_CODE_PART_CODE, 0, 0, 0}, code,
                                     sizeof(code), REC_MONO + 6)) == 0 &&
              a->code.reply_count == 1 && a->code.pieces_dropped == 0,
          "a piece filling the room its version made is taken at the share");
    v.request_id = 8;
    CHECK(rec_apply(a, rec_code_version(v, REC_MONO + 7)) == SESSION_REFUSED &&
              a->code.reply_count == 1 && a->budget.refused[SESSION_REFUSED_OTHER] == 1,
          "another reply's version is refused whole, counted (other)");
    CHECK(rec_apply(a, rec_inlining(0x7f00000a0000ull, 0x7f00000b0000ull, 0x71, REC_MONO + 8)) ==
                  SESSION_REFUSED &&
              a->code.inline_records == 0 && a->budget.refused[SESSION_REFUSED_FUNCTIONS] == 2,
          "an inline of two methods never seen: refused as new functions");
    {
        wire_record range = {.type = WIRE_CODE_RANGE, .time_ns = REC_MONO + 9};
        size_t ranges = codemap_count(&a->codemap);
        budget_set_max(2 * a->budget.held); /* its share: what it holds, not a byte more */
        range.u.code_range = (wire_code_range){0x7f00000c0010ull, 0x7f00000c0000ull,
                                               0x7f00000c0000ull, 64, 0};
        CHECK(rec_apply(a, range) == SESSION_REFUSED && codemap_count(&a->codemap) == ranges &&
                  a->budget.refused[SESSION_REFUSED_FUNCTIONS] == 3,
              "a code lookup's answer naming a method never seen: refused as a new function");
    }
    CHECK(a->budget.held <= budget_share() && a->budget.held >= held,
          "the share holds (%llu of %llu)", (unsigned long long)a->budget.held,
          (unsigned long long)budget_share());
    sessions_remove(a->id);
    CHECK(budget_held() == 0, "freed: nothing held");
    sessions_unlock();
}

TEST(ended_sessions_give_memory_back)
{
    session *old, *live, *newcomer;
    int old_id;

    budget_set_max(64ull << 20);
    sessions_lock();
    old = connected_session();
    fill(old, 0x7f0000100000ull); /* half the budget */
    old_id = old->id;
    session_exit_code(old, 0, 0, REC_NOW);
    session_link_lost(old, REC_NOW); /* ended, the budget nearly spent by it and the next */
    live = connected_session();
    fill(live, 0x7f0000900000ull);
    CHECK(budget_held() > budget_max() - budget_max() / 32, "the budget is nearly spent: %llu",
          (unsigned long long)budget_held());
    CHECK(persist_make_room() == 1 && sessions_peek(old_id) == NULL,
          "without storage the ended session is forgotten");
    CHECK(sessions_peek(live->id) == live && live->budget.held > 0, "never a live one");
    CHECK(budget_held() == live->budget.held, "the total is the live one's");
    newcomer = connected_session();
    CHECK(fill(newcomer, 0x7f0001900000ull) > 1000, "a newcomer finds room for its share");
    CHECK(persist_make_room() == 0, "nothing more to give back");
    sessions_remove(live->id);
    sessions_remove(newcomer->id);
    sessions_unlock();
}

static const check_test tests[] = {
    TEST_ENTRY(size_parser),
    TEST_ENTRY(a_session_stops_at_its_share),
    TEST_ENTRY(code_records_within_the_share),
    TEST_ENTRY(ended_sessions_give_memory_back),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
