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

/* The IL calls of one IL offset, with what the calls named by their code took. */
typedef struct callnames_sites {
    const ilcalls_site *site;
    uint32_t n;
    int inlined; /* one of them calls an inlinee of the version */
} callnames_sites;

/* Names the unnamed calls u[0..nu) from the IL calls s[0..ns), in order, when
 * as many and each a match: a call through a register takes a callvirt only.
 * Where the IL offset holds inlined code, a stub's call may be the inlinee's:
 * only calls through a register (and the callvirts) take part. */
static int callnames_segment(const callnames_call *calls, const uint32_t *u, uint32_t nu,
                             const ilcalls_site *s, uint32_t ns, int inlined,
                             const ilcalls_module *m, char **names)
{
    uint32_t take[64], i, j, n = 0, k = 0;

    for (i = 0; i < nu; i++)
        if (!inlined || calls[u[i]].via_register)
            take[n++ < 64 ? n - 1 : 63] = u[i];
    if (n == 0 || n > 64)
        return 0;
    for (j = 0; j < ns; j++)
        k += !inlined || s[j].opcode == ILCALLS_CALLVIRT;
    if (k != n)
        return 0;
    for (i = 0, j = 0; i < n; i++, j++) { /* every pair a match, or none named */
        while (inlined && s[j].opcode != ILCALLS_CALLVIRT)
            j++;
        if (calls[take[i]].via_register && s[j].opcode != ILCALLS_CALLVIRT)
            return 0;
    }
    for (i = 0, j = 0; i < n; i++, j++) {
        char text[ILCALLS_NAME_BYTES];
        while (inlined && s[j].opcode != ILCALLS_CALLVIRT)
            j++;
        if (ilcalls_name(m, s[j].token, text, sizeof(text), NULL, 0) != 0)
            continue;
        if (!(names[take[i]] = strdup(text)))
            return -1;
    }
    return 0;
}

/* 1 when one of the IL calls sites[0..ns) calls an inlinee of the version
 * (or a method whose name the metadata does not give). */
static int callnames_inlines(const callnames_version *ver, const ilcalls_site *sites, uint32_t ns,
                             const ilcalls_module *m)
{
    uint32_t i, j;

    for (i = 0; i < ns; i++) {
        char text[ILCALLS_NAME_BYTES], have[300], inlinee[300];
        if (ilcalls_name(m, sites[i].token, text, sizeof(text), NULL, 0) != 0)
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

/* One IL offset's calls: idx[0..k) of calls, in code order. A call named by
 * its code takes the next IL call of its method's name (an anchor); the
 * unnamed calls between two anchors take the IL calls between them. */
static int callnames_group(const callnames_call *calls, const uint32_t *idx, uint32_t k,
                           const callnames_sites *g, const ilcalls_module *m, char **names,
                           uint32_t *unnamed)
{
    uint32_t pos = 0, nu = 0, i;

    for (i = 0; i < k; i++) {
        const callnames_call *c = &calls[idx[i]];
        if (c->kind == CALLNAMES_UNNAMED) {
            unnamed[nu++] = idx[i];
        } else if (c->kind == CALLNAMES_NAMED && c->name) {
            char want[256], have[256];
            uint32_t j;
            callnames_simple(c->name, want, sizeof(want));
            for (j = pos; j < g->n; j++)
                if (ilcalls_name(m, g->site[j].token, NULL, 0, have, sizeof(have)) == 0 &&
                    strcmp(have, want) == 0)
                    break;
            if (j == g->n)
                continue; /* not this offset's own call (an inlinee's): no anchor */
            if (callnames_segment(calls, unnamed, nu, g->site + pos, j - pos, g->inlined, m,
                                  names) != 0)
                return -1;
            pos = j + 1;
            nu = 0;
        }
    }
    return callnames_segment(calls, unnamed, nu, g->site + pos, g->n - pos, g->inlined, m, names);
}

int callnames_assign(const callnames_call *calls, uint32_t n, const callnames_version *ver,
                     const ilcalls_module *m, char **names)
{
    const uint8_t *il = ver->il;
    uint32_t il_size = ver->il_size;
    ilcalls_site *sites;
    callnames_sites group;
    uint32_t *idx, *unnamed, nsites, i;
    int rc = 0;

    for (i = 0; i < n; i++)
        names[i] = NULL;
    for (i = 0; i < n && calls[i].kind != CALLNAMES_UNNAMED; i++)
        ;
    if (i == n || !il || !il_size || !m->map)
        return 0;
    sites = malloc(CALLNAMES_MAX_SITES * sizeof(*sites));
    idx = malloc((size_t)n * sizeof(*idx));
    unnamed = malloc((size_t)n * sizeof(*unnamed));
    if (!sites || !idx || !unnamed) {
        rc = -1;
        goto out;
    }
    nsites = ilcalls_scan(il, il_size, sites, CALLNAMES_MAX_SITES);
    for (i = 0; i < n && rc == 0; i++) {
        uint32_t off = calls[i].il_offset, k = 0, j, end, first, last;
        if (calls[i].kind != CALLNAMES_UNNAMED || off >= il_size)
            continue;
        for (j = 0; j < i; j++) /* done with this offset's first unnamed call */
            if (calls[j].il_offset == off && calls[j].kind == CALLNAMES_UNNAMED)
                break;
        if (j < i)
            continue;
        for (j = 0; j < n; j++)
            if (calls[j].il_offset == off)
                idx[k++] = j;
        end = callnames_range_end(ver->starts, ver->nstarts, off, il_size);
        for (first = 0; first < nsites && sites[first].il_offset < off; first++)
            ;
        for (last = first; last < nsites && sites[last].il_offset < end; last++)
            ;
        group = (callnames_sites){sites + first, last - first,
                                  callnames_inlines(ver, sites + first, last - first, m)};
        rc = callnames_group(calls, idx, k, &group, m, names, unnamed);
    }
out:
    free(sites);
    free(idx);
    free(unnamed);
    return rc;
}
