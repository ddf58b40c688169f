/* test_mdread.c -- the agent's direct metadata reader (proto/mdread.c) on real
 * assemblies: the test app's IL-only E2eTarget.dll and the runtime's
 * ReadyToRun System.Private.CoreLib.dll, read as files (flat layout) and laid
 * out the way the loader maps them (RVAs), then cut short and corrupted:
 * the reader must answer or decline, never read outside what it was given
 * (the ASan build of this test checks that). Run from the repository root with
 * JITSCOPE_TEST_DOTNET_PID set (tests/unit/with_dotnet.sh): the runtime's own
 * CoreLib is found in that process's mappings. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mdread.h"

#define E2E_DLL "build/apps/E2eTarget/E2eTarget.dll"

typedef struct file_bytes {
    uint8_t *data;
    size_t size;
} file_bytes;

static file_bytes read_file(const char *path)
{
    file_bytes f = {NULL, 0};
    FILE *fp = fopen(path, "rb");
    long n;

    if (!fp)
        return f;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) > 0 && fseek(fp, 0, SEEK_SET) == 0) {
        f.data = malloc((size_t)n);
        if (f.data && fread(f.data, 1, (size_t)n, fp) == (size_t)n)
            f.size = (size_t)n;
    }
    fclose(fp);
    if (!f.size) {
        free(f.data);
        f.data = NULL;
    }
    return f;
}

/* The path of System.Private.CoreLib.dll the live test runtime mapped. */
static int corelib_path(char *out, size_t outsz)
{
    const char *pid = getenv("JITSCOPE_TEST_DOTNET_PID");
    char maps[64], line[4096];
    FILE *fp;
    int found = 0;

    if (!pid)
        return -1;
    snprintf(maps, sizeof(maps), "/proc/%s/maps", pid);
    fp = fopen(maps, "r");
    if (!fp)
        return -1;
    while (!found && fgets(line, sizeof(line), fp)) {
        char *path = strchr(line, '/');
        if (path && strstr(path, "/System.Private.CoreLib.dll")) {
            path[strcspn(path, "\n")] = '\0';
            snprintf(out, outsz, "%s", path);
            found = 1;
        }
    }
    fclose(fp);
    return found ? 0 : -1;
}

/* The n bytes (2 or 4) at p, little-endian as PE files are. */
static uint32_t le(const uint8_t *p, size_t n)
{
    uint32_t v = 0;

    while (n--)
        v = v << 8 | p[n];
    return v;
}

/* The image as the loader maps it: each section at its RVA in SizeOfImage
 * bytes (the headers first). */
static file_bytes map_like_loader(const file_bytes *f)
{
    file_bytes m = {NULL, 0};
    uint32_t nt = le(f->data + 0x3C, 4), image_size, headers, i;
    uint16_t sections = le(f->data + nt + 6, 2), optional = le(f->data + nt + 20, 2);
    const uint8_t *table = f->data + nt + 24 + optional;

    image_size = le(f->data + nt + 24 + 56, 4);
    headers = le(f->data + nt + 24 + 60, 4);
    if (image_size == 0 || image_size > (1u << 30) || headers > f->size)
        return m;
    m.data = calloc(1, image_size);
    if (!m.data)
        return m;
    memcpy(m.data, f->data, headers < image_size ? headers : image_size);
    for (i = 0; i < sections; i++) {
        const uint8_t *h = table + (size_t)i * 40;
        uint32_t address = le(h + 12, 4), raw_size = le(h + 16, 4), raw_at = le(h + 20, 4);
        if (raw_at + (uint64_t)raw_size > f->size || address + (uint64_t)raw_size > image_size)
            continue;
        memcpy(m.data + address, f->data + raw_at, raw_size);
    }
    m.size = image_size;
    return m;
}

