/* srcview.c -- a method's source lines and their samples (see srcview.h). */
#include "srcview.h"

#include <stdlib.h>
#include <string.h>

#include "utf.h"
#include "views.h"

#define SRCVIEW_NAME_MAX 4096u

json_t *srcview_string(const char *s)
{
    size_t n, length;
    int cut;
    char *clean;
    json_t *j;

    if (!s)
        return json_null();
    n = strlen(s);
    if (utf8_valid(s, n))
        return json_stringn(s, n);
    if (!(clean = malloc(n + 1)))
        return json_null();
    length = utf8_sanitize(s, n, clean, n + 1, &cut);
    j = json_stringn(clean, length);
    free(clean);
    return j ? j : json_null();
}

typedef struct srcview_line {
    uint64_t self, total;
    uint32_t instructions[WIRE_CODE_MAX_VERSIONS];
} srcview_line;

/* The sequence point an IL offset belongs to: the last one at or before it. */
static const pdb_point *srcview_point(const pdb_point *points, long count, uint32_t il)
{
    long lo = 0, hi = count;

    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (points[mid].il_offset <= il)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &points[lo - 1] : NULL;
}

static int srcview_by_il(const void *a, const void *b)
{
    const pdb_point *x = a, *y = b;
    return x->il_offset < y->il_offset ? -1 : x->il_offset > y->il_offset;
}

static json_t *srcview_points_json(const pdb *p, const pdb_point *points, long count,
                                   uint32_t main_document)
{
    json_t *list = json_array();
    char name[SRCVIEW_NAME_MAX];
    long i;

    for (i = 0; i < count; i++) {
        const pdb_point *pt = &points[i];
        json_t *o = json_pack("{s:I, s:b}", "il_offset", (json_int_t)pt->il_offset, "hidden",
                              pt->hidden);
        if (!pt->hidden) {
            json_object_set_new(o, "line", json_integer(pt->start_line));
            json_object_set_new(o, "column", json_integer(pt->start_column));
            json_object_set_new(o, "end_line", json_integer(pt->end_line));
            json_object_set_new(o, "end_column", json_integer(pt->end_column));
        }
        if (pt->document != main_document &&
            pdb_document_name(p, pt->document, name, sizeof(name)) >= 0)
            json_object_set_new(o, "file", srcview_string(name));
        json_array_append_new(list, o);
    }
    return list;
}

/* Line n's text (1 first) of a text whose line starts are in starts[0..nlines). */
static json_t *srcview_text(const char *text, size_t length, const size_t *starts, size_t nlines,
                            uint32_t line)
{
    size_t from, to;
    json_t *s;

    if (!text || line == 0 || line > nlines)
        return json_null();
    from = starts[line - 1];
    to = line < nlines ? starts[line] - 1 : length;
    if (to > from && text[to - 1] == '\r')
        to--;
    s = json_stringn(text + from, to - from);
    return s ? s : json_null(); /* not UTF-8 */
}

/* The samples and instructions of the code read, by line. */
static int srcview_heat(const codeview *code, const pdb_point *points, long count,
                        uint32_t main_document, uint32_t first, srcview_line *lines,
                        uint32_t nlines, uint64_t *lost_self, uint64_t *lost_total)
{
    unsigned vi, k;

    for (k = 0; code && k < code->reply.version_count; k++) {
        codeview_il_insn *insns;
        size_t n, i;
        vi = code->order[k];
        if (codeview_il_insns(code, vi, &insns, &n) != 0)
            return -1;
        for (i = 0; i < n; i++) {
            const pdb_point *pt = insns[i].il_offset < 0xFFFFFFFDu
                                      ? srcview_point(points, count, insns[i].il_offset)
                                      : NULL;
            if (!pt || pt->hidden || pt->document != main_document || pt->start_line < first ||
                pt->start_line - first >= nlines) {
                *lost_self += insns[i].self;
                *lost_total += insns[i].total;
                continue;
            }
            lines[pt->start_line - first].self += insns[i].self;
            lines[pt->start_line - first].total += insns[i].total;
            lines[pt->start_line - first].instructions[k]++;
        }
        free(insns);
    }
    return 0;
}

