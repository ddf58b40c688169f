/* ilcalls.c -- IL call sites and their methods' names (see ilcalls.h). */
#include "ilcalls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sig.h"
#include "symfile.h"

#define ILCALLS_SWITCH 0xFFu  /* the operand size of switch: 4 + 4 * n */
#define ILCALLS_BAD 0xFEu     /* no such opcode */
#define ILCALLS_MAX_NESTING 8 /* enclosing types named (metadata may make a loop of them) */

/* Operand bytes of each one-byte opcode (ECMA-335 III); 0xFE is the prefix of the two-byte ones. */
static uint8_t ilcalls_operand(uint8_t op)
{
    if (op <= 0x0D || op == 0x14 || (op >= 0x15 && op <= 0x1E) || op == 0x25 || op == 0x26 ||
        op == 0x2A)
        return 0;
    if (op >= 0x0E && op <= 0x13)
        return 1;
    switch (op) {
    case 0x1F: return 1;
    case 0x20: return 4;
    case 0x21: return 8;
    case 0x22: return 4;
    case 0x23: return 8;
    case 0x27:
    case 0x28:
    case 0x29: return 4;
    case 0x45: return ILCALLS_SWITCH;
    default: break;
    }
    if (op >= 0x2B && op <= 0x37)
        return 1;
    if (op >= 0x38 && op <= 0x44)
        return 4;
    if (op >= 0x46 && op <= 0x6E)
        return 0;
    if ((op >= 0x6F && op <= 0x75) || op == 0x79 || (op >= 0x7B && op <= 0x81) || op == 0x8C ||
        op == 0x8D || op == 0x8F || op == 0xA3 || op == 0xA4 || op == 0xA5 || op == 0xC2 ||
        op == 0xC6 || op == 0xD0 || op == 0xDD)
        return 4;
    if (op == 0x76 || op == 0x7A || (op >= 0x82 && op <= 0x8B) || op == 0x8E ||
        (op >= 0x90 && op <= 0xA2) || (op >= 0xB3 && op <= 0xBA) || op == 0xC3 ||
        (op >= 0xD1 && op <= 0xDC) || op == 0xDF || op == 0xE0)
        return 0;
    if (op == 0xDE)
        return 1;
    return ILCALLS_BAD;
}

/* Operand bytes of the two-byte opcode 0xFE op. */
static uint8_t ilcalls_operand_fe(uint8_t op)
{
    switch (op) {
    case 0x00:
    case 0x01:
    case 0x02:
    case 0x03:
    case 0x04:
    case 0x05:
    case 0x0F:
    case 0x11:
    case 0x13:
    case 0x14:
    case 0x17:
    case 0x18:
    case 0x1A:
    case 0x1D:
    case 0x1E: return 0;
    case 0x06:
    case 0x07:
    case 0x15:
    case 0x16:
    case 0x1C: return 4;
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x0E: return 2;
    case 0x12:
    case 0x19: return 1;
    default: return ILCALLS_BAD;
    }
}

static uint32_t ilcalls_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t ilcalls_scan(const uint8_t *code, uint32_t size, ilcalls_site *out, uint32_t max)
{
    uint32_t at = 0, n = 0;

    while (at < size && n < max) {
        uint32_t start = at;
        uint8_t op = code[at++], operand;
        uint64_t next;
        if (op == 0xFE) {
            if (at >= size)
                break;
            operand = ilcalls_operand_fe(code[at++]);
        } else {
            operand = ilcalls_operand(op);
        }
        if (operand == ILCALLS_BAD)
            break;
        if (operand == ILCALLS_SWITCH) {
            if ((uint64_t)at + 4 > size)
                break;
            next = (uint64_t)at + 4 + 4ull * ilcalls_le32(code + at);
        } else {
            next = (uint64_t)at + operand;
        }
        if (next > size)
            break;
        if (op == ILCALLS_CALL || op == ILCALLS_CALLVIRT || op == ILCALLS_NEWOBJ)
            out[n++] = (ilcalls_site){start, ilcalls_le32(code + at), op};
        at = (uint32_t)next;
    }
    return n;
}

int ilcalls_open(ilcalls_module *m, pid_t pid, const char *path)
{
    memset(m, 0, sizeof(*m));
    if (!path || !path[0] || !(m->map = symfile_read_file(pid, path, ILCALLS_MAX_FILE, &m->size)))
        return -1;
    if (mdread_open_image(&m->md, m->map, m->size, 1) != 0) {
        ilcalls_close(m);
        return -1;
    }
    return 0;
}