/* Finds the MethodDef named `method` declared by `type` (simple name). */
static uint32_t find_method(const mdread *r, const char *type, const char *method)
{
    uint32_t rid;

    for (rid = 1; rid <= r->method_def.count; rid++) {
        mdread_method m;
        const char *ns, *name;
        uint32_t flags;
        if (mdread_method_props(r, MDREAD_TOKEN_METHODDEF | rid, &m) == 0 &&
            strcmp(m.name, method) == 0 && mdread_type_def(r, m.owner, &ns, &name, &flags) == 0 &&
            strcmp(name, type) == 0)
            return MDREAD_TOKEN_METHODDEF | rid;
    }
    return 0;
}

/* Every question on every row; returns how many were answered. */
static unsigned ask_everything(const mdread *r)
{
    unsigned answered = 0;
    uint32_t rid;

    for (rid = 0; rid <= r->method_def.count + 1; rid++) {
        mdread_method m;
        answered += mdread_method_props(r, MDREAD_TOKEN_METHODDEF | rid, &m) == 0;
    }
    for (rid = 0; rid <= r->type_def.count + 1; rid++) {
        const char *ns, *name;
        uint32_t flags, enclosing;
        answered += mdread_type_def(r, MDREAD_TOKEN_TYPEDEF | rid, &ns, &name, &flags) == 0;
        answered += mdread_enclosing(r, MDREAD_TOKEN_TYPEDEF | rid, &enclosing) == 0;
    }
    for (rid = 0; rid <= r->type_ref.count + 1; rid++) {
        const char *ns, *name;
        answered += mdread_type_ref(r, MDREAD_TOKEN_TYPEREF | rid, &ns, &name) == 0;
    }
    for (rid = 0; rid <= r->type_spec.count + 1; rid++) {
        const uint8_t *sig;
        uint32_t len;
        answered += mdread_type_spec(r, MDREAD_TOKEN_TYPESPEC | rid, &sig, &len) == 0;
    }
    return answered;
}

TEST(il_only_assembly_as_file)
{
    file_bytes f = read_file(E2E_DLL);
    mdread r;
    mdread_method m;
    const char *ns = NULL, *name = NULL;
    uint32_t token, flags = 0, enclosing = 0, rid;
    int object_ref = 0, ok;

    if (!CHECK(f.data != NULL, "%s read (make apps builds it)", E2E_DLL))
        return;
    CHECK(mdread_open_image(&r, f.data, f.size, 1) == 0, "the file's metadata opens");
    CHECK(r.method_def.count > 50 && r.type_def.count > 10, "%u methods, %u types",
          r.method_def.count, r.type_def.count);
    token = find_method(&r, "Probe", "UniqueAlpha");
    CHECK(token != 0, "Probe::UniqueAlpha found");
    ok = mdread_method_props(&r, token, &m) == 0 &&
         mdread_type_def(&r, m.owner, &ns, &name, &flags) == 0;
    CHECK(ok && strcmp(ns, "JitscopeE2e") == 0 && strcmp(name, "Probe") == 0,
          "declared by JitscopeE2e.Probe (%s.%s)", ok ? ns : "?", ok ? name : "?");
    CHECK(m.sig_len >= 3 && m.sig[0] == 0x00 && m.sig[1] == 0, "its signature blob: %u bytes",
          m.sig_len);
    token = find_method(&r, "Inner", "UniqueNested");
    CHECK(token != 0 && mdread_method_props(&r, token, &m) == 0 &&
              mdread_enclosing(&r, m.owner, &enclosing) == 0 &&
              mdread_type_def(&r, enclosing, &ns, &name, &flags) == 0 &&
              strcmp(name, "Outer") == 0 && strcmp(ns, "JitscopeE2e") == 0,
          "Outer+Inner: the enclosing type of Inner is JitscopeE2e.Outer");
    CHECK(mdread_type_def(&r, MDREAD_TOKEN_TYPEDEF | 1, &ns, &name, &flags) == 0 &&
              strcmp(name, "<Module>") == 0,
          "typedef 1 is <Module>");
    CHECK(mdread_enclosing(&r, MDREAD_TOKEN_TYPEDEF | 1, &enclosing) != 0,
          "a type that is not nested has no enclosing type");
    for (rid = 1; rid <= r.type_ref.count; rid++)
        if (mdread_type_ref(&r, MDREAD_TOKEN_TYPEREF | rid, &ns, &name) == 0 &&
            strcmp(ns, "System") == 0 && strcmp(name, "Object") == 0)
            object_ref = 1;
    CHECK(object_ref, "a TypeRef to System.Object among %u", r.type_ref.count);
    CHECK(mdread_knows(&r, MDREAD_TOKEN_METHODDEF | r.method_def.count) &&
              !mdread_knows(&r, MDREAD_TOKEN_METHODDEF | (r.method_def.count + 1)) &&
              !mdread_knows(&r, MDREAD_TOKEN_TYPEDEF) && !mdread_knows(&r, 0x0A000001u),
          "known: the last method; not: a row added at run time, row 0, a MemberRef");
    CHECK(mdread_method_props(&r, MDREAD_TOKEN_METHODDEF | (r.method_def.count + 1), &m) != 0 &&
              mdread_method_props(&r, MDREAD_TOKEN_TYPEDEF | 1, &m) != 0 &&
              mdread_method_props(&r, MDREAD_TOKEN_METHODDEF, &m) != 0,
          "tokens past the table, of another table, or row 0 are refused");
    free(f.data);
}

