/* record_kinds.h -- the server's table of record kinds: one row per kind of
 * record a session's log holds, beside proto's table of their sizes
 * (wire_record_fixed, proto/wire_decode.c).
 *
 * A row says all the server does with one kind, so that no switch over
 * record kinds has to be found by hand:
 *   - its name (wire.h's or logrec.h's, as written there);
 *   - its consistency check against what the session knows (record_check.h),
 *     and what the check keeps of it once it is taken;
 *   - its memory-budget bound: an upper bound of the bytes it adds to the
 *     session's state (session_admit.c; its frame's copy for storage is
 *     counted from the record itself);
 *   - its fold: what it does to the session (session_fold.c and the file of
 *     the state it folds into); the server's own records (logrec.h, 200 and
 *     up) have a fold of their payload instead, and no agent may send them;
 *   - whether it is an observation: a record whose frames a snapshot keeps
 *     beside it (storage's `observation` predicate), because what it folds
 *     into (stack walks, the profile, the timeline, code replies, a
 *     connection's walk ids) is folded again after the snapshot rather than
 *     stored in it; an agent's observation has a replay, the fold without
 *     event-log entries (the snapshot's log has them);
 *   - its event view: the event type the API names its event-log entries by
 *     ("jit", "gc", ...) and the JSON shape of such an event (views.c).
 * Every function a row points at is declared in the header of the file that
 * defines it (session_kinds.h, record_check.h, views.h).
 *
 * Calls go one way: this table points down at those files, which never look
 * at it; what dispatches through it sits above it (session_apply.c,
 * views_event.c, link.c, ws_next.c, persist.c). A file below that needs a
 * row's word gets it passed in (session_admit).
 *
 * Adding a record kind: its layout and number in proto/wire.h and its size in
 * wire_record_fixed; one row here; its fold (and, if it adds to the session,
 * its budget bound; if it logs an event, its event view); its builder in
 * tests/unit/records.h and a test of its fold. docs/ARCHITECTURE.md has the
 * recipe with every file. */
#ifndef JITSCOPE_RECORD_KINDS_H
#define JITSCOPE_RECORD_KINDS_H

#include <jansson.h>
#include <stdint.h>

#include "session.h"
#include "views.h"

enum record_kind_flags {
    /* a snapshot keeps its frames beside it (storage's observations) */
    RECORD_KIND_OBSERVATION = 1u << 0,
    /* the agent's handshake (HELLO): its connection's sequence numbers start
     * over with it, it is never weighed against the budget (it starts a
     * connection), and a check it breaks ends the connection */
    RECORD_KIND_OPENS = 1u << 1,
    /* its payload opens with the FunctionID it is about (the link thread
     * prefetches that function's index slot while the record before it folds) */
    RECORD_KIND_FUNCTION_FIRST = 1u << 2,
    /* its event shows the profile's status as it is now (copied with it) */
    RECORD_KIND_EVENT_PROFILE = 1u << 3,
};

/* A fold: what a record does to its session (when: the record's time on the
 * server's wall clock; now_ns: the server's clock). 0, or -1 with *why (a
 * static string) when it breaks the session protocol: the connection goes.
 * A replay has the same form. */
typedef int (*record_fold_fn)(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why);

typedef struct record_kind {
    uint16_t type;     /* WIRE_* (wire.h), LOGREC_* (logrec.h) */
    const char *name;  /* "WIRE_JIT_FINISHED", "LOGREC_RESUMED" */
    const char *event; /* the type of its event-log entries in the API; NULL: it logs none */
    unsigned flags;    /* RECORD_KIND_* */
    /* its consistency check (record_check.h); NULL: its sequence number only */
    int (*check)(const record_check_context *c, const wire_record *r, const char **why);
    /* it was taken: what the checks keep of it; NULL: nothing */
    void (*accepted)(record_check_state *state, const record_check_context *c,
                     const wire_record *r);
    /* an upper bound of the bytes it adds to s's state, what it adds (enum
     * session_refused_kind) and whether it only ends, completes or counts what
     * s knows (*fixed: its state does not grow); NULL: nothing that grows */
    uint64_t (*need)(session *s, const wire_record *r, unsigned *refused_kind, int *fixed);
    record_fold_fn fold;   /* an agent's record; NULL: no agent may send it */
    record_fold_fn replay; /* an agent's observation beside a snapshot; else NULL */
    /* one of the server's own records (logrec.h) read back: 0, or -1 for a
     * bad payload; NULL for an agent's record */
    int (*fold_server)(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
    /* its event's view: what the JSON names of the session, taken under the
     * lock (NULL: nothing), and the JSON fields of its kind beside seq, type,
     * time_ms and catchup (NULL: none) */
    void (*event_take)(session *s, const eventlog_entry *e, view_event_copy *c,
                       view_event_names *names);
    void (*event_json)(json_t *o, const view_event_copy *c, const profile_state *profile);
} record_kind;

/* The row of a record type, NULL for a type the server does not know. */
const record_kind *record_kind_of(uint16_t type);
/* A record type's RECORD_KIND_* flags (0 for a type the server does not know). */
unsigned record_kind_flags(uint16_t type);
/* 1 for the record types a snapshot keeps as frames beside it (store.h's
 * observations): an observation's row. */
int record_kind_is_observation(uint16_t type);
/* The API's name of an event-log entry's type ("jit", "module_load", ...;
 * "other" for one without). */
const char *record_kind_event_name(uint16_t type);

#endif
