/* codeview.c -- code replies disassembled and annotated (see codeview.h). */
#include "codeview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callnames.h"
#include "ilbody.h"
#include "ilmap.h"
#include "views.h"

/* ---- annotating (no lock) ---- */

enum { CV_NONE, CV_LOCAL, CV_METHOD, CV_NATIVE, CV_UNKNOWN };

typedef struct codeview_target {
    int kind;
    int managed;         /* a reference the agent found managed code or a method's stub behind */
    const char *from_il; /* named from the IL call at its IL offset (callnames.h) */
    uint32_t local;      /* CV_LOCAL: offset in the method */
    uint64_t address;    /* where it lands (or the cell, when that is all we know) */
    const symbol *sym;
    char native[256];
} codeview_target;

static const wire_code_ref *codeview_ref(const code_reply_version *rv, uint32_t kind,
                                         uint64_t address, uint32_t *at)
{
    uint32_t i;

    for (i = 0; i < rv->ref_have; i++)
        if ((rv->refs[i].kind & (WIRE_CODE_REF_DIRECT | WIRE_CODE_REF_INDIRECT)) == kind &&
            rv->refs[i].address == address) {
            *at = i;
            return &rv->refs[i];
        }
    return NULL;
}

static void codeview_native(procsyms *ps, uint64_t address, codeview_target *t)
{
    t->kind = CV_NATIVE;
    t->address = address;
    if (!ps || procsyms_name(ps, address, t->native, sizeof(t->native)) == PROCSYMS_UNKNOWN ||
        !t->native[0])
        snprintf(t->native, sizeof(t->native), "0x%llx", (unsigned long long)address);
}

static void codeview_resolve(const codeview *v, unsigned vi, const disasm_insn *in,
                             uint64_t hot_start, uint32_t hot_size, procsyms *ps,
                             codeview_target *t)
{
    const code_reply_version *rv = &v->reply.versions[vi];
    const wire_code_ref *ref = NULL;
    uint32_t at = 0;

    memset(t, 0, sizeof(*t));
    if (!(in->flags & (DISASM_CALL | DISASM_JUMP)))
        return;
    if (in->target) {
        uint64_t cold = rv->info.cold_start;
        if (in->target >= hot_start && in->target - hot_start < hot_size) {
            t->kind = CV_LOCAL;
            t->local = (uint32_t)(in->target - hot_start);
            return;
        }
        if (cold && in->target >= cold && in->target - cold < rv->info.cold_size) {
            t->kind = CV_LOCAL;
            t->local = hot_size + (uint32_t)(in->target - cold);
            return;
        }
        ref = codeview_ref(rv, WIRE_CODE_REF_DIRECT, in->target, &at);
        t->address = in->target;
    } else if (in->cell) {
        ref = codeview_ref(rv, WIRE_CODE_REF_INDIRECT, in->cell, &at);
        t->address = in->cell;
    } else {
        return; /* through a register: only the running code knows */
    }
    if (ref && (ref->function_id || ref->method_hint))
        t->managed = 1;
    if (ref && v->versions[vi].ref_sym && v->versions[vi].ref_sym[at] != CODEVIEW_NONE) {
        t->kind = CV_METHOD;
        t->sym = &v->syms.items[v->versions[vi].ref_sym[at]];
        t->address = ref->target;
        return;
    }
    if (ref && ref->target && !(ref->kind & WIRE_CODE_REF_UNREADABLE)) {
        codeview_native(ps, ref->target, t);
        return;
    }
    if (in->target) {
        codeview_native(ps, in->target, t);
        return;
    }
    t->kind = CV_UNKNOWN;
}

static int codeview_u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

static json_t *codeview_il_json(const wire_code_map_entry *e)
{
    if (!e)
        return json_null();
    switch (e->il_offset) {
    case 0xFFFFFFFFu: return json_string("none");
    case 0xFFFFFFFEu: return json_string("prolog");
    case 0xFFFFFFFDu: return json_string("epilog");
    default: return json_integer(e->il_offset);
    }
}

