/* wire_exc_counts.h -- the exception counts record (WIRE_EXCEPTION_COUNTS, 35;
 * agent/exccount.h), part of proto/wire.h (which includes it: wire.h would
 * pass 800 lines).
 *
 * The agent sends a WIRE_EXCEPTION record only for the sampled exceptions of
 * a site (the first WIRE_EXCEPTION_SAMPLED_FIRST, then one a second, with the
 * stack; and one thrown on a thread whose sampled exception is still
 * unwinding, without) and a WIRE_EXCEPTION_CAUGHT only for their catches. The
 * others it counts per site (type, throw address) and sends as deltas, every
 * few milliseconds from its sender thread: one COUNTS record per site and
 * catching method with something new. A site's exact count is its EXCEPTION
 * records (less the rethrown ones, as before) plus its COUNTS' `thrown`. */
#ifndef JITSCOPE_WIRE_EXC_COUNTS_H
#define JITSCOPE_WIRE_EXC_COUNTS_H

#include <stdint.h>

#define WIRE_EXC_CATCHER_OTHER UINT64_MAX /* catcher_id: catches past the agent's table */

/* WIRE_EXCEPTION_COUNTS: fixed part, then one string: the type's full name. */
typedef struct wire_exception_counts {
    uint64_t function_id; /* the throwing method (0: not managed code known to the runtime) */
    uint64_t ip;          /* the throw site's native address */
    uint64_t catcher_id;  /* the catching method of `catches` (0: none in this record) */
    uint32_t il_offset;   /* the throw site's IL offset, or WIRE_IL_OFFSET_UNKNOWN */
    uint32_t thrown;      /* exceptions thrown since the last record, not sent one by one */
    uint32_t caught;      /* of the site's counted exceptions, caught (the first catch) */
    uint32_t replaced;    /* a newer exception thrown on its thread before any catch */
    int32_t open;         /* change of those thrown, not caught or replaced (a rethrow reopens) */
    uint32_t catches;     /* catch clauses of catcher_id entered for them */
} wire_exception_counts;
_Static_assert(sizeof(wire_exception_counts) == 48, "wire_exception_counts layout");

#endif
