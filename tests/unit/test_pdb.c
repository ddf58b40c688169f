/* test_pdb.c -- unit tests for server/pdb.c (a portable PDB's documents and
 * sequence points) and server/pefile.c (an assembly's debug directory), on a
 * PDB built here byte by byte: compressed integers of 1, 2 and 4 bytes and
 * signed deltas, a document name of parts joined by its separator, hidden
 * points (0xFEEFEE), a method whose document comes in its blob and changes
 * half-way, a method without points, a blob cut short, and headers that lie.
 * The same reader against real PDBs (every method of the test apps, beside
 * and embedded, compared with System.Reflection.Metadata) is tests/e2e/pdb.test.mjs.
 * Build: make build/tests/test_pdb && build/tests/test_pdb
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "pdb.h"
#include "pefile.h"

typedef struct buf {
    uint8_t b[4096];
    size_t n;
} buf;

static void put(buf *o, const void *p, size_t n)
{
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
static void put8(buf *o, unsigned v) { o->b[o->n++] = (uint8_t)v; }
static void put16(buf *o, unsigned v)
{
    put8(o, v & 0xFF);
    put8(o, v >> 8);
}
static void put32(buf *o, uint32_t v)
{
    put16(o, v & 0xFFFF);
    put16(o, v >> 16);
}
/* A blob: its length, then its bytes; returns its index. */
static unsigned blob(buf *heap, const void *p, size_t n)
{
    unsigned at = (unsigned)heap->n;
    put8(heap, (unsigned)n);
    put(heap, p, n);
    return at;
}
/* A 1-byte compressed signed integer (-64..63). */
static uint8_t sgn(int v) { return (uint8_t)(((unsigned)v & 0x3Fu) << 1 | (v < 0)); }

static buf pdb_bytes;
static const uint8_t pdb_id[PDB_ID_SIZE] = {1,  2,  3,  4,  5,  6,  7,    8,    9,    10,
                                            11, 12, 13, 14, 15, 16, 0xAA, 0xBB, 0xCC, 0xDD};

/* The test PDB: documents "/src/a.cs" and "gen.cs"; methods 1 (points in
 * document 1), 2 (its document in the blob, then a change to 2), 3 (none),
 * 4 (a blob cut short). */
static void build_pdb(void)
{
    buf heap = {{0}, 1}, tables = {{0}, 0}, pdbs = {{0}, 0}, *o = &pdb_bytes;
    unsigned src = blob(&heap, "src", 3), a = blob(&heap, "a.cs", 4),
             gen = blob(&heap, "gen.cs", 6);
    const uint8_t name1[] = {'/', 0, (uint8_t)src, (uint8_t)a}, name2[] = {0, (uint8_t)gen};
    unsigned doc1 = blob(&heap, name1, sizeof(name1)), doc2 = blob(&heap, name2, sizeof(name2));
    /* method 1: IL 0 at 10:5-10:15; IL 4 hidden; IL 0x204 at 13:3-15:2 */
    const uint8_t m1[] = {
        0,    0, 0, 10,      10,     5, /* local sig, IL 0, δlines 0, δcols 10, line 10, col 5 */
        4,    0, 0,                     /* IL +4: hidden */
        0x82, 0, 2, sgn(-1), sgn(3), sgn(-2)}; /* IL +0x200, 2 lines, cols -1, line +3, col -2 */
    /* method 2: initial document 1; IL 0 at 20:1-20:5; document 2; IL 6 at 5:1-5:2 */
    const uint8_t m2[] = {0, 1, 0, 0, 4, 20, 1, 0, 2, 6, 0, 1, sgn(-15), sgn(0)};
    const uint8_t m4[] = {0, 0, 0, 0x82}; /* cut inside a 2-byte integer */
    unsigned b1 = blob(&heap, m1, sizeof(m1)), b2 = blob(&heap, m2, sizeof(m2)),
             b4 = blob(&heap, m4, sizeof(m4));
    size_t at_streams, offsets[4];
    const char *names[4] = {"#Pdb", "#~", "#Blob", "#GUID"};
    const buf *streams[4];
    buf guid = {{0}, 16};
    int i;

    put(&pdbs, pdb_id, PDB_ID_SIZE);
    put32(&pdbs, 0);
    put32(&pdbs, 0), put32(&pdbs, 0); /* no type system tables referenced */
    put32(&tables, 0);
    put8(&tables, 2), put8(&tables, 0), put8(&tables, 0), put8(&tables, 1); /* 2-byte indexes */
    put32(&tables, 0), put32(&tables, 3u << 16);                            /* valid: 0x30, 0x31 */
    put32(&tables, 0), put32(&tables, 0);
    put32(&tables, 2), put32(&tables, 4); /* rows */
    put16(&tables, doc1), put16(&tables, 0), put16(&tables, 0), put16(&tables, 0);
    put16(&tables, doc2), put16(&tables, 0), put16(&tables, 0), put16(&tables, 0);
    put16(&tables, 1), put16(&tables, b1);
    put16(&tables, 0), put16(&tables, b2);
    put16(&tables, 1), put16(&tables, 0);
    put16(&tables, 1), put16(&tables, b4);
    while (heap.n % 4)
        put8(&heap, 0);
    streams[0] = &pdbs, streams[1] = &tables, streams[2] = &heap, streams[3] = &guid;

    o->n = 0;
    put32(o, 0x424A5342u), put16(o, 1), put16(o, 1), put32(o, 0), put32(o, 12);
    put(o, "PDB v1.0\0\0\0\0", 12);
    put16(o, 0), put16(o, 4);
    at_streams = o->n;
    for (i = 0; i < 4; i++) { /* headers, offsets filled below */
        put32(o, 0), put32(o, (uint32_t)streams[i]->n);
        put(o, names[i], strlen(names[i]) + 1);
        while (o->n % 4)
            put8(o, 0);
    }
    for (i = 0; i < 4; i++) {
        offsets[i] = o->n;
        put(o, streams[i]->b, streams[i]->n);
        while (o->n % 4)
            put8(o, 0);
    }
    for (i = 0; i < 4; i++) { /* back into the headers */
        size_t h = at_streams, k;
        for (k = 0; k < (size_t)i; k++)
            h += 8 + (strlen(names[k]) + 4) / 4 * 4;
        o->b[h] = (uint8_t)offsets[i], o->b[h + 1] = (uint8_t)(offsets[i] >> 8);
    }
}

