/* mdread.c -- ECMA-335 metadata names without the runtime (see mdread.h).
 *
 * The layout (ECMA-335 partition II, 24.2): the PE image's CLI header points
 * at the metadata root; the root lists streams; "#~" holds the tables, whose
 * row sizes follow from the row counts of every table and the heap sizes, so
 * locating a table means sizing every table before it. Only tables up to
 * MethodSpec (0x2B) are sized: those after it do not move the ones read. */
#include "mdread.h"

#include <string.h>

#define MDREAD_HEADER_PAGE 4096u
#define MDREAD_ROOT_SIGNATURE 0x424A5342u /* "BSJB" */
#define MDREAD_COR_HEADER_DIRECTORY 14u
#define MDREAD_TABLES 0x2Cu /* Module .. MethodSpec */
#define MDREAD_MAX_STREAMS 16u
#define MDREAD_HEAP_EXTRA_DATA 0x40u

enum {
    T_MODULE = 0x00,
    T_TYPEREF = 0x01,
    T_TYPEDEF = 0x02,
    T_FIELDPTR = 0x03,
    T_FIELD = 0x04,
    T_METHODPTR = 0x05,
    T_METHODDEF = 0x06,
    T_PARAMPTR = 0x07,
    T_PARAM = 0x08,
    T_INTERFACEIMPL = 0x09,
    T_MEMBERREF = 0x0A,
    T_CONSTANT = 0x0B,
    T_CUSTOMATTRIBUTE = 0x0C,
    T_FIELDMARSHAL = 0x0D,
    T_DECLSECURITY = 0x0E,
    T_CLASSLAYOUT = 0x0F,
    T_FIELDLAYOUT = 0x10,
    T_STANDALONESIG = 0x11,
    T_EVENTMAP = 0x12,
    T_EVENTPTR = 0x13,
    T_EVENT = 0x14,
    T_PROPERTYMAP = 0x15,
    T_PROPERTYPTR = 0x16,
    T_PROPERTY = 0x17,
    T_METHODSEMANTICS = 0x18,
    T_METHODIMPL = 0x19,
    T_MODULEREF = 0x1A,
    T_TYPESPEC = 0x1B,
    T_IMPLMAP = 0x1C,
    T_FIELDRVA = 0x1D,
    T_ENCLOG = 0x1E,
    T_ENCMAP = 0x1F,
    T_ASSEMBLY = 0x20,
    T_ASSEMBLYPROCESSOR = 0x21,
    T_ASSEMBLYOS = 0x22,
    T_ASSEMBLYREF = 0x23,
    T_ASSEMBLYREFPROCESSOR = 0x24,
    T_ASSEMBLYREFOS = 0x25,
    T_FILE = 0x26,
    T_EXPORTEDTYPE = 0x27,
    T_MANIFESTRESOURCE = 0x28,
    T_NESTEDCLASS = 0x29,
    T_GENERICPARAM = 0x2A,
    T_METHODSPEC = 0x2B,
    T_GENERICPARAMCONSTRAINT = 0x2C,
    T_NONE = 0xFF
};

/* Coded indexes (II.24.2.6): tag bits and the tables they may name. */
typedef struct coded_kind {
    uint8_t bits, count;
    uint8_t tables[22];
} coded_kind;

enum {
    C_TYPEDEFORREF,
    C_HASCONSTANT,
    C_HASCUSTOMATTRIBUTE,
    C_HASFIELDMARSHAL,
    C_HASDECLSECURITY,
    C_MEMBERREFPARENT,
    C_HASSEMANTICS,
    C_METHODDEFORREF,
    C_MEMBERFORWARDED,
    C_IMPLEMENTATION,
    C_CUSTOMATTRIBUTETYPE,
    C_RESOLUTIONSCOPE,
    C_TYPEORMETHODDEF,
    C_KINDS
};

