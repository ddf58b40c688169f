/* api_timeline.c -- GET /api/sessions/{id}/timeline: the session's GCs,
 * runtime suspensions and the heap's generations after each collection, in a
 * wall-clock window (docs/API.md). The entries are
 * copied out of the session's rings under the lock (at most 3.5 MiB) and
 * turned into JSON after it is released. */
#include <stdlib.h>

#include "api_util.h"

#define API_TIMELINE_LIMIT TIMELINE_KEEP /* entries of each kind per response, by default */

int api_timeline_get(api_call *c)
{
    timeline_gc *gcs = NULL;
    timeline_suspension *susp = NULL;
    timeline_heap *heaps = NULL;
    size_t n_gcs, n_susp, n_heaps, m_gcs, m_susp, m_heaps, i;
    uint64_t evicted_gcs, evicted_susp, evicted_heaps;
    int64_t from_ns, to_ns;
    long long limit;
    json_t *list_gcs, *list_susp, *list_heaps;
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
    if (rc == 0)
        rc = timeline_copy_heaps(&s->timeline, from_ns, to_ns, (size_t)limit, &heaps, &n_heaps,
                                 &m_heaps);
    evicted_gcs = timeline_gcs_evicted(&s->timeline);
    evicted_heaps = timeline_heaps_evicted(&s->timeline);
    evicted_susp = timeline_suspensions_evicted(&s->timeline);
    sessions_unlock();
    if (rc != 0) {
        free(gcs);
        free(susp);
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
    list_heaps = json_array();
    for (i = 0; i < n_heaps; i++)
        json_array_append_new(
            list_heaps,
            json_pack("{s:o, s:[o, o, o, o, o], s:[o, o, o, o, o]}", "time_ms",
                      view_ms(heaps[i].time_ns), "sizes", view_count(heaps[i].size[0]),
                      view_count(heaps[i].size[1]), view_count(heaps[i].size[2]),
                      view_count(heaps[i].size[3]), view_count(heaps[i].size[4]), "promoted",
                      view_count(heaps[i].promoted[0]), view_count(heaps[i].promoted[1]),
                      view_count(heaps[i].promoted[2]), view_count(heaps[i].promoted[3]),
                      view_count(heaps[i].promoted[4])));
    free(gcs);
    free(susp);
    free(heaps);
    c->reply->json = json_pack("{s:o, s:o, s:o, s:{s:o, s:o, s:o}, s:b}", "gcs", list_gcs,
                               "suspensions", list_susp, "heap", list_heaps, "evicted", "gcs",
                               view_count(evicted_gcs), "suspensions", view_count(evicted_susp),
                               "heap", view_count(evicted_heaps), "truncated",
                               m_gcs > n_gcs || m_susp > n_susp || m_heaps > n_heaps);
    return 200;
}
