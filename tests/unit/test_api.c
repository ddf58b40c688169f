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
#include "sessions.h"

static const uint64_t MONO = 5000000000ull;
static const uint64_t REAL = 1699999999000000000ull;
static const int64_t NOW = 1700000000000000000ll;
static uint64_t g_seq;

/* ---- requests ------------------------------------------------------------------ */

/* Query parameters: "name=value" strings, NULL-terminated. */
static const char *arg(void *ctx, const char *name)
{
    const char *const *kv = ctx;
    size_t n = strlen(name);

    for (; kv && *kv; kv++)
        if (strncmp(*kv, name, n) == 0 && (*kv)[n] == '=')
            return *kv + n + 1;
    return NULL;
}

typedef struct result {
    int status;
    json_t *json;
    char *text;
    char content_type[64];
    char disposition[128];
} result;

static result call(const char *method, const char *path, const char *const *args, const char *body)
{
    api_request req = {method, path, arg, (void *)args, body, body ? strlen(body) : 0};
    api_reply reply;
    result r;

    memset(&r, 0, sizeof(r));
    r.status = api_handle(&req, &reply);
    r.json = reply.json;
    r.text = reply.text;
    snprintf(r.content_type, sizeof(r.content_type), "%s",
             reply.content_type ? reply.content_type : "");
    snprintf(r.disposition, sizeof(r.disposition), "%s", reply.disposition);
    return r;
}

static void done(result *r)
{
    json_decref(r->json);
    free(r->text);
}

/* status and, for errors, a JSON {"error": string} */
static int status_is(const char *method, const char *path, const char *const *args,
                     const char *body, int want)
{
    result r = call(method, path, args, body);
    int ok = r.status == want && (want < 400 || json_is_string(json_object_get(r.json, "error")));
    if (!ok)
        printf("    %s %s -> %d (want %d)\n", method, path, r.status, want);
    done(&r);
    return ok;
}

/* ---- sessions and records -------------------------------------------------------- */

static void apply(session *s, wire_record r)
{
    const char *why = NULL;
    r.seq = ++g_seq;
    session_apply(s, &r, NOW, &why);
}

/* A live session fed a module, names, a named thread, one snapshot, samples, a GC,
 * suspensions and profile statuses. Caller holds the lock. */
