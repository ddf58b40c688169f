/* sig.c -- method signature blobs as parameter lists (see sig.h).
 *
 * A reader walks the blob with its position checked before every byte; a
 * writer appends to the caller's buffer and remembers that it was cut. Types
 * recurse (arrays, pointers, by-refs, generic arguments) at most SIG_MAX_DEPTH
 * deep. Layouts: ECMA-335 II.23.2.1 (MethodDefSig), II.23.2.12 (Type),
 * II.23.2.14 (TypeSpec), II.23.1.16 (element types). */
#include "sig.h"

#include <stdio.h>
#include <string.h>

enum {
    ELEMENT_VOID = 0x01,
    ELEMENT_PTR = 0x0f,
    ELEMENT_BYREF = 0x10,
    ELEMENT_VALUETYPE = 0x11,
    ELEMENT_CLASS = 0x12,
    ELEMENT_VAR = 0x13,
    ELEMENT_ARRAY = 0x14,
    ELEMENT_GENERICINST = 0x15,
    ELEMENT_TYPEDBYREF = 0x16,
    ELEMENT_FNPTR = 0x1b,
    ELEMENT_SZARRAY = 0x1d,
    ELEMENT_MVAR = 0x1e,
    ELEMENT_CMOD_REQD = 0x1f,
    ELEMENT_CMOD_OPT = 0x20,
    ELEMENT_INTERNAL = 0x21,      /* runtime-built signatures: a type handle follows */
    ELEMENT_CMOD_INTERNAL = 0x22, /* runtime-built: required flag byte, then a handle */
    ELEMENT_SENTINEL = 0x41,
    ELEMENT_PINNED = 0x45,
    CALLCONV_GENERIC = 0x10,
};

typedef struct sig_reader {
    const uint8_t *sig;
    size_t length, pos;
    const sig_names *names;
} sig_reader;

typedef struct sig_writer {
    char *out;
    size_t cap; /* bytes usable for text, NUL excluded */
    size_t len;
    int cut;
} sig_writer;

static void sig_put(sig_writer *w, const char *s, size_t n)
{
    if (!w->out)
        return; /* a skipped part (return type, function pointer) */
    if (n > w->cap - w->len) {
        n = w->cap - w->len;
        w->cut = 1;
    }
    memcpy(w->out + w->len, s, n);
    w->len += n;
    w->out[w->len] = '\0';
}

static void sig_puts(sig_writer *w, const char *s) { sig_put(w, s, strlen(s)); }

int sig_read_compressed(const uint8_t *sig, size_t length, size_t *pos, uint32_t *value)
{
    size_t p = *pos;
    uint8_t b;

    if (p >= length)
        return -1;
    b = sig[p];
    if ((b & 0x80) == 0) {
        *value = b;
        *pos = p + 1;
        return 0;
    }
    if ((b & 0xC0) == 0x80) {
        if (length - p < 2)
            return -1;
        *value = ((uint32_t)(b & 0x3F) << 8) | sig[p + 1];
        *pos = p + 2;
        return 0;
    }
    if ((b & 0xE0) == 0xC0) {
        if (length - p < 4)
            return -1;
        *value = ((uint32_t)(b & 0x1F) << 24) | ((uint32_t)sig[p + 1] << 16) |
                 ((uint32_t)sig[p + 2] << 8) | sig[p + 3];
        *pos = p + 4;
        return 0;
    }
    return -1;
}

static int sig_byte(sig_reader *r, uint8_t *b)
{
    if (r->pos >= r->length)
        return -1;
    *b = r->sig[r->pos++];
    return 0;
}

static int sig_number(sig_reader *r, uint32_t *v)
{
    return sig_read_compressed(r->sig, r->length, &r->pos, v);
}

/* TypeDefOrRefOrSpecEncoded (II.23.2.8) to a metadata token. */
static int sig_token(sig_reader *r, uint32_t *token)
{
    static const uint32_t tables[3] = {0x02000000u, 0x01000000u, 0x1b000000u};
    uint32_t v;

    if (sig_number(r, &v) != 0 || (v & 3u) == 3u || (v >> 2) > 0x00FFFFFFu)
        return -1;
    *token = tables[v & 3u] | (v >> 2);
    return 0;
}

/* The built-in element types: their C# keyword and their full name. */
static const struct sig_builtin {
    uint8_t element;
    const char *keyword;
    const char *clr_name;
} sig_builtins[] = {
    {0x01, "void", "System.Void"},
    {0x02, "bool", "System.Boolean"},
    {0x03, "char", "System.Char"},
    {0x04, "sbyte", "System.SByte"},
    {0x05, "byte", "System.Byte"},
    {0x06, "short", "System.Int16"},
    {0x07, "ushort", "System.UInt16"},
    {0x08, "int", "System.Int32"},
    {0x09, "uint", "System.UInt32"},
    {0x0a, "long", "System.Int64"},
    {0x0b, "ulong", "System.UInt64"},
    {0x0c, "float", "System.Single"},
    {0x0d, "double", "System.Double"},
    {0x0e, "string", "System.String"},
    {0x16, "TypedReference", "System.TypedReference"},
    {0x18, "nint", "System.IntPtr"},
    {0x19, "nuint", "System.UIntPtr"},
    {0x1c, "object", "System.Object"},
};