static const coded_kind coded_kinds[C_KINDS] = {
    [C_TYPEDEFORREF] = {2, 3, {T_TYPEDEF, T_TYPEREF, T_TYPESPEC}},
    [C_HASCONSTANT] = {2, 3, {T_FIELD, T_PARAM, T_PROPERTY}},
    [C_HASCUSTOMATTRIBUTE] = {5, 22, {T_METHODDEF,        T_FIELD,        T_TYPEREF,
                                      T_TYPEDEF,          T_PARAM,        T_INTERFACEIMPL,
                                      T_MEMBERREF,        T_MODULE,       T_DECLSECURITY,
                                      T_PROPERTY,         T_EVENT,        T_STANDALONESIG,
                                      T_MODULEREF,        T_TYPESPEC,     T_ASSEMBLY,
                                      T_ASSEMBLYREF,      T_FILE,         T_EXPORTEDTYPE,
                                      T_MANIFESTRESOURCE, T_GENERICPARAM, T_GENERICPARAMCONSTRAINT,
                                      T_METHODSPEC}},
    [C_HASFIELDMARSHAL] = {1, 2, {T_FIELD, T_PARAM}},
    [C_HASDECLSECURITY] = {2, 3, {T_TYPEDEF, T_METHODDEF, T_ASSEMBLY}},
    [C_MEMBERREFPARENT] = {3, 5, {T_TYPEDEF, T_TYPEREF, T_MODULEREF, T_METHODDEF, T_TYPESPEC}},
    [C_HASSEMANTICS] = {1, 2, {T_EVENT, T_PROPERTY}},
    [C_METHODDEFORREF] = {1, 2, {T_METHODDEF, T_MEMBERREF}},
    [C_MEMBERFORWARDED] = {1, 2, {T_FIELD, T_METHODDEF}},
    [C_IMPLEMENTATION] = {2, 3, {T_FILE, T_ASSEMBLYREF, T_EXPORTEDTYPE}},
    [C_CUSTOMATTRIBUTETYPE] = {3, 2, {T_METHODDEF, T_MEMBERREF}},
    [C_RESOLUTIONSCOPE] = {2, 4, {T_MODULE, T_MODULEREF, T_ASSEMBLYREF, T_TYPEREF}},
    [C_TYPEORMETHODDEF] = {1, 2, {T_TYPEDEF, T_METHODDEF}},
};

/* A column: a fixed width (1..4 bytes), a heap index, a table index or a
 * coded index. */
enum { K_FIXED, K_STRING, K_GUID, K_BLOB, K_INDEX, K_CODED };

typedef struct column {
    uint8_t kind, arg; /* K_FIXED: bytes; K_INDEX: table; K_CODED: coded kind */
} column;

#define FIX(n)                                                                                     \
    {                                                                                              \
        K_FIXED, n                                                                                 \
    }
#define STR                                                                                        \
    {                                                                                              \
        K_STRING, 0                                                                                \
    }
#define GUID                                                                                       \
    {                                                                                              \
        K_GUID, 0                                                                                  \
    }
#define BLOB                                                                                       \
    {                                                                                              \
        K_BLOB, 0                                                                                  \
    }
#define IDX(t)                                                                                     \
    {                                                                                              \
        K_INDEX, t                                                                                 \
    }
#define CODED(c)                                                                                   \
    {                                                                                              \
        K_CODED, c                                                                                 \
    }
#define MDREAD_MAX_COLUMNS 9u
#define COLUMN_END(c) ((c).kind == K_FIXED && (c).arg == 0) /* the zero that ends a row */

