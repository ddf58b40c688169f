/* record_check.c -- an agent record checked against what its session already
 * knows (see record_check.h). The rules come from how the agent counts
 * (agent/ring.c, agent/sender.c, agent/conn.c; docs/PROTOCOL.md, "Losing
 * records, never silently"). */
#include "record_check.h"

/* DROPS counters a record of the ring can end in, each once: refused by the
 * ring (full, too large), or taken out of it and discarded (no server,
 * shutdown). produced counts every reservation the app's threads tried. */
static uint64_t record_ring_losses(const wire_drops *d)
{
    return d->dropped[WIRE_DROP_RING_FULL] + d->dropped[WIRE_DROP_TOO_LARGE] +
           d->dropped[WIRE_DROP_NO_SERVER] + d->dropped[WIRE_DROP_SHUTDOWN];
}

/* Every counter of a cumulative record at least what the last one said
 * (arrays of uint64 without padding, as wire.h lays them out). */
static int record_not_below(const void *now, const void *before, size_t bytes)
{
    const uint64_t *a = now, *b = before;

    for (size_t i = 0; i < bytes / sizeof(uint64_t); i++)
        if (a[i] < b[i])
            return 0;
    return 1;
}

int record_check_drops(const record_check_context *c, const wire_record *r, const char **why)
{
    const wire_drops *d = &r->u.drops;
    uint64_t slow = d->dropped[WIRE_DROP_SLOW_SERVER], unseen;
    int ok;

    /* the decoder has each counter at most WIRE_COUNTER_MAX (2^56): no sum overflows */
    if (record_ring_losses(d) > d->produced) {
        *why = "drops record losing more ring records than the app's threads produced";
        return -1;
    }
    if (d->ring_used > c->ring_bytes) {
        *why = "drops record with more bytes in the ring than the ring has (hello's ring_bytes)";
        return -1;
    }
    if (c->state->drops_known &&
        !record_not_below(d, c->drops, sizeof(*d) - sizeof(d->ring_used))) {
        *why = "drops record with a counter below the last one (they count since the agent loaded)";
        return -1;
    }
    /* A slow-server drop uses its sequence number, so on one connection the
     * gaps seen are exactly the slow-server drops counted before this record;
     * the counter runs on across connections, the gaps start again: drops at
     * the end of an earlier connection were never seen as gaps. */
    if (slow < c->seq_gaps) {
        *why = "drops record with fewer slow-server drops than sequence gaps seen";
        return -1;
    }
    unseen = slow - c->seq_gaps;
    if (c->state->drops_known && c->state->drops_connection == c->connections)
        ok = unseen == c->state->drops_unseen; /* this connection: as far ahead as at its first */
    else if (c->connections <= 1)
        ok = unseen == 0; /* the agent's first connection: exactly its gaps */
    else                  /* a later one: what earlier ones left unseen, or more */
        ok = !c->state->drops_known || unseen >= c->state->drops_unseen;
    if (!ok) {
        *why = "drops record whose slow-server drops differ from the sequence gaps on the "
               "connection";
        return -1;
    }
    return 0;
}

int record_check(const record_check_context *c, const wire_record *r, const char **why)
{
    if (r->seq <= c->last_seq) {
        *why = "record with a sequence number not above the last one";
        return -1;
    }
    return 0;
}

int record_check_agent_cost(const record_check_context *c, const wire_record *r, const char **why)
{
    if (!record_not_below(&r->u.agent_cost, c->agent_cost, sizeof(*c->agent_cost))) {
        *why = "agent cost record with a counter below the last one";
        return -1;
    }
    return 0;
}

int record_check_tiers(const record_check_context *c, const wire_record *r, const char **why)
{
    if (c->tiers && r->u.tiers_status.lost < c->tiers->lost) {
        *why = "tiers status with fewer tiers lost than the last one";
        return -1;
    }
    return 0;
}

void record_check_drops_accepted(record_check_state *state, const record_check_context *c,
                                 const wire_record *r)
{
    if (!state->drops_known || state->drops_connection != c->connections) {
        state->drops_connection = c->connections;
        state->drops_unseen = r->u.drops.dropped[WIRE_DROP_SLOW_SERVER] - c->seq_gaps;
    }
    state->drops_known = 1;
}
