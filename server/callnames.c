/* callnames.c -- calls named from the IL at their IL offset (see callnames.h). */
#include "callnames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void callnames_simple(const char *name, char *out, size_t outsz)
{
    const char *open = strchr(name, '(');
    size_t end = open ? (size_t)(open - name) : strlen(name), start, n;
    int depth = 0;

    if (end && name[end - 1] == '>') { /* a generic method's arguments */
        size_t j = end;
        while (j-- > 0) {
            if (name[j] == '>')
                depth++;
            else if (name[j] == '<' && --depth == 0)
                break;
        }
        end = j < end ? j : end;
    }
    for (start = end, depth = 0; start > 0; start--) {
        char ch = name[start - 1];
        if (ch == '>')
            depth++;
        else if (ch == '<')
            depth--;
        else if (ch == '.' && depth == 0)
            break;
    }
    if (start >= 2 && name[start - 2] == '.') /* .ctor, .cctor */
        start--;
    n = end - start < outsz - 1 ? end - start : outsz - 1;
    memcpy(out, name + start, n);
    out[n] = '\0';
}

/* The end of the IL range of offset off: the map's next IL offset, else the code's end. */
static uint32_t callnames_range_end(const uint32_t *starts, uint32_t nstarts, uint32_t off,
                                    uint32_t il_size)
{
    uint32_t lo = 0, hi = nstarts;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nstarts && starts[lo] < il_size ? starts[lo] : il_size;
}

/* "Type|Method|params" of a name as jitscope writes it ("Ns.Outer+Type<A>.Method<B>(int, C)"):
 * the declaring type's last name without its arguments, the method's, the
 * parameter count; the same method named by the session and by the IL
 * (shared generic code: System.__Canon) has the same key. */
static void callnames_key(const char *name, char *out, size_t outsz)
{
    const char *open = strchr(name, '('), *type_end, *type_start;
    char method[256];
    size_t head = open ? (size_t)(open - name) : strlen(name), mlen;
    int depth = 0, params = 0, commas = 0;
    const char *p;

    callnames_simple(name, method, sizeof(method));
    mlen = strlen(method);
    for (p = open ? open + 1 : ""; *p && !(*p == ')' && depth == 0); p++) {
        if (*p == '<' || *p == '[' || *p == '(')
            depth++;
        else if (*p == '>' || *p == ']' || *p == ')')
            depth--;
        else if (*p == ',' && depth == 0)
            commas++;
        if (*p != ' ')
            params = 1;
    }
    params += params ? commas : 0;
    /* the type: what comes before ".Method" */
    type_end = name;
    for (p = name; p + mlen <= name + head; p++)
        if (p > name && p[-1] == '.' && strncmp(p, method, mlen) == 0 &&
            (p[mlen] == '(' || p[mlen] == '<'))
            type_end = p - 1;
    while (type_end > name && type_end[-1] == '>') { /* the type's arguments */
        for (depth = 0, p = type_end; p > name; p--) {
            if (p[-1] == '>')
                depth++;
            else if (p[-1] == '<' && --depth == 0)
                break;
        }
        type_end = p > name ? p - 1 : name;
    }
    for (type_start = type_end; type_start > name && type_start[-1] != '.' && type_start[-1] != '+';
         type_start--)
        ;
    snprintf(out, outsz, "%.*s|%s|%d", (int)(type_end - type_start), type_start, method, params);
}

/* The IL's call sites and their names, each named once (on first use). */
typedef struct callnames_ctx {
    const ilcalls_module *m;
    const ilcalls_site *site;
    char **name; /* per site: NULL not yet, callnames_unknown: the metadata gives none */
} callnames_ctx;

static char callnames_unknown[] = "";

/* Site i's name ("Ns.Type.Method(int)"), or NULL when the metadata gives none (or no memory). */
static const char *callnames_site(callnames_ctx *c, uint32_t i)
{
    char text[ILCALLS_NAME_BYTES];

    if (!c->name[i])
        c->name[i] = ilcalls_name(c->m, c->site[i].token, text, sizeof(text), NULL, 0) == 0
                         ? strdup(text)
                         : callnames_unknown;
    return c->name[i] && c->name[i] != callnames_unknown ? c->name[i] : NULL;
}

/* Names the unnamed calls u[0..nu) from the sites [s, s + ns), in order, when
 * as many and each a match: a call through a register takes a callvirt only.
 * Where the IL offset holds inlined code, a stub's call may be the inlinee's:
 * only calls through a register (and the callvirts) take part. */
static int callnames_segment(callnames_ctx *c, const callnames_call *calls, const uint32_t *u,
                             uint32_t nu, uint32_t s, uint32_t ns, int inlined, char **names)
{
    uint32_t take[64], i, j, n = 0, k = 0;

    for (i = 0; i < nu && n <= 64; i++)
        if (!inlined || calls[u[i]].via_register) {
            if (n < 64)
                take[n] = u[i];
            n++;
        }
    if (n == 0 || n > 64)
        return 0;
    for (j = 0; j < ns; j++)
        k += !inlined || c->site[s + j].opcode == ILCALLS_CALLVIRT;
    if (k != n)
        return 0;
    for (i = 0, j = 0; i < n; i++, j++) { /* every pair a match, or none named */
        while (inlined && c->site[s + j].opcode != ILCALLS_CALLVIRT)
            j++;
        if ((calls[take[i]].via_register && c->site[s + j].opcode != ILCALLS_CALLVIRT) ||
            !callnames_site(c, s + j))
            return 0;
    }
    for (i = 0, j = 0; i < n; i++, j++) {
        while (inlined && c->site[s + j].opcode != ILCALLS_CALLVIRT)
            j++;
        if (!(names[take[i]] = strdup(callnames_site(c, s + j))))
            return -1;
    }
    return 0;
}

