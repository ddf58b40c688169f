/* profile_addr.h -- a profile's samples by code address, frame by frame: for
 * each sample (profile.h keeps it as a stack of FunctionIDs), the code
 * address of each of its frames that is a method's, so a response can name
 * the file:line of each frame (srcline.h): the leaf's sampled address, a
 * caller's call instruction (its return address - 1), 0 for every other
 * frame (native code, labels). The addresses line up with the sample's
 * stack: entry k is the address of the stack's frame k.
 *
 * Address stacks are interned like the profile's stacks (a hash of the
 * sequence); each sample has the id of its address stack, or
 * PROFILE_ADDR_NONE: a sample with no method frame, one read back from
 * storage (the log keeps method-level stacks only), or one that did not fit.
 * Bounds, counted in `dropped` when hit: PROFILE_ADDR_MAX_STACKS distinct
 * address stacks holding PROFILE_ADDR_MAX_FRAMES addresses in all (16 MiB),
 * one id per sample of the profile (4 MiB at PROFILE_MAX_SAMPLES). Caller
 * holds the sessions lock. */
#ifndef JITSCOPE_PROFILE_ADDR_H
#define JITSCOPE_PROFILE_ADDR_H

#include <stddef.h>
#include <stdint.h>

#define PROFILE_ADDR_MAX_STACKS (1u << 18)
#define PROFILE_ADDR_MAX_FRAMES (1u << 21)
#define PROFILE_ADDR_NONE UINT32_MAX

typedef struct profile_addr_stack {
    uint64_t hash;
    uint32_t first, depth;
} profile_addr_stack;

typedef struct profile_addr {
    uint64_t *frames; /* addresses, each stack leaf first */
    size_t frame_count, frame_cap;
    profile_addr_stack *stacks;
    size_t stack_count, stack_cap;
    uint32_t *index; /* open addressing on the hash: id + 1, 0 empty */
    size_t index_cap;
    uint32_t *by_sample; /* per sample of the profile: its address stack, or NONE */
    size_t sample_count, sample_cap;
    uint64_t dropped; /* samples whose addresses were not kept */
} profile_addr;

/* Sample number `sample` (the profile's index, the next one after the
 * samples set so far) has these addresses (leaf first, `depth` of them,
 * lined up with its stack). 0, or -1 when not kept (counted). */
int profile_addr_set(profile_addr *a, size_t sample, const uint64_t *addresses, uint32_t depth);
/* The addresses of sample `sample` (*depth of them), or NULL: none kept. */
const uint64_t *profile_addr_get(const profile_addr *a, size_t sample, uint32_t *depth);
size_t profile_addr_bytes(const profile_addr *a);
void profile_addr_free(profile_addr *a);

#endif
