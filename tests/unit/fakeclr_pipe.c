/* fakeclr_pipe.c -- the fake CoreCLR's EventPipe, as ICorProfilerInfo12 gives
 * it to the agent's tier source (agent/tiers.c), for a test that asks for it
 * (fake_scene.pipe; without it QueryInterface declines ICorProfilerInfo12):
 * sessions that start and stop (counted), and the names of the two providers
 * whose events the tests deliver themselves, on their own thread, through the
 * profiler's EventPipeEventDelivered (FAKE_PROVIDER_RUNTIME,
 * FAKE_PROVIDER_PIPE). The fake sends no event of its own. See fakeclr.h.
 */
#include "fakeclr.h"

static HRESULT STDMETHODCALLTYPE
pipe_StartSession(ICorProfilerInfo12 *self, UINT32 cProviderConfigs,
                  COR_PRF_EVENTPIPE_PROVIDER_CONFIG pProviderConfigs[], BOOL requestRundown,
                  EVENTPIPE_SESSION *pSession)
{
    (void)self, (void)requestRundown;
    if (!pSession || !cProviderConfigs || !pProviderConfigs)
        return E_INVALIDARG;
    atomic_fetch_add(&fake_scene.pipe_open, 1);
    *pSession = (EVENTPIPE_SESSION)(atomic_fetch_add(&fake_scene.pipe_started, 1) + 1);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE pipe_StopSession(ICorProfilerInfo12 *self,
                                                  EVENTPIPE_SESSION session)
{
    (void)self;
    if (!session)
        return E_INVALIDARG;
    atomic_fetch_sub(&fake_scene.pipe_open, 1);
    return S_OK;
}

/* The name of a provider with its NUL, its length counting the NUL. */
static HRESULT STDMETHODCALLTYPE pipe_GetProviderInfo(ICorProfilerInfo12 *self,
                                                      EVENTPIPE_PROVIDER provider, ULONG cchName,
                                                      ULONG *pcchName, WCHAR providerName[])
{
    const char *name = provider == FAKE_PROVIDER_RUNTIME ? "Microsoft-Windows-DotNETRuntime"
                       : provider == FAKE_PROVIDER_PIPE  ? "Microsoft-DotNETCore-EventPipe"
                                                         : NULL;
    ULONG i, length;

    (void)self;
    if (!name || !pcchName)
        return E_INVALIDARG;
    length = (ULONG)strlen(name) + 1;
    *pcchName = length;
    if (cchName < length || !providerName)
        return E_INVALIDARG;
    for (i = 0; i < length; i++)
        providerName[i] = (WCHAR)name[i];
    return S_OK;
}

void fakeclr_pipe_slots(ICorProfilerInfo12Vtbl *v)
{
    v->EventPipeStartSession = pipe_StartSession;
    v->EventPipeStopSession = pipe_StopSession;
    v->EventPipeGetProviderInfo = pipe_GetProviderInfo;
}
