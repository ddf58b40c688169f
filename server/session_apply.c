/* session_apply.c -- a record into its session through its kind's row
 * (record_kinds.h): an agent's record admitted (session_admit.c: its
 * sequence, its kind's check, its kind's budget bound) and folded (its kind's
 * fold, session_kinds.h), live or read back from a log alike; an observation
 * kept beside a snapshot replayed; one of the server's own records read back.
 * The one entry to the folds, above the table (see session.h). */
#include "session.h"

#include "linkcost.h"
#include "record_kinds.h"

/* Target's monotonic time -> wall clock; times from the agent are untrusted, so
 * anything that would overflow or land before 1970 becomes "now". */
static int64_t session_wall_ns(const session *s, uint64_t monotonic_ns, int64_t now_ns)
{
    int64_t wall;

    if (monotonic_ns == 0 || monotonic_ns > (uint64_t)INT64_MAX ||
        __builtin_add_overflow((int64_t)monotonic_ns, s->clock_offset_ns, &wall) || wall < 0)
        return now_ns;
    return wall;
}

int session_apply(session *s, const wire_record *r, int64_t now_ns, const char **why)
{
    const record_kind *k = record_kind_of(r->type);
    int64_t when = session_wall_ns(s, r->time_ns, now_ns);
    int admitted, refusals = s->refusals_unlogged;
    logrec_refused before;

    if (!k || !k->fold) {
        *why = "record type not valid from an agent";
        return -1;
    }
    if (refusals) /* the counters as refused records left them, for the log */
        session_refusals_state(s, &before);
    admitted = session_admit(s, r, k, why);
    if (admitted != 0)
        return admitted;
    if (refusals) /* taken after refused ones: their trace goes into the log first */
        session_refusals_logged(s, now_ns, &before);
    uint64_t t = linkcost_start();

    if (k->fold(s, r, when, now_ns, why) != 0)
        return -1;
    session_memory_sync(s);
    linkcost_add(LINKCOST_FOLD, t);
    return 0;
}

int session_replay(session *s, const wire_record *r, int64_t now_ns)
{
    const record_kind *k = record_kind_of(r->type);
    const char *why = NULL;

    if (!k || !k->replay)
        return -1;
    return k->replay(s, r, session_wall_ns(s, r->time_ns, now_ns), now_ns, &why);
}

int session_apply_server(session *s, uint16_t type, const uint8_t *payload, uint32_t length,
                         int64_t now_ns)
{
    const record_kind *k = record_kind_of(type);

    if (!k || !k->fold_server)
        return -1;
    return k->fold_server(s, payload, length, now_ns);
}
