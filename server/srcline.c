/* srcline.c -- file:line of methods' frames (see srcline.h). */
#include "srcline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "session.h"

#define SRCLINE_NAME_MAX 4096u

int srcline_want(srcline *L, session *s, uint64_t function_id, uint32_t *index)
{
    uint32_t i = idmap_get(&L->by_id, function_id);
    const session_function *f;
    const session_module *m;
    srcline_fn *e;

    if (i != IDMAP_MISSING) {
        *index = i;
        return 0;
    }
    if (!function_id || L->count >= SRCLINE_MAX_FNS ||
        grow_reserve((void **)&L->fns, &L->cap, L->count, sizeof(*L->fns), 16, SRCLINE_MAX_FNS,
                     GROW_KEEP) != 0)
        return -1;
    e = &L->fns[L->count];
    memset(e, 0, sizeof(*e));
    e->function_id = function_id;
    e->module = -1;
    if ((f = session_find_function(s, function_id))) {
        e->token = f->token;
        e->flags = f->flags;
        m = f->module_id ? session_find_module(s, f->module_id) : NULL;
        if (m && m->path && m->path[0] && !(e->module_path = strdup(m->path)))
            return -1;
    }
    if (idmap_put(&L->by_id, function_id, (uint32_t)L->count) != 0) {
        free(e->module_path);
        return -1;
    }
    *index = (uint32_t)L->count++;
    return 0;
}

int srcline_take_code(srcline *L, uint32_t index, const code_reply *r, const char *why)
{
    srcline_fn *e;
    unsigned k;

    if (index >= L->count || (e = &L->fns[index])->have_code)
        return 0;
    if (!r) {
        if (!e->code_reason && why && !(e->code_reason = strdup(why)))
            return -1;
        return 0;
    }
    for (k = 0; k < r->version_count && k < WIRE_CODE_MAX_VERSIONS; k++) {
        const code_reply_version *rv = &r->versions[k];
        srcline_version *v = &e->versions[e->version_count];
        v->hot_start = rv->info.code_start;
        v->hot_size = rv->info.hot_size;
        v->cold_start = rv->info.cold_start;
        v->cold_size = rv->info.cold_size;
        v->map_count = 0;
        v->map = NULL;
        if (rv->map_have) {
            if (!(v->map = malloc((size_t)rv->map_have * sizeof(*v->map)))) {
                e->have_code = 1; /* what was taken stays; nothing is appended again */
                return -1;
            }
            memcpy(v->map, rv->map, (size_t)rv->map_have * sizeof(*v->map));
            v->map_count = rv->map_have;
        }
        e->version_count++;
    }
    e->have_code = 1;
    return 0;
}

/* The module entry of a path, loaded on first use. */
static int srcline_load_module(srcline *L, const char *path)
{
    size_t i;
    srcline_module *m;
    char err[1200];

    for (i = 0; i < L->module_count; i++)
        if (strcmp(L->modules[i].path, path) == 0)
            return (int)i;
    if (grow_reserve((void **)&L->modules, &L->module_cap, L->module_count, sizeof(*L->modules), 8,
                     SRCLINE_MAX_FNS, GROW_KEEP) != 0)
        return -1;
    m = &L->modules[L->module_count];
    memset(m, 0, sizeof(*m));
    if (!(m->path = strdup(path)))
        return -1;
    L->module_count++;
    if (L->gone_container) {
        m->reason = strdup("the process ran in a container and has ended: its files are no "
                           "longer reachable");
    } else if (symfile_load(&m->sym, L->pid, path, err, sizeof(err)) != 0) {
        m->reason = strdup(err);
    } else {
        m->loaded = 1;
    }
    return (int)(L->module_count - 1);
}

static int srcline_by_il(const void *a, const void *b)
{
    const pdb_point *x = a, *y = b;
    return x->il_offset < y->il_offset ? -1 : x->il_offset > y->il_offset;
}

static void srcline_say(srcline_fn *e, const char *why)
{
    if (!e->reason)
        e->reason = strdup(why);
}