json_t *srcview_json(const codeview *code, const symfile *sym, uint32_t token, pid_t pid, char *err,
                     size_t err_size)
{
    pdb_point *points;
    long count, i;
    uint32_t main_document = 0, first = UINT32_MAX, last = 0, nlines, line;
    uint64_t lost_self = 0, lost_total = 0;
    srcview_line *lines = NULL;
    char file[SRCVIEW_NAME_MAX];
    char *text = NULL;
    size_t text_length = 0, *starts = NULL, nstarts = 0;
    json_t *o, *list;

    if (!(points = malloc(SRCVIEW_MAX_POINTS * sizeof(*points)))) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    count = pdb_method_points(&sym->pdb, token & 0xFFFFFFu, points, SRCVIEW_MAX_POINTS, err,
                              err_size);
    if (count < 0) {
        free(points);
        return NULL;
    }
    if (count > (long)SRCVIEW_MAX_POINTS)
        count = SRCVIEW_MAX_POINTS;
    qsort(points, (size_t)count, sizeof(*points), srcview_by_il); /* the blob's order, checked */
    for (i = 0; i < count; i++) {
        if (points[i].hidden)
            continue;
        if (!main_document)
            main_document = points[i].document;
        if (points[i].document != main_document)
            continue;
        if (points[i].start_line < first)
            first = points[i].start_line;
        if (points[i].end_line > last)
            last = points[i].end_line;
    }
    o = json_object();
    json_object_set_new(o, "pdb",
                        json_pack("{s:s, s:b}", "path", sym->where, "embedded", sym->embedded));
    if (!main_document) {
        json_object_set_new(o, "file", json_null());
        json_object_set_new(o, "reason",
                            json_string(count ? "the PDB has only hidden sequence points for "
                                                "this method (compiler-generated code)"
                                              : "the PDB has no sequence points for this method"));
        json_object_set_new(o, "lines", json_array());
        json_object_set_new(o, "sequence_points", srcview_points_json(&sym->pdb, points, count, 0));
        free(points);
        return o;
    }
    if (last - first >= SRCVIEW_MAX_LINES)
        last = first + SRCVIEW_MAX_LINES - 1;
    nlines = last - first + 1;
    if (pdb_document_name(&sym->pdb, main_document, file, sizeof(file)) < 0)
        file[0] = 0;
    if (!(lines = calloc(nlines, sizeof(*lines))) ||
        srcview_heat(code, points, count, main_document, first, lines, nlines, &lost_self,
                     &lost_total) != 0) {
        free(lines);
        free(points);
        json_decref(o);
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    if (file[0] && (text = symfile_read_text(pid, file, &text_length))) {
        size_t at, cap = 1024;
        starts = malloc(cap * sizeof(*starts));
        for (at = 0; starts && at <= text_length && nstarts < (size_t)last + 1;) {
            const char *nl;
            if (nstarts == cap) {
                size_t *bigger = realloc(starts, cap * 2 * sizeof(*starts));
                if (!bigger)
                    break;
                starts = bigger;
                cap *= 2;
            }
            starts[nstarts++] = at;
            nl = memchr(text + at, '\n', text_length - at);
            if (!nl)
                break;
            at = (size_t)(nl - text) + 1;
        }
    }
    list = json_array();
    for (line = first; line <= last; line++) {
        const srcview_line *l = &lines[line - first];
        json_t *per = json_object();
        unsigned k;
        char key[16];
        for (k = 0; code && k < code->reply.version_count; k++) {
            snprintf(key, sizeof(key), "%u", k + 1);
            json_object_set_new(per, key, json_integer(l->instructions[k]));
        }
        json_array_append_new(
            list, json_pack("{s:I, s:o, s:o, s:o, s:o}", "line", (json_int_t)line, "text",
                            srcview_text(text, text_length, starts, starts ? nstarts : 0, line),
                            "samples", view_count(l->total), "self_samples", view_count(l->self),
                            "instructions", per));
    }
    json_object_set_new(o, "file", srcview_string(file));
    json_object_set_new(o, "text_readable", json_boolean(text != NULL));
    json_object_set_new(o, "lines", list);
    json_object_set_new(o, "unattributed",
                        json_pack("{s:o, s:o}", "samples", view_count(lost_total), "self_samples",
                                  view_count(lost_self)));
    json_object_set_new(o, "sequence_points",
                        srcview_points_json(&sym->pdb, points, count, main_document));
    free(text);
    free(starts);
    free(lines);
    free(points);
    return o;
}
