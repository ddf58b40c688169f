/* pdb.c -- a portable PDB's ids, documents and sequence points (see pdb.h).
 * The layout is ECMA-335 II.24 (metadata root, streams, #~ tables) with the
 * portable PDB's own stream (#Pdb) and tables (0x30 Document, 0x31
 * MethodDebugInformation, the first of its tables, so that their rows are
 * found without the sizes of the others). */
#include "pdb.h"
#include "fmtread.h"

#include <stdio.h>
#include <string.h>

#define PDB_TABLE_DOCUMENT 0x30u
#define PDB_TABLE_METHOD 0x31u
#define PDB_MAX_NAME_PARTS 4096u

int pdb_read_uint(const uint8_t **at, const uint8_t *end, uint32_t *out)
{
    const uint8_t *b = *at;

    if (b >= end)
        return -1;
    if (!(b[0] & 0x80)) {
        *out = b[0];
        *at = b + 1;
    } else if ((b[0] & 0xC0) == 0x80) {
        if (end - b < 2)
            return -1;
        *out = (uint32_t)(b[0] & 0x3F) << 8 | b[1];
        *at = b + 2;
    } else if ((b[0] & 0xE0) == 0xC0) {
        if (end - b < 4)
            return -1;
        *out = (uint32_t)(b[0] & 0x1F) << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        *at = b + 4;
    } else {
        return -1;
    }
    return 0;
}

/* II.23.2: the value rotated left by one bit (the sign in bit 0), in the
 * width of its encoding. */
int pdb_read_int(const uint8_t **at, const uint8_t *end, int32_t *out)
{
    const uint8_t *start = *at;
    uint32_t raw, value;
    long width;

    if (pdb_read_uint(at, end, &raw) != 0)
        return -1;
    width = *at - start;
    value = raw >> 1;
    if (raw & 1)
        value |= width == 1 ? 0xFFFFFFC0u : width == 2 ? 0xFFFFE000u : 0xF0000000u;
    memcpy(out, &value, sizeof(*out));
    return 0;
}

/* The blob at index `index`: 0 with *data, *size inside the heap, or -1. */
static int pdb_blob(const pdb *p, uint32_t index, const uint8_t **data, uint32_t *size)
{
    const uint8_t *at, *end;

    if (!p->blob.data || index >= p->blob.size)
        return -1;
    end = p->blob.data + p->blob.size;
    at = p->blob.data + index;
    if (pdb_read_uint(&at, end, size) != 0 || *size > (uint32_t)(end - at))
        return -1;
    *data = at;
    return 0;
}

static uint32_t pdb_index(const uint8_t *b, int wide)
{
    return wide ? fmtread_u32(b) : fmtread_u16(b);
}

typedef struct pdb_stream {
    const uint8_t *data;
    uint32_t size;
} pdb_stream;

/* The metadata root's streams: #Pdb, #~, #Blob, #GUID. */
static int pdb_streams(const uint8_t *b, size_t size, pdb_stream *pdbs, pdb_stream *tables,
                       pdb_stream *blob, pdb_stream *guid, char *err, size_t err_size)
{
    uint32_t version_length, count, i;
    size_t at;

    if (size < 16 || fmtread_u32(b) != 0x424A5342u)
        return fmtread_fail(err, err_size, "not a portable PDB (no metadata signature BSJB)");
    version_length = fmtread_u32(b + 12);
    if (version_length > 255 || version_length % 4 || 16 + (size_t)version_length + 4 > size)
        return fmtread_fail(err, err_size, "bad metadata version string length %u", version_length);
    at = 16 + version_length + 2; /* the flags */
    count = fmtread_u16(b + at);
    at += 2;
    for (i = 0; i < count; i++) {
        uint32_t offset, length;
        size_t name_length;
        pdb_stream *s = NULL;
        const char *name;
        if (size - at < 9)
            return fmtread_fail(err, err_size, "stream header %u cut short", i);
        offset = fmtread_u32(b + at);
        length = fmtread_u32(b + at + 4);
        name = (const char *)b + at + 8;
        name_length = strnlen(name, size - at - 8 < 32 ? size - at - 8 : 32);
        if (name_length >= 32 || at + 8 + name_length >= size)
            return fmtread_fail(err, err_size, "stream header %u: name not terminated", i);
        at += 8 + (name_length + 4) / 4 * 4;
        if (offset > size || length > size - offset)
            return fmtread_fail(err, err_size, "stream %.31s lies outside the file", name);
        if (strcmp(name, "#Pdb") == 0)
            s = pdbs;
        else if (strcmp(name, "#~") == 0)
            s = tables;
        else if (strcmp(name, "#Blob") == 0)
            s = blob;
        else if (strcmp(name, "#GUID") == 0)
            s = guid;
        if (s) {
            s->data = b + offset;
            s->size = length;
        }
        if (at > size)
            return fmtread_fail(err, err_size, "stream headers cut short");
    }
    if (!pdbs->data)
        return fmtread_fail(err, err_size, "no #Pdb stream: metadata, but not a portable PDB");
    if (!tables->data)
        return fmtread_fail(err, err_size, "no #~ stream");
    return 0;
}