/* The same names from the file and from the loader's layout, also for the
 * runtime's CoreLib (ReadyToRun, about 100,000 methods). */
static void compare_layouts(const char *path, uint32_t min_methods)
{
    file_bytes f = read_file(path), mapped;
    mdread flat, rva;
    unsigned differ = 0, answered;
    uint32_t rid;

    if (!CHECK(f.data != NULL, "%s read", path))
        return;
    mapped = map_like_loader(&f);
    CHECK(mdread_open_image(&flat, f.data, f.size, 1) == 0, "%s opens as a file", path);
    CHECK(mapped.data && mdread_open_image(&rva, mapped.data, mapped.size, 0) == 0,
          "%s opens as mapped", path);
    CHECK(flat.method_def.count >= min_methods && flat.method_def.count == rva.method_def.count,
          "%u methods either way (at least %u)", flat.method_def.count, min_methods);
    for (rid = 1; rid <= flat.method_def.count && rid <= rva.method_def.count; rid++) {
        mdread_method a, b;
        if (mdread_method_props(&flat, MDREAD_TOKEN_METHODDEF | rid, &a) != 0 ||
            mdread_method_props(&rva, MDREAD_TOKEN_METHODDEF | rid, &b) != 0 ||
            strcmp(a.name, b.name) != 0 || a.owner != b.owner || a.sig_len != b.sig_len ||
            memcmp(a.sig, b.sig, a.sig_len) != 0)
            differ++;
    }
    CHECK(differ == 0, "every method the same from both layouts (%u differ)", differ);
    answered = ask_everything(&rva);
    CHECK(answered > flat.method_def.count, "%u questions answered on every row", answered);
    free(f.data);
    free(mapped.data);
}

TEST(layouts_agree)
{
    char corelib[4096];

    compare_layouts(E2E_DLL, 50);
    if (CHECK(corelib_path(corelib, sizeof(corelib)) == 0,
              "the test runtime's System.Private.CoreLib.dll found in its mappings"))
        compare_layouts(corelib, 20000);
}

