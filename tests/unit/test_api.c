/* test_api.c -- unit tests for the REST routes (server/api*.c) without HTTP:
 * api_handle() is called with hand-made requests against sessions in the
 * registry that were fed hand-made agent records.
 *
 * The route table (404, 405, 400 for bad ids and numbers); session detail with
 * "profile" and "stacks"; /functions without functions known only from
 * stacks; GET /stacks and /stacks/{n} as JSON (names, modules, [native],
 * hresult names, thread names and OS ids) and as the text report; POST /stacks
 * and POST /profile refused with 409 without a live agent and 502 when the
 * command cannot be sent; request bodies of POST /profile checked (bad JSON,
 * wrong types, out-of-range values, unknown or repeated fields: 400);
 * /profile/stop with nothing running: 409; GET /profile's formats and
 * hostile query parameters; /timeline's shape and parameters; the gc,
 * suspension, stack_snapshot and profile events as /events shows them.
 * Build: make build/tests/test_api && build/tests/test_api
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "api_export.h"
#include "check.h"
#include "fixtures.h"
#include "http_unescape.h"
#include "sessions.h"

static int g_id; /* the session of the running test (fixture_api_session) */
static char g_path[128];

static const char *path(const char *suffix)
{
    snprintf(g_path, sizeof(g_path), "/api/sessions/%d%s", g_id, suffix);
    return g_path;
}

/* Each test gets a session of its own, and leaves the registry empty. */
static void setup(void)
{
    session *s;

    sessions_lock();
    s = fixture_api_session();
    g_id = s ? s->id : -1;
    sessions_unlock();
    CHECK(s != NULL, "the session every test reads is made");
}

static void teardown(void) { fixture_sessions_clear(); }

/* ---- tests ---------------------------------------------------------------------- */