/* II.22: the columns of every table up to MethodSpec. */
static const column schema[MDREAD_TABLES][MDREAD_MAX_COLUMNS + 1] = {
    [T_MODULE] = {FIX(2), STR, GUID, GUID, GUID},
    [T_TYPEREF] = {CODED(C_RESOLUTIONSCOPE), STR, STR},
    [T_TYPEDEF] = {FIX(4), STR, STR, CODED(C_TYPEDEFORREF), IDX(T_FIELD), IDX(T_METHODDEF)},
    [T_FIELDPTR] = {IDX(T_FIELD)},
    [T_FIELD] = {FIX(2), STR, BLOB},
    [T_METHODPTR] = {IDX(T_METHODDEF)},
    [T_METHODDEF] = {FIX(4), FIX(2), FIX(2), STR, BLOB, IDX(T_PARAM)},
    [T_PARAMPTR] = {IDX(T_PARAM)},
    [T_PARAM] = {FIX(2), FIX(2), STR},
    [T_INTERFACEIMPL] = {IDX(T_TYPEDEF), CODED(C_TYPEDEFORREF)},
    [T_MEMBERREF] = {CODED(C_MEMBERREFPARENT), STR, BLOB},
    [T_CONSTANT] = {FIX(2), CODED(C_HASCONSTANT), BLOB},
    [T_CUSTOMATTRIBUTE] = {CODED(C_HASCUSTOMATTRIBUTE), CODED(C_CUSTOMATTRIBUTETYPE), BLOB},
    [T_FIELDMARSHAL] = {CODED(C_HASFIELDMARSHAL), BLOB},
    [T_DECLSECURITY] = {FIX(2), CODED(C_HASDECLSECURITY), BLOB},
    [T_CLASSLAYOUT] = {FIX(2), FIX(4), IDX(T_TYPEDEF)},
    [T_FIELDLAYOUT] = {FIX(4), IDX(T_FIELD)},
    [T_STANDALONESIG] = {BLOB},
    [T_EVENTMAP] = {IDX(T_TYPEDEF), IDX(T_EVENT)},
    [T_EVENTPTR] = {IDX(T_EVENT)},
    [T_EVENT] = {FIX(2), STR, CODED(C_TYPEDEFORREF)},
    [T_PROPERTYMAP] = {IDX(T_TYPEDEF), IDX(T_PROPERTY)},
    [T_PROPERTYPTR] = {IDX(T_PROPERTY)},
    [T_PROPERTY] = {FIX(2), STR, BLOB},
    [T_METHODSEMANTICS] = {FIX(2), IDX(T_METHODDEF), CODED(C_HASSEMANTICS)},
    [T_METHODIMPL] = {IDX(T_TYPEDEF), CODED(C_METHODDEFORREF), CODED(C_METHODDEFORREF)},
    [T_MODULEREF] = {STR},
    [T_TYPESPEC] = {BLOB},
    [T_IMPLMAP] = {FIX(2), CODED(C_MEMBERFORWARDED), STR, IDX(T_MODULEREF)},
    [T_FIELDRVA] = {FIX(4), IDX(T_FIELD)},
    [T_ENCLOG] = {FIX(4), FIX(4)},
    [T_ENCMAP] = {FIX(4)},
    [T_ASSEMBLY] = {FIX(4), FIX(2), FIX(2), FIX(2), FIX(2), FIX(4), BLOB, STR, STR},
    [T_ASSEMBLYPROCESSOR] = {FIX(4)},
    [T_ASSEMBLYOS] = {FIX(4), FIX(4), FIX(4)},
    [T_ASSEMBLYREF] = {FIX(2), FIX(2), FIX(2), FIX(2), FIX(4), BLOB, STR, STR, BLOB},
    [T_ASSEMBLYREFPROCESSOR] = {FIX(4), IDX(T_ASSEMBLYREF)},
    [T_ASSEMBLYREFOS] = {FIX(4), FIX(4), FIX(4), IDX(T_ASSEMBLYREF)},
    [T_FILE] = {FIX(4), STR, BLOB},
    [T_EXPORTEDTYPE] = {FIX(4), FIX(4), STR, STR, CODED(C_IMPLEMENTATION)},
    [T_MANIFESTRESOURCE] = {FIX(4), FIX(4), STR, CODED(C_IMPLEMENTATION)},
    [T_NESTEDCLASS] = {IDX(T_TYPEDEF), IDX(T_TYPEDEF)},
    [T_GENERICPARAM] = {FIX(2), FIX(2), CODED(C_TYPEORMETHODDEF), STR},
    [T_METHODSPEC] = {CODED(C_METHODDEFORREF), BLOB},
};

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

/* 1 when [offset, offset + length) lies within size bytes. */
static int within(uint64_t offset, uint64_t length, uint64_t size)
{
    return offset <= size && length <= size - offset;
}

/* ---- the tables stream ---- */

typedef struct sizing {
    uint32_t rows[64];
    uint8_t heap_sizes;
} sizing;

static uint8_t coded_width(const sizing *s, unsigned kind)
{
    const coded_kind *k = &coded_kinds[kind];
    uint32_t most = 0;
    unsigned i;

    for (i = 0; i < k->count; i++)
        if (s->rows[k->tables[i]] > most)
            most = s->rows[k->tables[i]];
    return most < (1u << (16 - k->bits)) ? 2 : 4;
}

