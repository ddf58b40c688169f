/* excline.c -- throw sites' source lines from portable PDBs (see excline.h). */
#include "excline.h"

#include <stdlib.h>
#include <string.h>

#include "pdb.h"
#include "symfile.h"
#include "wire.h"

#define EXCLINE_MAX_POINTS 65536u /* sequence points of one method read */

/* The start line of the point q's IL offset belongs to (the last at or before it). */
static long excline_one(const pdb *p, const excline_query *q, pdb_point *points)
{
    char err[256];
    long n = pdb_method_points(p, q->token & 0xFFFFFFu, points, EXCLINE_MAX_POINTS, err,
                               sizeof(err));
    long i, at = -1;

    if (n <= 0)
        return -1;
    if (n > (long)EXCLINE_MAX_POINTS)
        n = EXCLINE_MAX_POINTS;
    for (i = 0; i < n && points[i].il_offset <= q->il_offset; i++)
        at = i;
    if (at < 0 || points[at].hidden || points[at].start_line == PDB_HIDDEN_LINE)
        return -1;
    return (long)points[at].start_line;
}

static int excline_wanted(const excline_query *q)
{
    return q->module_path && q->module_path[0] && q->token &&
           q->il_offset != WIRE_IL_OFFSET_UNKNOWN;
}

void excline_fill(excline_query *q, size_t n, pid_t pid)
{
    pdb_point *points = NULL;
    char err[1200];
    size_t i, k;

    for (i = 0; i < n; i++)
        q[i].line = excline_wanted(&q[i]) ? -2 : -1; /* -2: not looked up yet */
    for (i = 0; i < n; i++) {
        symfile sym;
        if (q[i].line != -2)
            continue;
        if (!points && !(points = malloc(EXCLINE_MAX_POINTS * sizeof(*points))))
            break;
        if (symfile_load(&sym, pid, q[i].module_path, err, sizeof(err)) != 0) {
            for (k = i; k < n; k++)
                if (q[k].line == -2 && strcmp(q[k].module_path, q[i].module_path) == 0)
                    q[k].line = -1;
            continue;
        }
        for (k = i; k < n; k++)
            if (q[k].line == -2 && strcmp(q[k].module_path, q[i].module_path) == 0)
                q[k].line = excline_one(&sym.pdb, &q[k], points);
        symfile_free(&sym);
    }
    for (i = 0; i < n; i++)
        if (q[i].line == -2)
            q[i].line = -1;
    free(points);
}
