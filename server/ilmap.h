/* ilmap.h -- a code version's IL-to-native map sorted by native start (ties
 * in the map's order), so each instruction's IL offset is a binary search,
 * not a pass over up to WIRE_CODE_MAX_MAP entries (the code view, codeview.h,
 * and the naming of its calls, callnames.h). */
#ifndef JITSCOPE_ILMAP_H
#define JITSCOPE_ILMAP_H

#include <stdint.h>

#include "code.h"

typedef struct ilmap_key {
    uint32_t start, index;
} ilmap_key;

/* The sorted keys of rv's map (malloc'd; NULL when it has none); *failed set
 * when memory ran out. */
ilmap_key *ilmap_sorted(const code_reply_version *rv, int *failed);

/* The first key whose start is at least off. */
uint32_t ilmap_lower(const ilmap_key *keys, uint32_t n, uint32_t off);

/* The IL offset an instruction at native offset off belongs to: the map
 * entry that starts there, else the one before it if it covers it (the
 * runtime's entries do not overlap); NULL when none. */
const wire_code_map_entry *ilmap_entry(const code_reply_version *rv, const ilmap_key *keys,
                                       uint32_t off);

#endif
