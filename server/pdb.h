/* pdb.h -- a portable PDB (the ECMA-335 metadata format of .NET's debug
 * symbols) read from its bytes: its id (the #Pdb stream), the Document table
 * (each document's name: a blob of parts joined by a separator) and the
 * MethodDebugInformation table (each method's sequence points: IL offset to
 * file, line and column). Pure functions over untrusted bytes (no I/O, no
 * allocation but the caller's): every offset, count and length is checked;
 * bad bytes are an error with a reason, never a read outside them. Where the
 * bytes come from (a .pdb file, the one embedded in an assembly, --symbols)
 * is symfile.h's; the source view (srcview.h) maps the points to lines. */
#ifndef JITSCOPE_PDB_H
#define JITSCOPE_PDB_H

#include <stddef.h>
#include <stdint.h>

#define PDB_ID_SIZE 20u           /* GUID (16 bytes) then a stamp (4) */
#define PDB_HIDDEN_LINE 0xFEEFEEu /* a hidden sequence point's line: no line */

typedef struct pdb_heap {
    const uint8_t *data;
    uint32_t size;
} pdb_heap;

/* A PDB's tables as found in its bytes, which must outlive it. */
typedef struct pdb {
    const uint8_t *bytes;
    size_t size;
    uint8_t id[PDB_ID_SIZE];
    pdb_heap blob, guid;
    const uint8_t *documents; /* the Document table's rows */
    uint32_t document_count, document_row;
    const uint8_t *methods; /* the MethodDebugInformation table's rows */
    uint32_t method_count, method_row;
    uint8_t blob_wide, guid_wide, document_wide; /* 4-byte indexes (else 2) */
} pdb;

/* One sequence point. A hidden one (the compiler's mark for code that is no
 * line) has hidden set and start_line PDB_HIDDEN_LINE. */
typedef struct pdb_point {
    uint32_t il_offset;
    uint32_t document; /* row of the Document table, 1 first */
    uint32_t start_line, end_line;
    uint16_t start_column, end_column;
    uint8_t hidden;
} pdb_point;

/* Reads a PDB's metadata root, #Pdb, #~, #Blob and #GUID. 0, or -1 with a
 * reason in err. */
int pdb_open(pdb *p, const uint8_t *bytes, size_t size, char *err, size_t err_size);

/* The sequence points of the method with MethodDef row `rid` (its token's low
 * 24 bits), in the blob's order (IL offsets ascending), up to max of them into
 * out: the number the method has (0: none, a method with no debug information),
 * or -1 with a reason in err (its blob malformed). */
long pdb_method_points(const pdb *p, uint32_t rid, pdb_point *out, size_t max, char *err,
                       size_t err_size);

/* A document's name (row `row`, 1 first): its parts joined by its separator,
 * NUL-terminated, cut to size. Its full length, or -1 (no such row, bad blob). */
long pdb_document_name(const pdb *p, uint32_t row, char *out, size_t size);

/* ECMA-335 compressed integers at *at (< end), advanced past them: 0, or -1
 * when malformed or cut short. */
int pdb_read_uint(const uint8_t **at, const uint8_t *end, uint32_t *out);
int pdb_read_int(const uint8_t **at, const uint8_t *end, int32_t *out);

#endif
