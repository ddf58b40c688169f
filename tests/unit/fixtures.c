/* fixtures.c -- sessions in the registry and REST calls without HTTP, for the
 * unit tests and the route fuzz target (see fixtures.h). */
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "records.h"
#include "sessions.h"
#include "views.h"
#include "views_event.h"

session *fixture_session(const char *command)
{
    session *s = sessions_create(SESSION_MODE_RUN, 4242, command);

    if (s && rec_apply(s, rec_hello(s->token)) != 0)
        return NULL;
    return s;
}

session *fixture_api_session(void)
{
    static const wire_stack_frame frames[3] = {
        {0x7f0000001000ull, 0x1111}, {0, 0x2222}, {0x7f0000002000ull, 0x3333}};
    const uint64_t park = 0x7f0000001000ull, run = 0x7f0000002000ull;
    session *s = fixture_session("dotnet app.dll");
    int failed = 0;
    uint64_t k;

    if (!s)
        return NULL;
    failed |= rec_apply(s, rec_module_loaded(0x200000, "/app/App.dll", "App", 0, REC_MONO));
    failed |= rec_apply(s, rec_function_name(park, 0x200000, "App.Deep.Park", 0));
    failed |= rec_apply(s, rec_function_name(run, 0x200000, "App.Deep.Run", 0));
    /* Run was compiled; Park is known only from the stack */
    failed |= rec_apply(s, rec_jit_finished(run, 0x71, 0x1000, 64, REC_MONO + 5, 0));
    failed |= rec_apply(s, rec_thread(WIRE_THREAD_NAME, 0x71, 4071, 0, "deep", REC_MONO));

    /* snapshot 7: thread 0x71 with 3 frames, thread 0x72 failed with E_FAIL */
    failed |= rec_apply(s, rec_stack_thread((wire_stack_thread){7, 0x71, 0, 0, 9000, 3, 0}, frames,
                                            REC_MONO + 1000));
    failed |= rec_apply(
        s, rec_stack_thread((wire_stack_thread){7, 0x72, 4072, (int32_t)0x80004005, 100, 0, 0},
                            NULL, REC_MONO + 1000));
    failed |= rec_apply(
        s, rec_stack_end((wire_stack_end){7, 55, WIRE_STACK_SNAPSHOT, 2, 2, 0, 0, 0, 183000, 9100},
                         REC_MONO + 1000));

    /* two samples of thread 0x71 */
    for (k = 0; k < 2; k++) {
        failed |= rec_apply(s,
                            rec_stack_thread((wire_stack_thread){8 + k, 0x71, 4071, 0, 100, 3, 0},
                                             frames, REC_MONO + 2000 + k));
        failed |= rec_apply(s, rec_stack_end((wire_stack_end){8 + k, 0, WIRE_STACK_SAMPLE, 1, 1, 0,
                                                              0, 49000, 700, 100},
                                             REC_MONO + 2000 + k));
    }
    failed |= rec_apply(s, rec_profile_status((wire_profile_status){WIRE_PROFILE_STOPPED, 49000,
                                                                    49000, 20, 2, 1400, 0, 0},
                                              REC_MONO + 3000));
    failed |= rec_apply(s, rec_gc_started(0x5, 1, REC_MONO + 4000));
    failed |= rec_apply(s, rec_runtime_suspend(WIRE_SUSPEND_STARTED, 1, REC_MONO + 4000));
    failed |= rec_apply(s, rec_runtime_suspend(WIRE_RESUME_FINISHED, 1, REC_MONO + 4500));
    failed |= rec_apply(s, rec_gc_finished(REC_MONO + 4800));
    failed |= rec_apply(s, rec_gc_heap_stats(1000, REC_MONO + 4900));
    return failed ? NULL : s;
}

json_t *fixture_views(session *s)
{
    json_t *all = json_object(), *list;
    size_t i;
    uint64_t seq;

    list = json_array();
    for (i = 0; i < s->function_count; i++)
        json_array_append_new(list, view_function(s, &s->functions[i]));
    json_object_set_new(all, "functions", list);
    list = json_array();
    for (i = 0; i < s->module_count; i++)
        json_array_append_new(list, view_module(&s->modules[i]));
    json_object_set_new(all, "modules", list);
    list = json_array();
    for (i = 0; i < s->thread_count; i++)
        json_array_append_new(list, view_thread(s, &s->threads[i]));
    json_object_set_new(all, "threads", list);
    list = json_array();
    for (seq = eventlog_first_seq(&s->events); seq <= s->events.last_seq; seq++)
        json_array_append_new(list, view_event(s, eventlog_at(&s->events, seq)));
    json_object_set_new(all, "events", list);
    return all;
}

void fixture_sessions_clear(void)
{
    sessions_lock();
    sessions_free_all();
    sessions_unlock();
}

const char *fixture_arg(void *ctx, const char *name)
{
    const char *const *kv = ctx;
    size_t n = strlen(name);

    for (; kv && *kv; kv++)
        if (strncmp(*kv, name, n) == 0 && (*kv)[n] == '=')
            return *kv + n + 1;
    return NULL;
}

fixture_reply fixture_call(const char *method, const char *path, const char *const *args,
                           const char *body)
{
    api_request req = {method, path, fixture_arg, (void *)args, body, body ? strlen(body) : 0};
    api_reply reply;
    fixture_reply r;

    memset(&r, 0, sizeof(r));
    memset(&reply, 0, sizeof(reply));
    r.status = api_handle(&req, &reply);
    r.json = reply.json;
    r.text = reply.text;
    snprintf(r.content_type, sizeof(r.content_type), "%s",
             reply.content_type ? reply.content_type : "");
    snprintf(r.disposition, sizeof(r.disposition), "%s", reply.disposition);
    return r;
}

void fixture_reply_free(fixture_reply *r)
{
    json_decref(r->json);
    free(r->text);
    r->json = NULL;
    r->text = NULL;
}

int fixture_status_is(const char *method, const char *path, const char *const *args,
                      const char *body, int want)
{
    fixture_reply r = fixture_call(method, path, args, body);
    int ok = r.status == want && (want < 400 || json_is_string(json_object_get(r.json, "error")));

    if (!ok)
        printf("    %s %s -> %d (want %d)\n", method, path, r.status, want);
    fixture_reply_free(&r);
    return ok;
}

const char *fixture_fn_name(const session_function *f)
{
    static char names[4][FNNAME_MAX + 1];
    static unsigned next;
    char *out = names[next++ % 4];

    if (!f || !f->name_record)
        return NULL;
    fnname_copy(f->name_record, out, FNNAME_MAX + 1);
    return out;
}