static session *make_session(void)
{
    session *s = sessions_create(SESSION_MODE_RUN, 4242, "dotnet app.dll");
    wire_record r = {.type = WIRE_HELLO, .time_ns = MONO};
    static wire_stack_frame frames[3] = {
        {0x7f0000001000ull, 0x1111}, {0, 0x2222}, {0x7f0000002000ull, 0x3333}};

    g_seq = 0;
    memcpy(r.u.hello.magic, WIRE_MAGIC, 8);
    r.u.hello.version = WIRE_VERSION;
    r.u.hello.monotonic_ns = MONO;
    r.u.hello.realtime_ns = REAL;
    memcpy(r.u.hello.token, s->token, WIRE_TOKEN_LEN);
    apply(s, r);

    r = (wire_record){.type = WIRE_MODULE_LOADED, .time_ns = MONO};
    r.u.module_loaded = (wire_module_loaded){0x200000, 0x300000, 0x7f5500000000ull, 0, 0};
    r.strings[0] = (wire_string){"/app/App.dll", 12};
    r.strings[1] = (wire_string){"App", 3};
    r.string_count = 2;
    apply(s, r);
    r = (wire_record){.type = WIRE_FUNCTION_NAME, .time_ns = MONO};
    r.u.function_name = (wire_function_name){0x7f0000001000ull, 0x200000, 0x06000001, 0};
    r.strings[0] = (wire_string){"App.Deep.Park", 13};
    r.string_count = 1;
    apply(s, r);
    r.u.function_name.function_id = 0x7f0000002000ull;
    r.strings[0] = (wire_string){"App.Deep.Run", 12};
    apply(s, r);
    r = (wire_record){.type = WIRE_JIT_FINISHED, .time_ns = MONO + 5};
    r.u.jit_finished = (wire_jit_finished){0x7f0000002000ull, 0x71, 0x1000, 64, 10, 0, 0, 0, 0};
    apply(s, r); /* Run was compiled; Park is known only from the stack */
    r = (wire_record){.type = WIRE_THREAD_NAME, .time_ns = MONO};
    r.u.thread = (wire_thread){0x71, 4071, 0};
    r.strings[0] = (wire_string){"deep", 4};
    r.string_count = 1;
    apply(s, r);

    /* snapshot: thread 0x71 with 3 frames, thread 0x72 failed with E_FAIL */
    r = (wire_record){.type = WIRE_STACK_THREAD, .time_ns = MONO + 1000};
    r.u.stack_thread = (wire_stack_thread){7, 0x71, 0, 0, 9000, 3, 0};
    r.stack_frames = frames;
    apply(s, r);
    r.u.stack_thread = (wire_stack_thread){7, 0x72, 4072, (int32_t)0x80004005, 100, 0, 0};
    apply(s, r);
    r = (wire_record){.type = WIRE_STACK_END, .time_ns = MONO + 1000};
    r.u.stack_end = (wire_stack_end){7, 55, WIRE_STACK_SNAPSHOT, 2, 2, 0, 0, 0, 183000, 9100};
    apply(s, r);

    /* two samples of thread 0x71 */
    for (uint64_t k = 0; k < 2; k++) {
        r = (wire_record){.type = WIRE_STACK_THREAD, .time_ns = MONO + 2000 + k};
        r.u.stack_thread = (wire_stack_thread){8 + k, 0x71, 4071, 0, 100, 3, 0};
        r.stack_frames = frames;
        apply(s, r);
        r = (wire_record){.type = WIRE_STACK_END, .time_ns = MONO + 2000 + k};
        r.u.stack_end = (wire_stack_end){8 + k, 0, WIRE_STACK_SAMPLE, 1, 1, 0, 0, 49000, 700, 100};
        apply(s, r);
    }
    r = (wire_record){.type = WIRE_PROFILE_STATUS, .time_ns = MONO + 3000};
    r.u.profile_status = (wire_profile_status){
        WIRE_PROFILE_STOPPED, 49000, 49000, 20, 2, 1400, 0, 0};
    apply(s, r);
    r = (wire_record){.type = WIRE_GC_STARTED, .time_ns = MONO + 4000};
    r.u.gc_started = (wire_gc_started){0x5, 1};
    apply(s, r);
    r = (wire_record){.type = WIRE_RUNTIME_SUSPEND, .time_ns = MONO + 4000};
    r.u.runtime_suspend = (wire_runtime_suspend){WIRE_SUSPEND_STARTED, 1};
    apply(s, r);
    r.time_ns = MONO + 4500;
    r.u.runtime_suspend = (wire_runtime_suspend){WIRE_RESUME_FINISHED, 1};
    apply(s, r);
    r = (wire_record){.type = WIRE_GC_FINISHED, .time_ns = MONO + 4800};
    apply(s, r);
    return s;
}

static int g_id;
static char g_path[128];

static const char *path(const char *suffix)
{
    snprintf(g_path, sizeof(g_path), "/api/sessions/%d%s", g_id, suffix);
    return g_path;
}

static void setup(void)
{
    session *s;

    sessions_lock();
    s = make_session();
    g_id = s->id;
    sessions_unlock();
}

/* ---- tests ---------------------------------------------------------------------- */

