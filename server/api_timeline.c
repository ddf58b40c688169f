/* api_timeline.c -- GET /api/sessions/{id}/timeline: the session's GCs and
 * runtime suspensions in a wall-clock window (docs/API.md). The entries are
 * copied out of the session's rings under the lock (at most 3.5 MiB) and
 * turned into JSON after it is released. */
#include <stdlib.h>

#include "api_util.h"

#define API_TIMELINE_LIMIT TIMELINE_KEEP /* entries of each kind per response, by default */

int api_timeline_get(api_call *c)
{
    timeline_gc *gcs = NULL;
    timeline_suspension *susp = NULL;
    size_t n_gcs, n_susp, m_gcs, m_susp, i;
    uint64_t evicted_gcs, evicted_susp;
    int64_t from_ns, to_ns;
    long long limit;
    json_t *list_gcs, *list_susp;
    session *s;
    int rc;

    if (api_arg_ms(c->req, "from_ms", 0, &from_ns) != 0 ||
        api_arg_ms(c->req, "to_ms", INT64_MAX, &to_ns) != 0 || from_ns > to_ns)
        return api_fail(c, 400, "from_ms and to_ms must be Unix milliseconds, from_ms <= to_ms");
    if (api_arg_int(c->req, "limit", 1, TIMELINE_KEEP, API_TIMELINE_LIMIT, &limit) != 0)
        return api_fail(c, 400, "limit must be 1..%u", TIMELINE_KEEP);
    if (!(s = api_lock_session(c)))
        return 404;
    rc = timeline_copy_gcs(&s->timeline, from_ns, to_ns, (size_t)limit, &gcs, &n_gcs, &m_gcs);
    if (rc == 0)
        rc = timeline_copy_suspensions(&s->timeline, from_ns, to_ns, (size_t)limit, &susp, &n_susp,
                                       &m_susp);
    evicted_gcs = timeline_gcs_evicted(&s->timeline);
    evicted_susp = timeline_suspensions_evicted(&s->timeline);
    sessions_unlock();
    if (rc != 0) {
        free(gcs);
        return api_fail(c, 503, "out of memory copying the timeline");
    }
    list_gcs = json_array();
    for (i = 0; i < n_gcs; i++)
        json_array_append_new(
            list_gcs,
            json_pack("{s:o, s:o, s:o, s:s, s:b, s:b}", "start_ms", view_ms(gcs[i].start_ns),
                      "duration_ns", view_count(gcs[i].duration_ns), "generations",
                      view_generations(gcs[i].generations), "reason",
                      timeline_gc_reason_name(gcs[i].reason, gcs[i].runtime_reason), "induced",
                      gcs[i].reason == 1, "complete", gcs[i].complete != 0));
    list_susp = json_array();
    for (i = 0; i < n_susp; i++)
        json_array_append_new(
            list_susp, json_pack("{s:o, s:o, s:s, s:b, s:b}", "start_ms", view_ms(susp[i].start_ns),
                                 "duration_ns", view_count(susp[i].duration_ns), "reason",
                                 timeline_suspend_reason_name(susp[i].reason), "by_jitscope",
                                 susp[i].reason == TIMELINE_SUSPEND_FOR_PROFILER, "aborted",
                                 susp[i].aborted != 0));
    free(gcs);
    free(susp);
    c->reply->json = json_pack("{s:o, s:o, s:{s:o, s:o}, s:b}", "gcs", list_gcs, "suspensions",
                               list_susp, "evicted", "gcs", view_count(evicted_gcs), "suspensions",
                               view_count(evicted_susp), "truncated",
                               m_gcs > n_gcs || m_susp > n_susp);
    return 200;
}
