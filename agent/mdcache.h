/* mdcache.h -- each module's metadata reader (mdread.h), found by ModuleID.
 *
 * Used by names_resolve.c on the sender thread and, for dynamic methods'
 * parameter types, on JIT threads: lookups take no lock. A reader is kept only
 * for modules that never unload (not collectible, not dynamic), loaded from
 * an image, so an entry can never outlive its module or see its ModuleID
 * reused. NULL means "ask the runtime's importer instead". */
#ifndef JITSCOPE_MDCACHE_H
#define JITSCOPE_MDCACHE_H

#include "corprof.h"
#include "mdread.h"

const mdread *mdcache_get(ICorProfilerInfo10 *info, ModuleID module);

/* Reads WIRE_ENV_METADATA once, at Initialize: "importer" turns direct
 * reading off (mdcache_get then always answers NULL). */
void mdcache_configure(void);

/* Counts a request for the runtime's importer (names_resolve.c makes them). */
void mdcache_importer_opened(void);

/* Modules read directly so far, and importer requests (sent in the agent's
 * WIRE_AGENT_COST record). */
void mdcache_counts(uint64_t *direct_modules, uint64_t *importer_opens);

#endif