void ilcalls_close(ilcalls_module *m)
{
    free(m->map);
    memset(m, 0, sizeof(*m));
}

/* ---- names ---- */

/* The tokens one name may have named (its owner, arguments and parameters,
 * TypeSpecs within them): a hostile module's TypeSpec that names itself in
 * each of a thousand arguments would otherwise take 1000^4 steps. */
#define ILCALLS_MAX_NAMED 4096u

typedef struct ilcalls_ctx {
    const mdread *md;
    sig_names names;
    int full;       /* the next TypeDef/TypeRef named with its namespace (the owner's) */
    int depth;      /* TypeSpecs within TypeSpecs */
    unsigned named; /* tokens named so far for this name: at most ILCALLS_MAX_NAMED */
} ilcalls_ctx;

/* A TypeDef's name with its enclosing types ("Ns.Outer+Inner"), or a
 * TypeRef's ("Ns.Name"); short: without the namespace. Length, 0 unknown. */
static size_t ilcalls_type_name(const mdread *md, uint32_t token, int full, char *out, size_t outsz,
                                unsigned depth)
{
    const char *ns = NULL, *name = NULL;
    uint32_t flags, outer;
    int n;

    if ((token & 0xFF000000u) == MDREAD_TOKEN_TYPEREF) {
        if (mdread_type_ref(md, token, &ns, &name) != 0)
            return 0;
        n = snprintf(out, outsz, "%s%s%s", full && ns[0] ? ns : "", full && ns[0] ? "." : "", name);
    } else if ((token & 0xFF000000u) == MDREAD_TOKEN_TYPEDEF) {
        char outer_name[ILCALLS_NAME_BYTES] = "";
        if (mdread_type_def(md, token, &ns, &name, &flags) != 0)
            return 0;
        if (depth < ILCALLS_MAX_NESTING && mdread_enclosing(md, token, &outer) == 0 &&
            outer != token &&
            ilcalls_type_name(md, outer, full, outer_name, sizeof(outer_name), depth + 1) > 0)
            n = snprintf(out, outsz, "%s+%s", outer_name, name);
        else
            n = snprintf(out, outsz, "%s%s%s", full && ns[0] ? ns : "", full && ns[0] ? "." : "",
                         name);
    } else {
        return 0;
    }
    return n > 0 && (size_t)n < outsz ? (size_t)n : 0;
}

/* sig_names.type_token. */
static size_t ilcalls_token_name(void *ctx, uint32_t token, char *out, size_t outsz)
{
    ilcalls_ctx *c = ctx;
    const uint8_t *sig;
    uint32_t len;
    int full = c->full, n;

    c->full = 0;
    if (c->named >= ILCALLS_MAX_NAMED)
        return 0; /* a TypeSpec naming itself in each of its arguments: work without end */
    c->named++;
    if ((token & 0xFF000000u) != MDREAD_TOKEN_TYPESPEC)
        return ilcalls_type_name(c->md, token, full, out, outsz, 0);
    if (c->depth >= 4 || mdread_type_spec(c->md, token, &sig, &len) != 0)
        return 0;
    c->full = full; /* a generic instance's definition: named as the spec would be */
    c->depth++;
    n = sig_format_type(sig, len, &c->names, out, outsz);
    c->depth--;
    return n > 0 ? (size_t)n : 0;
}

/* `count` types from pos in blob, each formatted into its slot of texts (at
 * most max). Returns how many, -1 when malformed. A type's encoding is
 * prefix-free, so where one ends is the shortest prefix that formats. */
static int ilcalls_types(ilcalls_ctx *c, const uint8_t *blob, size_t len, size_t pos,
                         uint32_t count, char texts[][96], unsigned max)
{
    uint32_t i;

    if (len > 1024)
        return -1;
    for (i = 0; i < count && i < max; i++) {
        size_t end;
        for (end = pos + 1; end <= len; end++)
            if (sig_format_type(blob + pos, end - pos, &c->names, texts[i], sizeof(texts[i])) >= 0)
                break;
        if (end > len)
            return -1;
        pos = end;
    }
    return (int)(count < max ? count : max);
}

/* A MethodSpec's instantiation (0x0A, count, types). */
static int ilcalls_inst(ilcalls_ctx *c, const uint8_t *inst, uint32_t len, char texts[][96],
                        unsigned max)
{
    size_t pos = 1;
    uint32_t count;

    if (len < 2 || inst[0] != 0x0A || sig_read_compressed(inst, len, &pos, &count) != 0)
        return -1;
    return ilcalls_types(c, inst, len, pos, count, texts, max);
}

