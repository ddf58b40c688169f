/* codelookup.c -- answers the server's code lookups (see codelookup.h). */
#include "codelookup.h"

#include <stdatomic.h>
#include <string.h>

#include "agent.h"
#include "clock.h"
#include "conn.h"
#include "naming.h"
#include "walk.h"

#define CODELOOKUP_CHUNKS 4 /* code chunks asked for per version (hot and cold parts) */

/* Runtime lock held. The chunk of one code version (start) that holds ip:
 * 1 with *range_start, *range_size set, else 0. */
static int codelookup_in_version(UINT_PTR start, uint64_t ip, uint64_t *range_start,
                                 uint32_t *range_size)
{
    COR_PRF_CODE_INFO chunks[CODELOOKUP_CHUNKS];
    ULONG32 count = 0, i;

    if (FAILED(
            agent.info->lpVtbl->GetCodeInfo4(agent.info, start, CODELOOKUP_CHUNKS, &count, chunks)))
        return 0;
    for (i = 0; i < count && i < CODELOOKUP_CHUNKS; i++) {
        if (ip >= chunks[i].startAddress && ip - chunks[i].startAddress < chunks[i].size &&
            chunks[i].size <= UINT32_MAX) {
            *range_start = chunks[i].startAddress;
            *range_size = (uint32_t)chunks[i].size;
            return 1;
        }
    }
    return 0;
}

/* Runtime lock held. The code range of function that holds ip: every native
 * code version the runtime lists (tiers, ReadyToRun), then the code in use.
 * Leaves *size 0 when none holds it. */
static void codelookup_range(FunctionID function, uint64_t ip, uint64_t *start, uint32_t *size)
{
    COR_PRF_CODE_INFO chunks[CODELOOKUP_CHUNKS];
    UINT_PTR starts[WIRE_MAX_CODE_VERSIONS];
    ULONG32 n = 0, k, count = 0;

    if (SUCCEEDED(agent.info->lpVtbl->GetNativeCodeStartAddresses(
            agent.info, function, 0, WIRE_MAX_CODE_VERSIONS, &n, starts)))
        for (k = 0; k < n && k < WIRE_MAX_CODE_VERSIONS; k++)
            if (codelookup_in_version(starts[k], ip, start, size))
                return;
    if (SUCCEEDED(agent.info->lpVtbl->GetCodeInfo2(agent.info, function, CODELOOKUP_CHUNKS, &count,
                                                   chunks)))
        for (k = 0; k < count && k < CODELOOKUP_CHUNKS; k++)
            if (ip >= chunks[k].startAddress && ip - chunks[k].startAddress < chunks[k].size &&
                chunks[k].size <= UINT32_MAX) {
                *start = chunks[k].startAddress;
                *size = (uint32_t)chunks[k].size;
                return;
            }
}

static void codelookup_one(uint64_t ip)
{
    wire_code_range r;
    FunctionID function = 0;
    uint64_t generation;
    HRESULT hr = E_ABORT;

    memset(&r, 0, sizeof(r));
    r.ip = ip;
    walk_runtime_lock();
    generation = atomic_load(&agent.unload_gen);
    if (!atomic_load(&agent.detach_requested)) {
        hr = agent.info->lpVtbl->GetFunctionFromIP(agent.info, (LPCBYTE)(uintptr_t)ip, &function);
        if (SUCCEEDED(hr) && function)
            codelookup_range(function, ip, &r.start, &r.size);
    }
    walk_runtime_unlock();
    if (SUCCEEDED(hr) && function) {
        /* named while its code was there a moment ago; an unload that started
         * since makes naming refuse, and the range goes out without a name */
        naming_live_since(generation);
        (void)naming_function(function, NAMING_ASK_DYNAMIC, 0, NAMING_LIVE);
        r.function_id = function;
    } else if (SUCCEEDED(hr)) {
        hr = E_FAIL; /* no function: not managed code */
    }
    if (!r.size)
        r.start = 0;
    r.hresult = hr;
    conn_emit(WIRE_CODE_RANGE, 0, clock_mono_ns(), &r, sizeof(r), NULL, 0, NULL, 0);
}

void codelookup_answer(const wire_cmd_code_lookup *cmd)
{
    uint32_t i;

    for (i = 0; i < cmd->count && i < WIRE_CODE_LOOKUP_MAX && conn_connected(); i++)
        codelookup_one(cmd->ips[i]);
}
