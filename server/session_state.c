/* session_state.c -- a session's state machine (the only writers of
 * session.state, docs/ARCHITECTURE.md has the diagram) and the records the
 * server makes itself (logrec.h: a profile started or stopped, a session taken
 * back), which go to the session's log through the record sink in order with
 * the agent's (see session.h). */
#include "session_kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile_cpu.h"
#include "wire_encode.h"

static void (*_Atomic session_record_sink)(session *s, int64_t now_ns, const void *frame,
                                           size_t length);

void session_set_record_sink(void (*sink)(session *s, int64_t now_ns, const void *frame,
                                          size_t length))
{
    session_record_sink = sink;
}

/* One of the server's own records, into the session's log (when it has one). */
static void session_emit(session *s, int64_t now_ns, uint16_t type, const void *payload,
                         uint32_t length)
{
    void (*sink)(session *, int64_t, const void *, size_t) = session_record_sink;
    uint8_t frame[sizeof(wire_frame_header) + 128];
    wire_frame_header h = {.type = type};

    if (!sink || s->persist.quiet || length > 128)
        return;
    sink(s, now_ns, frame, wire_encode(frame, &h, payload, length, NULL, 0, NULL, 0));
}

int session_log_record(session *s, int64_t now_ns, uint16_t type, const void *fixed,
                       uint32_t fixed_length, const void *extra, uint32_t extra_length)
{
    void (*sink)(session *, int64_t, const void *, size_t) = session_record_sink;
    wire_frame_header h = {.type = type};
    uint8_t *frame;

    if (!sink || s->persist.quiet)
        return 0;
    if (!logrec_is_server_type(type) || fixed_length + extra_length > WIRE_MAX_PAYLOAD ||
        !(frame = malloc(sizeof(h) + fixed_length + extra_length)))
        return -1;
    sink(s, now_ns, frame,
         wire_encode(frame, &h, fixed, fixed_length, extra, extra_length, NULL, 0));
    free(frame);
    return 0;
}

static void (*_Atomic session_cpu_stop_hook)(int session_id, uint32_t run);
static void (*_Atomic session_cpu_thread_hook)(int session_id, uint32_t run);

void session_set_cpu_hooks(void (*on_stop)(int session_id, uint32_t run),
                           void (*on_thread)(int session_id, uint32_t run))
{
    session_cpu_stop_hook = on_stop;
    session_cpu_thread_hook = on_thread;
}

void session_cpu_thread_started(session *s)
{
    void (*hook)(int, uint32_t) = session_cpu_thread_hook;

    if (hook && s->profile.mode == PROFILE_MODE_CPU && s->profile.state == PROFILE_RUNNING &&
        s->profile.cpu.run)
        hook(s->id, s->profile.cpu.run); /* the CPU sampler follows it now, not at its next look */
}

void session_profile_start(session *s, uint32_t hz, int64_t now_ns)
{
    profile_start(&s->profile, hz, now_ns);
    session_emit(s, now_ns, LOGREC_PROFILE_START, &hz, sizeof(hz));
}

void session_profile_start_cpu(session *s, uint32_t hz, uint64_t period_ns, uint32_t run,
                               int64_t now_ns)
{
    logrec_cpu_start rec = {.hz = hz, .period_ns = period_ns};

    profile_cpu_start(&s->profile, hz, period_ns, now_ns, run);
    session_emit(s, now_ns, LOGREC_CPU_START, &rec, sizeof(rec));
    profile_log_change(&s->events, now_ns, (uint64_t)hz * 1000u, 0, (uint64_t)hz * 1000u,
                       WIRE_PROFILE_STARTED);
}

void session_profile_stop(session *s, int64_t now_ns)
{
    void (*hook)(int, uint32_t) = session_cpu_stop_hook;

    if (s->profile.state != PROFILE_RUNNING)
        return;
    profile_stop(&s->profile, now_ns);
    session_emit(s, now_ns, LOGREC_PROFILE_STOP, NULL, 0);
    if (s->profile.mode == PROFILE_MODE_CPU) {
        profile_log_change(&s->events, now_ns, s->profile.requested_millihz, 0,
                           s->profile.effective_millihz, WIRE_PROFILE_STOPPED);
        if (hook && s->profile.cpu.run)
            hook(s->id, s->profile.cpu.run); /* the sampler ends on its own */
    }
}

void session_refusals_state(const session *s, logrec_refused *out)
{
    _Static_assert(LOGREC_REFUSED_KINDS == SESSION_REFUSED_KINDS, "one count per kind");
    memset(out, 0, sizeof(*out));
    out->last_seq = s->last_seq, out->seq_gaps = s->seq_gaps, out->records = s->records;
    out->inconsistent = s->records_refused;
    memcpy(out->memory, s->budget.refused, sizeof(out->memory));
}

void session_refusals_logged(session *s, int64_t now_ns, const logrec_refused *before)
{
    session_emit(s, now_ns, LOGREC_REFUSED, before, sizeof(*before));
    s->refusals_unlogged = 0;
}

/* ---- the server's own records read back (logrec.h): one fold per kind ---- */

int session_fold_profile_start(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    uint32_t hz;

    if (length != sizeof(hz))
        return -1;
    memcpy(&hz, payload, sizeof(hz));
    profile_start(&s->profile, hz, now_ns);
    return 0;
}

int session_fold_profile_stop(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    (void)payload, (void)length;
    profile_stop(&s->profile, now_ns);
    return 0;
}

