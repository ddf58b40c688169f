/* names_resolve.c -- walks the runtime's metadata to name a FunctionID.
 *
 * Sender thread only (it uses static scratch space): never on an app thread.
 * GetFunctionInfo2 gives the owning ClassID and the method's type arguments;
 * GetClassIDInfo2 gives a class's typedef and instantiation; the module's
 * metadata gives names and nesting: read straight from its image (mdread.h
 * says why) for modules that never unload, else through the runtime's
 * IMetaDataImport (the resolve_md_* functions hide which of the two answers).
 * The pieces go into a names_type tree that names_format_method (names.c)
 * prints; the parameter list comes from the method's signature blob (sig.c),
 * with the types it names by token looked up in the same module's metadata
 * and generic parameters replaced by the known type arguments. Every call may fail (an ID can be stale, a module may be
 * dynamic): each failure degrades the name, none is fatal. Plain classes' names
 * and dynamic modules' importers are kept between names (names_cache.h).
 */
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "mdcache.h"
#include "names.h"
#include "names_cache.h"
#include "names_resolve.h"
#include "sig.h"
#include "utf.h"

#define RESOLVE_NODES 96
#define RESOLVE_TEXT 16384
#define RESOLVE_NAME_UNITS 512
#define RESOLVE_NAME_BYTES (RESOLVE_NAME_UNITS * 3 + 1) /* as UTF-8 */
#define CALLCONV_GENERIC 0x10u
#define TD_VISIBILITY_MASK 0x7u
#define TD_NESTED_PUBLIC 0x2u
#define TOKEN_TYPE_MASK 0xFF000000u
#define TOKEN_TYPEREF 0x01000000u
#define TOKEN_TYPEDEF 0x02000000u
#define TOKEN_TYPESPEC 0x1b000000u
#define RESOLVE_TYPESPEC_DEPTH 2 /* a TypeSpec naming a TypeSpec: malformed past this */

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

/* A name the runtime wrote into a buffer of `capacity` units, as UTF-8 into
 * out (NUL-terminated). The runtime reports the name's whole length, which may
 * be more than the buffer holds, and may count the NUL: both are bounded
 * here. Returns the length written. */
static size_t resolve_utf8(const WCHAR *name, ULONG units, ULONG capacity, char *out, size_t outsz)
{
    size_t n;
    int truncated;

    if (outsz == 0)
        return 0;
    if (units > capacity)
        units = capacity;
    while (units > 0 && name[units - 1] == 0)
        units--;
    n = utf16_to_utf8(name, units, out, outsz - 1, &truncated);
    out[n] = '\0';
    return n;
}

/* Copies a name already checked (a kept one) into the arena, "?" when full. */
static const char *resolve_copy(const char *name)
{
    size_t n = strlen(name), room = RESOLVE_TEXT - arena.used_text;
    char *out = arena.text + arena.used_text;

    if (n + 1 > room)
        return "?";
    memcpy(out, name, n + 1);
    arena.used_text += n + 1;
    return out;
}

/* Copies a UTF-8 name into the arena (cut short, if it must be, between
 * characters). */
static const char *resolve_text(const char *name)
{
    size_t room = RESOLVE_TEXT - arena.used_text, n;
    char *out = arena.text + arena.used_text;
    int truncated;

    if (room < 2)
        return "?";
    n = utf8_sanitize(name, strlen(name), out, room - 1, &truncated);
    out[n] = '\0';
    arena.used_text += n + 1;
    return out;
}

static const char *resolve_element_name(CorElementType e)
{
    const char *name = sig_clr_name_of((uint8_t)e);

    return name ? name : "?";
}

/* ---- a module's metadata: read directly, or through the runtime ---- */

typedef struct resolve_md {
    ModuleID module;
    const mdread *raw;    /* the image's metadata, read directly */
    IMetaDataImport *com; /* else the runtime's importer (released by resolve_md_close) */
    int kept;             /* com is names_cache's: not released here */
} resolve_md;

