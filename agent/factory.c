/* factory.c -- the COM entry of the agent: DllGetClassObject, the one export
 * of the library, and the class factory whose CreateInstance makes a profiler
 * object (profiler.h) pointing at the callback table (callbacks.c).
 *
 * CoreCLR dlopens the library, calls DllGetClassObject(CLSID, IID_IClassFactory)
 * and CreateInstance, then QueryInterface down from ICorProfilerCallback11.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "callbacks.h"
#include "profiler.h"
#include "wire.h"

static const GUID factory_clsid = WIRE_CLSID_INIT;

static HRESULT STDMETHODCALLTYPE factory_QueryInterface(IClassFactory *self, REFIID riid,
                                                        void **out)
{
    if (!out)
        return E_POINTER;
    if (profiler_guid_equal(riid, &IID_IUnknown) || profiler_guid_equal(riid, &IID_IClassFactory)) {
        *out = self;
        return S_OK;
    }
    *out = NULL;
    return E_NOINTERFACE;
}

static HRESULT STDMETHODCALLTYPE factory_CreateInstance(IClassFactory *self, IUnknown *outer,
                                                        REFIID riid, void **out)
{
    profiler *p;
    HRESULT hr;

    (void)self;
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    p = calloc(1, sizeof(*p));
    if (!p)
        return E_OUTOFMEMORY;
    p->iface.lpVtbl = &callbacks_table;
    p->floor_table = callbacks_floor();
    atomic_init(&p->refs, 1);
    hr = p->iface.lpVtbl->QueryInterface(&p->iface, riid, out);
    p->iface.lpVtbl->Release(&p->iface); /* the QueryInterface reference is the caller's */
    return hr;
}

static HRESULT STDMETHODCALLTYPE factory_LockServer(IClassFactory *self, BOOL lock)
{
    (void)self, (void)lock;
    return S_OK;
}

/* The factory is a static object: reference counts are meaningless for it,
 * so AddRef and Release are one function whose count never reaches 0. */
static ULONG STDMETHODCALLTYPE factory_count(IClassFactory *self)
{
    (void)self;
    return 1;
}

static const IClassFactoryVtbl factory_vtbl = {
    .QueryInterface = factory_QueryInterface,
    .AddRef = factory_count,
    .Release = factory_count,
    .CreateInstance = factory_CreateInstance,
    .LockServer = factory_LockServer,
};

static IClassFactory factory = {&factory_vtbl};

__attribute__((visibility("default"))) HRESULT STDMETHODCALLTYPE
DllGetClassObject(const GUID *clsid, const GUID *iid, void **out);

HRESULT STDMETHODCALLTYPE DllGetClassObject(const GUID *clsid, const GUID *iid, void **out)
{
    if (!out || !clsid || !iid)
        return E_POINTER;
    *out = NULL;
    if (!profiler_guid_equal(clsid, &factory_clsid))
        return CLASS_E_CLASSNOTAVAILABLE;
    return factory_QueryInterface(&factory, iid, out);
}