/* 1 when one of the sites [s, s + ns) calls an inlinee of the version (or a
 * method whose name the metadata does not give). */
static int callnames_inlines(callnames_ctx *c, const callnames_version *ver, uint32_t s,
                             uint32_t ns)
{
    uint32_t i, j;

    for (i = 0; i < ns; i++) {
        const char *text = callnames_site(c, s + i);
        char have[300], inlinee[300];
        if (!text)
            return 1;
        callnames_key(text, have, sizeof(have));
        for (j = 0; j < ver->ninlinees; j++) {
            callnames_key(ver->inlinees[j], inlinee, sizeof(inlinee));
            if (strcmp(have, inlinee) == 0)
                return 1;
        }
    }
    return 0;
}

/* One IL offset's calls: idx[0..k) of calls, in code order, and its sites
 * [s, s + ns). A call named by its code takes the next IL call of its
 * method's name (an anchor); the unnamed calls between two anchors take the
 * IL calls between them. */
static int callnames_group(callnames_ctx *c, const callnames_call *calls, const uint32_t *idx,
                           uint32_t k, uint32_t s, uint32_t ns, int inlined, char **names,
                           uint32_t *unnamed)
{
    uint32_t pos = 0, nu = 0, i;

    for (i = 0; i < k; i++) {
        const callnames_call *call = &calls[idx[i]];
        if (call->kind == CALLNAMES_UNNAMED) {
            unnamed[nu++] = idx[i];
        } else if (call->kind == CALLNAMES_NAMED && call->name) {
            char want[256], have[256];
            uint32_t j;
            callnames_simple(call->name, want, sizeof(want));
            for (j = pos; j < ns; j++) {
                const char *text = callnames_site(c, s + j);
                if (text) {
                    callnames_simple(text, have, sizeof(have));
                    if (strcmp(have, want) == 0)
                        break;
                }
            }
            if (j == ns)
                continue; /* not this offset's own call (an inlinee's): no anchor */
            if (callnames_segment(c, calls, unnamed, nu, s + pos, j - pos, inlined, names) != 0)
                return -1;
            pos = j + 1;
            nu = 0;
        }
    }
    return callnames_segment(c, calls, unnamed, nu, s + pos, ns - pos, inlined, names);
}

/* Call indices ordered by IL offset, then code order. */
typedef struct callnames_order {
    uint32_t il_offset, index;
} callnames_order;

static int callnames_order_cmp(const void *a, const void *b)
{
    const callnames_order *x = a, *y = b;

    if (x->il_offset != y->il_offset)
        return x->il_offset < y->il_offset ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The first site at or after IL offset off. */
static uint32_t callnames_first_site(const ilcalls_site *site, uint32_t n, uint32_t off)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (site[mid].il_offset < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int callnames_assign(const callnames_call *calls, uint32_t n, const callnames_version *ver,
                     const ilcalls_module *m, char **names)
{
    ilcalls_site *sites = NULL;
    callnames_order *order = NULL;
    callnames_ctx c = {m, NULL, NULL};
    uint32_t *idx = NULL, *unnamed = NULL, nsites = 0, i, g;
    int rc = -1;

    for (i = 0; i < n; i++)
        names[i] = NULL;
    for (i = 0; i < n && calls[i].kind != CALLNAMES_UNNAMED; i++)
        ;
    if (i == n || !ver->il || !ver->il_size || !m->map)
        return 0;
    if (!(sites = malloc(CALLNAMES_MAX_SITES * sizeof(*sites))) ||
        !(order = malloc((size_t)n * sizeof(*order))) ||
        !(idx = malloc((size_t)n * sizeof(*idx))) ||
        !(unnamed = malloc((size_t)n * sizeof(*unnamed))))
        goto out;
    nsites = ilcalls_scan(ver->il, ver->il_size, sites, CALLNAMES_MAX_SITES);
    c.site = sites;
    if (!(c.name = calloc(nsites ? nsites : 1, sizeof(*c.name))))
        goto out;
    for (i = 0; i < n; i++)
        order[i] = (callnames_order){calls[i].il_offset, i};
    qsort(order, n, sizeof(*order), callnames_order_cmp);
    rc = 0;
    for (g = 0; g < n && rc == 0; g = i) { /* each IL offset's calls */
        uint32_t off = order[g].il_offset, k = 0, any = 0, first, last;
        for (i = g; i < n && order[i].il_offset == off; i++) {
            idx[k++] = order[i].index;
            any |= calls[order[i].index].kind == CALLNAMES_UNNAMED;
        }
        if (!any || off >= ver->il_size)
            continue;
        first = callnames_first_site(sites, nsites, off);
        last = callnames_first_site(
            sites, nsites, callnames_range_end(ver->starts, ver->nstarts, off, ver->il_size));
        if (last < first)
            last = first;
        rc = callnames_group(&c, calls, idx, k, first, last - first,
                             !ver->inlining_known ||
                                 callnames_inlines(&c, ver, first, last - first),
                             names, unnamed);
    }
out:
    for (i = 0; c.name && i < nsites; i++)
        if (c.name[i] != callnames_unknown)
            free(c.name[i]);
    free(c.name);
    free(sites);
    free(order);
    free(idx);
    free(unnamed);
    if (rc != 0)
        for (i = 0; i < n; i++) {
            free(names[i]);
            names[i] = NULL;
        }
    return rc;
}
