/* test_sidebyside_load.c -- the built agent library as CoreCLR loads it, and
 * the runtimes it refuses before it claims anything (the fake CoreCLR of
 * fakeclr.h; the harness is sidebyside.h).
 *
 * Tests:
 *   exports            only DllGetClassObject is exported (nm -D, dlsym), NEEDED
 *                      is libc only, WIRE_CLSID_STRING matches WIRE_CLSID_INIT
 *   class_factory      DllGetClassObject / IClassFactory / CreateInstance /
 *                      QueryInterface / AddRef / Release, all 98 callback slots set
 *   bad_config         Initialize without a valid token, InitializeForAttach with
 *                      foreign client data: refused, the runtime is not touched,
 *                      nothing claimed
 *   too_old            a runtime that says 4.0.30319 (.NET Core 3.1 and older) or
 *                      3.1.3, or no version: Initialize and InitializeForAttach
 *                      -> CORPROF_E_PROFILER_CANCEL_ACTIVATION, a message on stderr
 *                      with the version and ".NET 5 or later", no mask, no thread,
 *                      no connection, no reference kept, nothing claimed
 *
 * Build: make build/tests/test_sidebyside_load (needs `make all` for the agent .so).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"
#include "sidebyside.h"

static const GUID agent_clsid = WIRE_CLSID_INIT;
static const GUID other_clsid = {
    0x12345678u, 0x1234u, 0x5678u, {0x9A, 0xBC, 0xDE, 0xF0, 0x12, 0x34, 0x56, 0x78}};

/* Runs a command, returns its output (static buffer) or NULL. */
static const char *run_capture(const char *cmd, int *status)
{
    static char out[16384];
    size_t used = 0, n;
    FILE *p = popen(cmd, "r"); /* checksrc: allow popen (the test runs nm and readelf) */

    if (!p)
        return NULL;
    while (used < sizeof(out) - 1 && (n = fread(out + used, 1, sizeof(out) - 1 - used, p)) > 0)
        used += n;
    out[used] = '\0';
    *status = pclose(p);
    return out;
}

