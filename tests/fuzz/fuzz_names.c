/* fuzz_names.c -- libFuzzer target for agent/names.c, the metadata name
 * formatter (names_format_type, names_format_method).
 *
 * The names and the shape of the tree come from a module's metadata, so they
 * are as hostile as the module: the input is read as a small program that
 * builds up to 16 type nodes and one method. Names are byte strings of the
 * input (any bytes but NUL, "`N" arity suffixes included); a node's enclosing
 * type, element type and type arguments point at any node, itself and later
 * ones too, so cycles and over-deep trees are built on purpose; argument
 * counts and ranks go past the formatter's limits. The first and the last
 * node and the method are formatted into buffers of several sizes. Checked: the result is
 * NUL-terminated inside its buffer and its length is what was returned, and a
 * smaller buffer holds the same text as the largest one, or a prefix of it
 * ending in "...".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "names.h"

#define FUZZ_NODES 16
#define FUZZ_BIG 4096

typedef struct fuzz_reader {
    const uint8_t *p;
    size_t left;
} fuzz_reader;

static unsigned fuzz_byte(fuzz_reader *r)
{
    if (!r->left)
        return 0;
    r->left--;
    return *r->p++;
}

/* A name: a length byte, then that many bytes (NUL ends it early); length
 * 255 is no name at all (NULL). Copied into its own exact allocation. */
static char *fuzz_name(fuzz_reader *r, char **owned, unsigned *owned_count)
{
    unsigned n = fuzz_byte(r);
    char *s;
    size_t i;

    if (n == 255)
        return NULL;
    s = malloc(n + 1u);
    FUZZ_REQUIRE(s != NULL);
    for (i = 0; i < n && r->left && *r->p; i++)
        s[i] = (char)fuzz_byte(r);
    s[i] = '\0';
    owned[(*owned_count)++] = s;
    return s;
}

/* A node reference: 0 is none, k is node (k - 1) % FUZZ_NODES. */
static const names_type *fuzz_ref(fuzz_reader *r, const names_type *nodes)
{
    unsigned k = fuzz_byte(r);
    return k ? &nodes[(k - 1) % FUZZ_NODES] : NULL;
}

static void fuzz_check(size_t (*format)(const void *, char *, size_t), const void *what)
{
    static const size_t sizes[] = {4, 5, 7, 16, 33, 128};
    char *big = malloc(FUZZ_BIG);
    size_t big_len;

    FUZZ_REQUIRE(big != NULL);
    big_len = format(what, big, FUZZ_BIG);
    FUZZ_REQUIRE(big_len < FUZZ_BIG && memchr(big, '\0', FUZZ_BIG) == big + big_len);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char *out = malloc(sizes[k]);
        size_t len;

        FUZZ_REQUIRE(out != NULL);
        len = format(what, out, sizes[k]);
        FUZZ_REQUIRE(len < sizes[k] && memchr(out, '\0', sizes[k]) == out + len);
        if (big_len < sizes[k]) {
            FUZZ_REQUIRE(len == big_len && memcmp(out, big, len) == 0);
        } else {
            FUZZ_REQUIRE(len >= 3 && memcmp(out + len - 3, "...", 3) == 0);
            FUZZ_REQUIRE(memcmp(out, big, len - 3) == 0);
        }
        free(out);
    }
    free(big);
}

static size_t fuzz_format_type(const void *t, char *out, size_t outsz)
{
    return names_format_type(t, out, outsz);
}

static size_t fuzz_format_method(const void *m, char *out, size_t outsz)
{
    return names_format_method(m, out, outsz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    names_type nodes[FUZZ_NODES];
    names_method m;
    char *owned[FUZZ_NODES + 1];
    unsigned owned_count = 0, count, i, k;
    fuzz_reader r = {data, size};

    memset(nodes, 0, sizeof(nodes));
    memset(&m, 0, sizeof(m));
    count = 1 + fuzz_byte(&r) % FUZZ_NODES;
    for (i = 0; i < count; i++) {
        names_type *t = &nodes[i];
        t->name = fuzz_name(&r, owned, &owned_count);
        t->enclosing = fuzz_ref(&r, nodes);
        t->nargs = fuzz_byte(&r) % 12; /* past NAMES_MAX_ARGS too */
        for (k = 0; k < NAMES_MAX_ARGS; k++)
            t->args[k] = k < t->nargs ? fuzz_ref(&r, nodes) : NULL;
        t->array_rank = fuzz_byte(&r) % 40 == 1 ? fuzz_byte(&r) : 0; /* up to 255 */
        t->element = t->array_rank ? fuzz_ref(&r, nodes) : NULL;
    }
    m.owner = fuzz_ref(&r, nodes);
    m.name = fuzz_name(&r, owned, &owned_count);
    m.generic_arity = fuzz_byte(&r);
    m.generic_arity |= (unsigned)fuzz_byte(&r) << 8 | (unsigned)fuzz_byte(&r) << 24;
    m.nargs = fuzz_byte(&r) % 12;
    for (k = 0; k < NAMES_MAX_ARGS; k++)
        m.args[k] = k < m.nargs ? fuzz_ref(&r, nodes) : NULL;

    fuzz_check(fuzz_format_type, &nodes[0]); /* the others are reached from these */
    fuzz_check(fuzz_format_type, &nodes[count - 1]);
    fuzz_check(fuzz_format_method, &m);
    for (i = 0; i < owned_count; i++)
        free(owned[i]);
    return 0;
}
