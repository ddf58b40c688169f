/* names_cache.c -- class names and dynamic modules' importers kept between
 * names (see names_cache.h). */
#include "names_cache.h"

#include <string.h>

#define NAMES_CACHE_SLOTS 4096u /* power of two */
#define NAMES_CACHE_TEXT (256u * 1024u)
#define NAMES_CACHE_IMPORTERS 16u

typedef struct names_cache_slot {
    uint64_t cls; /* 0: empty */
    uint32_t at;  /* the names, NUL-separated, in names_cache_text */
    uint32_t count;
} names_cache_slot;

static names_cache_slot names_cache_slots[NAMES_CACHE_SLOTS];
static char names_cache_text[NAMES_CACHE_TEXT];
static uint32_t names_cache_used;
static uint64_t names_cache_generation;
static int names_cache_empty = 1;

static struct {
    uint64_t module;
    IMetaDataImport *importer;
} names_cache_importers[NAMES_CACHE_IMPORTERS];
static unsigned names_cache_importer_count;

void names_cache_forget_types(void)
{
    if (!names_cache_empty)
        memset(names_cache_slots, 0, sizeof(names_cache_slots));
    names_cache_used = 0;
    names_cache_empty = 1;
}

/* The table is for one unload generation: another one drops it. */
static void names_cache_at(uint64_t generation)
{
    if (generation != names_cache_generation) {
        names_cache_forget_types();
        names_cache_generation = generation;
    }
}

static names_cache_slot *names_cache_slot_of(uint64_t cls)
{
    uint64_t h = cls * 0x9e3779b97f4a7c15ull; /* ClassIDs are aligned addresses */
    return &names_cache_slots[(h >> 40) & (NAMES_CACHE_SLOTS - 1)];
}

unsigned names_cache_type(uint64_t cls, uint64_t generation, const char **names)
{
    names_cache_slot *s;
    const char *p;
    unsigned i;

    names_cache_at(generation);
    s = names_cache_slot_of(cls);
    if (cls == 0 || s->cls != cls)
        return 0;
    for (i = 0, p = names_cache_text + s->at; i < s->count; i++, p += strlen(p) + 1)
        names[i] = p;
    return s->count;
}

void names_cache_put_type(uint64_t cls, uint64_t generation, const char *const *names,
                          unsigned count)
{
    size_t total = 0, n;
    names_cache_slot *s;
    unsigned i;

    names_cache_at(generation);
    if (cls == 0 || count == 0 || count > NAMES_CACHE_CHAIN)
        return;
    for (i = 0; i < count; i++)
        total += strlen(names[i]) + 1;
    if (total > NAMES_CACHE_TEXT / 16)
        return; /* an odd one: not worth the room */
    if (names_cache_used + total > NAMES_CACHE_TEXT)
        names_cache_forget_types(); /* full: start again */
    s = names_cache_slot_of(cls);
    s->cls = cls;
    s->at = names_cache_used;
    s->count = count;
    for (i = 0; i < count; i++) {
        n = strlen(names[i]) + 1;
        memcpy(names_cache_text + names_cache_used, names[i], n);
        names_cache_used += (uint32_t)n;
    }
    names_cache_empty = 0;
}

IMetaDataImport *names_cache_importer(uint64_t module)
{
    unsigned i;

    for (i = 0; i < names_cache_importer_count; i++)
        if (names_cache_importers[i].module == module)
            return names_cache_importers[i].importer;
    return NULL;
}

int names_cache_put_importer(uint64_t module, IMetaDataImport *importer)
{
    if (module == 0 || !importer || names_cache_importer_count == NAMES_CACHE_IMPORTERS)
        return -1;
    names_cache_importers[names_cache_importer_count].module = module;
    names_cache_importers[names_cache_importer_count].importer = importer;
    names_cache_importer_count++;
    return 0;
}

void names_cache_release(void)
{
    unsigned i;

    for (i = 0; i < names_cache_importer_count; i++)
        names_cache_importers[i].importer->lpVtbl->Release(names_cache_importers[i].importer);
    names_cache_importer_count = 0;
}