static const char *sig_keyword(uint8_t e)
{
    for (size_t i = 0; i < sizeof(sig_builtins) / sizeof(sig_builtins[0]); i++)
        if (sig_builtins[i].element == e)
            return sig_builtins[i].keyword;
    return NULL;
}

const char *sig_clr_name_of(uint8_t element)
{
    for (size_t i = 0; i < sizeof(sig_builtins) / sizeof(sig_builtins[0]); i++)
        if (sig_builtins[i].element == element)
            return sig_builtins[i].clr_name;
    return NULL;
}

const char *sig_keyword_of(const char *clr_name)
{
    if (!clr_name || strncmp(clr_name, "System.", 7) != 0) /* every built-in's namespace */
        return NULL;
    for (size_t i = 0; i < sizeof(sig_builtins) / sizeof(sig_builtins[0]); i++)
        if (strcmp(sig_builtins[i].clr_name, clr_name) == 0)
            return sig_builtins[i].keyword;
    return NULL;
}

/* The name a callback wrote (n bytes, 0: unknown), or "?"; `definition_only`
 * keeps "Name" of "Name`1" / "Name<...>": the arguments follow in the blob. */
static void sig_put_type_name(sig_writer *w, const char *name, size_t n, size_t size,
                              int definition_only)
{
    if (n == 0 || n >= size) {
        sig_puts(w, "?");
        return;
    }
    if (definition_only)
        n = strcspn(name, "<`");
    sig_put(w, name, n);
}

/* A type named by token (TypeDef, TypeRef, TypeSpec), or by_handle by the
 * runtime's handle (ELEMENT_TYPE_INTERNAL), through the names' callback. */
static void sig_put_named(sig_reader *r, sig_writer *w, int by_handle, uint64_t key,
                          int definition_only)
{
    char name[512];
    size_t n = 0;

    if (!w->out)
        return;
    if (w->len >= w->cap) { /* no room: the name is cut, and asked for nothing */
        w->cut = 1;
        return;
    }
    if (r->names && by_handle && r->names->type_handle)
        n = r->names->type_handle(r->names->ctx, key, name, sizeof(name));
    else if (r->names && !by_handle && r->names->type_token)
        n = r->names->type_token(r->names->ctx, (uint32_t)key, name, sizeof(name));
    sig_put_type_name(w, name, n, sizeof(name), definition_only);
}

/* A pointer-sized type handle, as the runtime copies it into its signatures. */
static int sig_handle(sig_reader *r, uint64_t *handle)
{
    uint64_t v = 0;

    if (r->length - r->pos < sizeof(void *))
        return -1;
    for (size_t i = 0; i < sizeof(void *); i++) /* little-endian, unaligned */
        v |= (uint64_t)r->sig[r->pos + i] << (8 * i);
    r->pos += sizeof(void *);
    *handle = v;
    return 0;
}

static void sig_put_generic_param(sig_writer *w, const char *const *known, unsigned count,
                                  uint32_t index, const char *prefix)
{
    char text[24];

    if (known && index < count && known[index]) {
        sig_puts(w, known[index]);
        return;
    }
    snprintf(text, sizeof(text), "%s%u", prefix, index);
    sig_puts(w, text);
}

static int sig_type(sig_reader *r, sig_writer *w, unsigned depth);

/* A whole method signature; the parameters go to w (the return type never). */
static int sig_method(sig_reader *r, sig_writer *w, unsigned depth, uint32_t *param_count)
{
    sig_writer skip = {0};
    uint8_t callconv;
    uint32_t generic = 0, count, i;

    if (sig_byte(r, &callconv) != 0)
        return -1;
    if ((callconv & CALLCONV_GENERIC) && sig_number(r, &generic) != 0)
        return -1;
    if (sig_number(r, &count) != 0 || count > SIG_MAX_PARAMS)
        return -1;
    if (sig_type(r, &skip, depth + 1) != 0) /* return type */
        return -1;
    sig_puts(w, "(");
    for (i = 0; i < count; i++) {
        if (i)
            sig_puts(w, ", ");
        if (r->pos < r->length && r->sig[r->pos] == ELEMENT_SENTINEL) {
            r->pos++;
            sig_puts(w, "..., ");
        }
        if (sig_type(r, w, depth + 1) != 0)
            return -1;
    }
    sig_puts(w, ")");
    *param_count = count;
    return 0;
}

