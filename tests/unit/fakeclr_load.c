/* fakeclr_load.c -- the fake CoreCLR loads the built agent library as the
 * runtime does: dlopen (JITSCOPE_AGENT_SO, else build/libjitscope_agent.so
 * relative to the cwd, the repo root under tests/run.sh), DllGetClassObject
 * for jitscope's CLSID, and profiler objects from that class factory.
 *
 * The agent is one per process: the library is loaded once and stays loaded
 * (the tests claim the agent in turn, see tests/unit/sidebyside.h). See
 * fakeclr.h.
 */
#include "fakeclr.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "wire.h"

void *agent_lib;
dll_get_class_object_fn get_class_object;
IClassFactory *factory;

static const GUID agent_clsid = WIRE_CLSID_INIT;

int fakeclr_load(char *err, size_t size)
{
    const char *so = getenv("JITSCOPE_AGENT_SO");
    void *sym, *out = NULL;

    if (factory)
        return 0;
    if (!so || !*so)
        so = "build/libjitscope_agent.so";
    if (!agent_lib)
        agent_lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!agent_lib) {
        snprintf(err, size, "dlopen %s: %s", so, dlerror());
        return -1;
    }
    sym = dlsym(agent_lib, "DllGetClassObject");
    if (!sym) {
        snprintf(err, size, "dlsym DllGetClassObject: not in %s", so);
        return -1;
    }
    memcpy(&get_class_object, &sym, sizeof(sym));
    if (get_class_object(&agent_clsid, &IID_IClassFactory, &out) != S_OK || !out) {
        snprintf(err, size, "DllGetClassObject(jitscope CLSID, IClassFactory) failed");
        return -1;
    }
    factory = out;
    return 0;
}

ICorProfilerCallback11 *new_profiler(void)
{
    void *out = NULL;
    HRESULT hr;

    if (!factory)
        return NULL;
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, &out);
    if (FAILED(hr))
        return NULL;
    return out;
}
