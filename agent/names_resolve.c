/* names_resolve.c -- walks the runtime's metadata to name a FunctionID.
 *
 * Sender thread only (it uses static scratch space): never on an app thread.
 * GetFunctionInfo2 gives the owning ClassID and the method's type arguments;
 * GetClassIDInfo2 gives a class's typedef and instantiation; IMetaDataImport
 * gives names and nesting. The pieces go into a names_type tree that
 * names_format_method (names.c) prints. Every call may fail (an ID can be stale,
 * a module may be dynamic): each failure degrades the name, none is fatal.
 */
#include <string.h>

#include "agent.h"
#include "names.h"
#include "utf.h"

#define RESOLVE_NODES 96
#define RESOLVE_TEXT 16384
#define RESOLVE_NAME_UNITS 512
#define CALLCONV_GENERIC 0x10u
#define TD_VISIBILITY_MASK 0x7u
#define TD_NESTED_PUBLIC 0x2u

typedef struct resolve_arena {
    names_type nodes[RESOLVE_NODES];
    unsigned used_nodes;
    char text[RESOLVE_TEXT];
    size_t used_text;
} resolve_arena;

static resolve_arena arena;

static names_type *resolve_node(void)
{
    names_type *t;

    if (arena.used_nodes == RESOLVE_NODES)
        return NULL;
    t = &arena.nodes[arena.used_nodes++];
    memset(t, 0, sizeof(*t));
    return t;
}

/* Copies a UTF-16 name into the arena as UTF-8 (NUL-terminated). */
static const char *resolve_text(const WCHAR *name, size_t units)
{
    size_t room = RESOLVE_TEXT - arena.used_text, n;
    char *out = arena.text + arena.used_text;
    int truncated;

    if (room < 2)
        return "?";
    n = utf16_to_utf8(name, units, out, room - 1, &truncated);
    out[n] = '\0';
    arena.used_text += n + 1;
    return out;
}

static const char *resolve_element_name(CorElementType e)
{
    switch (e) {
    case 0x02: return "System.Boolean";
    case 0x03: return "System.Char";
    case 0x04: return "System.SByte";
    case 0x05: return "System.Byte";
    case 0x06: return "System.Int16";
    case 0x07: return "System.UInt16";
    case 0x08: return "System.Int32";
    case 0x09: return "System.UInt32";
    case 0x0a: return "System.Int64";
    case 0x0b: return "System.UInt64";
    case 0x0c: return "System.Single";
    case 0x0d: return "System.Double";
    case 0x0e: return "System.String";
    case 0x18: return "System.IntPtr";
    case 0x19: return "System.UIntPtr";
    case 0x1c: return "System.Object";
    default: return "?";
    }
}

static IMetaDataImport *resolve_import(ModuleID module)
{
    IUnknown *unk = NULL;

    if (FAILED(agent.info->lpVtbl->GetModuleMetaData(agent.info, module, ofRead,
                                                     &IID_IMetaDataImport, &unk)) || !unk)
        return NULL;
    return (IMetaDataImport *)unk;
}

/* A typedef and its enclosing types (no instantiation). */
static names_type *resolve_typedef(IMetaDataImport *md, mdTypeDef td, unsigned depth)
{
    WCHAR name[RESOLVE_NAME_UNITS];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    mdTypeDef enclosing = 0;
    names_type *t = resolve_node();

    if (!t)
        return NULL;
    if (FAILED(md->lpVtbl->GetTypeDefProps(md, td, name, RESOLVE_NAME_UNITS, &len, &flags,
                                           &extends))) {
        t->name = "?";
        return t;
    }
    t->name = resolve_text(name, len);
    if ((flags & TD_VISIBILITY_MASK) >= TD_NESTED_PUBLIC && depth < NAMES_MAX_DEPTH &&
        SUCCEEDED(md->lpVtbl->GetNestedClassProps(md, td, &enclosing)) && enclosing)
        t->enclosing = resolve_typedef(md, enclosing, depth + 1);
    return t;
}

