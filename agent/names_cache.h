/* names_cache.h -- what the naming of methods keeps from one name to the next
 * (names_resolve.c), so that the methods of one type, or with the same type
 * arguments, do not ask the runtime the same questions again.
 *
 *  - The names of plain classes (no instantiation, not arrays) by ClassID: the
 *    class's metadata name and those of its enclosing types. A ClassID is the
 *    address of a runtime object that a collectible type gives back when its
 *    module unloads, so the whole table is dropped when the agent's unload
 *    generation moves (a module unload began or ended) and at each connection
 *    (while there was no server the agent saw no unloads). Fixed memory: 4,096
 *    entries and 256 KiB of names, dropped whole when full.
 *  - The runtime's metadata importer of dynamic modules that never unload
 *    (Reflection.Emit with AssemblyBuilderAccess.Run): kept open instead of
 *    asked for and released for every name. They are released before the
 *    agent asks to be detached (names_cache_release, a call into the runtime).
 *
 * Sender thread only, with the runtime lock held (walk.h): no lock of its own.
 */
#ifndef JITSCOPE_NAMES_CACHE_H
#define JITSCOPE_NAMES_CACHE_H

#include <stdint.h>

#include "cormeta.h"
#include "corprof.h"

#define NAMES_CACHE_CHAIN 8u /* a class and its enclosing types, at most */

/* The names kept for `cls` at unload generation `generation`: names[0] the
 * class's, then its enclosing types' outwards. Returns how many (0: not kept).
 * The strings stay valid until the next names_cache_put or forget. */
unsigned names_cache_type(uint64_t cls, uint64_t generation, const char **names);
/* Keeps `count` names (at most NAMES_CACHE_CHAIN) for `cls`. */
void names_cache_put_type(uint64_t cls, uint64_t generation, const char *const *names,
                          unsigned count);
/* Drops every kept class name (a new connection: unloads may have gone unseen). */
void names_cache_forget_types(void);

/* The kept importer of `module`, or NULL. */
IMetaDataImport *names_cache_importer(uint64_t module);
/* Keeps `importer` (its reference becomes the cache's) for a dynamic module
 * that never unloads; 0, or -1 when full (the caller releases it as before). */
int names_cache_put_importer(uint64_t module, IMetaDataImport *importer);
/* Releases every kept importer: before RequestProfilerDetach, runtime lock held. */
void names_cache_release(void);

#endif
