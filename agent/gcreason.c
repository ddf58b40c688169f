/* gcreason.c -- the runtime's own reason for each collection (see gcreason.h). */
#include "gcreason.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#define GCREASON_GC_KEYWORD 0x1ull
#define GCREASON_LEVEL_INFORMATIONAL 4u

static _Atomic uint32_t gcreason_parked; /* reason + 1, 0: none */

int gcreason_wanted(void)
{
    const char *env = getenv(WIRE_ENV_GC_REASONS);

    return !(env && strcmp(env, "0") == 0);
}

void gcreason_config(COR_PRF_EVENTPIPE_PROVIDER_CONFIG *out, const WCHAR *runtime_provider)
{
    *out = (COR_PRF_EVENTPIPE_PROVIDER_CONFIG){runtime_provider, GCREASON_GC_KEYWORD,
                                               GCREASON_LEVEL_INFORMATIONAL, NULL};
}

void gcreason_note(const uint8_t *payload, size_t size)
{
    uint32_t reason;

    if (!payload || size < sizeof(reason))
        return;
    memcpy(&reason, payload, sizeof(reason));
    if (reason < 0xffu) /* the runtime's reasons are small numbers; anything else is not one */
        atomic_store_explicit(&gcreason_parked, reason + 1, memory_order_release);
}

uint32_t gcreason_take(void)
{
    return atomic_exchange_explicit(&gcreason_parked, 0, memory_order_acquire);
}