static int sig_type(sig_reader *r, sig_writer *w, unsigned depth)
{
    uint8_t e;
    uint32_t v, token, count, i;
    const char *keyword;

    if (depth > SIG_MAX_DEPTH)
        return -1;
    for (;;) { /* custom modifiers and `pinned` say nothing a reader needs */
        if (sig_byte(r, &e) != 0)
            return -1;
        if (e == ELEMENT_CMOD_REQD || e == ELEMENT_CMOD_OPT) {
            if (sig_token(r, &token) != 0)
                return -1;
            continue;
        }
        if (e == ELEMENT_CMOD_INTERNAL) {
            uint8_t required;
            uint64_t handle;
            if (sig_byte(r, &required) != 0 || sig_handle(r, &handle) != 0)
                return -1;
            continue;
        }
        if (e != ELEMENT_PINNED)
            break;
    }
    keyword = sig_keyword(e);
    if (keyword) {
        sig_puts(w, keyword);
        return 0;
    }
    switch (e) {
    case ELEMENT_PTR:
        if (sig_type(r, w, depth + 1) != 0)
            return -1;
        sig_puts(w, "*");
        return 0;
    case ELEMENT_BYREF: sig_puts(w, "ref "); return sig_type(r, w, depth + 1);
    case ELEMENT_VALUETYPE:
    case ELEMENT_CLASS:
        if (sig_token(r, &token) != 0)
            return -1;
        sig_put_named(r, w, 0, token, 0);
        return 0;
    case ELEMENT_INTERNAL: {
        uint64_t handle;
        if (sig_handle(r, &handle) != 0)
            return -1;
        sig_put_named(r, w, 1, handle, 0);
        return 0;
    }
    case ELEMENT_VAR:
    case ELEMENT_MVAR:
        if (sig_number(r, &v) != 0)
            return -1;
        if (e == ELEMENT_VAR)
            sig_put_generic_param(w, r->names ? r->names->class_args : NULL,
                                  r->names ? r->names->class_arg_count : 0, v, "!");
        else
            sig_put_generic_param(w, r->names ? r->names->method_args : NULL,
                                  r->names ? r->names->method_arg_count : 0, v, "!!");
        return 0;
    case ELEMENT_SZARRAY:
        if (sig_type(r, w, depth + 1) != 0)
            return -1;
        sig_puts(w, "[]");
        return 0;
    case ELEMENT_ARRAY: {
        uint32_t rank, sizes, bounds;
        if (sig_type(r, w, depth + 1) != 0 || sig_number(r, &rank) != 0 || rank == 0 || rank > 32 ||
            sig_number(r, &sizes) != 0 || sizes > rank)
            return -1;
        for (i = 0; i < sizes; i++)
            if (sig_number(r, &v) != 0)
                return -1;
        if (sig_number(r, &bounds) != 0 || bounds > rank)
            return -1;
        for (i = 0; i < bounds; i++) /* signed compressed: the same byte layout */
            if (sig_number(r, &v) != 0)
                return -1;
        sig_puts(w, "[");
        for (i = 1; i < rank; i++)
            sig_puts(w, ",");
        sig_puts(w, "]");
        return 0;
    }
    case ELEMENT_GENERICINST: {
        uint8_t kind;
        uint64_t handle = 0;
        if (sig_byte(r, &kind) != 0)
            return -1;
        if (kind == ELEMENT_INTERNAL) { /* runtime-built: the definition by handle */
            if (sig_handle(r, &handle) != 0)
                return -1;
        } else if ((kind != ELEMENT_CLASS && kind != ELEMENT_VALUETYPE) ||
                   sig_token(r, &token) != 0) {
            return -1;
        }
        if (sig_number(r, &count) != 0 || count == 0 || count > SIG_MAX_PARAMS)
            return -1;
        sig_put_named(r, w, kind == ELEMENT_INTERNAL, kind == ELEMENT_INTERNAL ? handle : token, 1);
        sig_puts(w, "<");
        for (i = 0; i < count; i++) {
            if (i)
                sig_puts(w, ", ");
            if (sig_type(r, w, depth + 1) != 0)
                return -1;
        }
        sig_puts(w, ">");
        return 0;
    }
    case ELEMENT_FNPTR: {
        sig_writer skip = {0};
        uint32_t params;
        if (sig_method(r, &skip, depth + 1, &params) != 0)
            return -1;
        sig_puts(w, "fnptr");
        return 0;
    }
    default: return -1;
    }
}

int sig_format_params(const uint8_t *sig, size_t length, const sig_names *names, char *out,
                      size_t outsz)
{
    sig_reader r = {.sig = sig, .length = sig ? length : 0, .names = names};
    sig_writer w = {.out = out, .cap = outsz > 5 ? outsz - 5 : 0}; /* room for "...)" */
    uint32_t count = 0;

    if (outsz < 8)
        return -1;
    out[0] = '\0';
    if (sig_method(&r, &w, 0, &count) != 0) {
        memcpy(out, "(?)", 4);
        return -1;
    }
    if (w.cut) {
        w.cap = outsz - 1;
        sig_puts(&w, "...)");
    }
    return (int)count;
}

int sig_format_type(const uint8_t *sig, size_t length, const sig_names *names, char *out,
                    size_t outsz)
{
    sig_reader r = {.sig = sig, .length = sig ? length : 0, .names = names};
    sig_writer w = {.out = out, .cap = outsz ? outsz - 1 : 0};

    if (outsz == 0)
        return -1;
    out[0] = '\0';
    if (sig_type(&r, &w, 0) != 0)
        return -1;
    return (int)w.len;
}
