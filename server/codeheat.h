/* codeheat.h -- the code view's samples: a profile's counts by code address
 * (profile_heat.h) inside the versions of one code reply, copied out under
 * the sessions lock (codeheat_take) and summed per instruction without it
 * (codeheat_sum), for GET .../code (codeview.h). Which profile: the
 * session's current one, the newest it started (profile.h's number).
 */
#ifndef JITSCOPE_CODEHEAT_H
#define JITSCOPE_CODEHEAT_H

#include <jansson.h>
#include <stdint.h>

#include "code.h"
#include "profile.h"

typedef struct codeheat {
    int have;                    /* a profile was taken (else the fields below are 0) */
    uint32_t number;             /* the profile's number in the session (1 first) */
    int mode, state;             /* profile_mode, profile_run_state */
    uint64_t samples;            /* the profile's thread samples kept */
    uint64_t dropped;            /* frames its address table had no room for */
    profile_heat_entry *entries; /* those inside the reply's versions, by address */
    long count;
} codeheat;

/* Caller holds the sessions lock. 0, or -1 when out of memory. A profile
 * that never started (number 0) is taken as none. */
int codeheat_take(codeheat *h, const profile_state *p, const code_reply *r);
/* The samples in [address, address + size): those with their leaf there
 * (*self) and with any frame there (*total). */
void codeheat_sum(const codeheat *h, uint64_t address, uint32_t size, uint64_t *self,
                  uint64_t *total);
/* {"number", "mode", "state", "samples", "dropped_addresses"}, or null. */
json_t *codeheat_json(const codeheat *h);
void codeheat_free(codeheat *h);

#endif