TEST(route_table)
{
    CHECK(status_is("GET", path(""), NULL, NULL, 200), "GET a session");
    CHECK(status_is("HEAD", path("/stacks"), NULL, NULL, 200), "HEAD is GET");
    CHECK(status_is("DELETE", path("/functions"), NULL, NULL, 405), "DELETE on a GET route: 405");
    CHECK(status_is("PUT", path(""), NULL, NULL, 405), "PUT: 405");
    CHECK(status_is("POST", path("/functions"), NULL, NULL, 405), "POST on a GET route: 405");
    CHECK(status_is("GET", path("/detach"), NULL, NULL, 405), "GET on a POST route: 405");
    CHECK(status_is("GET", path("/profile/stop"), NULL, NULL, 405), "GET /profile/stop: 405");
    CHECK(status_is("GET", path("/nope"), NULL, NULL, 404), "unknown route: 404");
    CHECK(status_is("GET", path("/stacks/"), NULL, NULL, 404), "/stacks/ without a number: 404");
    CHECK(status_is("GET", path("/stacks/abc"), NULL, NULL, 400), "/stacks/abc: 400");
    CHECK(status_is("GET", path("/stacks/0"), NULL, NULL, 400), "/stacks/0: 400");
    CHECK(status_is("GET", path("/stacks/-1"), NULL, NULL, 400), "/stacks/-1: 400");
    CHECK(status_is("GET", path("/stacks/1x"), NULL, NULL, 400), "/stacks/1x: 400");
    CHECK(status_is("GET", path("/stacks/99999999999999999999999"), NULL, NULL, 400),
          "/stacks/ with a number too large: 400");
    CHECK(status_is("GET", path("/stacks/2"), NULL, NULL, 404), "a snapshot not kept: 404");
    CHECK(status_is("GET", "/api/sessions/999/stacks", NULL, NULL, 404), "no such session: 404");
    CHECK(status_is("POST", "/api/sessions/999/stacks", NULL, NULL, 404),
          "POST, no such session: 404");
    CHECK(status_is("GET", "/api/sessions/999/stacks/1", NULL, NULL, 404),
          "unlocked route, no such session: 404");
    CHECK(status_is("GET", "/api/sessions/+1", NULL, NULL, 400), "a signed id: 400");
    CHECK(status_is("GET", "/api/sessions/ 1", NULL, NULL, 400), "a space before the id: 400");
    CHECK(status_is("POST", "/api/sessions", NULL, NULL, 405), "POST /api/sessions: 405");
    CHECK(status_is("GET", "/api/processes/1/attach", NULL, NULL, 405), "GET attach: 405");
    CHECK(status_is("POST", "/api/config", NULL, NULL, 405), "POST /api/config: 405");
    {
        result r = call("GET", "/api/config", NULL, NULL);
        CHECK(r.status == 200 && json_integer_value(json_object_get(
                                     r.json, "event_log_capacity")) == (json_int_t)EVENTLOG_MAX,
              "GET /api/config: event_log_capacity is the server's event log size");
        done(&r);
    }
}

TEST(session_detail_and_functions)
{
    result r = call("GET", path(""), NULL, NULL);
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
    done(&r);
    r = call("GET", path("/functions"), NULL, NULL);
    f = json_object_get(r.json, "functions");
    CHECK(json_array_size(f) == 1 &&
              strcmp(json_string_value(json_object_get(json_array_get(f, 0), "name")),
                     "App.Deep.Run") == 0 &&
              json_integer_value(json_object_get(r.json, "total")) == 1,
          "/functions lists App.Deep.Run, not App.Deep.Park (known only from a stack)");
    done(&r);
    r = call("GET", path("/functions/0x7f0000002000"), NULL, NULL);
    f = json_object_get(r.json, "function");
    CHECK(r.status == 200 &&
              strcmp(json_string_value(json_object_get(f, "name")), "App.Deep.Run") == 0 &&
              json_array_size(json_object_get(f, "tiers")) == 1,
          "/functions/{fid}: one function with its compilations");
    done(&r);
    CHECK(status_is("GET", path("/functions/0X7F0000002000"), NULL, NULL, 200), "upper-case hex");
    CHECK(status_is("GET", path("/functions/0x1"), NULL, NULL, 404), "unknown function: 404");
    CHECK(status_is("GET", path("/functions/1234"), NULL, NULL, 400), "no 0x: 400");
    CHECK(status_is("GET", path("/functions/0xzz"), NULL, NULL, 400), "not hex: 400");
    CHECK(status_is("GET", path("/functions/0x"), NULL, NULL, 400), "no digits: 400");
    CHECK(status_is("GET", path("/functions/0x12345678901234567"), NULL, NULL, 400),
          "more than 64 bits: 400");
}

