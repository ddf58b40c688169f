/* ring.c -- bounded MPSC byte ring: the only structure app threads write to.
 *
 * Layout: `capacity` bytes (a power of two), addressed by ever-growing 64-bit
 * positions (position & (capacity-1) is the offset). Each entry starts on an
 * 8-byte boundary with a 64-bit header word:
 *
 *   bits 0..31  entry size in bytes, header included, multiple of 8
 *   bit  32     COMMITTED: the body is fully written
 *   bit  33     PADDING: filler up to the end of the buffer, skip it
 *
 * Producers (any number, app threads):
 *   1. read head (acquire), then tail (acquire); a head older than that tail
 *      (this producer was preempted while others and the consumer moved on)
 *      is re-read, or head - tail would underflow into a false "full";
 *   2. if the entry does not fit before the end of the buffer, it also claims
 *      the remaining bytes as a padding entry, so no entry ever wraps;
 *   3. if head + claim - tail > capacity: count a drop and return (never wait);
 *   4. CAS head forward (relaxed is enough: the CAS only hands out disjoint
 *      ranges; what publishes data is step 6);
 *   5. write the padding header (already COMMITTED, release), write the body;
 *   6. store the entry header with COMMITTED (release).       -- pairs with (A)
 *
 * Consumer (one thread, the sender):
 *   (A) load the header word at tail (acquire); not COMMITTED -> nothing ready
 *       (an entry may be reserved but not yet written; the consumer waits for
 *       it, later entries wait behind it; producers never wait).
 *   (B) after using the body, zero the whole entry (so stale bytes can never look
 *       like a committed header to a later reservation landing inside it), then
 *       store tail += size (release).                         -- pairs with step 1
 *
 * The acquire of tail in step 1 pairs with (B): a producer that sees the new tail
 * also sees the zeroed bytes before it writes into them. Dropped reservations are
 * counted in full_drops / large_drops; nothing is lost silently. Every attempt
 * is counted in reservations first, and a drop's count is a release: whoever
 * reads a drop count (acquire) and then reservations sees the attempts behind
 * those drops, so the DROPS record's produced is never below its ring losses
 * (the server refuses one that is: server/record_check.h).
 */
#include "ring.h"

#include <string.h>
#include <sys/mman.h>

#define RING_COMMITTED (1ull << 32)
#define RING_PADDING (1ull << 33)
#define RING_SIZE_MASK 0xffffffffull

static uint64_t ring_align8(uint64_t n) { return (n + 7u) & ~(uint64_t)7u; }

#ifdef RING_TEST_HOOK
/* Unit-test builds only (tests/unit/test_ring.c): runs where a producer that
 * has read head but not yet tail could be preempted, so a test can play the
 * interleaving it wants there instead of hoping the scheduler produces it. */
void (*ring_test_after_head_read)(ring *r);
#define RING_PREEMPTION_POINT(r)                                                                   \
    do {                                                                                           \
        if (ring_test_after_head_read)                                                             \
            ring_test_after_head_read(r);                                                          \
    } while (0)
#else
#define RING_PREEMPTION_POINT(r) ((void)0)
#endif

int ring_init(ring *r, uint64_t capacity)
{
    uint64_t cap = RING_MIN_BYTES;
    void *mem;

    memset(r, 0, sizeof(*r));
    if (capacity > RING_MAX_BYTES)
        capacity = RING_MAX_BYTES;
    while (cap < capacity)
        cap <<= 1;
    mem = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return -1;
    r->data = mem;
    r->capacity = cap;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    return 0;
}

void ring_destroy(ring *r)
{
    if (r->data)
        munmap(r->data, r->capacity);
    r->data = NULL;
}

static _Atomic uint64_t *ring_header_at(ring *r, uint64_t pos)
{
    return (_Atomic uint64_t *)(void *)(r->data + (pos & (r->capacity - 1)));
}