int pdb_open(pdb *p, const uint8_t *bytes, size_t size, char *err, size_t err_size)
{
    pdb_stream pdbs = {0}, tables = {0}, blob = {0}, guid = {0};
    uint64_t valid;
    uint32_t rows[64] = {0}, heap_sizes, bit;
    size_t at, need;

    memset(p, 0, sizeof(*p));
    if (pdb_streams(bytes, size, &pdbs, &tables, &blob, &guid, err, err_size) != 0)
        return -1;
    if (pdbs.size < PDB_ID_SIZE + 4 + 8)
        return fmtread_fail(err, err_size, "#Pdb stream too short (%u bytes)", pdbs.size);
    memcpy(p->id, pdbs.data, PDB_ID_SIZE);
    if (tables.size < 24)
        return fmtread_fail(err, err_size, "#~ stream too short (%u bytes)", tables.size);
    heap_sizes = tables.data[6];
    valid = (uint64_t)fmtread_u32(tables.data + 8) | (uint64_t)fmtread_u32(tables.data + 12) << 32;
    if (valid & ((1ull << PDB_TABLE_DOCUMENT) - 1))
        return fmtread_fail(
            err, err_size, "the #~ stream holds type system tables: not a standalone portable PDB");
    at = 24;
    for (bit = 0; bit < 64; bit++) {
        if (!(valid >> bit & 1))
            continue;
        if (tables.size - at < 4)
            return fmtread_fail(err, err_size, "#~ row counts cut short");
        rows[bit] = fmtread_u32(tables.data + at);
        at += 4;
    }
    p->bytes = bytes;
    p->size = size;
    p->blob = (pdb_heap){blob.data, blob.size};
    p->guid = (pdb_heap){guid.data, guid.size};
    p->blob_wide = (heap_sizes & 4) != 0;
    p->guid_wide = (heap_sizes & 2) != 0;
    p->document_count = rows[PDB_TABLE_DOCUMENT];
    p->method_count = rows[PDB_TABLE_METHOD];
    p->document_wide = p->document_count > 0xFFFFu;
    p->document_row = 2u * (p->blob_wide ? 4u : 2u) + 2u * (p->guid_wide ? 4u : 2u);
    p->method_row = (p->document_wide ? 4u : 2u) + (p->blob_wide ? 4u : 2u);
    need = (size_t)p->document_count * p->document_row;
    if (need > tables.size - at)
        return fmtread_fail(err, err_size, "the Document table (%u rows) lies outside #~",
                            p->document_count);
    p->documents = tables.data + at;
    at += need;
    need = (size_t)p->method_count * p->method_row;
    if (need > tables.size - at)
        return fmtread_fail(err, err_size,
                            "the MethodDebugInformation table (%u rows) lies outside #~",
                            p->method_count);
    p->methods = tables.data + at;
    return 0;
}

long pdb_document_name(const pdb *p, uint32_t row, char *out, size_t size)
{
    const uint8_t *blob, *at, *end, *part;
    uint32_t length, index, part_length, parts = 0;
    size_t written = 0, total = 0;
    char separator;

    if (size)
        out[0] = 0;
    if (row == 0 || row > p->document_count)
        return -1;
    index = pdb_index(p->documents + (size_t)(row - 1) * p->document_row, p->blob_wide);
    if (pdb_blob(p, index, &blob, &length) != 0 || length < 1)
        return -1;
    separator = (char)blob[0];
    if ((uint8_t)separator > 0x7F)
        return -1;
    at = blob + 1;
    end = blob + length;
    while (at < end) {
        if (pdb_read_uint(&at, end, &index) != 0 || ++parts > PDB_MAX_NAME_PARTS)
            return -1;
        if (index == 0) {
            part = NULL;
            part_length = 0;
        } else if (pdb_blob(p, index, &part, &part_length) != 0) {
            return -1;
        }
        if (parts > 1 && separator) {
            if (written + 1 < size)
                out[written++] = separator;
            total++;
        }
        if (part_length && written + 1 < size) {
            size_t take = size - 1 - written < part_length ? size - 1 - written : part_length;
            memcpy(out + written, part, take);
            written += take;
        }
        total += part_length;
    }
    if (size)
        out[written] = 0;
    return (long)total;
}

