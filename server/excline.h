/* excline.h -- the source line of an exception's throw site: the site's IL
 * offset mapped through its method's sequence points (pdb.h) to the start line
 * of the point at or before it, in the portable PDB that symfile.h finds for
 * the method's module. A hidden point, a method with no points, a module with
 * no PDB (or one refused): no line. Each module's PDB is loaded once per call.
 * Without the sessions lock (it reads files). */
#ifndef JITSCOPE_EXCLINE_H
#define JITSCOPE_EXCLINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct excline_query {
    const char *module_path; /* as the process sees it; NULL or "": no line */
    uint32_t token;          /* the method's mdMethodDef; 0: no line */
    uint32_t il_offset;      /* WIRE_IL_OFFSET_UNKNOWN: no line */
    long line;               /* out: the line, or -1 */
} excline_query;

/* Fills every query's line (pid: whose files, 0 the server's). */
void excline_fill(excline_query *q, size_t n, pid_t pid);

#endif