int ring_reserve(ring *r, uint32_t length, ring_slot *slot)
{
    uint64_t size = ring_align8((uint64_t)length + 8u);
    uint64_t head, tail, offset, padding;

    atomic_fetch_add_explicit(&r->reservations, 1, memory_order_relaxed);
    if (length > RING_MAX_RECORD || size > r->capacity / 4) {
        atomic_fetch_add_explicit(&r->large_drops, 1, memory_order_release);
        return -1;
    }
    /* head is acquired too: by the C11 model a relaxed head read before the
     * tail's acquire could be older than the tail's view of the ring */
    head = atomic_load_explicit(&r->head, memory_order_acquire);
    RING_PREEMPTION_POINT(r);
    for (;;) {
        tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (tail > head) { /* our head is older than the tail we just read: refresh it */
            head = atomic_load_explicit(&r->head, memory_order_acquire);
            continue;
        }
        offset = head & (r->capacity - 1);
        padding = (offset + size > r->capacity) ? r->capacity - offset : 0;
        if (head + padding + size - tail > r->capacity) {
            atomic_fetch_add_explicit(&r->full_drops, 1, memory_order_release);
            return -1;
        }
        if (atomic_compare_exchange_weak_explicit(&r->head, &head, head + padding + size,
                                                  memory_order_relaxed, memory_order_relaxed))
            break;
    }
    if (padding)
        atomic_store_explicit(ring_header_at(r, head), padding | RING_COMMITTED | RING_PADDING,
                              memory_order_release);
    slot->header = ring_header_at(r, head + padding);
    slot->data = (uint8_t *)slot->header + 8;
    /* The next records go right behind this one, and their lines were last
     * written far away (zeroed by the consumer, on its core, a ring's length
     * ago): ask for them now, for writing, so that the next callback finds
     * them in this core's cache instead of waiting for them inside the
     * callback. A hint: no fault, no effect on what anyone reads. */
    __builtin_prefetch(r->data + ((head + padding + size) & (r->capacity - 1)), 1, 3);
    __builtin_prefetch(r->data + ((head + padding + size + 64u) & (r->capacity - 1)), 1, 3);
    /* size is stored now without COMMITTED; the consumer ignores it until commit */
    atomic_store_explicit(slot->header, size, memory_order_relaxed);
    return 0;
}

void ring_commit(ring_slot *slot)
{
    uint64_t size = atomic_load_explicit(slot->header, memory_order_relaxed);
    atomic_store_explicit(slot->header, size | RING_COMMITTED, memory_order_release);
}

const uint8_t *ring_peek(ring *r, uint32_t *length)
{
    for (;;) {
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t word;

        if (tail == atomic_load_explicit(&r->head, memory_order_acquire))
            return NULL;
        word = atomic_load_explicit(ring_header_at(r, tail), memory_order_acquire);
        if (!(word & RING_COMMITTED))
            return NULL;
        if (word & RING_PADDING) {
            ring_release(r);
            continue;
        }
        *length = (uint32_t)((word & RING_SIZE_MASK) - 8u);
        return (const uint8_t *)ring_header_at(r, tail) + 8;
    }
}

void ring_release(ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    _Atomic uint64_t *header = ring_header_at(r, tail);
    uint64_t size = atomic_load_explicit(header, memory_order_relaxed) & RING_SIZE_MASK;

    memset((uint8_t *)header + 8, 0, size - 8u);
    atomic_store_explicit(header, 0, memory_order_relaxed);
    atomic_store_explicit(&r->tail, tail + size, memory_order_release);
}

void ring_prefault(ring *r, uint64_t ahead)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t want = head + ahead, from, length;

    if (want > r->capacity)
        want = r->capacity; /* every page is touched once the ring wrapped */
    /* in steps of at least half the lead: one call per half lead written, not
     * one per drain (each is a system call and a walk of the page tables) */
    if (r->prefaulted >= want || (r->prefaulted >= head + ahead / 2 && want < r->capacity))
        return;
    from = r->prefaulted & ~(uint64_t)4095u;
    length = ((want + 4095u) & ~(uint64_t)4095u) - from;
    /* MADV_POPULATE_WRITE maps the pages writable without writing to them, so
     * it cannot disturb a record being written; older kernels refuse it, and
     * then the first write to a page pays its fault, as without this */
    if (madvise(r->data + from, length, MADV_POPULATE_WRITE) != 0) {
        r->prefaulted = r->capacity;
        return;
    }
    r->prefaulted = from + length;
}

uint64_t ring_tail(ring *r) { return atomic_load_explicit(&r->tail, memory_order_relaxed); }

uint64_t ring_head(ring *r) { return atomic_load_explicit(&r->head, memory_order_acquire); }

const uint8_t *ring_read_at(ring *r, uint64_t *pos, uint32_t *length)
{
    for (;;) {
        uint64_t word;

        if (*pos >= atomic_load_explicit(&r->head, memory_order_acquire))
            return NULL;
        word = atomic_load_explicit(ring_header_at(r, *pos), memory_order_acquire);
        if (!(word & RING_COMMITTED))
            return NULL;
        if (word & RING_PADDING) {
            *pos += word & RING_SIZE_MASK;
            continue;
        }
        *length = (uint32_t)((word & RING_SIZE_MASK) - 8u);
        *pos += word & RING_SIZE_MASK;
        return (const uint8_t *)ring_header_at(r, *pos - (word & RING_SIZE_MASK)) + 8;
    }
}

uint64_t ring_used_bytes(ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_relaxed) -
           atomic_load_explicit(&r->tail, memory_order_relaxed);
}