/* A loaded class: arrays, instantiations, nesting. */
static names_type *resolve_class(ClassID cls, unsigned depth)
{
    ICorProfilerInfo10 *info = agent.info;
    CorElementType element = 0;
    ClassID element_class = 0, parent = 0, args[NAMES_MAX_ARGS];
    ULONG rank = 0;
    ULONG32 nargs = 0, i;
    ModuleID module = 0;
    mdTypeDef td = 0;
    IMetaDataImport *md;
    names_type *t;

    if (depth > NAMES_MAX_DEPTH || cls == 0)
        return NULL;
    if (info->lpVtbl->IsArrayClass(info, cls, &element, &element_class, &rank) == S_OK) {
        t = resolve_node();
        if (!t)
            return NULL;
        t->array_rank = rank ? rank : 1;
        t->element = element_class ? resolve_class(element_class, depth + 1) : NULL;
        if (!t->element) {
            names_type *e = resolve_node();
            if (e)
                e->name = resolve_element_name(element);
            t->element = e;
        }
        return t;
    }
    if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &module, &td, &parent, NAMES_MAX_ARGS,
                                             &nargs, args)))
        return NULL;
    md = resolve_import(module);
    if (!md)
        return NULL;
    t = resolve_typedef(md, td, depth);
    md->lpVtbl->Release(md);
    if (!t)
        return NULL;
    t->nargs = nargs;
    for (i = 0; i < nargs && i < NAMES_MAX_ARGS; i++)
        t->args[i] = resolve_class(args[i], depth + 1);
    return t;
}

/* Generic arity from a method signature blob (ECMA-335 II.23.2.1). */
static unsigned resolve_generic_arity(PCCOR_SIGNATURE sig, ULONG length)
{
    if (!sig || length < 2 || !(sig[0] & CALLCONV_GENERIC))
        return 0;
    if (!(sig[1] & 0x80))
        return sig[1];
    if ((sig[1] & 0xC0) == 0x80 && length >= 3)
        return ((unsigned)(sig[1] & 0x3F) << 8) | sig[2];
    return 0;
}

int names_resolve(ICorProfilerInfo10 *info, uint64_t function_id, char *out, size_t outsz,
                  uint64_t *module_id, uint32_t *token)
{
    ClassID cls = 0, margs[NAMES_MAX_ARGS];
    ModuleID module = 0;
    mdToken method = 0;
    ULONG32 nmargs = 0, i;
    mdTypeDef owner_td = 0;
    WCHAR name[RESOLVE_NAME_UNITS];
    ULONG len = 0, sig_len = 0, rva = 0;
    DWORD attr = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    IMetaDataImport *md;
    names_method m;
    HRESULT hr;

    arena.used_nodes = 0;
    arena.used_text = 0;
    memset(&m, 0, sizeof(m));
    hr = info->lpVtbl->GetFunctionInfo2(info, function_id, 0, &cls, &module, &method,
                                        NAMES_MAX_ARGS, &nmargs, margs);
    if (FAILED(hr)) {
        nmargs = 0;
        if (FAILED(info->lpVtbl->GetFunctionInfo(info, function_id, &cls, &module, &method)))
            return -1;
    }
    md = resolve_import(module);
    if (!md)
        return -1;
    hr = md->lpVtbl->GetMethodProps(md, method, &owner_td, name, RESOLVE_NAME_UNITS, &len, &attr,
                                    &sig, &sig_len, &rva, &impl);
    if (FAILED(hr)) {
        md->lpVtbl->Release(md);
        return -1;
    }
    m.name = resolve_text(name, len);
    m.generic_arity = resolve_generic_arity(sig, sig_len);
    /* the ClassID carries the instantiation; without one, name the typedef */
    m.owner = cls ? resolve_class(cls, 0) : NULL;
    if (!m.owner && owner_td && (owner_td & 0x00FFFFFFu) != 1) /* typedef 1 is <Module> */
        m.owner = resolve_typedef(md, owner_td, 0);
    md->lpVtbl->Release(md);
    m.nargs = nmargs;
    for (i = 0; i < nmargs && i < NAMES_MAX_ARGS; i++)
        m.args[i] = resolve_class(margs[i], 1);
    names_format_method(&m, out, outsz);
    *module_id = module;
    *token = method;
    return 0;
}