/* A dynamic module that never unloads keeps its importer in names_cache. */
static void resolve_md_keep(resolve_md *md)
{
    LPCBYTE base = NULL;
    AssemblyID assembly = 0;
    DWORD flags = 0;

    if (md->raw ||
        FAILED(agent.info->lpVtbl->GetModuleInfo2(agent.info, md->module, &base, 0, NULL, NULL,
                                                  &assembly, &flags)) ||
        (flags & (COR_PRF_MODULE_DYNAMIC | COR_PRF_MODULE_COLLECTIBLE)) != COR_PRF_MODULE_DYNAMIC)
        return;
    md->kept = names_cache_put_importer(md->module, md->com) == 0;
}

static int resolve_md_open_importer(resolve_md *md)
{
    IUnknown *unk = NULL;

    mdcache_importer_opened();
    if (FAILED(agent.info->lpVtbl->GetModuleMetaData(agent.info, md->module, ofRead,
                                                     &IID_IMetaDataImport, &unk)) ||
        !unk)
        return -1;
    md->com = (IMetaDataImport *)unk;
    resolve_md_keep(md);
    return 0;
}

static int resolve_md_open(ModuleID module, resolve_md *md)
{
    md->module = module;
    md->kept = 0;
    md->raw = NULL;
    if ((md->com = names_cache_importer(module)) != NULL) {
        md->kept = 1;
        return 0;
    }
    md->raw = mdcache_get(agent.info, module);
    return md->raw ? 0 : resolve_md_open_importer(md);
}

/* 1 when `token` is read from the image; else the importer answers (opened
 * now if needed): a token the image does not have was added at run time. */
static int resolve_md_direct(resolve_md *md, mdToken token)
{
    if (md->raw && mdread_knows(md->raw, token))
        return 1;
    if (!md->com && resolve_md_open_importer(md) != 0)
        return -1;
    return 0;
}

static void resolve_md_close(resolve_md *md)
{
    if (md->com && !md->kept)
        md->com->lpVtbl->Release(md->com);
    md->com = NULL;
}

/* "Ns.Name" as IMetaDataImport writes a type's name, as UTF-8 into out. */
static void resolve_full_name(const char *ns, const char *name, char *out, size_t outsz)
{
    size_t used = 0, n = strlen(ns);
    int truncated;

    if (n) {
        used = utf8_sanitize(ns, n, out, outsz - 2, &truncated);
        out[used++] = '.';
    }
    used += utf8_sanitize(name, strlen(name), out + used, outsz - 1 - used, &truncated);
    out[used] = '\0';
}

/* A TypeDef's full name (UTF-8, into out of RESOLVE_NAME_BYTES) and flags. */
static int resolve_md_type_def(resolve_md *md, mdTypeDef td, char *out, DWORD *flags)
{
    WCHAR name[RESOLVE_NAME_UNITS];
    ULONG len = 0;
    mdToken extends = 0;
    const char *ns, *simple;
    uint32_t f = 0;
    int direct = resolve_md_direct(md, td);

    if (direct < 0)
        return -1;
    if (direct) {
        if (mdread_type_def(md->raw, td, &ns, &simple, &f) != 0)
            return -1;
        resolve_full_name(ns, simple, out, RESOLVE_NAME_BYTES);
        *flags = f;
        return 0;
    }
    if (FAILED(md->com->lpVtbl->GetTypeDefProps(md->com, td, name, RESOLVE_NAME_UNITS, &len, flags,
                                                &extends)))
        return -1;
    resolve_utf8(name, len, RESOLVE_NAME_UNITS, out, RESOLVE_NAME_BYTES);
    return 0;
}

static int resolve_md_enclosing(resolve_md *md, mdTypeDef td, mdTypeDef *enclosing)
{
    int direct = resolve_md_direct(md, td);

    if (direct < 0)
        return -1;
    if (direct) /* an mdTypeDef is the table's uint32_t token */
        return mdread_enclosing(md->raw, td, enclosing) != 0 ? -1 : 0;
    return FAILED(md->com->lpVtbl->GetNestedClassProps(md->com, td, enclosing)) ? -1 : 0;
}