/* One record's deltas of lines and columns. */
static int pdb_read_deltas(const uint8_t **at, const uint8_t *end, uint32_t *lines,
                           int32_t *columns)
{
    uint32_t u;
    if (pdb_read_uint(at, end, lines) != 0)
        return -1;
    if (*lines == 0) {
        if (pdb_read_uint(at, end, &u) != 0)
            return -1;
        *columns = (int32_t)u;
        return 0;
    }
    return pdb_read_int(at, end, columns);
}

long pdb_method_points(const pdb *p, uint32_t rid, pdb_point *out, size_t max, char *err,
                       size_t err_size)
{
    const uint8_t *row, *at, *end;
    uint32_t index, length, document, u, lines, offset = 0;
    int64_t line = -1, column = -1, end_line, end_column;
    int32_t columns, s;
    long count = 0;

    if (rid == 0 || rid > p->method_count)
        return 0;
    row = p->methods + (size_t)(rid - 1) * p->method_row;
    document = pdb_index(row, p->document_wide);
    index = pdb_index(row + (p->document_wide ? 4 : 2), p->blob_wide);
    if (index == 0)
        return 0;
    if (pdb_blob(p, index, &at, &length) != 0)
        return fmtread_fail(err, err_size, "method row %u: sequence points outside #Blob", rid);
    end = at + length;
    if (length == 0)
        return 0;
    if (pdb_read_uint(&at, end, &u) != 0) /* the local signature */
        return fmtread_fail(err, err_size, "method row %u: bad header", rid);
    if (!document && pdb_read_uint(&at, end, &document) != 0)
        return fmtread_fail(err, err_size, "method row %u: bad initial document", rid);
    while (at < end) {
        pdb_point pt = {0};
        if (count == 0) {
            if (pdb_read_uint(&at, end, &offset) != 0)
                return fmtread_fail(err, err_size, "method row %u: bad IL offset", rid);
        } else {
            for (;;) {
                if (pdb_read_uint(&at, end, &u) != 0)
                    return fmtread_fail(err, err_size, "method row %u: bad IL offset", rid);
                if (u)
                    break;
                if (pdb_read_uint(&at, end, &document) != 0)
                    return fmtread_fail(err, err_size, "method row %u: bad document record", rid);
            }
            if (u > UINT32_MAX - offset)
                return fmtread_fail(err, err_size, "method row %u: IL offset overflows", rid);
            offset += u;
        }
        if (document == 0 || document > p->document_count)
            return fmtread_fail(err, err_size, "method row %u: no document %u", rid, document);
        if (pdb_read_deltas(&at, end, &lines, &columns) != 0)
            return fmtread_fail(err, err_size, "method row %u: bad line deltas", rid);
        pt.il_offset = offset;
        pt.document = document;
        if (lines == 0 && columns == 0) {
            pt.hidden = 1;
            pt.start_line = pt.end_line = PDB_HIDDEN_LINE;
        } else {
            if (line < 0) {
                if (pdb_read_uint(&at, end, &u) != 0)
                    return fmtread_fail(err, err_size, "method row %u: bad start line", rid);
                line = u;
                if (pdb_read_uint(&at, end, &u) != 0)
                    return fmtread_fail(err, err_size, "method row %u: bad start column", rid);
                column = u;
            } else {
                if (pdb_read_int(&at, end, &s) != 0)
                    return fmtread_fail(err, err_size, "method row %u: bad start line", rid);
                line += s;
                if (pdb_read_int(&at, end, &s) != 0)
                    return fmtread_fail(err, err_size, "method row %u: bad start column", rid);
                column += s;
            }
            end_line = line + lines;
            end_column = column + columns;
            if (line < 0 || line >= 0x20000000 || end_line >= 0x20000000 || column < 0 ||
                column >= 0x10000 || end_column < 0 || end_column >= 0x10000)
                return fmtread_fail(err, err_size, "method row %u: line or column out of range",
                                    rid);
            pt.start_line = (uint32_t)line;
            pt.end_line = (uint32_t)end_line;
            pt.start_column = (uint16_t)column;
            pt.end_column = (uint16_t)end_column;
        }
        if ((size_t)count < max)
            out[count] = pt;
        count++;
    }
    return count;
}