static uint8_t column_width(const sizing *s, column c)
{
    switch (c.kind) {
    case K_FIXED: return c.arg;
    case K_STRING: return (s->heap_sizes & 0x01) ? 4 : 2;
    case K_GUID: return (s->heap_sizes & 0x02) ? 4 : 2;
    case K_BLOB: return (s->heap_sizes & 0x04) ? 4 : 2;
    case K_INDEX: return s->rows[c.arg] < 0x10000u ? 2 : 4;
    default: return coded_width(s, c.arg);
    }
}

static uint32_t row_size(const sizing *s, unsigned table)
{
    uint32_t size = 0;
    unsigned i;

    for (i = 0; i < MDREAD_MAX_COLUMNS && !COLUMN_END(schema[table][i]); i++)
        size += column_width(s, schema[table][i]);
    return size;
}

static int open_tables(mdread *r, const uint8_t *stream, uint32_t size)
{
    const uint32_t header = 24;
    sizing s;
    uint64_t valid;
    uint32_t at, i;
    mdread_table tables[MDREAD_TABLES];

    memset(&s, 0, sizeof(s));
    memset(tables, 0, sizeof(tables));
    if (size < header)
        return -1;
    s.heap_sizes = stream[6];
    valid = rd64(stream + 8);
    r->nested_sorted = (rd64(stream + 16) >> T_NESTEDCLASS) & 1u;
    at = header;
    for (i = 0; i < 64; i++) {
        if (!((valid >> i) & 1u))
            continue;
        if (!within(at, 4, size))
            return -1;
        s.rows[i] = rd32(stream + at);
        if (s.rows[i] > 0x00FFFFFFu) /* a token's row number has 24 bits */
            return -1;
        at += 4;
    }
    if (s.heap_sizes & MDREAD_HEAP_EXTRA_DATA)
        at += 4;
    /* indirection and edit-and-continue tables: not the layout read here */
    if (s.rows[T_FIELDPTR] || s.rows[T_METHODPTR] || s.rows[T_PARAMPTR] || s.rows[T_EVENTPTR] ||
        s.rows[T_PROPERTYPTR] || s.rows[T_ENCLOG] || s.rows[T_ENCMAP])
        return -1;
    for (i = 0; i < MDREAD_TABLES; i++) {
        uint64_t bytes;

        if (!s.rows[i])
            continue;
        tables[i].count = s.rows[i];
        tables[i].row_size = row_size(&s, i);
        bytes = (uint64_t)tables[i].count * tables[i].row_size;
        if (!within(at, bytes, size))
            return -1;
        tables[i].rows = stream + at;
        at += (uint32_t)bytes;
    }
    r->type_ref = tables[T_TYPEREF];
    r->type_def = tables[T_TYPEDEF];
    r->method_def = tables[T_METHODDEF];
    r->type_spec = tables[T_TYPESPEC];
    r->nested_class = tables[T_NESTEDCLASS];
    r->member_ref = tables[T_MEMBERREF];
    r->method_spec = tables[T_METHODSPEC];
    r->parent_width = coded_width(&s, C_MEMBERREFPARENT);
    r->method_ref_width = coded_width(&s, C_METHODDEFORREF);
    r->string_width = (s.heap_sizes & 0x01) ? 4 : 2;
    r->blob_width = (s.heap_sizes & 0x04) ? 4 : 2;
    r->scope_width = coded_width(&s, C_RESOLUTIONSCOPE);
    r->extends_width = coded_width(&s, C_TYPEDEFORREF);
    r->field_width = s.rows[T_FIELD] < 0x10000u ? 2 : 4;
    r->method_width = s.rows[T_METHODDEF] < 0x10000u ? 2 : 4;
    r->param_width = s.rows[T_PARAM] < 0x10000u ? 2 : 4;
    r->type_def_width = s.rows[T_TYPEDEF] < 0x10000u ? 2 : 4;
    return 0;
}

/* ---- the metadata root ---- */