static const char *codeview_tier(const codeview *v, unsigned vi, procsyms *ps, const char **why)
{
    const codeview_version *cv = &v->versions[vi];
    char scratch[256];

    *why = NULL;
    if (cv->compiled) {
        if (cv->tier == WIRE_TIER_UNKNOWN)
            *why = "the agent's tier source was off for this compilation";
        return session_tier_name(cv->tier);
    }
    if (v->r2r & CODE_R2R_USED) {
        if (!ps || procsyms_name(ps, v->reply.versions[vi].info.code_start, scratch,
                                 sizeof(scratch)) == PROCSYMS_IMAGE)
            return "ReadyToRun";
    } else if (ps && procsyms_name(ps, v->reply.versions[vi].info.code_start, scratch,
                                   sizeof(scratch)) == PROCSYMS_IMAGE) {
        return "ReadyToRun";
    }
    *why = v->catchup ? "compiled before jitscope attached"
                      : "a version the session did not see compiled";
    return "unknown";
}

static char *codeview_hex(const uint8_t *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *out = malloc(n * 2 + 1);
    size_t i;

    if (!out)
        return NULL;
    for (i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
    return out;
}

static json_t *codeview_target_json(const codeview_target *t)
{
    if (t->from_il)
        return json_pack("{s:s, s:n, s:s, s:n, s:o, s:s}", "kind", "method", "function_id", "name",
                         t->from_il, "module", "address",
                         t->address ? view_id(t->address) : json_null(), "named_from", "il");
    switch (t->kind) {
    case CV_LOCAL: return json_pack("{s:s, s:i}", "kind", "local", "offset", (int)t->local);
    case CV_METHOD:
        return json_pack("{s:s, s:o, s:s, s:o, s:o, s:s}", "kind", "method", "function_id",
                         view_id(t->sym->function_id), "name", t->sym->name, "module",
                         view_str(t->sym->module), "address", view_id(t->address), "named_from",
                         "code");
    case CV_NATIVE:
        return json_pack("{s:s, s:n, s:s, s:n, s:o}", "kind", "native", "function_id", "name",
                         t->native, "module", "address", view_id(t->address));
    case CV_UNKNOWN:
        return json_pack("{s:s, s:n, s:n, s:n, s:o}", "kind", "unknown", "function_id", "name",
                         "module", "address", view_id(t->address));
    default: return json_null();
    }
}

/* Disassembles version vi (hot range, then cold). 0 or -1. */
static int codeview_disasm(const codeview *v, unsigned vi, disasm_insn **out, size_t *count)
{
    const code_reply_version *rv = &v->reply.versions[vi];
    uint32_t hot = rv->code_have < rv->info.hot_size ? rv->code_have : rv->info.hot_size;
    disasm_insn *cold = NULL, *all;
    size_t ncold = 0, i;

    if (disasm_run(v->arch, rv->code, hot, rv->info.code_start, out, count) != 0)
        return -1;
    if (rv->code_have <= hot || !rv->info.cold_start)
        return 0;
    if (disasm_run(v->arch, rv->code + hot, rv->code_have - hot, rv->info.cold_start, &cold,
                   &ncold) != 0 ||
        !(all = realloc(*out, (*count + ncold + 1) * sizeof(**out)))) {
        free(cold);
        return -1;
    }
    for (i = 0; i < ncold; i++) {
        cold[i].offset += hot;
        all[*count + i] = cold[i];
    }
    *out = all;
    *count += ncold;
    free(cold);
    return 0;
}

/* Names for version vi's calls whose code does not give their target, from
 * the IL (callnames.h): names[k] for insns[k] (malloc'd, or NULL), *out
 * malloc'd. 0, or -1 when memory ran out. */
static int codeview_call_names(codeview *v, unsigned vi, const disasm_insn *insns, size_t count,
                               procsyms *ps, const ilmap_key *keys, char ***out)
{
    const code_reply_version *rv = &v->reply.versions[vi];
    callnames_call *calls = NULL;
    uint32_t *at = NULL, *starts = NULL, ncalls = 0, nstarts = 0, i, unnamed = 0;
    char **names = NULL, **all = calloc(count ? count : 1, sizeof(*all));
    const char **inlinees = NULL;
    callnames_version ver;
    ilbody body = {0, 0};
    int rc = -1;

    *out = all;
    if (!all)
        return -1;
    if (!(calls = malloc((count ? count : 1) * sizeof(*calls))) ||
        !(at = malloc((count ? count : 1) * sizeof(*at))) ||
        !(starts = malloc((rv->map_have ? rv->map_have : 1) * sizeof(*starts))))
        goto out;
    for (i = 0; i < count; i++) {
        codeview_target t;
        const wire_code_map_entry *e;
        if (!(insns[i].flags & DISASM_CALL))
            continue;
        codeview_resolve(v, vi, &insns[i], rv->info.code_start, rv->info.hot_size, ps, &t);
        e = ilmap_entry(rv, keys, insns[i].offset);
        calls[ncalls].il_offset = e ? e->il_offset : UINT32_MAX;
        calls[ncalls].name = t.kind == CV_METHOD ? t.sym->name : NULL;
        calls[ncalls].kind = t.kind == CV_METHOD              ? CALLNAMES_NAMED
                             : t.kind == CV_NONE || t.managed ? CALLNAMES_UNNAMED
                                                              : CALLNAMES_HELPER;
        calls[ncalls].via_register = t.kind == CV_NONE;
        unnamed += calls[ncalls].kind == CALLNAMES_UNNAMED;
        at[ncalls++] = (uint32_t)i;
    }
    rc = 0;
    if (!unnamed || v->files_gone || !v->module_path ||
        ilbody_parse(v->reply.il, v->reply.il_have, &body) != 0 ||
        body.header_size >= v->reply.il_have)
        goto out;
    if (!v->il_module_tried) {
        v->il_module_tried = 1;
        (void)ilcalls_open(&v->il_module, v->pid, v->module_path);
    }
    for (i = 0; i < rv->map_have; i++)
        if (rv->map[i].il_offset < 0xFFFFFFFDu)
            starts[nstarts++] = rv->map[i].il_offset;
    qsort(starts, nstarts, sizeof(*starts), codeview_u32_cmp);
    if (!(names = malloc((size_t)ncalls * sizeof(*names))) ||
        !(inlinees = malloc((v->versions[vi].inlinee_count + 1) * sizeof(*inlinees))))
        goto fail;
    for (i = 0; i < v->versions[vi].inlinee_count; i++)
        inlinees[i] = v->syms.items[v->versions[vi].inlinees[i]].name;
    ver = (callnames_version){v->reply.il + body.header_size,
                              (uint32_t)(v->reply.il_have - body.header_size < body.code_size
                                             ? v->reply.il_have - body.header_size
                                             : body.code_size),
                              starts,
                              nstarts,
                              inlinees,
                              v->versions[vi].inlinee_count,
                              v->versions[vi].inlining_known};
    if (callnames_assign(calls, ncalls, &ver, &v->il_module, names) != 0)
        goto fail;
    for (i = 0; i < ncalls; i++)
        all[at[i]] = names[i];
    goto out;
fail:
    rc = -1;
out:
    free(inlinees);
    free(names);
    free(calls);
    free(at);
    free(starts);
    return rc;
}

/* Frees what codeview_call_names made. */
static void codeview_call_names_free(char **names, size_t count)
{
    size_t i;

    for (i = 0; names && i < count; i++)
        free(names[i]);
    free(names);
}

int codeview_il_insns(const codeview *v, unsigned vi, codeview_il_insn **out, size_t *count)
{
    const code_reply_version *rv = &v->reply.versions[vi];
    uint32_t hot = rv->code_have < rv->info.hot_size ? rv->code_have : rv->info.hot_size;
    disasm_insn *insns = NULL;
    codeview_il_insn *list;
    size_t n = 0, i;
    int failed;
    ilmap_key *keys = ilmap_sorted(rv, &failed);

    *out = NULL;
    *count = 0;
    if (failed || codeview_disasm(v, vi, &insns, &n) != 0 ||
        !(list = malloc((n ? n : 1) * sizeof(*list)))) {
        free(keys);
        free(insns);
        return -1;
    }
    for (i = 0; i < n; i++) {
        const disasm_insn *in = &insns[i];
        const wire_code_map_entry *e = ilmap_entry(rv, keys, in->offset);
        uint64_t at = in->offset < hot ? rv->info.code_start + in->offset
                                       : rv->info.cold_start + (in->offset - hot);
        list[i].il_offset = e ? e->il_offset : UINT32_MAX;
        codeheat_sum(&v->heat, at, in->size, &list[i].self, &list[i].total);
    }
    free(insns);
    free(keys);
    *out = list;
    *count = n;
    return 0;
}

static json_t *codeview_version_json(codeview *v, unsigned vi, unsigned position, procsyms *ps)
{
    const code_reply_version *rv = &v->reply.versions[vi];
    const codeview_version *cv = &v->versions[vi];
    const char *why, *tier = codeview_tier(v, vi, ps, &why);
    disasm_insn *insns = NULL;
    char **names = NULL;
    size_t count = 0, i;
    json_t *list = json_array(), *calls = json_array(), *inlinees = json_array(), *o;
    uint32_t k;
    int failed;
    ilmap_key *keys = ilmap_sorted(rv, &failed);
    uint32_t hot = rv->code_have < rv->info.hot_size ? rv->code_have : rv->info.hot_size;
    uint64_t version_self = 0, version_total = 0;

    if (failed || codeview_disasm(v, vi, &insns, &count) != 0 ||
        codeview_call_names(v, vi, insns, count, ps, keys, &names) != 0) {
        codeview_call_names_free(names, count);
        free(insns);
        free(keys);
        json_decref(list);
        json_decref(calls);
        json_decref(inlinees);
        return NULL;
    }
    for (i = 0; i < count; i++) {
        const disasm_insn *in = &insns[i];
        codeview_target t;
        char *hex = codeview_hex(in->bytes, in->size < 16 ? in->size : 16);
        uint64_t at = in->offset < hot ? rv->info.code_start + in->offset
                                       : rv->info.cold_start + (in->offset - hot);
        uint64_t self, total;
        codeview_resolve(v, vi, in, rv->info.code_start, rv->info.hot_size, ps, &t);
        t.from_il = names[i];
        codeheat_sum(&v->heat, at, in->size, &self, &total);
        version_self += self;
        version_total += total;
        json_array_append_new(list, json_pack("{s:i, s:s?, s:s, s:s, s:o, s:o, s:o, s:o}", "offset",
                                              (int)in->offset, "bytes", hex, "mnemonic",
                                              in->mnemonic, "operands", in->operands, "il_offset",
                                              codeview_il_json(ilmap_entry(rv, keys, in->offset)),
                                              "target", codeview_target_json(&t), "samples",
                                              view_count(total), "self_samples", view_count(self)));
        free(hex);
        if ((in->flags & DISASM_CALL) && t.kind == CV_METHOD && !t.from_il) {
            size_t c;
            json_t *e;
            json_array_foreach(calls, c, e)
            {
                if (strcmp(json_string_value(json_object_get(e, "name")), t.sym->name) == 0)
                    break;
            }
            if (c == json_array_size(calls))
                json_array_append_new(calls,
                                      json_pack("{s:o, s:s}", "function_id",
                                                view_id(t.sym->function_id), "name", t.sym->name));
        }
    }
    codeview_call_names_free(names, count);
    free(insns);
    free(keys);
    for (k = 0; k < cv->inlinee_count; k++) {
        const symbol *sym = &v->syms.items[cv->inlinees[k]];
        json_array_append_new(inlinees, json_pack("{s:o, s:s}", "function_id",
                                                  view_id(sym->function_id), "name", sym->name));
    }
    o = json_pack(
        "{s:i, s:s, s:s?, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "position", (int)position + 1,
        "tier", tier, "tier_reason", why, "code_start", view_id(rv->info.code_start), "code_size",
        (json_int_t)rv->info.hot_size + rv->info.cold_size, "code_read", (json_int_t)rv->code_have,
        "compilation", cv->ordinal >= 0 ? json_integer(cv->ordinal + 1) : json_null(), "jit_ms",
        cv->compiled ? json_real((double)cv->jit_ns / 1e6) : json_null(), "compiled_ms",
        cv->compiled ? view_ms(cv->time_ns) : json_null(), "cold_start",
        rv->info.cold_start ? view_id(rv->info.cold_start) : json_null(), "rejit_id",
        view_count(rv->info.rejit_id));
    json_object_set_new(o, "truncated",
                        json_pack("{s:b, s:b, s:b}", "code",
                                  (rv->info.flags & WIRE_CODE_TRUNCATED_CODE) != 0, "il_map",
                                  (rv->info.flags & WIRE_CODE_TRUNCATED_MAP) != 0, "references",
                                  (rv->info.flags & WIRE_CODE_TRUNCATED_REFS) != 0));
    json_object_set_new(o, "il_map_entries", json_integer(rv->map_have));
    json_object_set_new(o, "hresult",
                        rv->info.hresult ? view_hresult(rv->info.hresult) : json_null());
    json_object_set_new(o, "instruction_count", json_integer((json_int_t)count));
    json_object_set_new(o, "samples", view_count(version_total));
    json_object_set_new(o, "self_samples", view_count(version_self));
    json_object_set_new(o, "calls", calls);
    json_object_set_new(o, "inlinees", inlinees);
    json_object_set_new(o, "instructions", list);
    return o;
}

static const char *codeview_status(uint32_t status)
{
    switch (status) {
    case WIRE_CODE_OK: return "ok";
    case WIRE_CODE_NOT_ALIVE: return "not_alive";
    case WIRE_CODE_UNLOADING: return "unloading";
    case WIRE_CODE_DYNAMIC: return "dynamic";
    case WIRE_CODE_DETACHING: return "detaching";
    case WIRE_CODE_FAILED: return "failed";
    case WIRE_CODE_NO_MEMORY: return "no_memory";
    case WIRE_CODE_NOT_SEEN: return "not_seen";
    case WIRE_CODE_STALE: return "stale";
    default: return "unknown";
    }
}

/* The method's IL as the agent read its body (header, code, EH sections):
 * `size` is the code's bytes (the JIT's and ildasm's "IL size", what the
 * feed says), `bytes` those read of the code, `body_size` the whole body. A
 * body whose header does not parse shows no code. */
static json_t *codeview_il_body_json(const codeview *v)
{
    const wire_code_end *e = &v->reply.end;
    ilbody body = {0, 0};
    char *hex = NULL;
    json_t *o;

    if (ilbody_parse(v->reply.il, v->reply.il_have, &body) == 0 &&
        (uint64_t)body.header_size + body.code_size <= e->il_size) {
        size_t have = v->reply.il_have - body.header_size;
        hex = codeview_hex(v->reply.il + body.header_size,
                           have < body.code_size ? have : body.code_size);
    } else {
        body = (ilbody){0, 0};
    }
    o = json_pack("{s:I, s:s?, s:I, s:I}", "size", (json_int_t)body.code_size, "bytes", hex,
                  "header_size", (json_int_t)body.header_size, "body_size", (json_int_t)e->il_size);
    free(hex);
    return o;
}

json_t *codeview_json(codeview *v, procsyms *ps)
{
    const wire_code_end *e = &v->reply.end;
    json_t *versions = json_array(), *o;
    unsigned i;

    for (i = 0; i < v->reply.version_count; i++) {
        json_t *one = codeview_version_json(v, v->order[i], i, ps);
        if (!one) {
            json_decref(versions);
            return NULL;
        }
        json_array_append_new(versions, one);
    }
    o = json_pack("{s:o, s:o, s:o, s:s, s:s, s:o, s:b, s:o, s:I, s:i, s:o}", "function_id",
                  view_id(v->function_id), "name", view_str(v->name), "module", view_str(v->module),
                  "arch", disasm_arch_name(v->arch), "status", codeview_status(e->status),
                  "read_ms", view_ms(v->reply.time_ns), "complete", !v->reply.broken, "agent_ns",
                  view_count(e->elapsed_ns), "versions_listed", (json_int_t)e->versions,
                  "compilations", (int)v->compilations, "versions", versions);
    json_object_set_new(o, "truncated",
                        json_pack("{s:b, s:b}", "versions",
                                  (e->flags & WIRE_CODE_TRUNCATED_VERSIONS) != 0, "il",
                                  (e->flags & WIRE_CODE_TRUNCATED_IL) != 0));
    json_object_set_new(o, "il", codeview_il_body_json(v));
    json_object_set_new(o, "ready_to_run",
                        json_pack("{s:b, s:b}", "precompiled", (v->r2r & CODE_R2R_HAS) != 0, "used",
                                  (v->r2r & CODE_R2R_USED) != 0));
    json_object_set_new(
        o, "inlined_into",
        json_pack("{s:i, s:i}", "methods", (int)v->inlined_into, "sites", (int)v->inlined_sites));
    json_object_set_new(o, "profile", codeheat_json(&v->heat));
    return o;
}

/* ---- the listing ---- */

/* A sampled instruction's samples, as a comment after it (the profile's). */
static void codeview_text_samples(textbuf *out, const codeview *v, const code_reply_version *rv,
                                  const disasm_insn *in)
{
    uint32_t hot = rv->code_have < rv->info.hot_size ? rv->code_have : rv->info.hot_size;
    uint64_t self, total;

    codeheat_sum(&v->heat,
                 in->offset < hot ? rv->info.code_start + in->offset
                                  : rv->info.cold_start + (in->offset - hot),
                 in->size, &self, &total);
    if (total)
        textbuf_printf(out, "  ; samples %llu, self %llu", (unsigned long long)total,
                       (unsigned long long)self);
}

static void codeview_text_target(textbuf *out, const disasm_insn *in, const codeview_target *t)
{
    const char *name = t->kind == CV_METHOD ? t->sym->name : t->native;

    if (t->from_il) { /* as the JIT's listing: [rax+0x18]Name, [Name] through a cell */
        if (in->target || in->cell)
            textbuf_printf(out, "[%s]", t->from_il);
        else
            textbuf_printf(out, "%s %s", in->operands, t->from_il);
        return;
    }
    switch (t->kind) {
    case CV_LOCAL: textbuf_printf(out, "L_%04X", t->local); break;
    case CV_METHOD:
    case CV_NATIVE:
        if (in->cell)
            textbuf_printf(out, "[%s]", name);
        else
            textbuf_str(out, name);
        break;
    default: textbuf_str(out, in->operands); break;
    }
}

int codeview_text(codeview *v, procsyms *ps, int il, textbuf *out)
{
    unsigned i;

    if (v->reply.end.status != WIRE_CODE_OK) {
        textbuf_printf(out, "; %s: no code (%s)\n", v->name ? v->name : "?",
                       codeview_status(v->reply.end.status));
        return out->overflow ? -1 : 0;
    }
    for (i = 0; i < v->reply.version_count; i++) {
        unsigned vi = v->order[i];
        const code_reply_version *rv = &v->reply.versions[vi];
        const codeview_version *cv = &v->versions[vi];
        const char *why, *tier = codeview_tier(v, vi, ps, &why);
        disasm_insn *insns = NULL;
        char **names = NULL;
        size_t count = 0, k;
        uint32_t *labels = NULL, nlabels = 0, j = 0;
        uint32_t last_il = UINT32_MAX - 1;
        int failed;
        ilmap_key *keys = ilmap_sorted(rv, &failed);

        if (failed || codeview_disasm(v, vi, &insns, &count) != 0 ||
            codeview_call_names(v, vi, insns, count, ps, keys, &names) != 0) {
            codeview_call_names_free(names, count);
            free(insns);
            free(keys);
            return -1;
        }
        textbuf_printf(out, "; Assembly listing for method %s (%s)\n", v->name ? v->name : "?",
                       tier);
        textbuf_printf(out, "; jitscope: code version %u of %u at 0x%llx", i + 1,
                       v->reply.version_count, (unsigned long long)rv->info.code_start);
        if (cv->compiled)
            textbuf_printf(out, ", compilation %d, JIT %.3f ms", cv->ordinal + 1,
                           (double)cv->jit_ns / 1e6);
        if (why)
            textbuf_printf(out, " (%s)", why);
        textbuf_str(out, "\n");
        if (cv->inlinee_count)
            textbuf_printf(out, "; %u inlinees allowed by the runtime\n", cv->inlinee_count);
        textbuf_str(out, "\n");
        labels = calloc(count + 1, sizeof(*labels));
        for (k = 0; labels && k < count; k++) {
            codeview_target t;
            codeview_resolve(v, vi, &insns[k], rv->info.code_start, rv->info.hot_size, ps, &t);
            if (t.kind == CV_LOCAL)
                labels[nlabels++] = t.local;
        }
        if (labels) /* the instructions come in offset order: one walk along the sorted labels */
            qsort(labels, nlabels, sizeof(*labels), codeview_u32_cmp);
        for (k = 0; k < count; k++) {
            const disasm_insn *in = &insns[k];
            codeview_target t;
            int is_label;
            while (j < nlabels && labels[j] < in->offset)
                j++;
            is_label = k == 0 || (j < nlabels && labels[j] == in->offset);
            if (is_label)
                textbuf_printf(out, "%sL_%04X:\n", k ? "\n" : "", in->offset);
            if (il) {
                const wire_code_map_entry *e = ilmap_entry(rv, keys, in->offset);
                if (e && e->native_start == in->offset && e->il_offset != last_il) {
                    last_il = e->il_offset;
                    if (e->il_offset < 0xFFFFFFFDu)
                        textbuf_printf(out, "       ; IL_%04X\n", e->il_offset);
                    else
                        textbuf_printf(out, "       ; %s\n",
                                       e->il_offset == 0xFFFFFFFEu   ? "prolog"
                                       : e->il_offset == 0xFFFFFFFDu ? "epilog"
                                                                     : "no IL");
                }
            }
            codeview_resolve(v, vi, in, rv->info.code_start, rv->info.hot_size, ps, &t);
            t.from_il = names[k];
            textbuf_printf(out, "       %-8s ", in->mnemonic);
            if (t.kind != CV_NONE || t.from_il)
                codeview_text_target(out, in, &t);
            else
                textbuf_str(out, in->operands);
            codeview_text_samples(out, v, rv, in);
            textbuf_str(out, "\n");
        }
        textbuf_printf(out, "\n; Total bytes of code %u\n\n",
                       rv->info.hot_size + rv->info.cold_size);
        codeview_call_names_free(names, count);
        free(labels);
        free(keys);
        free(insns);
        if (out->overflow)
            return -1;
    }
    return out->overflow ? -1 : 0;
}