TEST(exports)
{
    const char *so = getenv("JITSCOPE_AGENT_SO");
    const char *out, *line;
    char cmd[1200];
    int status = -1;
    static const char *const internal[] = {
        "agent",        "sender_start", "sender_stop", "conn_emit",     "naming_function",
        "emit_record",  "ring_init",    "catchup_run", "names_resolve", "cb_JITCompilationStarted",
        "utf16_to_utf8"};
    unsigned i, defined = 0, ours = 0;
    char clsid[64];

    if (setup() != 0)
        return;
    if (!so || !*so)
        so = "build/libjitscope_agent.so";

    /* nm -D --defined-only: DllGetClassObject, and nothing else */
    snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s' 2>/dev/null", so);
    out = run_capture(cmd, &status);
    if (!out || status != 0 || !*out) {
        printf("  note: nm not usable (status %d): export list not checked with nm\n", status);
    } else {
        for (line = out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
            char addr[64], type[8], name[256];
            if (sscanf(line, "%63s %7s %255s", addr, type, name) != 3) /* checksrc: allow sscanf */
                continue;
            defined++;
            if (strcmp(name, "DllGetClassObject") == 0) {
                ours++;
                CHECK(strcmp(type, "T") == 0, "DllGetClassObject is a global text symbol (%s)",
                      type);
            } else {
                CHECK(0, "unexpected exported symbol: %s %s", type, name);
            }
        }
        CHECK(ours == 1 && defined == 1, "exactly one defined dynamic symbol (%u)", defined);
    }
    for (i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
        CHECK(dlsym(agent_lib, internal[i]) == NULL, "%s is not exported", internal[i]);

    /* libc (and the pthread/loader stubs) only */
    snprintf(cmd, sizeof(cmd), "readelf -d '%s' 2>/dev/null", so);
    out = run_capture(cmd, &status);
    if (!out || status != 0 || !strstr(out, "NEEDED")) {
        printf("  note: readelf not usable (status %d): NEEDED not checked\n", status);
    } else {
        for (line = strstr(out, "(NEEDED)"); line; line = strstr(line + 1, "(NEEDED)")) {
            char lib[128] = "";
            const char *lb = strchr(line, '[');
            if (lb)
                sscanf(lb + 1, "%127[^]]", lib); /* checksrc: allow sscanf (bounded) */
            if (strncmp(lib, "libasan.so", 10) == 0 || strncmp(lib, "libubsan.so", 11) == 0) {
                printf("  note: sanitizer build of the agent (NEEDED %s)\n", lib);
                continue;
            }
            CHECK(strcmp(lib, "libc.so.6") == 0 || strcmp(lib, "libpthread.so.0") == 0 ||
                      strcmp(lib, "ld-linux-x86-64.so.2") == 0,
                  "agent needs only libc: NEEDED %s", lib);
        }
    }

    /* the CLSID string that CORECLR_PROFILER names is the CLSID the factory answers */
    snprintf(clsid, sizeof(clsid), "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}",
             agent_clsid.Data1, agent_clsid.Data2, agent_clsid.Data3, agent_clsid.Data4[0],
             agent_clsid.Data4[1], agent_clsid.Data4[2], agent_clsid.Data4[3], agent_clsid.Data4[4],
             agent_clsid.Data4[5], agent_clsid.Data4[6], agent_clsid.Data4[7]);
    CHECK(strcasecmp(clsid, WIRE_CLSID_STRING) == 0, "WIRE_CLSID_STRING %s = WIRE_CLSID_INIT %s",
          WIRE_CLSID_STRING, clsid);
}

TEST(class_factory)
{
    static const GUID *const callbacks[] = {
        &IID_ICorProfilerCallback,   &IID_ICorProfilerCallback2,  &IID_ICorProfilerCallback3,
        &IID_ICorProfilerCallback4,  &IID_ICorProfilerCallback5,  &IID_ICorProfilerCallback6,
        &IID_ICorProfilerCallback7,  &IID_ICorProfilerCallback8,  &IID_ICorProfilerCallback9,
        &IID_ICorProfilerCallback10, &IID_ICorProfilerCallback11, &IID_IUnknown};
    void *out, *p1 = NULL, *p2 = NULL, *f2 = NULL;
    ICorProfilerCallback11 *cb;
    unsigned i, null_slots = 0;
    fake_runtime outer;
    HRESULT hr;
    ULONG refs;
    BOOL notify_only = TRUE;

    if (setup() != 0)
        return;

    out = (void *)&outer;
    hr = get_class_object(&other_clsid, &IID_IClassFactory, &out);
    CHECK(hr == CLASS_E_CLASSNOTAVAILABLE, "wrong CLSID -> CLASS_E_CLASSNOTAVAILABLE (0x%08x)",
          (unsigned)hr);
    CHECK(out == NULL, "wrong CLSID: *out is NULL");
    CHECK(get_class_object(&agent_clsid, &IID_IClassFactory, NULL) == E_POINTER,
          "NULL out -> E_POINTER");
    out = (void *)&outer;
    hr = get_class_object(&agent_clsid, &IID_ICorProfilerCallback11, &out);
    CHECK(hr == E_NOINTERFACE && out == NULL,
          "factory asked for a callback interface -> E_NOINTERFACE (0x%08x)", (unsigned)hr);
    hr = get_class_object(&agent_clsid, &IID_IUnknown, &f2);
    CHECK(hr == S_OK && f2 == (void *)factory, "factory as IUnknown -> S_OK, same object");
    hr = factory->lpVtbl->QueryInterface(factory, &IID_IClassFactory, &f2);
    CHECK(hr == S_OK && f2 == (void *)factory, "factory QueryInterface(IClassFactory)");
    CHECK(factory->lpVtbl->AddRef(factory) >= 1 && factory->lpVtbl->Release(factory) >= 1,
          "static factory: AddRef/Release never reach 0");
    CHECK(factory->lpVtbl->LockServer(factory, TRUE) == S_OK &&
              factory->lpVtbl->LockServer(factory, FALSE) == S_OK,
          "LockServer -> S_OK");

    /* aggregation is refused */
    fake_init(&outer, 99);
    out = (void *)&outer;
    hr = factory->lpVtbl->CreateInstance(factory, &outer.unk, &IID_ICorProfilerCallback2, &out);
    CHECK(hr == CLASS_E_NOAGGREGATION, "outer unknown -> CLASS_E_NOAGGREGATION (0x%08x)",
          (unsigned)hr);
    CHECK(out == NULL, "aggregation refused: *out is NULL");
    CHECK(atomic_load(&outer.unk_qi_calls) == 0 && atomic_load(&outer.refs) == 1,
          "aggregation refused: the outer unknown was not touched");
    CHECK(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, NULL) ==
              E_POINTER,
          "CreateInstance with NULL out -> E_POINTER");
    out = (void *)&outer;
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerInfo, &out);
    CHECK(hr == E_NOINTERFACE && out == NULL,
          "CreateInstance(ICorProfilerInfo) -> E_NOINTERFACE, nothing returned (0x%08x)",
          (unsigned)hr);

    /* two instances, two objects */
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, &p1);
    CHECK(hr == S_OK && p1, "CreateInstance(NULL, ICorProfilerCallback2) -> S_OK");
    hr = factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback2, &p2);
    CHECK(hr == S_OK && p2, "second CreateInstance -> S_OK");
    if (!p1 || !p2)
        return;
    CHECK(p1 != p2, "two CreateInstance calls give two distinct objects");
    cb = p1;

    /* every slot of the 98-entry table is filled: the runtime calls them all */
    for (i = 0; i < sizeof(ICorProfilerCallback11Vtbl) / sizeof(void *); i++) {
        void *slot;
        memcpy(&slot, (const char *)cb->lpVtbl + i * sizeof(void *), sizeof(slot));
        if (!slot) {
            null_slots++;
            CHECK(0, "callback vtable slot %u is NULL", i);
        }
    }
    CHECK(null_slots == 0, "all %zu callback slots are set",
          sizeof(ICorProfilerCallback11Vtbl) / sizeof(void *));
    CHECK(((ICorProfilerCallback11 *)p2)->lpVtbl == cb->lpVtbl, "both objects share the table");

    /* reference counting: CreateInstance hands out exactly one reference */
    refs = cb->lpVtbl->AddRef(cb);
    CHECK(refs == 2, "AddRef after CreateInstance -> 2 (got %u)", refs);
    refs = cb->lpVtbl->Release(cb);
    CHECK(refs == 1, "Release -> 1 (got %u)", refs);

    for (i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]); i++) {
        out = NULL;
        hr = cb->lpVtbl->QueryInterface(cb, callbacks[i], &out);
        CHECK(hr == S_OK && out == p1, "QueryInterface(%s%u) -> S_OK, same object",
              i == 11 ? "IUnknown" : "ICorProfilerCallback", i == 11 ? 0 : i + 1);
    }
    refs = cb->lpVtbl->AddRef(cb);
    CHECK(refs == 2 + sizeof(callbacks) / sizeof(callbacks[0]),
          "each successful QueryInterface added one reference (refs %u)", refs);
    for (i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]) + 1; i++)
        refs = cb->lpVtbl->Release(cb);
    CHECK(refs == 1, "releasing them brings it back to 1 (got %u)", refs);

    out = (void *)&outer;
    hr = cb->lpVtbl->QueryInterface(cb, &IID_ICorProfilerInfo, &out);
    CHECK(hr == E_NOINTERFACE && out == NULL, "QueryInterface(ICorProfilerInfo) -> E_NOINTERFACE");
    out = (void *)&outer;
    hr = cb->lpVtbl->QueryInterface(cb, &IID_IClassFactory, &out);
    CHECK(hr == E_NOINTERFACE && out == NULL, "QueryInterface(IClassFactory) -> E_NOINTERFACE");
    CHECK(cb->lpVtbl->QueryInterface(cb, &IID_ICorProfilerCallback, NULL) == E_POINTER,
          "QueryInterface with NULL out -> E_POINTER");
    refs = cb->lpVtbl->AddRef(cb);
    CHECK(refs == 2, "failed QueryInterfaces added no reference (refs %u)", refs);
    cb->lpVtbl->Release(cb);

    CHECK(cb->lpVtbl->LoadAsNotificationOnly(cb, &notify_only) == S_OK && notify_only == FALSE,
          "LoadAsNotificationOnly -> FALSE (a full profiler)");
    {
        /* the slots of events jitscope does not ask for (the shared no-op stubs,
         * each signature at least once): S_OK, answers left as the runtime set them */
        const ICorProfilerCallback11Vtbl *v = cb->lpVtbl;
        BOOL use_cached = TRUE, should_inline = TRUE;
        GUID cookie = {0};
        ULONG counts[1] = {0};
        UINT_PTR ids[1] = {0}, more_ids[1] = {0};
        SIZE_T sizes[1] = {0};
        COR_PRF_GC_ROOT_KIND kinds[1] = {0};
        COR_PRF_GC_ROOT_FLAGS root_flags[1] = {0};
        HRESULT any = v->ExceptionSearchFunctionLeave(cb) | v->RemotingServerInvocationStarted(cb) |
                      v->AppDomainCreationStarted(cb, 1) | v->ClassLoadStarted(cb, 2) |
                      v->DynamicMethodUnloaded(cb, 3) | v->EventPipeProviderCreated(cb, 4) |
                      v->ClassLoadFinished(cb, 5, E_FAIL) | v->ModuleAttachedToAssembly(cb, 7, 8) |
                      v->HandleCreated(cb, 9, 10) |
                      v->UnmanagedToManagedTransition(cb, 15, COR_PRF_TRANSITION_CALL) |
                      v->RemotingClientSendingMessage(cb, &cookie, TRUE) |
                      v->FinalizeableObjectQueued(cb, 0, 16) | v->RootReferences(cb, 1, ids) |
                      v->ObjectsAllocatedByClass(cb, 1, ids, counts) |
                      v->SurvivingReferences2(cb, 1, ids, sizes) |
                      v->MovedReferences(cb, 1, ids, more_ids, counts) |
                      v->MovedReferences2(cb, 1, ids, more_ids, sizes) |
                      v->ConditionalWeakTableElementReferences(cb, 1, ids, more_ids, ids) |
                      v->ObjectReferences(cb, 17, 18, 1, ids) |
                      v->RootReferences2(cb, 1, ids, kinds, root_flags, more_ids) |
                      v->COMClassicVTableCreated(cb, 19, &cookie, NULL, 0) |
                      v->COMClassicVTableDestroyed(cb, 19, &cookie, NULL) |
                      v->ReJITCompilationStarted(cb, 20, 21, TRUE) |
                      v->ReJITCompilationFinished(cb, 20, 21, S_OK, TRUE) |
                      v->GetReJITParameters(cb, 22, 0x06000001, NULL) |
                      v->ReJITError(cb, 22, 0x06000001, 20, E_FAIL) |
                      v->GetAssemblyReferences(cb, NULL, NULL);
        CHECK(any == S_OK, "unused callbacks: S_OK (0x%08x)", (unsigned)any);
        /* an unload's end, and jitinfo.c's callbacks (inlining, ReadyToRun
         * searches), which never veto: harmless on an object that never
         * initialised */
        any = v->ModuleUnloadFinished(cb, 6, S_OK) |
              v->JITCachedFunctionSearchStarted(cb, 11, &use_cached) |
              v->JITInlining(cb, 12, 13, &should_inline) |
              v->JITCachedFunctionSearchFinished(cb, 14, COR_PRF_CACHED_FUNCTION_FOUND);
        CHECK(any == S_OK && use_cached == TRUE && should_inline == TRUE,
              "inlining and cache-search callbacks: S_OK, their answers untouched (0x%08x)",
              (unsigned)any);
    }

    /* an object that never initialised: Shutdown / detach callbacks are harmless */
    CHECK(cb->lpVtbl->Shutdown(cb) == S_OK, "Shutdown on an uninitialised object -> S_OK");
    CHECK(cb->lpVtbl->ProfilerDetachSucceeded(cb) == S_OK,
          "ProfilerDetachSucceeded on an uninitialised object -> S_OK");
    CHECK(cb->lpVtbl->ProfilerAttachComplete(cb) == S_OK,
          "ProfilerAttachComplete on an uninitialised object -> S_OK");
    CHECK(threads_named(AGENT_THREAD_NAME) == 0, "no agent thread exists yet");

    refs = cb->lpVtbl->Release(cb);
    CHECK(refs == 0, "last Release of object 1 -> 0 (got %u)", refs);
    refs = ((ICorProfilerCallback11 *)p2)->lpVtbl->Release(p2);
    CHECK(refs == 0, "last Release of object 2 -> 0 (got %u)", refs);
}

