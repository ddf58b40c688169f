/* profile_heat.h -- a profile's samples by instruction: how often each
 * address of managed code was where a sampled thread was (profile.h keeps
 * the same samples as method-level stacks).
 *
 * An entry is one code address: `self` counts the samples whose leaf (the
 * sampled address) was there, `total` the samples in which a frame of the
 * stack was there: the leaf, or a caller's call instruction (its return
 * address - 1, the last byte of the call, so the entry lies inside the call
 * instruction). A sample counts once per distinct address. The code view
 * (codeview.h) sums the entries inside each instruction of each code
 * version; addresses are absolute, so a version's entries are those in its
 * hot and cold ranges. Bounded: PROFILE_HEAT_MAX distinct addresses in a
 * table at most half full (16-byte entries, 8 MiB); a frame that finds the
 * table full is counted in `dropped`. Caller holds the sessions lock.
 */
#ifndef JITSCOPE_PROFILE_HEAT_H
#define JITSCOPE_PROFILE_HEAT_H

#include <stddef.h>
#include <stdint.h>

#define PROFILE_HEAT_MAX 262144u    /* distinct addresses */
#define PROFILE_HEAT_SORT_MAX 1024u /* frames of one sample looked at */
#define PROFILE_HEAT_RANGES_MAX 64u /* ranges one collect looks in */

typedef struct profile_heat_entry {
    uint64_t address; /* 0: an empty slot */
    uint32_t self;    /* samples whose leaf was here */
    uint32_t total;   /* samples with a frame here (leaf or caller) */
} profile_heat_entry;
_Static_assert(sizeof(profile_heat_entry) == 16, "profile_heat_entry layout");

typedef struct profile_heat {
    profile_heat_entry *slots; /* open addressing on the address, cap a power of two */
    size_t cap, count;
    uint64_t dropped; /* frames not counted: the table was full (or no memory) */
} profile_heat;

/* Adds self and total to the address's entry (made when new). 0, or -1 when
 * it is new and does not fit (counted in dropped). */
int profile_heat_add(profile_heat *h, uint64_t address, uint32_t self, uint32_t total);
/* One sample's managed frames, as addresses (0: not managed code, skipped):
 * addresses[0] is the leaf when leaf is 1, every other one a caller's return
 * address. Each distinct address counts once. */
void profile_heat_sample(profile_heat *h, const uint64_t *addresses, uint32_t count, int leaf);
/* The entries inside [ranges[2i], ranges[2i+1]) for i < range_count (at most
 * PROFILE_HEAT_RANGES_MAX, in any order, overlapping or empty), copied into a
 * new array (*out, freed by the caller), sorted by address. Their number, or
 * -1 when out of memory or given too many ranges. Ranges of fewer bytes than
 * a quarter of the table's slots: each address looked up; else one pass over
 * the table, an entry placed among the ranges by a binary search. */
long profile_heat_collect(const profile_heat *h, const uint64_t *ranges, unsigned range_count,
                          profile_heat_entry **out);
/* The entries one by one: *i from 0; NULL at the end. */
const profile_heat_entry *profile_heat_next(const profile_heat *h, size_t *i);
size_t profile_heat_bytes(const profile_heat *h);
void profile_heat_free(profile_heat *h);

#endif
