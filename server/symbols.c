/* symbols.c -- FunctionID names copied for a response (see symbols.h). */
#include "symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

static int symbols_append(symbols *t, uint64_t function_id, const char *name, const char *module,
                          uint32_t *index)
{
    symbol *e;

    if (t->count >= SYMBOLS_MAX)
        return -1;
    if (t->count == t->cap) {
        size_t want = t->cap ? t->cap * 2 : 64;
        symbol *bigger = realloc(t->items, want * sizeof(*bigger));
        if (!bigger)
            return -1;
        t->items = bigger;
        t->cap = want;
    }
    e = &t->items[t->count];
    e->function_id = function_id;
    e->kind = SYMBOL_LABEL;
    e->name = strdup(name);
    e->module = module ? strdup(module) : NULL;
    e->file = NULL;
    e->line = 0;
    e->base = (uint32_t)t->count;
    e->split = 0;
    if (!e->name || (module && !e->module)) {
        free(e->name);
        free(e->module);
        return -1;
    }
    t->text_bytes += strlen(name) + (module ? strlen(module) : 0);
    *index = (uint32_t)t->count++;
    return 0;
}

/* Indexes item i, just appended, by key: 0 with *index set, or -1 (out of
 * memory) with the item taken back. */
static int symbols_keep(symbols *t, uint64_t key, uint32_t i, uint32_t *index)
{
    if (idmap_put(&t->index, key, i) != 0) {
        t->count--;
        free(t->items[i].name);
        free(t->items[i].module);
        return -1;
    }
    *index = i;
    return 0;
}

int symbols_function(symbols *t, session *s, uint64_t function_id, uint32_t *index)
{
    uint32_t i;
    session_function *f;
    char hex[24], *whole;

    if (function_id == 0)
        return symbols_native(t, index);
    i = idmap_get(&t->index, function_id);
    if (i != IDMAP_MISSING) {
        *index = i;
        return 0;
    }
    f = session_find_function(s, function_id);
    snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)function_id);
    whole = f && f->name_record ? fnname_dup(f->name_record) : NULL;
    if ((f && f->name_record && !whole) ||
        symbols_append(t, function_id, whole ? whole : hex,
                       f ? session_module_name(s, f->module_id) : NULL, &i) != 0) {
        free(whole);
        return -1;
    }
    free(whole);
    t->items[i].kind = SYMBOL_METHOD;
    return symbols_keep(t, function_id, i, index);
}

int symbols_line(symbols *t, uint32_t base, const char *file, uint32_t line, uint32_t *index)
{
    uint32_t i;
    char *copy, *name, *module;
    int rc;

    if (base >= t->count)
        return -1;
    /* copies first: appending may move the items */
    copy = strdup(file);
    name = strdup(t->items[base].name);
    module = t->items[base].module ? strdup(t->items[base].module) : NULL;
    rc = copy && name && (module || !t->items[base].module)
             ? symbols_append(t, t->items[base].function_id, name, module, &i)
             : -1;
    free(name);
    free(module);
    if (rc != 0) {
        free(copy);
        return -1;
    }
    t->items[i].kind = t->items[base].kind;
    t->items[i].file = copy;
    t->items[i].line = line;
    t->items[i].base = base;
    t->items[i].split = 1;
    t->text_bytes += strlen(file);
    *index = i;
    return 0;
}

int symbols_native(symbols *t, uint32_t *index)
{
    uint32_t i;

    if (!t->native_plus1) {
        if (symbols_append(t, 0, "[native]", NULL, &i) != 0)
            return -1;
        t->items[i].kind = SYMBOL_NATIVE_LABEL;
        t->native_plus1 = i + 1;
    }
    *index = t->native_plus1 - 1;
    return 0;
}

int symbols_named(symbols *t, uint64_t key, const char *name, const char *module, int kind,
                  uint32_t *index)
{
    uint32_t i = idmap_get(&t->index, key);

    if (i != IDMAP_MISSING) {
        *index = i;
        return 0;
    }
    if (symbols_append(t, 0, name, module, &i) != 0)
        return -1;
    t->items[i].kind = kind;
    return symbols_keep(t, key, i, index);
}

int symbols_label(symbols *t, const char *label, uint32_t *index)
{
    return symbols_append(t, 0, label, NULL, index);
}

void symbols_free(symbols *t)
{
    size_t i;

    for (i = 0; i < t->count; i++) {
        free(t->items[i].name);
        free(t->items[i].module);
        free(t->items[i].file);
    }
    free(t->items);
    idmap_free(&t->index);
    memset(t, 0, sizeof(*t));
}