TEST(bad_config)
{
    static const char foreign[] = "someoneelse1 0123456789abcdef0123456789abcdef /tmp/x.sock";
    ICorProfilerCallback11 *x;
    fake_runtime rt;
    HRESULT hr;

    if (setup() != 0)
        return;
    x = new_profiler();
    if (!CHECK(x != NULL, "CreateInstance"))
        return;
    fake_init(&rt, 50);

    setenv(WIRE_ENV_TOKEN, "0123456789abcdef", 1); /* too short */
    hr = x->lpVtbl->Initialize(x, &rt.unk);
    CHECK(hr == E_FAIL, "Initialize with a 16-character token -> E_FAIL (0x%08x)", (unsigned)hr);
    unsetenv(WIRE_ENV_TOKEN);
    hr = x->lpVtbl->Initialize(x, &rt.unk);
    CHECK(hr == E_FAIL, "Initialize without JITSCOPE_TOKEN -> E_FAIL (0x%08x)", (unsigned)hr);
    setenv(WIRE_ENV_TOKEN, TOKEN_A, 1);

    hr = x->lpVtbl->InitializeForAttach(x, &rt.unk, (void *)foreign, sizeof(foreign) - 1);
    CHECK(hr == E_INVALIDARG, "InitializeForAttach with foreign client data -> E_INVALIDARG");
    hr = x->lpVtbl->InitializeForAttach(x, &rt.unk, NULL, 0);
    CHECK(hr == E_INVALIDARG, "InitializeForAttach without client data -> E_INVALIDARG");

    /* Initialize without the settings in the C library's environment asks
     * the runtime's own (ICorProfilerInfo12, for a diagnostic port's server's
     * JITSCOPE_AGENT): that one question, nothing else */
    CHECK(atomic_load(&rt.unk_qi_calls) == atomic_load(&rt.info12_asked) &&
              atomic_load(&rt.unexpected_qi) == 0 && atomic_load(&rt.set_mask_calls) == 0 &&
              atomic_load(&rt.refs) == 1,
          "refused runtime: asked for its environment only, no mask, no reference kept");
    CHECK(threads_named(AGENT_THREAD_NAME) == 0, "refused runtime: no agent thread");
    CHECK(accept_agent(0) < 0, "refused runtime: no connection");
    CHECK(x->lpVtbl->Release(x) == 0, "Release -> 0");
}