TEST(documents_and_ids)
{
    pdb p;
    char err[256], name[64], small[5];

    build_pdb();
    CHECK(pdb_open(&p, pdb_bytes.b, pdb_bytes.n, err, sizeof(err)) == 0, "opens: %s", err);
    CHECK(memcmp(p.id, pdb_id, PDB_ID_SIZE) == 0, "its id from #Pdb");
    CHECK(p.document_count == 2 && p.method_count == 4, "rows %u %u", p.document_count,
          p.method_count);
    CHECK(pdb_document_name(&p, 1, name, sizeof(name)) == 9 && strcmp(name, "/src/a.cs") == 0,
          "parts joined by the separator, an empty first part: %s", name);
    CHECK(pdb_document_name(&p, 2, name, sizeof(name)) == 6 && strcmp(name, "gen.cs") == 0,
          "no separator: %s", name);
    CHECK(pdb_document_name(&p, 1, small, sizeof(small)) == 9 && strcmp(small, "/src") == 0,
          "cut to the buffer, the full length returned");
    CHECK(pdb_document_name(&p, 0, name, sizeof(name)) < 0 &&
              pdb_document_name(&p, 3, name, sizeof(name)) < 0,
          "rows outside the table");
}

TEST(sequence_points)
{
    pdb p;
    pdb_point pt[8];
    char err[256];
    long n;

    build_pdb();
    CHECK(pdb_open(&p, pdb_bytes.b, pdb_bytes.n, err, sizeof(err)) == 0, "opens: %s", err);
    n = pdb_method_points(&p, 1, pt, 8, err, sizeof(err));
    CHECK(n == 3, "method 1: 3 points (%ld: %s)", n, err);
    CHECK(pt[0].il_offset == 0 && pt[0].start_line == 10 && pt[0].start_column == 5 &&
              pt[0].end_line == 10 && pt[0].end_column == 15 && !pt[0].hidden &&
              pt[0].document == 1,
          "the first: absolute line and column, the end by deltas");
    CHECK(pt[1].il_offset == 4 && pt[1].hidden && pt[1].start_line == PDB_HIDDEN_LINE,
          "a hidden point: no line");
    CHECK(pt[2].il_offset == 0x204 && pt[2].start_line == 13 && pt[2].start_column == 3 &&
              pt[2].end_line == 15 && pt[2].end_column == 2,
          "a 2-byte IL delta, signed deltas from the last visible point (%u %u:%u-%u:%u)",
          pt[2].il_offset, pt[2].start_line, pt[2].start_column, pt[2].end_line, pt[2].end_column);
    n = pdb_method_points(&p, 2, pt, 8, err, sizeof(err));
    CHECK(n == 2 && pt[0].document == 1 && pt[0].start_line == 20 && pt[1].document == 2 &&
              pt[1].il_offset == 6 && pt[1].start_line == 5 && pt[1].start_column == 1,
          "the initial document in the blob, then a document record");
    CHECK(pdb_method_points(&p, 3, pt, 8, err, sizeof(err)) == 0, "no points");
    CHECK(pdb_method_points(&p, 4, pt, 8, err, sizeof(err)) < 0 && strstr(err, "row 4"),
          "a blob cut short is an error: %s", err);
    CHECK(pdb_method_points(&p, 5, pt, 8, err, sizeof(err)) == 0 &&
              pdb_method_points(&p, 0, pt, 8, err, sizeof(err)) == 0,
          "rows outside the table have none");
    CHECK(pdb_method_points(&p, 1, pt, 1, err, sizeof(err)) == 3 && pt[0].start_line == 10,
          "the count when the buffer is smaller");
}