/* The session was taken back after a gap (a server restart). */
int session_fold_resumed(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    logrec_resumed r;

    if (length != sizeof(r))
        return -1;
    memcpy(&r, payload, sizeof(r));
    s->resumes++;
    s->last_resume = r;
    eventlog_append(&s->events, LOGREC_RESUMED, 0, r.since_ns ? r.since_ns : now_ns, 0, r.gap_ns,
                    r.lost > UINT32_MAX ? UINT32_MAX : (uint32_t)r.lost);
    return 0;
}

size_t session_resumed(session *s, int64_t since_ns, int64_t now_ns, void *frame)
{
    wire_frame_header h = {.type = LOGREC_RESUMED};
    logrec_resumed r = {since_ns, now_ns > since_ns ? (uint64_t)(now_ns - since_ns) : 0, 0,
                        (uint64_t)getpid()};
    size_t n = wire_encode(frame, &h, &r, sizeof(r), NULL, 0, NULL, 0);

    session_fold_resumed(s, (const uint8_t *)frame + sizeof(h), sizeof(r), now_ns);
    return n;
}

/* The counters the refused records moved. */
int session_fold_refused(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    logrec_refused r;
    unsigned k;

    (void)now_ns;
    if (length != sizeof(r))
        return -1;
    memcpy(&r, payload, sizeof(r));
    s->last_seq = r.last_seq, s->seq_gaps = r.seq_gaps, s->records = r.records;
    s->records_refused = r.inconsistent;
    memcpy(s->budget.refused, r.memory, sizeof(r.memory));
    s->budget.refused_records = 0;
    for (k = 0; k < SESSION_REFUSED_KINDS; k++)
        s->budget.refused_records += r.memory[k];
    return 0;
}

int session_fold_cpu_start(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    return profile_cpu_read_start(&s->profile, payload, length, now_ns);
}

int session_fold_cpu_symbol(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    (void)now_ns;
    return profile_cpu_read_symbol(&s->profile, payload, length);
}

int session_fold_cpu_thread(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    (void)now_ns;
    return profile_cpu_read_thread(&s->profile, payload, length);
}

int session_fold_cpu_stack(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    (void)now_ns;
    return profile_cpu_read_stack(&s->profile, payload, length);
}

int session_fold_cpu_samples(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    (void)now_ns;
    return profile_cpu_read_samples(&s->profile, payload, length);
}

int session_fold_cpu_counts(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    (void)now_ns;
    return profile_cpu_read_counts(&s->profile, payload, length);
}

int session_fold_cpu_heat(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns)
{
    (void)now_ns;
    return profile_cpu_read_heat(&s->profile, payload, length);
}

/* ---- state transitions (see session.h) ---- */

void session_hello(session *s)
{
    if (s->state != SESSION_DETACHING)
        s->state = SESSION_LIVE;
}

void session_detach_sent(session *s, int64_t now_ns)
{
    s->state = SESSION_DETACHING;
    s->detach_requested_ns = now_ns;
    s->detach_finished_ns = 0;
    s->error[0] = '\0';
}

void session_detach_unsent(session *s)
{
    if (s->state == SESSION_DETACHING)
        s->state = SESSION_LIVE;
}

int session_detach_status(session *s, uint32_t state, int32_t hresult, int64_t now_ns)
{
    s->detach_hresult = hresult;
    if (state == WIRE_DETACH_REQUESTED) {
        s->state = SESSION_DETACHING;
    } else if (state == WIRE_DETACH_REFUSED) {
        s->state = SESSION_LIVE;
        snprintf(s->error, sizeof(s->error), "detach refused by the runtime: HRESULT 0x%08x",
                 (unsigned)hresult);
    } else if (state == WIRE_DETACH_SUCCEEDED) {
        s->state = SESSION_DETACHED;
        s->detach_finished_ns = now_ns;
        s->ended_ns = now_ns;
        session_profile_stop(s, now_ns);
    } else {
        return -1;
    }
    return 0;
}

void session_link_lost(session *s, int64_t now_ns)
{
    s->link_id = 0;
    session_budget_connected(s, 0);
    session_profile_stop(s, now_ns);
    if (s->has_exit_code)
        session_exited(s, now_ns);
    else if (s->state == SESSION_LIVE || s->state == SESSION_STARTING ||
             s->state == SESSION_DETACHING)
        s->state = SESSION_DISCONNECTED;
}

void session_exit_code(session *s, int code, int signal, int64_t now_ns)
{
    s->has_exit_code = 1;
    s->exit_code = code;
    s->exit_signal = signal;
    s->ended_ns = now_ns;
    if (!s->link_id) /* else session_link_lost does it once all data is read */
        session_exited(s, now_ns);
}

void session_stored_waiting(session *s) { s->state = SESSION_DISCONNECTED; }

void session_stored_interrupted(session *s, int64_t last_seen_ns)
{
    s->state = SESSION_INTERRUPTED;
    if (!s->ended_ns)
        s->ended_ns = last_seen_ns;
}

void session_resume_abandoned(session *s, int64_t now_ns)
{
    if (s->state != SESSION_DISCONNECTED)
        return;
    s->state = SESSION_INTERRUPTED;
    session_mark_ended(s, now_ns);
}

void session_exited(session *s, int64_t now_ns)
{
    s->state = SESSION_EXITED;
    session_mark_ended(s, now_ns);
}

void session_mark_ended(session *s, int64_t now_ns)
{
    size_t i;

    session_profile_stop(s, now_ns);
    if (!s->ended_ns)
        s->ended_ns = now_ns;
    for (i = 0; i < s->thread_count; i++) {
        if (s->threads[i].alive) {
            s->threads[i].alive = 0;
            s->threads[i].ended_ns = s->ended_ns;
        }
    }
}