static int resolve_md_type_ref(resolve_md *md, mdToken tr, char *out)
{
    WCHAR name[RESOLVE_NAME_UNITS];
    ULONG len = 0;
    mdToken scope = 0;
    const char *ns, *simple;
    int direct = resolve_md_direct(md, tr);

    if (direct < 0)
        return -1;
    if (direct) {
        if (mdread_type_ref(md->raw, tr, &ns, &simple) != 0)
            return -1;
        resolve_full_name(ns, simple, out, RESOLVE_NAME_BYTES);
        return 0;
    }
    if (FAILED(
            md->com->lpVtbl->GetTypeRefProps(md->com, tr, &scope, name, RESOLVE_NAME_UNITS, &len)))
        return -1;
    resolve_utf8(name, len, RESOLVE_NAME_UNITS, out, RESOLVE_NAME_BYTES);
    return 0;
}

static int resolve_md_type_spec(resolve_md *md, mdToken ts, PCCOR_SIGNATURE *sig, ULONG *len)
{
    int direct = resolve_md_direct(md, ts);

    if (direct < 0)
        return -1;
    if (direct) /* a ULONG is the blob's uint32_t length */
        return mdread_type_spec(md->raw, ts, sig, len) != 0 ? -1 : 0;
    return FAILED(md->com->lpVtbl->GetTypeSpecFromToken(md->com, ts, sig, len)) || !*sig ? -1 : 0;
}

/* A MethodDef's name (UTF-8, into out of RESOLVE_NAME_BYTES), declaring
 * type and signature blob (which lives as long as the module does). */
static int resolve_md_method(resolve_md *md, mdMethodDef method, char *out, mdTypeDef *owner,
                             PCCOR_SIGNATURE *sig, ULONG *sig_len)
{
    WCHAR name[RESOLVE_NAME_UNITS];
    ULONG len = 0, rva = 0;
    DWORD attr = 0, impl = 0;
    mdread_method m;
    int truncated;
    size_t n;
    int direct = resolve_md_direct(md, method);

    if (direct < 0)
        return -1;
    if (direct) {
        if (mdread_method_props(md->raw, method, &m) != 0)
            return -1;
        n = utf8_sanitize(m.name, strlen(m.name), out, RESOLVE_NAME_BYTES - 1, &truncated);
        out[n] = '\0';
        *owner = m.owner;
        *sig = m.sig;
        *sig_len = m.sig_len;
        return 0;
    }
    if (FAILED(md->com->lpVtbl->GetMethodProps(md->com, method, owner, name, RESOLVE_NAME_UNITS,
                                               &len, &attr, sig, sig_len, &rva, &impl)))
        return -1;
    resolve_utf8(name, len, RESOLVE_NAME_UNITS, out, RESOLVE_NAME_BYTES);
    return 0;
}

/* A typedef and its enclosing types (no instantiation). */
static names_type *resolve_typedef(resolve_md *md, mdTypeDef td, unsigned depth)
{
    char name[RESOLVE_NAME_BYTES];
    DWORD flags = 0;
    mdTypeDef enclosing = 0;
    names_type *t = resolve_node();

    if (!t)
        return NULL;
    if (resolve_md_type_def(md, td, name, &flags) != 0) {
        t->name = "?";
        return t;
    }
    t->name = resolve_text(name);
    if ((flags & TD_VISIBILITY_MASK) >= TD_NESTED_PUBLIC && depth < NAMES_MAX_DEPTH &&
        resolve_md_enclosing(md, td, &enclosing) == 0 && enclosing)
        t->enclosing = resolve_typedef(md, enclosing, depth + 1);
    return t;
}

/* A plain class's names as kept (names_cache.h): the class, then the types
 * that enclose it. */
static names_type *resolve_kept(const char *const *names, unsigned count)
{
    names_type *t = NULL, *outer = NULL, *node;
    unsigned i;

    for (i = 0; i < count; i++) {
        if (!(node = resolve_node()))
            break;
        node->name = resolve_copy(names[i]);
        if (outer)
            outer->enclosing = node;
        else
            t = node;
        outer = node;
    }
    return t;
}