/* ?format=csv|json on the list routes, and the RFC 4180 writer itself. */
TEST(exports)
{
    static const char *const csv[] = {"format=csv", NULL};
    static const char *const json_fmt[] = {"format=json", NULL};
    static const char *const bad[] = {"format=xml", NULL};
    result r = call("GET", path("/functions"), csv, NULL);
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
    done(&r);
    r = call("GET", path("/modules"), json_fmt, NULL);
    CHECK(r.status == 200 && json_is_array(json_object_get(r.json, "modules")) &&
              strstr(r.disposition, "-modules.json\""),
          "modules as a JSON file (%s)", r.disposition);
    done(&r);
    CHECK(status_is("GET", path("/threads"), bad, NULL, 400), "unknown format: 400");
    {
        result t = call("GET", path("/threads"), NULL, NULL);
        json_t *row = json_array_get(json_object_get(t.json, "threads"), 0);
        CHECK(t.status == 200 && json_integer_value(json_object_get(row, "thread_key")) == 0 &&
                  strcmp(json_string_value(json_object_get(row, "name")), "deep") == 0 &&
                  strcmp(json_string_value(json_object_get(row, "name_source")), "runtime") == 0,
              "GET /threads: each row with its thread_key and where its name came from");
        done(&t);
    }
    CHECK(status_is("GET", path("/events"), csv, NULL, 200), "events as CSV");

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
    result r = call("GET", path("/stacks"), NULL, NULL);
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
    done(&r);

    r = call("GET", path("/stacks/1"), NULL, NULL);
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
              json_is_null(json_object_get(t1, "name")),
          "a failed walk: shown with its hresult and E_FAIL, no frames");
    done(&r);

    r = call("GET", path("/stacks/1"), text_args, NULL);
    CHECK(r.status == 200 && r.text && !r.json && strncmp(r.content_type, "text/plain", 10) == 0,
          "?format=text: a text/plain body");
    CHECK(r.text &&
              strstr(r.text, "\nThread 0x71 (os 4071) \"deep\"\n"
                             "    App.Deep.Park [App]\n"
                             "    [native] 0x2222\n"
                             "    App.Deep.Run [App]\n") &&
              strstr(r.text, "\nThread 0x72 (os 4072)\n"
                             "    (walk failed: HRESULT 0x80004005 E_FAIL)\n"),
          "one block per thread, one indented frame per line:\n%s", r.text ? r.text : "");
    done(&r);
    CHECK(status_is("GET", path("/stacks/1"), bad_args, NULL, 400), "?format=xml: 400");
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
        CHECK(status_is("POST", path("/profile"), NULL, bodies[i], 400), "body %s: 400", bodies[i]);
    /* live, but no agent connection */
    CHECK(status_is("POST", path("/profile"), NULL, "{\"hz\": 99, \"duration_s\": 5}", 409),
          "a good body without an agent connection: 409");
    CHECK(status_is("POST", path("/profile"), NULL, NULL, 409), "no body (defaults): 409");
    CHECK(status_is("POST", path("/stacks"), NULL, NULL, 409),
          "POST /stacks without an agent: 409");
    CHECK(status_is("POST", path("/profile/stop"), NULL, NULL, 409), "nothing running: 409");
    /* a link id that no connection has: the command cannot be sent */
    sessions_lock();
    s = sessions_get(g_id);
    s->link_id = 987654;
    sessions_unlock();
    CHECK(status_is("POST", path("/stacks"), NULL, NULL, 502), "the command cannot be sent: 502");
    CHECK(status_is("POST", path("/profile"), NULL, "{\"hz\": 10}", 502), "profile: 502");
    sessions_lock();
    CHECK(s->profile.state == PROFILE_STOPPED && s->stacks.requests_waiting == 0,
          "not left running; no request left waiting");
    s->link_id = 0;
    s->state = SESSION_EXITED;
    sessions_unlock();
    CHECK(status_is("POST", path("/stacks"), NULL, NULL, 409), "an exited session: 409");
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
    result r = call("GET", path("/profile"), NULL, NULL);
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
    done(&r);
    r = call("GET", path("/profile"), folded_args, NULL);
    CHECK(r.status == 200 && r.text &&
              strcmp(r.text, "App.Deep.Run;[native];App.Deep.Park 2\n") == 0 &&
              strncmp(r.content_type, "text/plain", 10) == 0,
          "folded: %s", r.text ? r.text : "");
    done(&r);
    r = call("GET", path("/profile"), speed_args, NULL);
    CHECK(r.status == 200 && r.json && json_array_size(json_object_get(r.json, "profiles")) == 1 &&
              strstr(r.disposition, "attachment") && strstr(r.disposition, ".speedscope.json"),
          "speedscope: a file to download (%s)", r.disposition);
    done(&r);
    r = call("GET", path("/profile"), thread_hex, NULL);
    CHECK(r.status == 200 &&
              json_integer_value(json_object_get(json_object_get(r.json, "tree"), "value")) == 2,
          "?thread=0x71");
    done(&r);
    r = call("GET", path("/profile"), by_key, NULL);
    CHECK(r.status == 200 &&
              json_integer_value(json_object_get(json_object_get(r.json, "tree"), "value")) == 2 &&
              json_integer_value(json_object_get(
                  json_array_get(json_object_get(r.json, "threads"), 0), "thread_key")) == 0,
          "?thread_key=0: the thread of row 0, which the profile names");
    done(&r);
    r = call("GET", path("/profile"), other_key, NULL);
    CHECK(r.status == 200 &&
              json_integer_value(json_object_get(json_object_get(r.json, "tree"), "value")) == 0,
          "?thread_key=1: another thread, no samples");
    done(&r);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(status_is("GET", path("/profile"), bad[i], NULL, 400), "?%s%s%s: 400", bad[i][0],
              bad[i][1] ? "&" : "", bad[i][1] ? bad[i][1] : "");
    memset(long_thread + 7, 'x', 260);
    long_thread[267] = '\0';
    CHECK(status_is("GET", path("/profile"), long_args, NULL, 400), "a 260-byte thread: 400");
}