/* One method's points, main document, file and first line. */
static void srcline_resolve_fn(srcline *L, srcline_fn *e)
{
    char err[512], name[SRCLINE_NAME_MAX];
    const srcline_module *m;
    uint32_t first = UINT32_MAX;
    long i;

    if (!e->token || (e->flags & WIRE_FLAG_DYNAMIC)) {
        srcline_say(e, "a dynamic method has no metadata token, so no PDB entry");
        return;
    }
    if (!e->module_path) {
        srcline_say(e, "the method's module has no file path (in memory, dynamic, or not named)");
        return;
    }
    if ((e->module = srcline_load_module(L, e->module_path)) < 0) {
        srcline_say(e, "out of memory");
        return;
    }
    m = &L->modules[e->module];
    if (!m->loaded) {
        srcline_say(e, m->reason ? m->reason : "no PDB");
        return;
    }
    if (!(e->points = malloc(SRCLINE_MAX_POINTS * sizeof(*e->points)))) {
        srcline_say(e, "out of memory");
        return;
    }
    e->point_count = pdb_method_points(&m->sym.pdb, e->token & 0xFFFFFFu, e->points,
                                       SRCLINE_MAX_POINTS, err, sizeof(err));
    if (e->point_count < 0) {
        e->point_count = 0;
        srcline_say(e, err);
        return;
    }
    if (e->point_count > (long)SRCLINE_MAX_POINTS)
        e->point_count = SRCLINE_MAX_POINTS;
    { /* keep only what the method has: a response holds many methods' points */
        pdb_point *fit = realloc(e->points, (size_t)(e->point_count ? e->point_count : 1) *
                                                sizeof(*e->points));
        if (fit)
            e->points = fit;
    }
    qsort(e->points, (size_t)e->point_count, sizeof(*e->points), srcline_by_il);
    for (i = 0; i < e->point_count; i++) {
        const pdb_point *pt = &e->points[i];
        if (pt->hidden)
            continue;
        if (!e->main_document)
            e->main_document = pt->document;
        if (pt->document == e->main_document && pt->start_line < first)
            first = pt->start_line;
    }
    if (!e->main_document) {
        srcline_say(e, e->point_count ? "the PDB has only hidden sequence points for this method "
                                        "(compiler-generated code)"
                                      : "the PDB has no sequence points for this method");
        return;
    }
    if (pdb_document_name(&m->sym.pdb, e->main_document, name, sizeof(name)) < 0) {
        srcline_say(e, "the PDB's document name is malformed");
        return;
    }
    e->file = strdup(name);
    e->first_line = first;
}

void srcline_resolve(srcline *L, pid_t pid, int gone_container)
{
    size_t i;

    L->pid = pid;
    L->gone_container = gone_container;
    for (i = 0; i < L->count; i++)
        srcline_resolve_fn(L, &L->fns[i]);
}

/* The map entry of native offset off: the one that starts there, else the
 * one starting last before it that covers it (entries do not overlap). */
static const wire_code_map_entry *srcline_map(const srcline_version *v, uint32_t off)
{
    const wire_code_map_entry *best = NULL;
    uint32_t i;

    for (i = 0; i < v->map_count; i++) {
        const wire_code_map_entry *e = &v->map[i];
        if (e->native_start <= off && off < e->native_end &&
            (!best || e->native_start > best->native_start))
            best = e;
    }
    return best;
}

/* The name of a document other than the method's main one. */
static const char *srcline_doc(srcline *L, srcline_fn *e, uint32_t row)
{
    char name[SRCLINE_NAME_MAX];
    unsigned k;

    if (row == e->main_document)
        return e->file;
    for (k = 0; k < e->doc_count; k++)
        if (e->doc_rows[k] == row)
            return e->doc_names[k];
    if (e->doc_count == SRCLINE_MAX_DOCS || e->module < 0 ||
        pdb_document_name(&L->modules[e->module].sym.pdb, row, name, sizeof(name)) < 0 ||
        !(e->doc_names[e->doc_count] = strdup(name)))
        return NULL;
    e->doc_rows[e->doc_count] = row;
    return e->doc_names[e->doc_count++];
}

/* The line of IL offset il in method e: the start line of the sequence point
 * at or before it. 1 with *file and *line, else 0 with *why. */