TEST(route_table)
{
    static const struct {
        const char *method;
        int own; /* path is under this test's session (/api/sessions/{id}) */
        const char *path;
        int status;
        const char *what;
    } cases[] = {
        {"GET", 1, "", 200, "GET a session"},
        {"HEAD", 1, "/stacks", 200, "HEAD is GET"},
        {"DELETE", 1, "/functions", 405, "DELETE on a GET route: 405"},
        {"PUT", 1, "", 405, "PUT: 405"},
        {"POST", 1, "/functions", 405, "POST on a GET route: 405"},
        {"GET", 1, "/detach", 405, "GET on a POST route: 405"},
        {"GET", 1, "/profile/stop", 405, "GET /profile/stop: 405"},
        {"GET", 1, "/nope", 404, "unknown route: 404"},
        {"GET", 1, "/stacks/", 404, "/stacks/ without a number: 404"},
        {"GET", 1, "/stacks/abc", 400, "/stacks/abc: 400"},
        {"GET", 1, "/stacks/0", 400, "/stacks/0: 400"},
        {"GET", 1, "/stacks/-1", 400, "/stacks/-1: 400"},
        {"GET", 1, "/stacks/1x", 400, "/stacks/1x: 400"},
        {"GET", 1, "/stacks/99999999999999999999999", 400, "/stacks/ with a number too large: 400"},
        {"GET", 1, "/stacks/2", 404, "a snapshot not kept: 404"},
        {"GET", 0, "/api/sessions/999/stacks", 404, "no such session: 404"},
        {"POST", 0, "/api/sessions/999/stacks", 404, "POST, no such session: 404"},
        {"GET", 0, "/api/sessions/999/stacks/1", 404, "unlocked route, no such session: 404"},
        {"GET", 0, "/api/sessions/+1", 400, "a signed id: 400"},
        {"GET", 0, "/api/sessions/ 1", 400, "a space before the id: 400"},
        {"POST", 0, "/api/sessions", 405, "POST /api/sessions: 405"},
        {"GET", 0, "/api/processes/1/attach", 405, "GET attach: 405"},
        {"POST", 0, "/api/config", 405, "POST /api/config: 405"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK(fixture_status_is(cases[i].method, cases[i].own ? path(cases[i].path) : cases[i].path,
                                NULL, NULL, cases[i].status),
              "%s", cases[i].what);
    {
        fixture_reply r = fixture_call("GET", "/api/config", NULL, NULL);
        CHECK(r.status == 200 && json_integer_value(json_object_get(
                                     r.json, "event_log_capacity")) == (json_int_t)EVENTLOG_MAX,
              "GET /api/config: event_log_capacity is the server's event log size");
        fixture_reply_free(&r);
    }
}

TEST(session_detail_and_functions)
{
    fixture_reply r = fixture_call("GET", path(""), NULL, NULL);
    json_t *p = json_object_get(r.json, "profile");
    json_t *f;

    CHECK(r.status == 200 && json_is_object(p) &&
              strcmp(json_string_value(json_object_get(p, "state")), "stopped") == 0 &&
              json_integer_value(json_object_get(p, "samples")) == 2 &&
              json_real_value(json_object_get(p, "budget_pct")) == 2.0 &&
              json_is_null(json_object_get(p, "error")),
          "detail has the profile status");
    CHECK(json_integer_value(json_object_get(json_object_get(r.json, "stacks"), "snapshots")) == 1,
          "detail has stacks.snapshots");
    CHECK(json_integer_value(json_object_get(json_object_get(r.json, "counters"), "functions")) ==
              1,
          "counters.functions counts only the compiled function");
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/functions"), NULL, NULL);
    f = json_object_get(r.json, "functions");
    CHECK(json_array_size(f) == 1 &&
              strcmp(json_string_value(json_object_get(json_array_get(f, 0), "name")),
                     "App.Deep.Run") == 0 &&
              json_integer_value(json_object_get(r.json, "total")) == 1,
          "/functions lists App.Deep.Run, not App.Deep.Park (known only from a stack)");
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/functions/0x7f0000002000"), NULL, NULL);
    f = json_object_get(r.json, "function");
    CHECK(r.status == 200 &&
              strcmp(json_string_value(json_object_get(f, "name")), "App.Deep.Run") == 0 &&
              json_array_size(json_object_get(f, "tiers")) == 1,
          "/functions/{fid}: one function with its compilations");
    fixture_reply_free(&r);
    CHECK(fixture_status_is("GET", path("/functions/0X7F0000002000"), NULL, NULL, 200),
          "upper-case hex");
    CHECK(fixture_status_is("GET", path("/functions/0x1"), NULL, NULL, 404),
          "unknown function: 404");
    CHECK(fixture_status_is("GET", path("/functions/1234"), NULL, NULL, 400), "no 0x: 400");
    CHECK(fixture_status_is("GET", path("/functions/0xzz"), NULL, NULL, 400), "not hex: 400");
    CHECK(fixture_status_is("GET", path("/functions/0x"), NULL, NULL, 400), "no digits: 400");
    CHECK(fixture_status_is("GET", path("/functions/0x12345678901234567"), NULL, NULL, 400),
          "more than 64 bits: 400");
}

/* One grammar for every number in a path or a query: digits, no sign, no
 * leading zero but "0", no percent-encoded digit or NUL (the transport leaves
 * those undecoded, http_unescape.h). */
TEST(one_number_grammar)
{
    static const char *const bad_path[] = {"01", "%31", "1%00", "+1", "-1", " 1", "1 ", "0x1", ""};
    static const char *const bad_query[] = {"limit=+5",   "limit=05",  "limit=%35",
                                            "limit=5%00", "limit=",    "limit= 5",
                                            "limit=5 ",   "limit=1e2", "limit=0x5"};
    static const char *const bad_offset[] = {"offset=-0", "offset=00", "offset=+0", "offset=-1"};
    static const char *const bad_ms[] = {
        "from_ms=1e3", "from_ms=.5",  "from_ms=01.5",  "from_ms=5.",  "from_ms=-1",
        "from_ms=+1",  "from_ms=inf", "from_ms=1.5e3", "from_ms=0x1", "from_ms=1.%35"};
    char text[192];
    uint64_t v = 7;
    int64_t ns = 0;
    size_t i;

    CHECK(api_parse_number("0", 1, 10, &v) == 0 && v == 0, "0");
    CHECK(api_parse_number("10", 2, 10, &v) == 0 && v == 10, "at max");
    CHECK(api_parse_number("11", 2, 10, &v) == -1, "over max");
    CHECK(api_parse_number("18446744073709551615", 20, UINT64_MAX, &v) == 0 && v == UINT64_MAX,
          "2^64-1 with max 2^64-1");
    CHECK(api_parse_number("18446744073709551616", 20, UINT64_MAX, &v) == -1, "2^64: no overflow");
    CHECK(api_parse_number("00", 2, 10, &v) == -1 && api_parse_number("007", 3, 10, &v) == -1,
          "leading zeros");
    CHECK(api_parse_number("5", 0, 10, &v) == -1, "empty");
    CHECK(api_parse_ms("1700000000000.5", 15, 9000000000000ull, &ns) == 0 &&
              ns == 1700000000000500000ll,
          "ms with a fraction: %lld", (long long)ns);
    CHECK(api_parse_ms("0.0000019", 9, 10, &ns) == 0 && ns == 1, "below a ns is cut");
    CHECK(api_parse_ms("12", 2, 10, &ns) == -1, "ms over max");
    for (i = 0; i < sizeof(bad_path) / sizeof(bad_path[0]); i++) {
        snprintf(text, sizeof(text), "/api/sessions/%s", bad_path[i]);
        CHECK(fixture_status_is("GET", text, NULL, NULL, 400), "session id '%s': 400", bad_path[i]);
        snprintf(text, sizeof(text), "%s/stacks/%s", path(""), bad_path[i]);
        CHECK(fixture_status_is("GET", text, NULL, NULL, bad_path[i][0] ? 400 : 404),
              "snapshot '%s': 400", bad_path[i]);
    }
    CHECK(fixture_status_is("POST", "/api/processes/01/attach", NULL, NULL, 400), "pid 01: 400");
    for (i = 0; i < sizeof(bad_query) / sizeof(bad_query[0]); i++) {
        const char *const args[] = {bad_query[i], NULL};
        CHECK(fixture_status_is("GET", path("/functions"), args, NULL, 400), "%s: 400",
              bad_query[i]);
        CHECK(fixture_status_is("GET", path("/events"), args, NULL, 400), "events %s: 400",
              bad_query[i]);
    }
    for (i = 0; i < sizeof(bad_offset) / sizeof(bad_offset[0]); i++) {
        const char *const args[] = {bad_offset[i], NULL};
        CHECK(fixture_status_is("GET", path("/functions"), args, NULL, 400), "%s: 400",
              bad_offset[i]);
    }
    for (i = 0; i < sizeof(bad_ms) / sizeof(bad_ms[0]); i++) {
        const char *const args[] = {bad_ms[i], NULL};
        CHECK(fixture_status_is("GET", path("/timeline"), args, NULL, 400), "%s: 400", bad_ms[i]);
    }
    {
        static const char *const good[] = {"limit=5", "offset=0", NULL};
        static const char *const ms[] = {"from_ms=0.5", "to_ms=1800000000000", NULL};
        CHECK(fixture_status_is("GET", path("/functions"), good, NULL, 200),
              "limit=5&offset=0: 200");
        CHECK(fixture_status_is("GET", path("/timeline"), ms, NULL, 200), "from_ms=0.5: 200");
    }

    /* the transport's decoding: digits and NULs stay encoded, the rest is decoded */
    snprintf(text, sizeof(text), "%s", "/a%20b%2Fc");
    CHECK(http_unescape_text(text) == 6 && strcmp(text, "/a b/c") == 0, "decoded: %s", text);
    snprintf(text, sizeof(text), "%s", "/api/sessions/%31");
    CHECK(http_unescape_text(text) == 17 && strcmp(text, "/api/sessions/%31") == 0,
          "an encoded digit: left as it came (%s)", text);
    snprintf(text, sizeof(text), "%s", "1%00");
    CHECK(http_unescape_text(text) == 4 && strcmp(text, "1%00") == 0, "an encoded NUL: left");
    snprintf(text, sizeof(text), "%s", "a%20%3a%39");
    CHECK(http_unescape_text(text) == 10 && strcmp(text, "a%20%3a%39") == 0,
          "any encoded digit leaves the whole text as it came");
    snprintf(text, sizeof(text), "%s", "50%");
    CHECK(http_unescape_text(text) == 3 && strcmp(text, "50%") == 0, "a lone %%: as libmicrohttpd");
}

/* ?format=csv|json on the list routes, and the RFC 4180 writer itself. */
TEST(exports)
{
    static const char *const csv[] = {"format=csv", NULL};
    static const char *const json_fmt[] = {"format=json", NULL};
    static const char *const bad[] = {"format=xml", NULL};
    fixture_reply r = fixture_call("GET", path("/functions"), csv, NULL);
    json_t *rows;
    char *text;
    size_t n = 0;

    CHECK(r.status == 200 && r.text && !r.json &&
              strcmp(r.content_type, "text/csv; charset=utf-8") == 0,
          "functions as CSV (%d, %s)", r.status, r.content_type);
    CHECK(strstr(r.disposition, "attachment; filename=\"jitscope-session-") &&
              strstr(r.disposition, "-functions.csv\""),
          "with a file name (%s)", r.disposition);
    CHECK(r.text && strncmp(r.text, "function_id,", 12) == 0 && strstr(r.text, "\r\n") &&
              strstr(r.text, "App.Deep.Run"),
          "a header row, CRLF rows, the function (%.80s)", r.text ? r.text : "");
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/modules"), json_fmt, NULL);
    CHECK(r.status == 200 && json_is_array(json_object_get(r.json, "modules")) &&
              strstr(r.disposition, "-modules.json\""),
          "modules as a JSON file (%s)", r.disposition);
    fixture_reply_free(&r);
    CHECK(fixture_status_is("GET", path("/threads"), bad, NULL, 400), "unknown format: 400");
    {
        fixture_reply t = fixture_call("GET", path("/threads"), NULL, NULL);
        json_t *row = json_array_get(json_object_get(t.json, "threads"), 0);
        CHECK(t.status == 200 && json_integer_value(json_object_get(row, "thread_key")) == 0 &&
                  strcmp(json_string_value(json_object_get(row, "name")), "deep") == 0 &&
                  strcmp(json_string_value(json_object_get(row, "name_source")), "runtime") == 0,
              "GET /threads: each row with its thread_key and where its name came from");
        fixture_reply_free(&t);
    }
    CHECK(fixture_status_is("GET", path("/events"), csv, NULL, 200), "events as CSV");

    rows = json_loads("[{\"a\": \"x,y\", \"b\": \"say \\\"hi\\\"\", \"c\": null, \"d\": 3,"
                      " \"e\": \"two\\nlines\", \"f\": {\"g\": [1, 2]}, \"h\": true},"
                      " {\"a\": \"plain\", \"d\": -1}]",
                      0, NULL);
    text = api_export_csv(rows, 1 << 20, &n);
    CHECK(text &&
              strcmp(text,
                     "a,b,c,d,e,f,h\r\n"
                     "\"x,y\",\"say \"\"hi\"\"\",,3,\"two\nlines\",\"{\"\"g\"\":[1,2]}\",true\r\n"
                     "plain,,,-1,,,\r\n") == 0 &&
              n == strlen(text),
          "RFC 4180: quotes doubled, commas and newlines quoted, null empty, nested as JSON, "
          "missing keys empty (%s)",
          text ? text : "(null)");
    free(text);
    CHECK(api_export_csv(rows, 10, &n) == NULL, "over its cap: NULL, not a cut file");
    json_decref(rows);
}

TEST(snapshot_json_and_text)
{
    fixture_reply r = fixture_call("GET", path("/stacks"), NULL, NULL);
    json_t *snap, *threads, *t0, *t1, *frames, *fr;
    static const char *const text_args[] = {"format=text", NULL};
    static const char *const bad_args[] = {"format=xml", NULL};

    snap = json_array_get(json_object_get(r.json, "snapshots"), 0);
    CHECK(r.status == 200 && json_integer_value(json_object_get(snap, "id")) == 1 &&
              json_integer_value(json_object_get(snap, "threads")) == 2 &&
              json_integer_value(json_object_get(snap, "frames")) == 3 &&
              json_integer_value(json_object_get(snap, "suspend_ns")) == 183000 &&
              json_is_real(json_object_get(snap, "time_ms")),
          "GET /stacks lists it: id, threads, frames, suspend_ns, time_ms");
    fixture_reply_free(&r);

    r = fixture_call("GET", path("/stacks/1"), NULL, NULL);
    snap = json_object_get(r.json, "snapshot");
    threads = json_object_get(snap, "threads");
    t0 = json_array_get(threads, 0);
    t1 = json_array_get(threads, 1);
    frames = json_object_get(t0, "frames");
    CHECK(r.status == 200 && json_integer_value(json_object_get(snap, "id")) == 1 &&
              json_is_true(json_object_get(snap, "complete")) &&
              json_integer_value(json_object_get(snap, "walk_ns")) == 9100 &&
              json_integer_value(json_object_get(snap, "threads_total")) == 2,
          "GET /stacks/1: the snapshot");
    CHECK(strcmp(json_string_value(json_object_get(t0, "thread_id")), "0x71") == 0 &&
              json_integer_value(json_object_get(t0, "os_thread_id")) == 4071 &&
              strcmp(json_string_value(json_object_get(t0, "name")), "deep") == 0 &&
              json_integer_value(json_object_get(t0, "hresult")) == 0 &&
              json_is_null(json_object_get(t0, "hresult_name")) &&
              json_is_false(json_object_get(t0, "truncated")),
          "thread: its name, and the OS id from the session when the record had none");
    CHECK(json_integer_value(json_object_get(t0, "thread_key")) == 0 &&
              json_is_integer(json_object_get(t0, "thread_key")) &&
              json_is_null(json_object_get(t1, "thread_key")),
          "thread_key: the session's row of a known thread, null for one it never heard of");
    fr = json_array_get(frames, 0);
    CHECK(json_array_size(frames) == 3 &&
              strcmp(json_string_value(json_object_get(fr, "name")), "App.Deep.Park") == 0 &&
              strcmp(json_string_value(json_object_get(fr, "module")), "App") == 0 &&
              strcmp(json_string_value(json_object_get(fr, "function_id")), "0x7f0000001000") ==
                  0 &&
              strcmp(json_string_value(json_object_get(fr, "ip")), "0x1111") == 0 &&
              json_is_false(json_object_get(fr, "native")),
          "a frame of a function known only from stacks has its name and module");
    fr = json_array_get(frames, 1);
    CHECK(json_is_null(json_object_get(fr, "function_id")) &&
              strcmp(json_string_value(json_object_get(fr, "name")), "[native]") == 0 &&
              json_is_null(json_object_get(fr, "module")) &&
              json_is_true(json_object_get(fr, "native")),
          "a native run: function_id null, [native]");
    CHECK(json_integer_value(json_object_get(t1, "hresult")) == (json_int_t)(int32_t)0x80004005 &&
              strcmp(json_string_value(json_object_get(t1, "hresult_name")), "E_FAIL") == 0 &&
              json_array_size(json_object_get(t1, "frames")) == 0 &&
              json_is_null(json_object_get(t1, "name")) &&
              json_is_true(json_object_get(t1, "native_only")) &&
              json_is_false(json_object_get(json_array_get(threads, 0), "native_only")),
          "E_FAIL without frames: shown with its hresult, no frames, in native code only "
          "(no failure)");
    fixture_reply_free(&r);

    r = fixture_call("GET", path("/stacks/1"), text_args, NULL);
    CHECK(r.status == 200 && r.text && !r.json && strncmp(r.content_type, "text/plain", 10) == 0,
          "?format=text: a text/plain body");
    CHECK(r.text &&
              strstr(r.text, "\nThread 0x71 (os 4071) \"deep\"\n"
                             "    App.Deep.Park [App]\n"
                             "    [native] 0x2222\n"
                             "    App.Deep.Run [App]\n") &&
              strstr(r.text, "\nThread 0x72 (os 4072)\n"
                             "    (no managed frame: the thread is in native code; HRESULT "
                             "0x80004005 E_FAIL)\n"),
          "one block per thread, one indented frame per line:\n%s", r.text ? r.text : "");
    fixture_reply_free(&r);
    CHECK(fixture_status_is("GET", path("/stacks/1"), bad_args, NULL, 400), "?format=xml: 400");
}

TEST(no_live_agent_and_bad_bodies)
{
    static const char *const bodies[] = {
        "{",
        "[]",
        "49",
        "{\"hz\": 0}",
        "{\"hz\": 1001}",
        "{\"hz\": \"fast\"}",
        "{\"hz\": 1.5}",
        "{\"hz\": -1}",
        "{\"duration_s\": 0}",
        "{\"duration_s\": 86401}",
        "{\"hertz\": 49}",
        "{\"hz\": 49, \"hz\": 50}",
        "{\"hz\": 99999999999999999999999}",
        "{\"hz\": true}",
        "{\"hz\": null}",
    };
    session *s;

    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
        CHECK(fixture_status_is("POST", path("/profile"), NULL, bodies[i], 400), "body %s: 400",
              bodies[i]);
    /* live, but no agent connection */
    CHECK(fixture_status_is("POST", path("/profile"), NULL, "{\"hz\": 99, \"duration_s\": 5}", 409),
          "a good body without an agent connection: 409");
    CHECK(fixture_status_is("POST", path("/profile"), NULL, NULL, 409), "no body (defaults): 409");
    CHECK(fixture_status_is("POST", path("/stacks"), NULL, NULL, 409),
          "POST /stacks without an agent: 409");
    CHECK(fixture_status_is("POST", path("/profile/stop"), NULL, NULL, 409),
          "nothing running: 409");
    /* a link id that no connection has: the command cannot be sent */
    sessions_lock();
    s = sessions_get(g_id);
    s->link_id = 987654;
    sessions_unlock();
    CHECK(fixture_status_is("POST", path("/stacks"), NULL, NULL, 502),
          "the command cannot be sent: 502");
    CHECK(fixture_status_is("POST", path("/profile"), NULL, "{\"hz\": 10}", 502), "profile: 502");
    sessions_lock();
    CHECK(s->profile.state == PROFILE_STOPPED && s->stacks.requests_waiting == 0,
          "not left running; no request left waiting");
    s->link_id = 0;
    s->state = SESSION_EXITED;
    sessions_unlock();
    CHECK(fixture_status_is("POST", path("/stacks"), NULL, NULL, 409), "an exited session: 409");
    sessions_lock();
    s->state = SESSION_LIVE;
    sessions_unlock();
}

TEST(profile_formats_and_parameters)
{
    static const char *const folded_args[] = {"format=folded", NULL};
    static const char *const speed_args[] = {"format=speedscope", "thread=deep", NULL};
    static const char *const thread_hex[] = {"thread=0x71", NULL};
    static const char *const bad[][3] = {
        {"format=svg", NULL, NULL},        {"from_ms=-1", NULL, NULL},
        {"from_ms=nan", NULL, NULL},       {"from_ms=inf", NULL, NULL},
        {"to_ms=1e400", NULL, NULL},       {"to_ms=12abc", NULL, NULL},
        {"from_ms=", NULL, NULL},          {"from_ms= 5", NULL, NULL},
        {"from_ms=10", "to_ms=5", NULL},   {"to_ms=99999999999999999", NULL, NULL},
        {"thread_key=-1", NULL, NULL},     {"thread_key=x", NULL, NULL},
        {"thread_key=262144", NULL, NULL},
    };
    static const char *const by_key[] = {"thread_key=0", NULL};
    static const char *const other_key[] = {"thread_key=1", NULL};
    char long_thread[300] = "thread=";
    const char *long_args[] = {long_thread, NULL};
    fixture_reply r = fixture_call("GET", path("/profile"), NULL, NULL);
    json_t *tree = json_object_get(r.json, "tree");

    CHECK(r.status == 200 && json_is_object(json_object_get(r.json, "profile")) &&
              json_integer_value(json_object_get(tree, "value")) == 2 &&
              json_array_size(json_object_get(r.json, "threads")) == 1 &&
              json_is_array(json_object_get(r.json, "timeline")),
          "json: profile, threads, timeline, tree");
    CHECK(json_string_value(json_object_get(json_object_get(r.json, "profile"), "mode")) &&
              strcmp(json_string_value(json_object_get(json_object_get(r.json, "profile"), "mode")),
                     "wall") == 0,
          "the profile says what it measures: mode wall");
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/profile"), folded_args, NULL);
    CHECK(r.status == 200 && r.text &&
              strcmp(r.text, "App.Deep.Run;[native];App.Deep.Park 2\n") == 0 &&
              strncmp(r.content_type, "text/plain", 10) == 0,
          "folded: %s", r.text ? r.text : "");
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/profile"), speed_args, NULL);
    CHECK(r.status == 200 && r.json && json_array_size(json_object_get(r.json, "profiles")) == 1 &&
              strstr(r.disposition, "attachment") && strstr(r.disposition, ".speedscope.json"),
          "speedscope: a file to download (%s)", r.disposition);
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/profile"), thread_hex, NULL);
    CHECK(r.status == 200 &&
              json_integer_value(json_object_get(json_object_get(r.json, "tree"), "value")) == 2,
          "?thread=0x71");
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/profile"), by_key, NULL);
    CHECK(r.status == 200 &&
              json_integer_value(json_object_get(json_object_get(r.json, "tree"), "value")) == 2 &&
              json_integer_value(json_object_get(
                  json_array_get(json_object_get(r.json, "threads"), 0), "thread_key")) == 0,
          "?thread_key=0: the thread of row 0, which the profile names");
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/profile"), other_key, NULL);
    CHECK(r.status == 200 &&
              json_integer_value(json_object_get(json_object_get(r.json, "tree"), "value")) == 0,
          "?thread_key=1: another thread, no samples");
    fixture_reply_free(&r);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(fixture_status_is("GET", path("/profile"), bad[i], NULL, 400), "?%s%s%s: 400",
              bad[i][0], bad[i][1] ? "&" : "", bad[i][1] ? bad[i][1] : "");
    memset(long_thread + 7, 'x', 260);
    long_thread[267] = '\0';
    CHECK(fixture_status_is("GET", path("/profile"), long_args, NULL, 400),
          "a 260-byte thread: 400");
}

TEST(timeline_route_and_events)
{
    static const char *const bad[][2] = {
        {"limit=0", NULL}, {"limit=65537", NULL}, {"limit=x", NULL}, {"from_ms=abc", NULL}};
    static const char *const limit1[] = {"limit=1", NULL};
    static const char *const later[] = {"from_ms=8999999999999", NULL};
    static const char *const all_events[] = {"limit=10000", NULL};
    fixture_reply r = fixture_call("GET", path("/timeline"), NULL, NULL);
    json_t *gc = json_array_get(json_object_get(r.json, "gcs"), 0);
    json_t *sp = json_array_get(json_object_get(r.json, "suspensions"), 0);
    json_t *ev = json_object_get(r.json, "evicted"), *e, *heap;
    size_t i;
    int seen = 0;

    CHECK(r.status == 200 && json_array_size(json_object_get(r.json, "gcs")) == 1 &&
              json_integer_value(json_object_get(gc, "duration_ns")) == 800 &&
              strcmp(json_string_value(json_object_get(gc, "reason")), "induced") == 0 &&
              json_array_size(json_object_get(gc, "generations")) == 2 &&
              json_integer_value(json_array_get(json_object_get(gc, "generations"), 1)) == 2 &&
              json_is_true(json_object_get(gc, "complete")) &&
              json_is_real(json_object_get(gc, "start_ms")),
          "a GC: duration, reason, generations [0, 2], complete");
    CHECK(strcmp(json_string_value(json_object_get(sp, "reason")), "gc") == 0 &&
              json_integer_value(json_object_get(sp, "duration_ns")) == 500 &&
              json_is_false(json_object_get(sp, "by_jitscope")) &&
              json_is_false(json_object_get(sp, "aborted")),
          "a suspension: reason gc, 500 ns, not ours");
    CHECK(json_object_size(ev) == 3 && json_integer_value(json_object_get(ev, "gcs")) == 0 &&
              json_integer_value(json_object_get(ev, "suspensions")) == 0 &&
              json_integer_value(json_object_get(ev, "heap")) == 0,
          "evicted: exactly gcs, suspensions and heap");
    heap = json_array_get(json_object_get(r.json, "heap"), 0);
    CHECK(json_array_size(json_object_get(r.json, "heap")) == 1 &&
              json_is_real(json_object_get(heap, "time_ms")) &&
              json_integer_value(json_array_get(json_object_get(heap, "sizes"), 0)) == 1000 &&
              json_integer_value(json_array_get(json_object_get(heap, "sizes"), 4)) == 5000 &&
              json_integer_value(json_array_get(json_object_get(heap, "promoted"), 2)) == 300,
          "the heap after the GC: sizes and survivors of gen 0, 1, 2, LOH, POH");
    fixture_reply_free(&r);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(fixture_status_is("GET", path("/timeline"), bad[i], NULL, 400), "?%s: 400",
              bad[i][0]);
    r = fixture_call("GET", path("/timeline"), limit1, NULL);
    CHECK(r.status == 200 && json_array_size(json_object_get(r.json, "gcs")) == 1, "?limit=1");
    fixture_reply_free(&r);
    r = fixture_call("GET", path("/timeline"), later, NULL);
    CHECK(r.status == 200 && json_array_size(json_object_get(r.json, "gcs")) == 0 &&
              json_array_size(json_object_get(r.json, "suspensions")) == 0,
          "a window after everything: empty lists");
    fixture_reply_free(&r);

    r = fixture_call("GET", path("/events"), all_events, NULL);
    json_array_foreach(json_object_get(r.json, "events"), i, e)
    {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (strcmp(type, "stack_snapshot") == 0 &&
            json_integer_value(json_object_get(e, "snapshot_id")) == 1 &&
            json_integer_value(json_object_get(e, "threads")) == 2 &&
            json_integer_value(json_object_get(e, "suspend_ns")) == 183000)
            seen |= 1;
        if (strcmp(type, "gc") == 0 &&
            json_integer_value(json_object_get(e, "duration_ns")) == 800 &&
            strcmp(json_string_value(json_object_get(e, "reason")), "induced") == 0 &&
            json_array_size(json_object_get(e, "generations")) == 2)
            seen |= 2;
        if (strcmp(type, "suspension") == 0 &&
            strcmp(json_string_value(json_object_get(e, "reason")), "gc") == 0 &&
            json_is_false(json_object_get(e, "by_jitscope")) &&
            json_is_false(json_object_get(e, "aborted")) &&
            json_integer_value(json_object_get(e, "duration_ns")) == 500)
            seen |= 4;
        if (strcmp(type, "profile") == 0 &&
            strcmp(json_string_value(json_object_get(e, "change")), "stopped") == 0 &&
            strcmp(json_string_value(json_object_get(e, "state")), "stopped") == 0 &&
            json_real_value(json_object_get(e, "requested_hz")) == 49.0 &&
            json_is_integer(json_object_get(e, "samples")))
            seen |= 8;
    }
    CHECK(seen == 15, "events: stack_snapshot, gc, suspension and profile with their fields (%d)",
          seen);
    fixture_reply_free(&r);
}

static const check_test tests[] = {
    TEST_ENTRY(route_table),
    TEST_ENTRY(one_number_grammar),
    TEST_ENTRY(session_detail_and_functions),
    TEST_ENTRY(exports),
    TEST_ENTRY(snapshot_json_and_text),
    TEST_ENTRY(profile_formats_and_parameters),
    TEST_ENTRY(timeline_route_and_events),
    TEST_ENTRY(no_live_agent_and_bad_bodies),
    TEST_END,
};

int main(int argc, char **argv) { return check_main_each(argc, argv, tests, setup, teardown); }