/* Keeps the names of a plain class (no instantiation, not an array) whose
 * every name was read. */
static void resolve_keep(ClassID cls, uint64_t generation, const names_type *t)
{
    const char *names[NAMES_CACHE_CHAIN];
    unsigned count = 0;

    for (; t && count < NAMES_CACHE_CHAIN; t = t->enclosing) {
        if (t->nargs || t->element || !t->name || strcmp(t->name, "?") == 0)
            return;
        names[count++] = t->name;
    }
    if (!t)
        names_cache_put_type(cls, generation, names, count);
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
    resolve_md md;
    names_type *t;

    const char *kept[NAMES_CACHE_CHAIN];
    uint64_t generation = atomic_load(&agent.unload_gen);
    unsigned count;

    if (depth > NAMES_MAX_DEPTH || cls == 0)
        return NULL;
    if ((count = names_cache_type(cls, generation, kept)) != 0)
        return resolve_kept(kept, count);
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
    if (resolve_md_open(module, &md) != 0)
        return NULL;
    t = resolve_typedef(&md, td, depth);
    resolve_md_close(&md);
    if (!t)
        return NULL;
    t->nargs = nargs;
    for (i = 0; i < nargs && i < NAMES_MAX_ARGS; i++)
        t->args[i] = resolve_class(args[i], depth + 1);
    resolve_keep(cls, generation, t);
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

/* ---- parameter lists ---- */

typedef struct resolve_sig_ctx {
    resolve_md *md;
    sig_names names;
    unsigned typespec_depth;
} resolve_sig_ctx;

/* "Ns.Outer.Point" -> "Point": parameter types are named without namespace. */
static size_t resolve_short_name(const char *full, char *out, size_t outsz)
{
    const char *dot;
    size_t n;

    dot = strrchr(full, '.');
    dot = dot ? dot + 1 : full;
    n = strlen(dot);
    if (n == 0 || n >= outsz)
        return 0;
    memcpy(out, dot, n + 1);
    return n;
}

/* sig_names.type_token: a TypeDef, TypeRef or TypeSpec of the method's module. */
static size_t resolve_token_name(void *ctx, uint32_t token, char *out, size_t outsz)
{
    resolve_sig_ctx *c = ctx;
    char name[RESOLVE_NAME_BYTES];
    ULONG sig_len = 0;
    DWORD flags = 0;
    PCCOR_SIGNATURE sig = NULL;
    int n;

    switch (token & TOKEN_TYPE_MASK) {
    case TOKEN_TYPEDEF:
        if (resolve_md_type_def(c->md, token, name, &flags) != 0)
            return 0;
        return resolve_short_name(name, out, outsz);
    case TOKEN_TYPEREF:
        if (resolve_md_type_ref(c->md, token, name) != 0)
            return 0;
        return resolve_short_name(name, out, outsz);
    case TOKEN_TYPESPEC:
        if (c->typespec_depth >= RESOLVE_TYPESPEC_DEPTH ||
            resolve_md_type_spec(c->md, token, &sig, &sig_len) != 0)
            return 0;
        c->typespec_depth++;
        n = sig_format_type(sig, sig_len, &c->names, out, outsz);
        c->typespec_depth--;
        return n > 0 ? (size_t)n : 0;
    default: return 0;
    }
}

/* A known type argument as a parameter type: "System.Int64" -> "long",
 * "Ns.Point" -> "Point"; instantiations and arrays keep their full form. */
static const char *resolve_arg_text(const names_type *t)
{
    char full[512];
    const char *keyword, *dot, *s;
    size_t n, room;
    char *out;

    if (!t)
        return NULL;
    names_format_type(t, full, sizeof(full));
    keyword = sig_keyword_of(full);
    if (keyword)
        return keyword;
    s = full;
    dot = strrchr(full, '.');
    if (dot && !strpbrk(full, "<[`"))
        s = dot + 1;
    n = strlen(s);
    room = RESOLVE_TEXT - arena.used_text;
    if (n + 1 > room)
        return NULL;
    out = arena.text + arena.used_text;
    memcpy(out, s, n + 1);
    arena.used_text += n + 1;
    return out;
}

/* Appends "(int, ref long)" from the signature blob to the name in out. */
static void resolve_params(resolve_md *md, const names_method *m, PCCOR_SIGNATURE sig,
                           ULONG sig_len, char *out, size_t outsz)
{
    static const char *class_args[NAMES_MAX_ARGS], *method_args[NAMES_MAX_ARGS];
    resolve_sig_ctx ctx = {.md = md};
    size_t used = strlen(out);
    unsigned i, nclass = 0, nmethod = 0;

    if (!sig || outsz - used < 8)
        return;
    if (m->owner && !m->owner->element) {
        nclass = m->owner->nargs < NAMES_MAX_ARGS ? m->owner->nargs : NAMES_MAX_ARGS;
        for (i = 0; i < nclass; i++)
            class_args[i] = resolve_arg_text(m->owner->args[i]);
    }
    nmethod = m->nargs < NAMES_MAX_ARGS ? m->nargs : NAMES_MAX_ARGS;
    for (i = 0; i < nmethod; i++)
        method_args[i] = resolve_arg_text(m->args[i]);
    ctx.names = (sig_names){.type_token = resolve_token_name,
                            .ctx = &ctx,
                            .class_args = class_args,
                            .class_arg_count = nclass,
                            .method_args = method_args,
                            .method_arg_count = nmethod};
    (void)sig_format_params(sig, sig_len, &ctx.names, out + used, outsz - used);
}

int names_resolve(ICorProfilerInfo10 *info, uint64_t function_id, char *out, size_t outsz,
                  uint64_t *module_id, uint32_t *token)
{
    ClassID cls = 0, margs[NAMES_MAX_ARGS];
    ModuleID module = 0;
    mdToken method = 0;
    ULONG32 nmargs = 0, i;
    mdTypeDef owner_td = 0;
    char name[RESOLVE_NAME_BYTES];
    ULONG sig_len = 0;
    PCCOR_SIGNATURE sig = NULL;
    resolve_md md;
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
    if (resolve_md_open(module, &md) != 0)
        return -1;
    if (resolve_md_method(&md, method, name, &owner_td, &sig, &sig_len) != 0) {
        resolve_md_close(&md);
        return -1;
    }
    m.name = resolve_text(name);
    m.generic_arity = resolve_generic_arity(sig, sig_len);
    /* the ClassID carries the instantiation; without one, name the typedef */
    m.owner = cls ? resolve_class(cls, 0) : NULL;
    if (!m.owner && owner_td && (owner_td & 0x00FFFFFFu) != 1) /* typedef 1 is <Module> */
        m.owner = resolve_typedef(&md, owner_td, 0);
    m.nargs = nmargs;
    for (i = 0; i < nmargs && i < NAMES_MAX_ARGS; i++)
        m.args[i] = resolve_class(margs[i], 1);
    names_format_method(&m, out, outsz);
    resolve_params(&md, &m, sig, sig_len, out, outsz); /* the blob belongs to md */
    resolve_md_close(&md);
    *module_id = module;
    *token = method;
    return 0;
}

/* ---- dynamic methods ---- */

#define DYNAMIC_NAME_UNITS 256
#define IL_STUB_PREFIX "IL_STUB"

#define HANDLE_NAME_DEPTH 3

static size_t handle_put(char *out, size_t outsz, size_t used, const char *s)
{
    size_t n = strlen(s);

    if (used >= outsz || n >= outsz - used)
        return outsz; /* does not fit: the caller gives up */
    memcpy(out + used, s, n + 1);
    return used + n;
}

/* A loaded type by ClassID, short and C#-like ("int", "RegexRunner",
 * "ReadOnlySpan<char>", "string[]"), with stack buffers only, so that any
 * thread may call it. Returns the length, 0 when unknown or too long. */
static size_t handle_name(ClassID cls, char *out, size_t outsz, unsigned depth)
{
    ICorProfilerInfo10 *info = agent.info;
    CorElementType element = 0;
    ClassID element_class = 0, parent = 0, args[4];
    ULONG rank = 0, r;
    ULONG32 nargs = 0, i;
    ModuleID module = 0;
    mdTypeDef td = 0;
    DWORD flags = 0;
    char full[RESOLVE_NAME_BYTES], *tick;
    const char *shown, *dot;
    resolve_md md;
    size_t used, n;
    HRESULT hr;
    int rc;

    if (cls == 0 || depth > HANDLE_NAME_DEPTH || outsz < 2)
        return 0;
    if (info->lpVtbl->IsArrayClass(info, cls, &element, &element_class, &rank) == S_OK) {
        used = element_class ? handle_name(element_class, out, outsz, depth + 1) : 0;
        if (used == 0)
            used = handle_put(out, outsz, 0, "?");
        used = handle_put(out, outsz, used, "[");
        for (r = 1; r < rank && r < 32; r++)
            used = handle_put(out, outsz, used, ",");
        used = handle_put(out, outsz, used, "]");
        return used < outsz ? used : 0;
    }
    hr = info->lpVtbl->GetClassIDInfo2(info, cls, &module, &td, &parent, 4, &nargs, args);
    if (FAILED(hr) || resolve_md_open(module, &md) != 0)
        return 0;
    rc = resolve_md_type_def(&md, td, full, &flags);
    resolve_md_close(&md);
    if (rc != 0)
        return 0;
    shown = sig_keyword_of(full);
    if (!shown) {
        tick = strchr(full, '`');
        if (tick)
            *tick = '\0';
        dot = strrchr(full, '.');
        shown = dot ? dot + 1 : full;
    }
    used = handle_put(out, outsz, 0, shown);
    if (nargs > 0) {
        used = handle_put(out, outsz, used, "<");
        for (i = 0; i < nargs && used < outsz; i++) {
            if (i)
                used = handle_put(out, outsz, used, ", ");
            n = i < 4 && used < outsz ? handle_name(args[i], out + used, outsz - used, depth + 1)
                                      : 0;
            used = n ? used + n : handle_put(out, outsz, used, "?");
        }
        used = handle_put(out, outsz, used, ">");
    }
    return used < outsz ? used : 0;
}

/* sig_names.type_handle for runtime-built signatures. */
static size_t resolve_handle_name(void *ctx, uint64_t handle, char *out, size_t outsz)
{
    (void)ctx;
    return handle_name((ClassID)handle, out, outsz, 0);
}

/* Safe on any thread (stack buffers only, no arena); called only while the
 * method lives, in its JIT callbacks (names_resolve.h). */
int names_dynamic(ICorProfilerInfo10 *info, uint64_t function_id, char *out, size_t outsz)
{
    WCHAR name[DYNAMIC_NAME_UNITS];
    char utf8[DYNAMIC_NAME_UNITS * 3 + 1];
    ModuleID module = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0, len = 0;
    static const sig_names handle_names = {.type_handle = resolve_handle_name};
    size_t n;
    int written;

    if (outsz < 32 ||
        FAILED(info->lpVtbl->GetDynamicFunctionInfo(info, function_id, &module, &sig, &sig_len,
                                                    DYNAMIC_NAME_UNITS, &len, name)))
        return -1;
    n = resolve_utf8(name, len, DYNAMIC_NAME_UNITS, utf8, sizeof(utf8));
    /* The runtime names its own marshalling stubs IL_STUB_*; everything else
     * is a DynamicMethod (LCG) somebody emitted: expression trees, Regex,
     * serializers. Their signatures name classes by tokens of the dynamic
     * method's own scope, which no metadata import knows: those show as "?". */
    written = snprintf(out, outsz, "%s %s",
                       strncmp(utf8, IL_STUB_PREFIX, sizeof(IL_STUB_PREFIX) - 1) == 0 ? "[IL stub]"
                                                                                      : "[dynamic]",
                       n ? utf8 : "?");
    if (written < 0)
        return -1;
    n = (size_t)written < outsz ? (size_t)written : outsz - 1;
    if (sig && outsz - n >= 8)
        (void)sig_format_params(sig, sig_len, &handle_names, out + n, outsz - n);
    return 0;
}