/* A generic instance's arguments, of the TypeSpec that owns a MemberRef
 * (0x15, CLASS or VALUETYPE, its definition, count, types); 0 for any other owner. */
static int ilcalls_class_args(ilcalls_ctx *c, uint32_t owner, char texts[][96], unsigned max)
{
    const uint8_t *spec;
    uint32_t len, token, count;
    size_t pos = 2;

    if ((owner & 0xFF000000u) != MDREAD_TOKEN_TYPESPEC ||
        mdread_type_spec(c->md, owner, &spec, &len) != 0 || len < 4 || spec[0] != 0x15 ||
        sig_read_compressed(spec, len, &pos, &token) != 0 ||
        sig_read_compressed(spec, len, &pos, &count) != 0)
        return 0;
    return ilcalls_types(c, spec, len, pos, count, texts, max);
}

int ilcalls_name(const ilcalls_module *m, uint32_t token, char *out, size_t outsz, char *simple,
                 size_t simple_size)
{
    static const char *const none[1] = {NULL};
    char owner[ILCALLS_NAME_BYTES] = "", args[8][96], class_args[8][96], params[ILCALLS_NAME_BYTES];
    const char *arg_list[8], *class_list[8];
    const uint8_t *sig = NULL, *inst = NULL;
    uint32_t sig_len = 0, inst_len = 0, owner_token = 0, method = token;
    const char *name = NULL;
    ilcalls_ctx c = {.md = &m->md};
    size_t used;
    int nargs = 0, nclass, i, n;

    char scratch[ILCALLS_NAME_BYTES];

    if (!out)
        out = scratch, outsz = sizeof(scratch);
    if (!m->map || outsz < 16)
        return -1;
    c.names = (sig_names){.type_token = ilcalls_token_name, .ctx = &c};
    if ((token & 0xFF000000u) == MDREAD_TOKEN_METHODSPEC &&
        mdread_method_spec(&m->md, token, &method, &inst, &inst_len) != 0)
        return -1;
    if ((method & 0xFF000000u) == MDREAD_TOKEN_METHODDEF) {
        mdread_method md;
        if (mdread_method_props(&m->md, method, &md) != 0)
            return -1;
        name = md.name, sig = md.sig, sig_len = md.sig_len, owner_token = md.owner;
    } else if ((method & 0xFF000000u) == MDREAD_TOKEN_MEMBERREF) {
        mdread_member mr;
        if (mdread_member_ref(&m->md, method, &mr) != 0)
            return -1;
        name = mr.name, sig = mr.sig, sig_len = mr.sig_len, owner_token = mr.parent;
    } else {
        return -1;
    }
    if (owner_token) {
        c.full = 1;
        (void)ilcalls_token_name(&c, owner_token, owner, sizeof(owner));
        c.full = 0;
    }
    if (inst && (nargs = ilcalls_inst(&c, inst, inst_len, args, 8)) < 0)
        nargs = 0;
    for (i = 0; i < nargs; i++)
        arg_list[i] = args[i];
    c.names.method_args = nargs ? arg_list : none;
    c.names.method_arg_count = (unsigned)nargs;
    if ((nclass = ilcalls_class_args(&c, owner_token, class_args, 8)) < 0)
        nclass = 0;
    for (i = 0; i < nclass; i++)
        class_list[i] = class_args[i];
    c.names.class_args = nclass ? class_list : none;
    c.names.class_arg_count = (unsigned)nclass;
    n = snprintf(out, outsz, "%s%s%s", owner, owner[0] ? "." : "", name);
    if (n < 0 || (size_t)n >= outsz)
        return -1;
    used = (size_t)n;
    for (i = 0; i < nargs && used + strlen(args[i]) + 3 < outsz; i++)
        used += (size_t)snprintf(out + used, outsz - used, "%s%s", i ? ", " : "<", args[i]);
    if (nargs && used + 2 < outsz)
        used += (size_t)snprintf(out + used, outsz - used, ">");
    (void)sig_format_params(sig, sig_len, &c.names, params, sizeof(params));
    if (used + strlen(params) < outsz)
        memcpy(out + used, params, strlen(params) + 1);
    if (simple && simple_size)
        snprintf(simple, simple_size, "%s", name);
    return 0;
}
