/* srcview.h -- a method's source lines as GET .../functions/{fid}/source
 * shows them: its sequence points (pdb.h, from the PDB symfile.h found), the
 * lines they span in its main file (the file of its first visible point)
 * with their text when the file is readable, and per line the samples of the
 * session's newest profile: each instruction's samples (codeview.h, from the
 * code read) go to its IL offset (the version's IL-to-native map), the IL
 * offset to the sequence point at or before it, the point to its start line.
 * Hidden points (line 0xFEEFEE), the map's prolog, epilog and unmapped
 * code, and lines of other files are no line: their samples are counted as
 * "unattributed". Built without the sessions lock. */
#ifndef JITSCOPE_SRCVIEW_H
#define JITSCOPE_SRCVIEW_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "codeview.h"
#include "symfile.h"

#define SRCVIEW_MAX_POINTS 65536u /* sequence points of one method */
#define SRCVIEW_MAX_LINES 20000u  /* lines of one method shown */

/* The answer's body for the method with mdMethodDef `token` (code: the code
 * read, NULL when none; pid: whose files, 0 the server's). NULL with a reason
 * in err when the PDB's data for it is malformed or memory ran out. */
json_t *srcview_json(const codeview *code, const symfile *sym, uint32_t token, pid_t pid, char *err,
                     size_t err_size);

/* A JSON string of text that may not be UTF-8 (a path, a PDB's name):
 * invalid bytes replaced (utf.h). */
json_t *srcview_string(const char *s);

#endif