/* Runs fn(x, rt) with the process's stderr going to a pipe; what was written
 * (at most size - 1 bytes) ends up in out. Returns fn's HRESULT. */
static HRESULT with_stderr_captured(HRESULT (*fn)(ICorProfilerCallback11 *, fake_runtime *),
                                    ICorProfilerCallback11 *x, fake_runtime *rt, char *out,
                                    size_t size)
{
    int pipe_fds[2], saved;
    ssize_t n;
    size_t used = 0;
    HRESULT hr;

    out[0] = '\0';
    if (pipe(pipe_fds) != 0)
        return fn(x, rt);
    fflush(stderr);
    saved = dup(2);
    dup2(pipe_fds[1], 2);
    close(pipe_fds[1]);
    hr = fn(x, rt);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    while (used + 1 < size && (n = read(pipe_fds[0], out + used, size - 1 - used)) > 0)
        used += (size_t)n;
    out[used] = '\0';
    close(pipe_fds[0]);
    return hr;
}

typedef HRESULT init_fn(ICorProfilerCallback11 *x, fake_runtime *rt);

static HRESULT init_startup(ICorProfilerCallback11 *x, fake_runtime *rt)
{
    return x->lpVtbl->Initialize(x, &rt->unk);
}

static HRESULT init_attach(ICorProfilerCallback11 *x, fake_runtime *rt)
{
    char data[256];
    int n = snprintf(data, sizeof(data), "%s%s %s", WIRE_CLIENT_DATA_PREFIX, TOKEN_A, sock_path);

    return x->lpVtbl->InitializeForAttach(x, &rt->unk, data, (UINT)n);
}

