/* fuzz_pdb.c -- libFuzzer target for the symbol readers of the source view:
 * server/pdb.c (a portable PDB: metadata root, #Pdb, #~, Document and
 * MethodDebugInformation rows, document names, sequence point blobs) and
 * server/pefile.c (an assembly's debug directory, CodeView entry, embedded
 * PDB inflated with zlib). PDBs and assemblies are the target's files:
 * outside bytes to the server.
 *
 * The input is read both as a PDB and as an assembly. Checked: every
 * sequence point of every method row (and the rows just outside the table)
 * has a document of the table, visible ones lines below 0x20000000 with end
 * at or after start, hidden ones line 0xFEEFEE, IL offsets strictly rising;
 * every document name is NUL-terminated within its buffer, no longer than
 * the length returned and, cut to a smaller buffer, a prefix of itself; a debug directory found lies inside
 * the input; an embedded PDB inflates to exactly its declared size or fails.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "pdb.h"
#include "pefile.h"

#define FUZZ_POINTS 4096u

static void fuzz_as_pdb(const uint8_t *data, size_t size)
{
    static pdb_point points[FUZZ_POINTS];
    char err[256], name[512], small[8];
    pdb p;
    uint32_t rid, row;

    if (pdb_open(&p, data, size, err, sizeof(err)) != 0) {
        FUZZ_REQUIRE(memchr(err, 0, sizeof(err)) != NULL);
        return;
    }
    for (rid = 0; rid <= p.method_count + 1 && rid < 2048; rid++) {
        long n = pdb_method_points(&p, rid, points, FUZZ_POINTS, err, sizeof(err)), i;
        if (n < 0)
            continue;
        FUZZ_REQUIRE(rid >= 1 && rid <= p.method_count || n == 0);
        for (i = 0; i < n && i < (long)FUZZ_POINTS; i++) {
            const pdb_point *pt = &points[i];
            FUZZ_REQUIRE(pt->document >= 1 && pt->document <= p.document_count);
            if (i)
                FUZZ_REQUIRE(pt->il_offset > points[i - 1].il_offset);
            if (pt->hidden)
                FUZZ_REQUIRE(pt->start_line == PDB_HIDDEN_LINE);
            else
                FUZZ_REQUIRE(pt->start_line < 0x20000000u && pt->end_line >= pt->start_line);
        }
    }
    for (row = 0; row <= p.document_count + 1 && row < 256; row++) {
        long full = pdb_document_name(&p, row, name, sizeof(name));
        if (full < 0)
            continue;
        FUZZ_REQUIRE(row >= 1 && row <= p.document_count);
        FUZZ_REQUIRE(memchr(name, 0, sizeof(name)) != NULL && strlen(name) <= (size_t)full);
        FUZZ_REQUIRE(pdb_document_name(&p, row, small, sizeof(small)) == full);
        FUZZ_REQUIRE(memcmp(small, name, strlen(small)) == 0);
    }
}

static void fuzz_as_assembly(const uint8_t *data, size_t size)
{
    char err[256];
    pefile_span dir;
    pefile_debug debug;
    pefile_codeview cv;
    long length;
    uint8_t *out;

    if (pefile_debug_directory(data, size < PEFILE_HEAD_BYTES ? size : PEFILE_HEAD_BYTES, &dir, err,
                               sizeof(err)) != 0 ||
        !dir.size || dir.offset > size || dir.size > size - dir.offset)
        return;
    if (pefile_debug_entries(data + dir.offset, dir.size, &debug, err, sizeof(err)) != 0)
        return;
    if (debug.have_codeview && debug.codeview.offset <= size &&
        debug.codeview.size <= size - debug.codeview.offset &&
        pefile_codeview_parse(data + debug.codeview.offset, debug.codeview.size, &cv, err,
                              sizeof(err)) == 0)
        FUZZ_REQUIRE(strlen(cv.path) < sizeof(cv.path));
    if (!debug.have_embedded || debug.embedded.offset > size ||
        debug.embedded.size > size - debug.embedded.offset)
        return;
    length = pefile_embedded_size(data + debug.embedded.offset, debug.embedded.size, err,
                                  sizeof(err));
    if (length <= 0 || length > (1l << 20) || !(out = malloc((size_t)length)))
        return;
    if (pefile_embedded_inflate(data + debug.embedded.offset, debug.embedded.size, out,
                                (size_t)length, err, sizeof(err)) == 0)
        fuzz_as_pdb(out, (size_t)length);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_as_pdb(data, size);
    fuzz_as_assembly(data, size);
    return 0;
}
