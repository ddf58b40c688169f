/* exccount.h -- exceptions counted per throw site in the agent, so that an
 * exception storm does not cost a record per exception (issue 39).
 *
 * A site is (throw address, type's full name), as the server's (method, IL
 * offset, type) for a site whose address is resolved. exceptions.c asks, per
 * exception thrown on the throwing thread, whether it goes out as a
 * WIRE_EXCEPTION record (with the stack: the first WIRE_EXCEPTION_SAMPLED_FIRST
 * of its site, then one a second; without: the thread's own sampled exception
 * is still open, so the server must see this one replace it; the site table
 * full) or is only counted; and per catch clause entered whether a
 * WIRE_EXCEPTION_CAUGHT goes out (the thread's exception was sent) or the
 * catch is counted. The thread's newest exception is kept per thread as the
 * server keeps it (server/excsites.h: open until a catch, replaced by a newer
 * throw, reopened by a rethrow the runtime reports), so the counts fold into
 * the same numbers as one record per exception: thrown, caught, replaced,
 * open, catches per catching method (8 per site, the rest as "other").
 * The sender sends the changes as WIRE_EXCEPTION_COUNTS every pass of its loop
 * (5 ms; proto/wire_exc_counts.h). A fixed table of EXCCOUNT_SITES sites,
 * atomics only: no lock, no allocation on the application's threads. Counts
 * not sent when the server is gone are counted as no-server drops. */
#ifndef JITSCOPE_EXCCOUNT_H
#define JITSCOPE_EXCCOUNT_H

#include <stddef.h>
#include <stdint.h>

#define EXCCOUNT_SITES 1024u /* a power of two */

enum exccount_verdict {
    EXCCOUNT_COUNTED = 0,    /* counted: nothing to send */
    EXCCOUNT_SEND = 1,       /* send it as a record, without its stack */
    EXCCOUNT_SEND_STACK = 2, /* send it as a record with its stack (sampled) */
};

/* An exception thrown on the calling thread at (ip, type: its full name as
 * the event gives it, UTF-16LE, `units` of them): its function and IL offset
 * as resolved, rethrown when the runtime flags it so, now its time. */
enum exccount_verdict exccount_thrown(uint64_t ip, uint64_t function_id, uint32_t il_offset,
                                      const uint8_t *type16, size_t units, int rethrown,
                                      uint64_t now);
/* A catch clause of function_id entered on the calling thread: 1 when it goes
 * out as a WIRE_EXCEPTION_CAUGHT, 0 when counted. */
int exccount_caught(uint64_t function_id);
/* The sender thread: the counts' changes out as WIRE_EXCEPTION_COUNTS. */
void exccount_flush(void);

#endif