/* A runtime older than .NET 5 (.NET Core 3.1 says 4.0.30319), or one that does
 * not say its version: Initialize and InitializeForAttach refuse with
 * CORPROF_E_PROFILER_CANCEL_ACTIVATION and a message on stderr that names the
 * version and what is needed; nothing started (no mask, no thread, no
 * connection), the reference released, nothing claimed. */
TEST(too_old)
{
    static const struct {
        uint16_t major, minor, build;
        HRESULT info_result;
        const char *says;
    } runtimes[] = {{4, 0, 30319, S_OK, "says version 4.0.30319"},
                    {3, 1, 3, S_OK, "says version 3.1.3"},
                    {10, 0, 1, E_FAIL, "does not say its version"}};
    init_fn *const inits[] = {init_startup, init_attach};
    char said[1024];
    size_t i, j;

    if (setup() != 0)
        return;
    setenv(WIRE_ENV_TOKEN, TOKEN_A, 1);
    for (i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
        for (j = 0; j < 2; j++) {
            ICorProfilerCallback11 *x = new_profiler();
            fake_runtime rt;
            HRESULT hr;

            if (!CHECK(x != NULL, "CreateInstance"))
                return;
            fake_init(&rt, 60);
            rt.major = runtimes[i].major, rt.minor = runtimes[i].minor;
            rt.build = runtimes[i].build, rt.runtime_info_result = runtimes[i].info_result;
            hr = with_stderr_captured(inits[j], x, &rt, said, sizeof(said));
            CHECK(hr == CORPROF_E_PROFILER_CANCEL_ACTIVATION,
                  "%s, %s: refused with CORPROF_E_PROFILER_CANCEL_ACTIVATION (0x%08x)",
                  runtimes[i].says, j ? "attach" : "startup", (unsigned)hr);
            CHECK(strstr(said, runtimes[i].says) && strstr(said, "needs .NET 5 or later") &&
                      strstr(said, "not profiling"),
                  "%s, %s: the message names the version and what is needed: \"%s\"",
                  runtimes[i].says, j ? "attach" : "startup", said);
            CHECK(atomic_load(&rt.runtime_info_calls) == 1 && atomic_load(&rt.set_mask_calls) == 0,
                  "%s: asked its version, set no event mask", runtimes[i].says);
            CHECK(atomic_load(&rt.refs) == 1, "%s: no reference kept (runtime refs %d)",
                  runtimes[i].says, atomic_load(&rt.refs));
            CHECK(threads_named(AGENT_THREAD_NAME) == 0, "%s: no agent thread", runtimes[i].says);
            CHECK(accept_agent(0) < 0, "%s: no connection", runtimes[i].says);
            /* nothing was claimed: the object's Shutdown is a no-op */
            CHECK(x->lpVtbl->Shutdown(x) == S_OK, "Shutdown of a refused object");
            CHECK(x->lpVtbl->Release(x) == 0, "Release -> 0");
        }
    }
}

static const check_test tests[] = {TEST_ENTRY(exports), TEST_ENTRY(class_factory),
                                   TEST_ENTRY(bad_config), TEST_ENTRY(too_old), TEST_END};

int main(int argc, char **argv) { return sidebyside_main(argc, argv, tests); }
