/* names.c -- formatting of method and type names (see names.h for the forms).
 * Input comes from names_resolve.c (real metadata), unit tests and
 * tests/fuzz/fuzz_names.c. Once the output is full the walk stops: a tree
 * whose nodes share arguments (8 per level, 6 levels) is otherwise millions
 * of visits for one name; the work is bounded by the output's size. */
#include "names.h"

#include <string.h>

typedef struct names_buf {
    char *p;
    size_t cap; /* usable bytes, NUL excluded */
    size_t len;
    int truncated;
} names_buf;

static void nb_put(names_buf *b, const char *s, size_t n)
{
    if (b->truncated)
        return;
    if (n > b->cap - b->len) {
        n = b->cap - b->len;
        b->truncated = 1;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void nb_puts(names_buf *b, const char *s) { nb_put(b, s, strlen(s)); }

/* Length of a metadata name without its "`N" arity suffix; *arity gets N (0 if none). */
static size_t names_base_length(const char *name, unsigned *arity)
{
    const char *tick = strrchr(name, '`');
    const char *d;
    unsigned n = 0;

    *arity = 0;
    if (!tick || tick[1] == '\0')
        return strlen(name);
    for (d = tick + 1; *d; d++) {
        if (*d < '0' || *d > '9' || n > 1000)
            return strlen(name);
        n = n * 10 + (unsigned)(*d - '0');
    }
    *arity = n;
    return (size_t)(tick - name);
}

static void names_put_type(names_buf *b, const names_type *t, unsigned depth);

static void names_put_args(names_buf *b, const names_type *const *args, unsigned from,
                           unsigned count, unsigned known, unsigned depth)
{
    unsigned i;

    nb_puts(b, "<");
    for (i = from; i < from + count && !b->truncated; i++) {
        if (i > from)
            nb_puts(b, ",");
        if (i >= NAMES_MAX_ARGS || i >= known || !args[i]) {
            nb_puts(b, "...");
            break;
        }
        names_put_type(b, args[i], depth + 1);
    }
    nb_puts(b, ">");
}

static unsigned names_arity(const names_type *t)
{
    unsigned arity;

    names_base_length(t->name ? t->name : "?", &arity);
    return arity;
}

/* One level of a (possibly nested) type name. A nested type's instantiation
 * lists the enclosing types' parameters first, outermost first; each level takes
 * as many as its own "`N" says, so this level's first argument comes after all
 * of its enclosing levels' (also those cut off by the depth limit). */
static void names_put_level(names_buf *b, const names_type *t, const names_type *inst,
                            unsigned depth)
{
    const names_type *e;
    unsigned arity = names_arity(t), offset = 0, hops;
    size_t base = names_base_length(t->name ? t->name : "?", &arity);

    for (e = t->enclosing, hops = 0; e && hops < 64; e = e->enclosing, hops++)
        offset += names_arity(e);
    if (b->truncated)
        return;
    if (t->enclosing) {
        if (depth < NAMES_MAX_DEPTH)
            names_put_level(b, t->enclosing, inst, depth + 1);
        else
            nb_puts(b, "...");
        nb_puts(b, "+");
    }
    if (inst->nargs == 0 || arity == 0) {
        nb_puts(b, t->name ? t->name : "?");
        return;
    }
    nb_put(b, t->name, base);
    if (offset + arity > inst->nargs) {
        nb_puts(b, "<...>");
        return;
    }
    names_put_args(b, inst->args, offset, arity, inst->nargs, depth);
}

static void names_put_type(names_buf *b, const names_type *t, unsigned depth)
{
    unsigned r;

    if (b->truncated)
        return; /* nothing more is written: walking on would only cost time */
    if (!t || depth > NAMES_MAX_DEPTH) {
        nb_puts(b, "...");
        return;
    }
    if (t->array_rank > 0) {
        names_put_type(b, t->element, depth + 1);
        nb_puts(b, "[");
        for (r = 1; r < t->array_rank && r < 32; r++)
            nb_puts(b, ",");
        nb_puts(b, "]");
        return;
    }
    names_put_level(b, t, t, depth);
}

static size_t names_finish(names_buf *b, size_t outsz)
{
    if (b->truncated) {
        b->len = outsz - 4 < b->len ? outsz - 4 : b->len;
        memcpy(b->p + b->len, "...", 3);
        b->len += 3;
    }
    b->p[b->len] = '\0';
    return b->len;
}

size_t names_format_type(const names_type *t, char *out, size_t outsz)
{
    names_buf b = {out, outsz - 1, 0, 0};

    names_put_type(&b, t, 0);
    return names_finish(&b, outsz);
}

size_t names_format_method(const names_method *m, char *out, size_t outsz)
{
    names_buf b = {out, outsz - 1, 0, 0};
    char arity[16];
    unsigned a = m->generic_arity, k = sizeof(arity) - 1;

    if (m->owner) {
        names_put_type(&b, m->owner, 0);
        nb_puts(&b, ".");
    }
    nb_puts(&b, m->name ? m->name : "?");
    if (m->nargs > 0) {
        names_put_args(&b, m->args, 0, m->nargs, m->nargs, 0);
    } else if (a > 0) {
        arity[k] = '\0';
        do {
            arity[--k] = (char)('0' + a % 10);
            a /= 10;
        } while (a && k > 2);
        arity[--k] = '`';
        arity[--k] = '`';
        nb_puts(&b, arity + k);
    }
    return names_finish(&b, outsz);
}
