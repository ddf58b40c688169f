/* record_check.h -- agent records checked for consistency with what their
 * session already knows, before session_apply folds them in.
 *
 * The decoder (proto/wire_decode.c) judges a record alone: lengths, strings,
 * enumerations, counters at most WIRE_COUNTER_MAX; a record it refuses breaks
 * the stream and closes the connection. These rules need what came before:
 * what the ring and the sequence numbers make impossible (docs/PROTOCOL.md,
 * "Losing records, never silently"). A record that breaks one is refused,
 * not folded in, and counted by the session (records_refused, with the
 * reason); the connection goes on.
 *
 * - every record: its sequence number is above the last one (they grow by
 *   one per frame; the sender never repeats one);
 * - DROPS: the ring records lost (ring full, too large, no server, shutdown)
 *   are at most the records produced (each reservation ends in one of them at
 *   most once); ring_used at most the ring's size the hello said; no counter
 *   below the last DROPS (they count since the agent loaded; ring_used is a
 *   level); slow_server matches the sequence gaps (a slow-server drop uses
 *   its number): equal on the agent's first connection, and on a later one
 *   as far ahead of them as at that connection's first DROPS, and at least
 *   as far as on the one before (drops at the end of a lost connection are
 *   never seen as gaps);
 * - AGENT_COST: no counter below the last one; TIERS_STATUS: no fewer tiers
 *   lost than the last time.
 * Pure: the session hands over what the rules read (no lock, no I/O). */
#ifndef JITSCOPE_RECORD_CHECK_H
#define JITSCOPE_RECORD_CHECK_H

#include <stdint.h>

#include "wire_decode.h"

/* What the rules keep between records (in the session). */
typedef struct record_check_state {
    int drops_known;           /* a DROPS was accepted */
    uint64_t drops_connection; /* the connection number of the first DROPS on the current one */
    uint64_t drops_unseen;     /* slow_server - seq_gaps at that DROPS */
} record_check_state;

/* What the session knows before the record, as the rules need it. */
typedef struct record_check_context {
    uint64_t last_seq, seq_gaps;
    uint64_t connections;              /* hellos so far: the current connection's number */
    uint32_t ring_bytes;               /* the ring's size, from the hello */
    const wire_drops *drops;           /* the last DROPS accepted (when state->drops_known) */
    const wire_agent_cost *agent_cost; /* the last AGENT_COST (zero before the first) */
    const wire_tiers_status *tiers;    /* the last TIERS_STATUS, NULL before the first */
    const record_check_state *state;
} record_check_context;

/* The rule of every record (its sequence number): 0 when r may be applied;
 * -1 with *why (a static string) when not. */
int record_check(const record_check_context *c, const wire_record *r, const char **why);
/* The rules of one kind each (record_kinds.c's rows point here), checked
 * after record_check: a DROPS, an AGENT_COST, a TIERS_STATUS. */
int record_check_drops(const record_check_context *c, const wire_record *r, const char **why);
int record_check_agent_cost(const record_check_context *c, const wire_record *r, const char **why);
int record_check_tiers(const record_check_context *c, const wire_record *r, const char **why);
/* A DROPS was applied (after the sequence took it in): what the rules keep of it. */
void record_check_drops_accepted(record_check_state *state, const record_check_context *c,
                                 const wire_record *r);

#endif