static int srcline_il_line(srcline *L, srcline_fn *e, uint32_t il, const char **file,
                           uint32_t *line, const char **why)
{
    const pdb_point *pt;
    long lo = 0, hi;

    for (hi = e->point_count; lo < hi;) { /* the last point at or before the IL offset */
        long mid = lo + (hi - lo) / 2;
        if (e->points[mid].il_offset <= il)
            lo = mid + 1;
        else
            hi = mid;
    }
    pt = lo ? &e->points[lo - 1] : NULL;
    if (!pt) {
        *why = "no sequence point at or before this IL offset";
        return 0;
    }
    if (pt->hidden) {
        *why = "a hidden sequence point (0xFEEFEE): compiler-generated code, no line";
        return 0;
    }
    if (!(*file = srcline_doc(L, e, pt->document))) {
        *why = "the PDB's document name is malformed";
        return 0;
    }
    *line = pt->start_line;
    return 1;
}

int srcline_at(srcline *L, uint32_t index, uint64_t address, const char **file, uint32_t *line,
               const char **why, uint32_t *il_offset)
{
    srcline_fn *e;
    const wire_code_map_entry *me = NULL;
    unsigned k;

    *file = NULL;
    *line = 0;
    if (il_offset)
        *il_offset = UINT32_MAX;
    if (index >= L->count) {
        *why = "more methods than a response resolves";
        return 0;
    }
    e = &L->fns[index];
    if (!e->file) {
        *why = e->reason ? e->reason : "no source file for this method";
        return 0;
    }
    if (!e->have_code) {
        *why = e->code_reason ? e->code_reason : "the method's code was not read";
        return 0;
    }
    for (k = 0; k < e->version_count && !me; k++) {
        const srcline_version *v = &e->versions[k];
        if (address >= v->hot_start && address - v->hot_start < v->hot_size)
            me = srcline_map(v, (uint32_t)(address - v->hot_start));
        else if (v->cold_start && address >= v->cold_start &&
                 address - v->cold_start < v->cold_size)
            me = srcline_map(v, v->hot_size + (uint32_t)(address - v->cold_start));
        else
            continue;
        if (!me) {
            *why = "the IL-to-native map has no entry for this address";
            return 0;
        }
    }
    if (!me) {
        *why = "the address is in none of the method's code versions read";
        return 0;
    }
    if (il_offset && me->il_offset < 0xFFFFFFFDu)
        *il_offset = me->il_offset;
    if (me->il_offset >= 0xFFFFFFFDu) {
        *why = me->il_offset == 0xFFFFFFFEu   ? "prolog: no IL offset"
               : me->il_offset == 0xFFFFFFFDu ? "epilog: no IL offset"
                                              : "the map says no IL offset here";
        return 0;
    }
    return srcline_il_line(L, e, me->il_offset, file, line, why);
}

int srcline_at_il(srcline *L, uint32_t index, uint32_t il_offset, const char **file, uint32_t *line,
                  const char **why)
{
    srcline_fn *e;

    *file = NULL;
    *line = 0;
    if (index >= L->count) {
        *why = "more methods than a response resolves";
        return 0;
    }
    e = &L->fns[index];
    if (!e->file) {
        *why = e->reason ? e->reason : "no source file for this method";
        return 0;
    }
    return srcline_il_line(L, e, il_offset, file, line, why);
}

void srcline_free(srcline *L)
{
    size_t i;
    unsigned k;

    for (i = 0; i < L->count; i++) {
        srcline_fn *e = &L->fns[i];
        free(e->module_path);
        for (k = 0; k < e->version_count; k++)
            free(e->versions[k].map);
        free(e->code_reason);
        free(e->points);
        free(e->file);
        free(e->reason);
        for (k = 0; k < e->doc_count; k++)
            free(e->doc_names[k]);
    }
    free(L->fns);
    idmap_free(&L->by_id);
    for (i = 0; i < L->module_count; i++) {
        if (L->modules[i].loaded)
            symfile_free(&L->modules[i].sym);
        free(L->modules[i].path);
        free(L->modules[i].reason);
    }
    free(L->modules);
    memset(L, 0, sizeof(*L));
}
