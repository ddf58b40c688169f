/* pefile.h -- what an assembly's PE image says about its debug symbols: the
 * debug directory's CodeView entry (the id a matching PDB must carry, and the
 * PDB's path at build time) and its EmbeddedPortablePdb entry (type 17: "MPDB",
 * the PDB's size, then the PDB deflated), inflated with zlib. Pure functions
 * over untrusted bytes, in steps, so that the caller reads only the parts of
 * the file they name (symfile.h does the reading): the headers, then the
 * debug directory, then the entries' data. */
#ifndef JITSCOPE_PEFILE_H
#define JITSCOPE_PEFILE_H

#include <stddef.h>
#include <stdint.h>

#define PEFILE_HEAD_BYTES 4096u                   /* what pefile_debug_directory reads */
#define PEFILE_MAX_ENTRIES 32u                    /* debug directory entries looked at */
#define PEFILE_MAX_EMBEDDED (64u * 1024u * 1024u) /* an embedded PDB's size, at most */

/* Where the debug directory lies in the file. */
typedef struct pefile_span {
    uint32_t offset, size;
} pefile_span;

/* From the debug directory's entries. */
typedef struct pefile_debug {
    int have_codeview;
    pefile_span codeview; /* its data in the file */
    uint32_t codeview_stamp;
    uint16_t codeview_minor; /* 0x504D ('PM'): the PDB is a portable one */
    int have_embedded;
    pefile_span embedded;
} pefile_debug;

/* The CodeView entry's data ("RSDS"). */
typedef struct pefile_codeview {
    uint8_t guid[16];
    uint32_t age;
    char path[1024]; /* the PDB's path at build time, NUL-terminated (cut) */
} pefile_codeview;

/* The debug directory of a PE file from its first bytes (head: at least its
 * headers, PEFILE_HEAD_BYTES or the whole file if shorter): 0 with *dir (size
 * 0: the image has none), or -1 with a reason (not a PE file). */
int pefile_debug_directory(const uint8_t *head, size_t size, pefile_span *dir, char *err,
                           size_t err_size);

/* The debug directory's bytes into the entries that matter. 0, or -1. */
int pefile_debug_entries(const uint8_t *dir, size_t size, pefile_debug *out, char *err,
                         size_t err_size);

/* A CodeView entry's data. 0, or -1 (not RSDS). */
int pefile_codeview_parse(const uint8_t *data, size_t size, pefile_codeview *out, char *err,
                          size_t err_size);

/* An EmbeddedPortablePdb entry's data: the PDB's size (at most
 * PEFILE_MAX_EMBEDDED), or -1 with a reason. */
long pefile_embedded_size(const uint8_t *data, size_t size, char *err, size_t err_size);
/* ... inflated into out (pefile_embedded_size bytes): 0, or -1 when the data
 * does not inflate to exactly that size. */
int pefile_embedded_inflate(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                            char *err, size_t err_size);

#endif
