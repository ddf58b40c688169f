/* mdcache.c -- metadata readers by ModuleID, lock-free (see mdcache.h).
 *
 * Entries come from a fixed pool and are published into an open-addressed
 * table of pointers with a compare-and-swap; they are never removed (their
 * modules never unload). Two threads meeting the same new module may both
 * parse it: one entry wins, the other is a spent pool slot. */
#include "mdcache.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#define MDCACHE_ENTRIES 4096u
#define MDCACHE_SLOTS (2u * MDCACHE_ENTRIES) /* power of two */

typedef struct mdcache_entry {
    ModuleID module;
    mdread reader;
} mdcache_entry;

static mdcache_entry mdcache_pool[MDCACHE_ENTRIES];
static _Atomic uint32_t mdcache_pool_used;
static _Atomic(mdcache_entry *) mdcache_slots[MDCACHE_SLOTS];
static _Atomic uint64_t mdcache_published, mdcache_importer;
static _Atomic int mdcache_off;

void mdcache_configure(void)
{
    const char *env = getenv(WIRE_ENV_METADATA);

    atomic_store(&mdcache_off, env && strcmp(env, "importer") == 0);
}

static uint32_t mdcache_hash(ModuleID module)
{
    uint64_t h = (uint64_t)module * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 40);
}

/* The published entry of `module`, or NULL; *free_slot is where it would go. */
static const mdread *mdcache_find(ModuleID module, uint32_t *free_slot)
{
    uint32_t i = mdcache_hash(module), n;

    for (n = 0; n < MDCACHE_SLOTS; n++, i++) {
        mdcache_entry *e = atomic_load_explicit(&mdcache_slots[i & (MDCACHE_SLOTS - 1)],
                                                memory_order_acquire);
        if (!e) {
            *free_slot = i & (MDCACHE_SLOTS - 1);
            return NULL;
        }
        if (e->module == module)
            return &e->reader;
    }
    *free_slot = UINT32_MAX;
    return NULL;
}

const mdread *mdcache_get(ICorProfilerInfo10 *info, ModuleID module)
{
    LPCBYTE base = NULL;
    AssemblyID assembly = 0;
    DWORD flags = 0;
    mdcache_entry *e;
    uint32_t slot, index;
    const mdread *found;
    mdread reader;

    if (!module || atomic_load_explicit(&mdcache_off, memory_order_relaxed))
        return NULL;
    found = mdcache_find(module, &slot);
    if (found)
        return found;
    if (slot == UINT32_MAX ||
        FAILED(
            info->lpVtbl->GetModuleInfo2(info, module, &base, 0, NULL, NULL, &assembly, &flags)) ||
        !base ||
        (flags & (COR_PRF_MODULE_DYNAMIC | COR_PRF_MODULE_COLLECTIBLE | COR_PRF_MODULE_RESOURCE)) ||
        mdread_open_image(&reader, base, 0, (flags & COR_PRF_MODULE_FLAT_LAYOUT) != 0) != 0)
        goto declined;
    index = atomic_load_explicit(&mdcache_pool_used, memory_order_relaxed);
    do {
        if (index >= MDCACHE_ENTRIES)
            goto declined;
    } while (!atomic_compare_exchange_weak_explicit(&mdcache_pool_used, &index, index + 1,
                                                    memory_order_relaxed, memory_order_relaxed));
    e = &mdcache_pool[index];
    e->module = module;
    e->reader = reader;
    for (;;) {
        mdcache_entry *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&mdcache_slots[slot], &expected, e,
                                                    memory_order_release, memory_order_acquire)) {
            atomic_fetch_add_explicit(&mdcache_published, 1, memory_order_relaxed);
            return &e->reader;
        }
        if (expected->module == module)
            return &expected->reader; /* another thread published it first */
        found = mdcache_find(module, &slot);
        if (found)
            return found;
        if (slot == UINT32_MAX)
            return &e->reader; /* table full: this caller still has its reader */
    }
declined:
    return NULL;
}

void mdcache_importer_opened(void)
{
    atomic_fetch_add_explicit(&mdcache_importer, 1, memory_order_relaxed);
}

void mdcache_counts(uint64_t *direct_modules, uint64_t *importer_opens)
{
    *direct_modules = atomic_load_explicit(&mdcache_published, memory_order_relaxed);
    *importer_opens = atomic_load_explicit(&mdcache_importer, memory_order_relaxed);
}
