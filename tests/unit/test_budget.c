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
#include "persist.h"
#include "sessions.h"

static const int64_t NOW = 1700000000000000000ll;
static const uint64_t MONO = 5000000000ull;
static uint64_t g_seq;

static int apply(session *s, wire_record r)
{
    const char *why = NULL;
    r.seq = s->last_seq + 1; /* in order, whatever else the session took */
    return session_apply(s, &r, NOW, &why);
}

static wire_record hello(const char *token)
{
    wire_record r = {.type = WIRE_HELLO, .time_ns = MONO};

    memcpy(r.u.hello.magic, WIRE_MAGIC, 8);
    r.u.hello.version = WIRE_VERSION;
    memcpy(r.u.hello.token, token, WIRE_TOKEN_LEN);
    r.u.hello.ring_bytes = 1u << 20;
    r.u.hello.monotonic_ns = MONO;
    r.u.hello.realtime_ns = 1699999999000000000ull;
    return r;
}

/* A FUNCTION_NAME for a new function with a 4,000-byte name. */
static wire_record big_name(uint64_t fid)
{
    static char text[4000];
    wire_record r = {.type = WIRE_FUNCTION_NAME, .time_ns = MONO + 1};

    memset(text, 'x', sizeof(text));
    snprintf(text, 32, "Big.Name%llu", (unsigned long long)fid);
    text[strlen(text)] = 'x';
    r.u.function_name = (wire_function_name){fid, 0x7f0000200000ull, 0x06000001u, 0};
    r.strings[0] = (wire_string){text, (uint16_t)sizeof(text)};
    r.string_count = 1;
    return r;
}

static wire_record jit(uint64_t fid)
{
    wire_record r = {.type = WIRE_JIT_FINISHED, .time_ns = MONO + 2};
    r.u.jit_finished = (wire_jit_finished){fid, 0x71, fid * 2, 64, 10, 0, 0, 0, 0};
    return r;
}

/* A connected session (as link.c binds one) that said hello. */
static session *connected_session(void)
{
    session *s = sessions_create(SESSION_MODE_ATTACH, 4242, "dotnet hog.dll");

    s->link_id = (int)++g_seq;
    session_budget_connected(s, 1);
    apply(s, hello(s->token));
    return s;
}

/* Feeds big names until one is refused; returns how many were taken. */
static unsigned fill(session *s, uint64_t first_fid)
{
    unsigned n = 0;

    while (n < 100000 && apply(s, big_name(first_fid + n * 16)) == 0)
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
    {
        wire_record m = {.type = WIRE_MODULE_LOADED, .time_ns = MONO + 1};
        m.u.module_loaded = (wire_module_loaded){0x7f0000300000ull, 0x1, 0x7f0000300000ull, 0, 0};
        CHECK(apply(a, m) == 0, "a module loaded");
    }
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
    for (i = 0; i < (unsigned)taken && apply(a, jit(0x7f0000100000ull + i * 16)) == 0; i++)
        ;
    held = a->budget.held;
    CHECK(i < (unsigned)taken && a->jit_compilations == i &&
              a->budget.refused[SESSION_REFUSED_EVENTS] == 1 && held <= budget_share(),
          "at its share an event is refused too, whole (%u taken)", i);
    CHECK(apply(a, jit(0x7f0000100000ull)) == SESSION_REFUSED && a->budget.held == held &&
              a->budget.refused_records == 3,
          "and stays refused");
    /* what only changes what is known is never refused: an unload retires its
     * module's IDs, a thread's end ends it, a detach moves the state */
    {
        wire_record u = {.type = WIRE_MODULE_UNLOADED, .time_ns = MONO + 3};
        wire_record d = {.type = WIRE_DETACH_STATUS, .time_ns = MONO + 4};
        u.u.module_unloaded.module_id = 0x7f0000300000ull;
        d.u.detach = (wire_detach_status){WIRE_DETACH_REQUESTED, 0};
        CHECK(apply(a, u) == 0 && session_find_module(a, 0x7f0000300000ull)->unloaded_ns != 0,
              "a known module's unload is taken at the share");
        CHECK(apply(a, d) == 0 && a->state == SESSION_DETACHING, "so is a detach's status");
        CHECK(a->budget.held <= budget_share(), "and the share holds (their log entries wait)");
    }
    CHECK(session_find_function(a, 0x7f0000100000ull) &&
              strncmp(session_function_name(session_find_function(a, 0x7f0000100000ull)),
                      "Big.Name", 8) == 0,
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

    session_link_lost(a, NOW);
    CHECK(budget_live() == 1 && !a->budget.connected, "a's agent gone: one connected");
    sessions_remove(a->id);
    CHECK(budget_held() == b->budget.held, "a freed: its bytes leave the total");
    sessions_remove(b->id);
    CHECK(budget_held() == 0 && budget_live() == 0, "nothing held, nobody connected");
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
    session_exit_code(old, 0, 0, NOW);
    session_link_lost(old, NOW); /* ended, the budget nearly spent by it and the next */
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
    TEST_ENTRY(ended_sessions_give_memory_back),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
