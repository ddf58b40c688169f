/* pefile.c -- an assembly's debug directory, CodeView id and embedded PDB
 * (see pefile.h). Layouts: the PE/COFF specification (DOS header's e_lfanew,
 * "PE\0\0", COFF header, optional header's data directory 6, the section
 * table mapping its RVA to a file offset, 28-byte debug directory entries). */
#include "pefile.h"
#include "fmtread.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define PEFILE_DEBUG_CODEVIEW 2u
#define PEFILE_DEBUG_EMBEDDED_PDB 17u
#define PEFILE_ENTRY_SIZE 28u

int pefile_debug_directory(const uint8_t *head, size_t size, pefile_span *dir, char *err,
                           size_t err_size)
{
    uint32_t pe, sections, optional_size, magic, dirs, rva, length, i;
    size_t optional, table, directory;

    memset(dir, 0, sizeof(*dir));
    if (size < 64 || head[0] != 'M' || head[1] != 'Z')
        return fmtread_fail(err, err_size, "not a PE file (no MZ header)");
    pe = fmtread_u32(head + 0x3C);
    if (pe > size || size - pe < 24 || memcmp(head + pe, "PE\0\0", 4) != 0)
        return fmtread_fail(err, err_size, "not a PE file (no PE signature in its headers)");
    sections = fmtread_u16(head + pe + 6);
    optional_size = fmtread_u16(head + pe + 20);
    optional = (size_t)pe + 24;
    if (optional_size < 2 || size - optional < optional_size)
        return fmtread_fail(err, err_size, "PE optional header cut short");
    magic = fmtread_u16(head + optional);
    if (magic == 0x10B)
        directory = 96;
    else if (magic == 0x20B)
        directory = 112;
    else
        return fmtread_fail(err, err_size, "unknown PE optional header magic 0x%x", magic);
    if (optional_size < directory)
        return fmtread_fail(err, err_size, "PE optional header too short");
    dirs = fmtread_u32(head + optional + directory - 4);
    if (dirs <= 6 || optional_size < directory + 7 * 8)
        return 0; /* no debug directory */
    rva = fmtread_u32(head + optional + directory + 6 * 8);
    length = fmtread_u32(head + optional + directory + 6 * 8 + 4);
    if (!rva || !length)
        return 0;
    table = optional + optional_size;
    for (i = 0; i < sections; i++) {
        const uint8_t *s = head + table + (size_t)i * 40;
        uint32_t va, vsize, raw, raw_size;
        if (table + (size_t)(i + 1) * 40 > size)
            return fmtread_fail(err, err_size, "PE section table cut short");
        va = fmtread_u32(s + 12);
        vsize = fmtread_u32(s + 8);
        raw_size = fmtread_u32(s + 16);
        raw = fmtread_u32(s + 20);
        if (vsize < raw_size)
            vsize = raw_size;
        if (rva >= va && rva - va < vsize) {
            uint32_t into = rva - va;
            if (into > raw_size || length > raw_size - into || raw > UINT32_MAX - into)
                return fmtread_fail(err, err_size, "debug directory outside its section's data");
            dir->offset = raw + into;
            dir->size = length;
            return 0;
        }
    }
    return fmtread_fail(err, err_size, "debug directory in no section");
}

int pefile_debug_entries(const uint8_t *dir, size_t size, pefile_debug *out, char *err,
                         size_t err_size)
{
    size_t i, count = size / PEFILE_ENTRY_SIZE;

    memset(out, 0, sizeof(*out));
    if (size % PEFILE_ENTRY_SIZE)
        return fmtread_fail(err, err_size, "debug directory of %zu bytes: not whole entries", size);
    for (i = 0; i < count && i < PEFILE_MAX_ENTRIES; i++) {
        const uint8_t *e = dir + i * PEFILE_ENTRY_SIZE;
        uint32_t type = fmtread_u32(e + 12);
        pefile_span data = {fmtread_u32(e + 24), fmtread_u32(e + 16)};
        if (type == PEFILE_DEBUG_CODEVIEW && !out->have_codeview) {
            out->have_codeview = 1;
            out->codeview = data;
            out->codeview_stamp = fmtread_u32(e + 4);
            out->codeview_minor = (uint16_t)fmtread_u16(e + 10);
        } else if (type == PEFILE_DEBUG_EMBEDDED_PDB && !out->have_embedded) {
            out->have_embedded = 1;
            out->embedded = data;
        }
    }
    return 0;
}

int pefile_codeview_parse(const uint8_t *data, size_t size, pefile_codeview *out, char *err,
                          size_t err_size)
{
    size_t length;

    memset(out, 0, sizeof(*out));
    if (size < 24 || memcmp(data, "RSDS", 4) != 0)
        return fmtread_fail(err, err_size, "the CodeView entry is not RSDS");
    memcpy(out->guid, data + 4, 16);
    out->age = fmtread_u32(data + 20);
    length = strnlen((const char *)data + 24, size - 24);
    if (length >= sizeof(out->path))
        length = sizeof(out->path) - 1;
    memcpy(out->path, data + 24, length);
    out->path[length] = 0;
    return 0;
}

long pefile_embedded_size(const uint8_t *data, size_t size, char *err, size_t err_size)
{
    uint32_t length;

    if (size < 8 || memcmp(data, "MPDB", 4) != 0)
        return fmtread_fail(err, err_size, "the embedded PDB entry does not start with MPDB");
    length = fmtread_u32(data + 4);
    if (length == 0 || length > PEFILE_MAX_EMBEDDED)
        return fmtread_fail(err, err_size, "the embedded PDB claims %u bytes (at most %u)", length,
                            PEFILE_MAX_EMBEDDED);
    return (long)length;
}

int pefile_embedded_inflate(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                            char *err, size_t err_size)
{
    z_stream z;
    int rc;

    if (size < 8)
        return fmtread_fail(err, err_size, "the embedded PDB entry is cut short");
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, -15) != Z_OK) /* raw deflate */
        return fmtread_fail(err, err_size, "zlib: inflateInit2 failed");
    z.next_in = (Bytef *)(uintptr_t)(data + 8);
    z.avail_in = (uInt)(size - 8 > UINT32_MAX ? UINT32_MAX : size - 8);
    z.next_out = out;
    z.avail_out = (uInt)out_size;
    rc = inflate(&z, Z_FINISH);
    inflateEnd(&z);
    if (rc != Z_STREAM_END || z.total_out != out_size)
        return fmtread_fail(err, err_size,
                            "the embedded PDB does not inflate to its %zu bytes (zlib %d, %lu)",
                            out_size, rc, (unsigned long)z.total_out);
    return 0;
}