TEST(corelib_names)
{
    char path[4096];
    file_bytes f;
    mdread r;
    uint32_t token;
    mdread_method m;
    const char *ns = NULL, *name = NULL;
    uint32_t flags, enclosing;
    int ok;

    if (!CHECK(corelib_path(path, sizeof(path)) == 0, "CoreLib found"))
        return;
    f = read_file(path);
    if (!CHECK(f.data && mdread_open_image(&r, f.data, f.size, 1) == 0, "CoreLib opens"))
        goto done;
    token = find_method(&r, "String", "Concat");
    CHECK(token && mdread_method_props(&r, token, &m) == 0 &&
              mdread_type_def(&r, m.owner, &ns, &name, &flags) == 0 && strcmp(ns, "System") == 0,
          "System.String::Concat");
    token = find_method(&r, "Enumerator", "MoveNext");
    ok = token && mdread_method_props(&r, token, &m) == 0 &&
         mdread_enclosing(&r, m.owner, &enclosing) == 0 &&
         mdread_type_def(&r, enclosing, &ns, &name, &flags) == 0;
    CHECK(ok && strcmp(ns, "System") == 0 && strcmp(name, "ArraySegment`1") == 0,
          "the first Enumerator::MoveNext is System.ArraySegment`1+Enumerator's (%s.%s)",
          ok ? ns : "?", ok ? name : "?");
done:
    free(f.data);
}

/* Every prefix of the headers, then coarser cuts: decline or answer, within
 * the bytes given (each cut is its own allocation, so ASan sees any overrun). */
TEST(cut_short)
{
    file_bytes f = read_file(E2E_DLL);
    unsigned opened = 0, cuts = 0;
    size_t n;

    if (!CHECK(f.data != NULL, "read"))
        return;
    for (n = 1; n < f.size; n += n < 4096 ? 1 : 97) { /* (0 would mean "size unknown") */
        uint8_t *cut = malloc(n);
        mdread r;
        if (!cut)
            break;
        memcpy(cut, f.data, n);
        if (mdread_open_image(&r, cut, n, 1) == 0) {
            opened++;
            ask_everything(&r);
        }
        cuts++;
        free(cut);
    }
    CHECK(cuts > 4000, "%u cuts tried, %u opened (the tail of the file is not metadata)", cuts,
          opened);
    free(f.data);
}

/* Random bytes changed in the metadata: decline or answer, never overrun. */
TEST(corrupted)
{
    file_bytes f = read_file(E2E_DLL);
    mdread good;
    uint64_t seed = 0x6A69747363617065ull;
    unsigned round, opened = 0;
    size_t md_at, md_size;

    if (!CHECK(f.data && mdread_open_image(&good, f.data, f.size, 1) == 0, "read"))
        goto done;
    md_at = (size_t)(good.strings - f.data);
    /* the metadata root is before the heaps; corrupt from the start of the
     * first section to the end of the file */
    md_at = md_at > 4096 ? md_at - 4096 : 0;
    md_size = f.size - md_at;
    for (round = 0; round < 3000; round++) {
        uint8_t *copy = malloc(f.size);
        mdread r;
        unsigned k, flips;
        if (!copy)
            break;
        memcpy(copy, f.data, f.size);
        flips = 1 + (unsigned)(check_random(&seed) % 8);
        for (k = 0; k < flips; k++) {
            uint64_t r = check_random(&seed);
            copy[md_at + (size_t)(r % md_size)] ^= (uint8_t)(1u << ((r >> 32) % 8));
        }
        if (mdread_open_image(&r, copy, f.size, 1) == 0) {
            opened++;
            ask_everything(&r);
        }
        free(copy);
    }
    CHECK(opened > 0, "%u of 3000 corrupted copies opened and were asked everything", opened);
done:
    free(f.data);
}

TEST(unoptimised_metadata_declined)
{
    file_bytes f = read_file(E2E_DLL);
    mdread r;
    uint8_t *tilde;

    if (!CHECK(f.data != NULL, "read"))
        return;
    tilde = memmem(f.data, f.size, "#~\0", 3);
    if (CHECK(tilde != NULL, "the tables stream's name found")) {
        tilde[1] = '-';
        CHECK(mdread_open_image(&r, f.data, f.size, 1) != 0, "a \"#-\" tables stream is declined");
    }
    free(f.data);
}

static const check_test tests[] = {
    TEST_ENTRY(il_only_assembly_as_file),
    TEST_ENTRY(layouts_agree),
    TEST_ENTRY(corelib_names),
    TEST_ENTRY(cut_short),
    TEST_ENTRY(corrupted),
    TEST_ENTRY(unoptimised_metadata_declined),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
