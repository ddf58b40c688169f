/* ring.h -- bounded multi-producer, single-consumer byte ring for agent records.
 *
 * Application threads (inside CoreCLR callbacks) reserve space, write one record
 * and commit it, without locks and without allocating. When the ring is full the
 * record is dropped and counted; the producer never waits. One consumer (the
 * agent's sender thread) reads committed records in reservation order.
 * The ordering contract is described at the top of ring.c.
 */
#ifndef JITSCOPE_RING_H
#define JITSCOPE_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RING_MIN_BYTES (4u * 1024u)
#define RING_MAX_BYTES (256u * 1024u * 1024u)
#define RING_MAX_RECORD (16u * 1024u) /* largest record a producer may reserve */

/* One cache line for each kind of writer, so that no write of one side
 * takes away a line the other reads for every record: head (producers),
 * tail (the consumer), the fields fixed at ring_init that both read, the
 * counters every reservation adds to (producers; the consumer reads them
 * twice a second), and what only the consumer keeps. */
typedef struct ring {
    _Alignas(64) _Atomic uint64_t head; /* next byte to reserve (producers, CAS) */
    _Alignas(64) _Atomic uint64_t tail; /* next byte to consume (consumer only stores) */
    _Alignas(64) uint8_t *data;
    uint64_t capacity;                        /* power of two */
    _Alignas(64) _Atomic uint64_t full_drops; /* reservations refused: ring full */
    _Atomic uint64_t large_drops;             /* reservations refused: record too large */
    _Atomic uint64_t reservations;            /* every reservation attempt */
    _Alignas(64) uint64_t prefaulted; /* consumer only: bytes from data whose pages are mapped */
} ring;

/* A reserved slot: write `length` bytes at `data`, then ring_commit(). */
typedef struct ring_slot {
    uint8_t *data;
    _Atomic uint64_t *header;
} ring_slot;

/* Capacity is rounded up to a power of two within [RING_MIN_BYTES, RING_MAX_BYTES].
 * Memory comes from mmap so that ring_destroy gives it back to the OS. */
int ring_init(ring *r, uint64_t capacity);
void ring_destroy(ring *r);

/* Producer side: any thread, lock-free, never blocks. Returns 0 and fills `slot`,
 * or -1 when the record was dropped (and counted). */
int ring_reserve(ring *r, uint32_t length, ring_slot *slot);
void ring_commit(ring_slot *slot);

/* Consumer side: one thread only. ring_peek returns the next committed record
 * (NULL when none is ready); ring_release consumes it. */
const uint8_t *ring_peek(ring *r, uint32_t *length);
void ring_release(ring *r);

uint64_t ring_used_bytes(ring *r);

/* Consumer thread only: makes sure the pages up to `ahead` bytes past the
 * head are mapped, so that an app thread's first write to a page does not pay
 * a page fault (microseconds) inside a callback. Pages are mapped as the ring
 * fills, not all at start: a process that emits little stays small. It maps
 * again once less than half of `ahead` is left, up to `ahead`. */
void ring_prefault(ring *r, uint64_t ahead);

/* Consumer side, read-only: the position of the next record ring_peek would
 * return (the tail), and the next reserved position (the head). */
uint64_t ring_tail(ring *r);
uint64_t ring_head(ring *r);

/* Consumer thread only, read-only: the committed record at or after *pos
 * (padding skipped), with *pos moved past it. NULL when the record there is not
 * committed yet or *pos reached the head. Lets the consumer look ahead of the
 * tail (naming.c reads what records ahead mention) without consuming. *pos must
 * be the tail or a position this function returned. */
const uint8_t *ring_read_at(ring *r, uint64_t *pos, uint32_t *length);

#ifdef RING_TEST_HOOK
/* Test builds only: called inside ring_reserve after head was read and before
 * tail is, i.e. where a preemption makes head stale. NULL: nothing happens. */
extern void (*ring_test_after_head_read)(ring *r);
#endif

#endif