int mdread_open_metadata(mdread *r, const uint8_t *root, size_t size)
{
    const uint8_t *tables = NULL;
    uint32_t tables_size = 0, version_length, at, i, streams;

    memset(r, 0, sizeof(*r));
    if (!root || size < 20 || size > UINT32_MAX || rd32(root) != MDREAD_ROOT_SIGNATURE)
        return -1;
    version_length = rd32(root + 12);
    if (version_length > 255 || !within(16, (uint64_t)version_length + 4, size))
        return -1;
    at = 16 + version_length;
    streams = rd16(root + at + 2);
    at += 4;
    if (streams > MDREAD_MAX_STREAMS)
        return -1;
    for (i = 0; i < streams; i++) {
        uint32_t offset, length, name_length;
        const char *name;

        if (!within(at, 8, size))
            return -1;
        offset = rd32(root + at);
        length = rd32(root + at + 4);
        name = (const char *)root + at + 8;
        if (at + 8 >= size)
            return -1;
        name_length = (uint32_t)strnlen(name, size - at - 8 < 32 ? size - at - 8 : 32);
        if (name_length >= 32 || !within(at + 8, name_length + 1, size))
            return -1;
        if (!within(offset, length, size))
            return -1;
        if (strcmp(name, "#~") == 0) {
            tables = root + offset;
            tables_size = length;
        } else if (strcmp(name, "#-") == 0 || strcmp(name, "#JTD") == 0) {
            return -1; /* unoptimised or delta metadata: not read here */
        } else if (strcmp(name, "#Strings") == 0) {
            r->strings = root + offset;
            r->strings_size = length;
        } else if (strcmp(name, "#Blob") == 0) {
            r->blobs = root + offset;
            r->blobs_size = length;
        }
        at += 8 + ((name_length + 1 + 3) & ~3u);
    }
    if (!tables || !r->strings || !r->blobs || open_tables(r, tables, tables_size) != 0) {
        memset(r, 0, sizeof(*r));
        return -1;
    }
    return 0;
}

/* ---- the PE image ---- */

typedef struct pe_image {
    const uint8_t *base;
    uint64_t size; /* readable bytes (0: unknown) */
    int flat;
    const uint8_t *sections;
    unsigned section_count;
    uint32_t image_size;
} pe_image;

/* The bytes at `rva`, `length` of them, or NULL when they are not all in the
 * image as laid out. */
static const uint8_t *pe_at(const pe_image *pe, uint32_t rva, uint32_t length)
{
    unsigned i;

    for (i = 0; i < pe->section_count; i++) {
        const uint8_t *h = pe->sections + (size_t)i * 40;
        uint32_t virtual_size = rd32(h + 8), address = rd32(h + 12), raw_size = rd32(h + 16),
                 raw_at = rd32(h + 20);
        uint32_t span = pe->flat ? raw_size : (virtual_size > raw_size ? virtual_size : raw_size);
        uint64_t offset;

        if (rva < address || !within(rva - address, length, span))
            continue;
        if (pe->flat) {
            offset = (uint64_t)raw_at + (rva - address);
        } else {
            offset = rva;
            if (!within(offset, length, pe->image_size))
                return NULL;
        }
        if (pe->size && !within(offset, length, pe->size))
            return NULL;
        return pe->base + offset;
    }
    return NULL;
}

int mdread_open_image(mdread *r, const uint8_t *image, size_t size, int flat)
{
    pe_image pe = {.base = image, .size = size, .flat = flat};
    uint64_t limit = size ? size : MDREAD_HEADER_PAGE;
    uint32_t nt, optional_size, directories_at, cor_rva, md_rva, md_size;
    const uint8_t *optional, *cor, *root;
    uint16_t magic;

    memset(r, 0, sizeof(*r));
    if (!image || limit < 64 || rd16(image) != 0x5A4D) /* "MZ" */
        return -1;
    nt = rd32(image + 0x3C);
    if (!within(nt, 24, limit) || rd32(image + nt) != 0x00004550u) /* "PE\0\0" */
        return -1;
    pe.section_count = rd16(image + nt + 6);
    optional_size = rd16(image + nt + 20);
    optional = image + nt + 24;
    if (!within((uint64_t)nt + 24, optional_size, limit) || optional_size < 96)
        return -1;
    /* the data directories start at 96 (PE32) or 112 (PE32+), their count
     * in the 4 bytes before; the sizes first: the count and the directories
     * must be inside the optional header before they are read */
    magic = rd16(optional);
    directories_at = magic == 0x10b ? 96 : magic == 0x20b ? 112 : 0;
    if (!directories_at || optional_size < directories_at + 8 * 15 ||
        rd32(optional + directories_at - 4) <= MDREAD_COR_HEADER_DIRECTORY)
        return -1;
    cor = optional + directories_at + 8 * MDREAD_COR_HEADER_DIRECTORY;
    pe.image_size = rd32(optional + 56);
    pe.sections = optional + optional_size;
    if (pe.section_count == 0 || pe.section_count > 96 ||
        !within((uint64_t)nt + 24 + optional_size, (uint64_t)pe.section_count * 40, limit))
        return -1;
    cor_rva = rd32(cor);
    cor = pe_at(&pe, cor_rva, 72);
    if (!cor || rd32(cor) < 72)
        return -1;
    md_rva = rd32(cor + 8);
    md_size = rd32(cor + 12);
    root = pe_at(&pe, md_rva, md_size);
    if (!root)
        return -1;
    return mdread_open_metadata(r, root, md_size);
}

