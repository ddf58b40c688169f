/* debugfile.h -- the separate debug file of a stripped ELF file the target
 * maps, found where gdb, perf and dotnet-symbol put them, to name the native
 * frames its own symbols do not (elfsyms.h).
 *
 * Looked for only when the file has no full symbol table of its own (no
 * .symtab, no .gnu_debugdata), in this order:
 *  1. by build ID, /usr/lib/debug/.build-id/ab/cdef....debug, in the
 *     target's root (/proc/PID/root: a container's own debug packages), then
 *     in the server's (Debian's libc6-dbg and the other -dbg/-dbgsym
 *     packages install there);
 *  2. by .gnu_debuglink, next to the file (where `dotnet-symbol --symbols`
 *     writes the runtime's libcoreclr.so.dbg), in its .debug directory, and
 *     under /usr/lib/debug with the file's directory, in the target's root;
 *  3. by build ID in debuginfod's cache ($DEBUGINFOD_CACHE_PATH, else
 *     $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client:
 *     what `debuginfod-find debuginfo` fetched); nothing is fetched here.
 * A candidate counts only when it proves to be the file's (the same build
 * ID, or the CRC-32 of the debug link): elfsyms_add_debug_file. Runs on the
 * CPU sampler's thread and the code view's, without a lock: a few stat and
 * open calls once per file.
 */
#ifndef JITSCOPE_DEBUGFILE_H
#define JITSCOPE_DEBUGFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "elfsyms.h"

/* Adds the symbols of mapped_path's debug file to t (its symbols read from
 * that file), when one is found: 1, else 0 (-1 out of memory). pid: the
 * target, whose root the paths are in (0: this process's). found (of
 * found_size bytes, may be NULL) gets the debug file's path. */
int debugfile_add(elfsyms *t, const char *mapped_path, pid_t pid, char *found, size_t found_size);

#endif
