/* srcline.h -- file:line for the frames of a response (stack snapshots, the
 * profile's trees and exports): a method's frame at a code address is a line
 * of its source by three maps, each of which can be missing:
 *  - the address to the code version that holds it and the IL offset there
 *    (the version's IL-to-native map, from a code reply: code.h; a caller's
 *    address is its call instruction, the return address - 1);
 *  - the IL offset to the sequence point at or before it (the method's
 *    portable PDB, symfile.h and pdb.h);
 *  - the point to its document and start line. A hidden point (line
 *    0xFEEFEE), the map's prolog, epilog and unmapped code are no line.
 * A method is also given its "file" and "first_line" (its first visible
 * point's document and the smallest line there), which need no address.
 *
 * Use: under the sessions lock, srcline_want each method (its module's path,
 * token and flags copied) and srcline_take_code a code reply for the ones
 * whose addresses are wanted; without the lock, srcline_resolve loads the
 * PDBs (each module's once) and srcline_at answers per address. A method
 * without a line says why (srcline_fn.reason). At most SRCLINE_MAX_FNS
 * methods a response; more are given no line. */
#ifndef JITSCOPE_SRCLINE_H
#define JITSCOPE_SRCLINE_H

#include <stdint.h>
#include <sys/types.h>

#include "code.h"
#include "idmap.h"
#include "symfile.h"

#define SRCLINE_MAX_FNS 4096u
#define SRCLINE_MAX_POINTS 65536u
#define SRCLINE_MAX_DOCS 8u /* documents named per method (other than its main one) */

typedef struct srcline_version {
    uint64_t hot_start, cold_start;
    uint32_t hot_size, cold_size;
    wire_code_map_entry *map; /* owned */
    uint32_t map_count;
} srcline_version;

typedef struct srcline_fn {
    uint64_t function_id;
    uint32_t token, flags;
    char *module_path; /* NULL: none */
    int have_code;     /* versions below are a code reply's */
    unsigned version_count;
    srcline_version versions[WIRE_CODE_MAX_VERSIONS];
    char *code_reason; /* why no code, NULL */
    /* after srcline_resolve */
    int module; /* index in the modules loaded, -1 none */
    pdb_point *points;
    long point_count;
    uint32_t main_document;
    char *file; /* NULL: no line for this method (reason says why) */
    uint32_t first_line;
    char *reason;
    uint32_t doc_rows[SRCLINE_MAX_DOCS];
    char *doc_names[SRCLINE_MAX_DOCS];
    unsigned doc_count;
} srcline_fn;

typedef struct srcline_module {
    char *path;
    symfile sym;
    int loaded;
    char *reason;
} srcline_module;

typedef struct srcline {
    srcline_fn *fns;
    size_t count, cap;
    idmap by_id; /* FunctionID -> index */
    srcline_module *modules;
    size_t module_count, module_cap;
    pid_t pid;          /* whose files (0: the server's own) */
    int gone_container; /* the process ran in a container and ended: no files */
} srcline;

struct session;

/* Caller holds the sessions lock. The method's entry, made on first use (its
 * module and token copied). 0 with *index, or -1 (out of memory, full). */
int srcline_want(srcline *L, struct session *s, uint64_t function_id, uint32_t *index);
/* Caller holds the sessions lock: entry `index` takes reply r's versions and
 * maps (r NULL: no code, `why` says why). 0 or -1 (out of memory). */
int srcline_take_code(srcline *L, uint32_t index, const code_reply *r, const char *why);
/* Without the lock: reads the PDBs of the methods wanted (pid: the process
 * whose files; gone_container: a container's process that ended). */
void srcline_resolve(srcline *L, pid_t pid, int gone_container);
/* The line of method `index`'s frame at address (leaf: the sampled address;
 * a caller: its return address - 1): 1 with *file (the lines' owner's) and
 * *line, else 0 with *why. *il_offset (when not NULL): the address's IL
 * offset by the map, UINT32_MAX when none was found. */
int srcline_at(srcline *L, uint32_t index, uint64_t address, const char **file, uint32_t *line,
               const char **why, uint32_t *il_offset);
/* The line of method `index` at IL offset il_offset (an exception's throw
 * site: no code needed): as srcline_at. */
int srcline_at_il(srcline *L, uint32_t index, uint32_t il_offset, const char **file, uint32_t *line,
                  const char **why);
void srcline_free(srcline *L);

#endif