TEST(lying_headers)
{
    uint8_t copy[4096];
    pdb p;
    char err[256];
    size_t cut;

    build_pdb();
    for (cut = 0; cut < pdb_bytes.n; cut += 7)
        CHECK(pdb_open(&p, pdb_bytes.b, cut, err, sizeof(err)) != 0 || cut >= pdb_bytes.n - 16,
              "cut to %zu bytes: refused (%s)", cut, err);
    memcpy(copy, pdb_bytes.b, pdb_bytes.n);
    copy[0] = 'X';
    CHECK(pdb_open(&p, copy, pdb_bytes.n, err, sizeof(err)) != 0 && strstr(err, "BSJB"),
          "no signature: %s", err);
}

TEST(compressed_integers)
{
    const uint8_t one[] = {0x7F}, two[] = {0xBF, 0xFF}, four[] = {0xDF, 0xFF, 0xFF, 0xFF},
                  bad[] = {0xE0, 0, 0, 0}, neg[] = {0x7F}, neg2[] = {0x80, 0x01};
    const uint8_t *at;
    uint32_t u;
    int32_t s;

    at = one;
    CHECK(pdb_read_uint(&at, one + 1, &u) == 0 && u == 0x7F && at == one + 1, "1 byte");
    at = two;
    CHECK(pdb_read_uint(&at, two + 2, &u) == 0 && u == 0x3FFF, "2 bytes");
    at = four;
    CHECK(pdb_read_uint(&at, four + 4, &u) == 0 && u == 0x1FFFFFFF, "4 bytes");
    at = four;
    CHECK(pdb_read_uint(&at, four + 3, &u) != 0, "4 bytes cut short");
    at = bad;
    CHECK(pdb_read_uint(&at, bad + 4, &u) != 0, "no 5-byte form");
    at = neg;
    CHECK(pdb_read_int(&at, neg + 1, &s) == 0 && s == -1, "-1 in 1 byte");
    at = neg2;
    CHECK(pdb_read_int(&at, neg2 + 2, &s) == 0 && s == -8192, "-8192 in 2 bytes: %d", s);
}

TEST(pe_debug_directory)
{
    uint8_t pe[1024] = {0};
    pefile_span dir = {0, 0};
    pefile_debug d;
    char err[256];
    uint8_t entries[2 * 28] = {0};

    pe[0] = 'M', pe[1] = 'Z', pe[0x3C] = 0x80;
    memcpy(pe + 0x80, "PE\0\0", 4);
    pe[0x80 + 6] = 1;                                       /* one section */
    pe[0x80 + 20] = 0xF0;                                   /* optional header size */
    pe[0x98] = 0x0B, pe[0x99] = 0x02;                       /* PE32+ */
    pe[0x98 + 108] = 16;                                    /* data directories */
    pe[0x98 + 112 + 48] = 0x10, pe[0x98 + 112 + 49] = 0x20; /* debug RVA 0x2010 */
    pe[0x98 + 112 + 52] = 56;                               /* 2 entries */
    memcpy(pe + 0x98 + 0xF0, ".text", 5);
    pe[0x98 + 0xF0 + 8 + 1] = 0x10;  /* virtual size 0x1000 */
    pe[0x98 + 0xF0 + 12 + 1] = 0x20; /* at RVA 0x2000 */
    pe[0x98 + 0xF0 + 16 + 1] = 0x02; /* 0x200 bytes */
    pe[0x98 + 0xF0 + 20 + 1] = 0x02; /* from file offset 0x200 */
    CHECK(pefile_debug_directory(pe, sizeof(pe), &dir, err, sizeof(err)) == 0 &&
              dir.offset == 0x210 && dir.size == 56,
          "the debug directory by its section (%u %u: %s)", dir.offset, dir.size, err);
    entries[4] = 0x44, entries[10] = 0x4D, entries[11] = 0x50, entries[12] = 2; /* CodeView */
    entries[16] = 40, entries[24] = 0x80;
    entries[28 + 12] = 17, entries[28 + 16] = 9, entries[28 + 24] = 0xA0; /* embedded */
    CHECK(pefile_debug_entries(entries, sizeof(entries), &d, err, sizeof(err)) == 0 &&
              d.have_codeview && d.codeview.offset == 0x80 && d.codeview_stamp == 0x44 &&
              d.codeview_minor == 0x504D && d.have_embedded && d.embedded.offset == 0xA0,
          "the CodeView and embedded entries");
    CHECK(pefile_debug_entries(entries, 30, &d, err, sizeof(err)) != 0, "not whole entries");
    CHECK(pefile_embedded_size((const uint8_t *)"MPDB\xff\xff\xff\x7f", 8, err, sizeof(err)) < 0,
          "an embedded PDB claiming 2 GiB is refused: %s", err);
    pe[0x3C] = 0xF0, pe[0x3D] = 0x03;
    CHECK(pefile_debug_directory(pe, sizeof(pe), &dir, err, sizeof(err)) != 0,
          "a PE header outside the bytes: %s", err);
}

static const check_test tests[] = {
    TEST_ENTRY(documents_and_ids),   TEST_ENTRY(sequence_points),    TEST_ENTRY(lying_headers),
    TEST_ENTRY(compressed_integers), TEST_ENTRY(pe_debug_directory), TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