/* ---- reading rows ---- */

static uint32_t field(const uint8_t *row, uint32_t offset, uint8_t width)
{
    return width == 2 ? rd16(row + offset) : rd32(row + offset);
}

static const uint8_t *row_of(const mdread_table *t, uint32_t token, uint32_t type)
{
    uint32_t rid = token & 0x00FFFFFFu;

    if ((token & 0xFF000000u) != type || rid == 0 || rid > t->count)
        return NULL;
    return t->rows + (size_t)(rid - 1) * t->row_size;
}

static const char *string_at(const mdread *r, uint32_t offset)
{
    const char *s;

    if (offset >= r->strings_size)
        return NULL;
    s = (const char *)r->strings + offset;
    return memchr(s, '\0', r->strings_size - offset) ? s : NULL;
}

/* A blob's bytes (II.24.2.4: a compressed length, then the bytes). */
static int blob_at(const mdread *r, uint32_t offset, const uint8_t **out, uint32_t *length)
{
    const uint8_t *p = r->blobs + offset;
    uint32_t n, header;

    if (offset >= r->blobs_size)
        return -1;
    if (!(p[0] & 0x80)) {
        n = p[0];
        header = 1;
    } else if ((p[0] & 0xC0) == 0x80 && within(offset, 2, r->blobs_size)) {
        n = ((uint32_t)(p[0] & 0x3F) << 8) | p[1];
        header = 2;
    } else if ((p[0] & 0xE0) == 0xC0 && within(offset, 4, r->blobs_size)) {
        n = ((uint32_t)(p[0] & 0x1F) << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
        header = 4;
    } else {
        return -1;
    }
    if (!within((uint64_t)offset + header, n, r->blobs_size))
        return -1;
    *out = p + header;
    *length = n;
    return 0;
}

/* The TypeDef whose method list holds MethodDef row `rid`: the last type
 * whose MethodList starts at or before it (lists are in type order, an empty
 * list starts where the next one does). */
static uint32_t owner_of(const mdread *r, uint32_t rid)
{
    const mdread_table *t = &r->type_def;
    uint32_t offset = 4 + 2u * r->string_width + r->extends_width + r->field_width;
    uint32_t lo = 0, hi = t->count; /* answer in [lo, hi) after the loop: rows 1..count */

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t first = field(t->rows + (size_t)mid * t->row_size, offset, r->method_width);
        if (first <= rid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? MDREAD_TOKEN_TYPEDEF | lo : 0;
}

int mdread_knows(const mdread *r, uint32_t token)
{
    const mdread_table *t;

    switch (token & 0xFF000000u) {
    case MDREAD_TOKEN_TYPEREF: t = &r->type_ref; break;
    case MDREAD_TOKEN_TYPEDEF: t = &r->type_def; break;
    case MDREAD_TOKEN_METHODDEF: t = &r->method_def; break;
    case MDREAD_TOKEN_TYPESPEC: t = &r->type_spec; break;
    default: return 0;
    }
    return row_of(t, token, token & 0xFF000000u) != NULL;
}

int mdread_method_props(const mdread *r, uint32_t token, mdread_method *out)
{
    const uint8_t *row = row_of(&r->method_def, token, MDREAD_TOKEN_METHODDEF);

    if (!row)
        return -1;
    out->flags = rd16(row + 6);
    out->name = string_at(r, field(row, 8, r->string_width));
    if (!out->name ||
        blob_at(r, field(row, 8 + r->string_width, r->blob_width), &out->sig, &out->sig_len) != 0)
        return -1;
    out->owner = owner_of(r, token & 0x00FFFFFFu);
    return 0;
}

int mdread_type_def(const mdread *r, uint32_t token, const char **ns, const char **name,
                    uint32_t *flags)
{
    const uint8_t *row = row_of(&r->type_def, token, MDREAD_TOKEN_TYPEDEF);

    if (!row)
        return -1;
    *flags = rd32(row);
    *name = string_at(r, field(row, 4, r->string_width));
    *ns = string_at(r, field(row, 4 + r->string_width, r->string_width));
    return *name && *ns ? 0 : -1;
}

int mdread_enclosing(const mdread *r, uint32_t type_def, uint32_t *enclosing)
{
    const mdread_table *t = &r->nested_class;
    uint32_t rid = type_def & 0x00FFFFFFu, lo = 0, hi = t->count, i;
    uint8_t w = r->type_def_width;

    if ((type_def & 0xFF000000u) != MDREAD_TOKEN_TYPEDEF || !t->count)
        return -1;
    if (r->nested_sorted) {
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            uint32_t nested = field(t->rows + (size_t)mid * t->row_size, 0, w);
            if (nested < rid)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo;
        if (i < t->count && field(t->rows + (size_t)i * t->row_size, 0, w) == rid) {
            *enclosing = MDREAD_TOKEN_TYPEDEF | field(t->rows + (size_t)i * t->row_size, w, w);
            return 0;
        }
        return -1;
    }
    for (i = 0; i < t->count; i++) {
        if (field(t->rows + (size_t)i * t->row_size, 0, w) == rid) {
            *enclosing = MDREAD_TOKEN_TYPEDEF | field(t->rows + (size_t)i * t->row_size, w, w);
            return 0;
        }
    }
    return -1;
}

int mdread_type_ref(const mdread *r, uint32_t token, const char **ns, const char **name)
{
    const uint8_t *row = row_of(&r->type_ref, token, MDREAD_TOKEN_TYPEREF);

    if (!row)
        return -1;
    *name = string_at(r, field(row, r->scope_width, r->string_width));
    *ns = string_at(r, field(row, (uint32_t)r->scope_width + r->string_width, r->string_width));
    return *name && *ns ? 0 : -1;
}

int mdread_type_spec(const mdread *r, uint32_t token, const uint8_t **sig, uint32_t *len)
{
    const uint8_t *row = row_of(&r->type_spec, token, MDREAD_TOKEN_TYPESPEC);

    if (!row)
        return -1;
    return blob_at(r, field(row, 0, r->blob_width), sig, len);
}

int mdread_member_ref(const mdread *r, uint32_t token, mdread_member *out)
{
    static const uint32_t parents[8] = {MDREAD_TOKEN_TYPEDEF, MDREAD_TOKEN_TYPEREF, 0x1A000000u,
                                        MDREAD_TOKEN_METHODDEF, MDREAD_TOKEN_TYPESPEC};
    const uint8_t *row = row_of(&r->member_ref, token, MDREAD_TOKEN_MEMBERREF);
    uint32_t coded;

    if (!row)
        return -1;
    coded = field(row, 0, r->parent_width);
    if ((coded & 7u) > 4 || (coded >> 3) == 0 || (coded >> 3) > 0x00FFFFFFu)
        return -1; /* (a row past 24 bits would spill into the token's table) */
    out->parent = parents[coded & 7u] | (coded >> 3);
    out->name = string_at(r, field(row, r->parent_width, r->string_width));
    if (!out->name ||
        blob_at(r, field(row, (uint32_t)r->parent_width + r->string_width, r->blob_width),
                &out->sig, &out->sig_len) != 0)
        return -1;
    return 0;
}

int mdread_method_spec(const mdread *r, uint32_t token, uint32_t *method, const uint8_t **inst,
                       uint32_t *len)
{
    const uint8_t *row = row_of(&r->method_spec, token, MDREAD_TOKEN_METHODSPEC);
    uint32_t coded;

    if (!row)
        return -1;
    coded = field(row, 0, r->method_ref_width);
    if ((coded >> 1) == 0 || (coded >> 1) > 0x00FFFFFFu)
        return -1;
    *method = ((coded & 1u) ? MDREAD_TOKEN_MEMBERREF : MDREAD_TOKEN_METHODDEF) | (coded >> 1);
    return blob_at(r, field(row, r->method_ref_width, r->blob_width), inst, len);
}