TEST(timeline_route_and_events)
{
    static const char *const bad[][2] = {
        {"limit=0", NULL}, {"limit=65537", NULL}, {"limit=x", NULL}, {"from_ms=abc", NULL}};
    static const char *const limit1[] = {"limit=1", NULL};
    static const char *const later[] = {"from_ms=8999999999999", NULL};
    static const char *const all_events[] = {"limit=10000", NULL};
    result r = call("GET", path("/timeline"), NULL, NULL);
    json_t *gc = json_array_get(json_object_get(r.json, "gcs"), 0);
    json_t *sp = json_array_get(json_object_get(r.json, "suspensions"), 0);
    json_t *ev = json_object_get(r.json, "evicted"), *e;
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
    CHECK(json_object_size(ev) == 2 && json_integer_value(json_object_get(ev, "gcs")) == 0 &&
              json_integer_value(json_object_get(ev, "suspensions")) == 0,
          "evicted: exactly gcs and suspensions");
    done(&r);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(status_is("GET", path("/timeline"), bad[i], NULL, 400), "?%s: 400", bad[i][0]);
    r = call("GET", path("/timeline"), limit1, NULL);
    CHECK(r.status == 200 && json_array_size(json_object_get(r.json, "gcs")) == 1, "?limit=1");
    done(&r);
    r = call("GET", path("/timeline"), later, NULL);
    CHECK(r.status == 200 && json_array_size(json_object_get(r.json, "gcs")) == 0 &&
              json_array_size(json_object_get(r.json, "suspensions")) == 0,
          "a window after everything: empty lists");
    done(&r);

    r = call("GET", path("/events"), all_events, NULL);
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
    done(&r);
}

static const check_test tests[] = {
    TEST_ENTRY(route_table),
    TEST_ENTRY(session_detail_and_functions),
    TEST_ENTRY(exports),
    TEST_ENTRY(snapshot_json_and_text),
    TEST_ENTRY(profile_formats_and_parameters),
    TEST_ENTRY(timeline_route_and_events),
    TEST_ENTRY(no_live_agent_and_bad_bodies), /* last: its failed start discards the profile */
    TEST_END,
};

int main(int argc, char **argv)
{
    int rc;

    setup(); /* one session the tests share */
    rc = check_main(argc, argv, tests);
    sessions_lock();
    sessions_free_all();
    sessions_unlock();
    return rc;
}
