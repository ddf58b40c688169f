/* symfile.h -- finding and loading an assembly's portable PDB, and reading
 * source files, as the target process sees its files.
 *
 * Where a PDB is looked for, in order: the directory given by --symbols
 * (symfile_set_dir), beside the assembly (its path with .pdb for its
 * extension), the PDB embedded in the assembly (debug directory type 17).
 * A PDB found is used only when its id (#Pdb) equals the assembly's CodeView
 * entry (GUID and stamp); one that does not is refused and named in the
 * reason when no other matches. A live process's files are read through
 * /proc/PID/root with openat2 RESOLVE_IN_ROOT (a container's own paths, its
 * symbolic links kept inside it); --symbols is the server's own directory.
 * The parsing is pefile.h's and pdb.h's; this file does the reading, with
 * bounds on every size. No lock: called without the sessions lock. */
#ifndef JITSCOPE_SYMFILE_H
#define JITSCOPE_SYMFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pdb.h"

#define SYMFILE_MAX_PDB (256u * 1024u * 1024u) /* a .pdb file's size, at most */
#define SYMFILE_MAX_TEXT (8u * 1024u * 1024u)  /* a source file's size, at most */

typedef struct symfile {
    uint8_t *bytes; /* the PDB's bytes (owned) */
    size_t size;
    pdb pdb;
    int embedded;     /* 1: the PDB embedded in the assembly */
    char where[1100]; /* the file it came from (the assembly when embedded) */
} symfile;

/* The --symbols directory (NULL: none). Set once at start, before serving. */
void symfile_set_dir(const char *dir);
const char *symfile_dir(void);

/* Loads the PDB of the assembly at `assembly` (a path as process pid sees it;
 * pid 0: the server's own view). 0, or -1 with the reason in err (no PDB
 * anywhere, or one that does not match). */
int symfile_load(symfile *out, pid_t pid, const char *assembly, char *err, size_t err_size);
void symfile_free(symfile *s);

/* A whole file as process pid sees it (pid 0: the server's view), read into
 * memory (free() gives it back), at most `max` bytes; NULL when it cannot be
 * opened or read, is no regular file, is empty or is larger. */
void *symfile_read_file(pid_t pid, const char *path, size_t max, size_t *size);

/* A source file's text as process pid sees it (pid 0: the server's view),
 * at most SYMFILE_MAX_TEXT bytes: malloc'd, NUL-terminated, or NULL. */
char *symfile_read_text(pid_t pid, const char *path, size_t *length);

#endif
