/* callnames.c -- calls named from the IL at their IL offset (see callnames.h). */
#include "callnames.h"

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

/* Names unnamed[0..nu) from sites[0..ns) in order when as many. */
static int callnames_segment(const uint32_t *unnamed, uint32_t nu, const ilcalls_site *sites,
                             uint32_t ns, const ilcalls_module *m, char **names)
{
    uint32_t i;

    if (nu == 0 || nu != ns)
        return 0;
    for (i = 0; i < nu; i++) {
        char text[ILCALLS_NAME_BYTES];
        if (ilcalls_name(m, sites[i].token, text, sizeof(text), NULL, 0) != 0)
            continue;
        if (!(names[unnamed[i]] = strdup(text)))
            return -1;
    }
    return 0;
}

/* One IL offset's calls: idx[0..k) of calls, in code order. */
static int callnames_group(const callnames_call *calls, const uint32_t *idx, uint32_t k,
                           const ilcalls_site *sites, uint32_t ns, const ilcalls_module *m,
                           char **names, uint32_t *unnamed)
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
            for (j = pos; j < ns; j++)
                if (ilcalls_name(m, sites[j].token, NULL, 0, have, sizeof(have)) == 0 &&
                    strcmp(have, want) == 0)
                    break;
            if (j == ns)
                continue; /* not this offset's own call (an inlinee's): no anchor */
            if (callnames_segment(unnamed, nu, sites + pos, j - pos, m, names) != 0)
                return -1;
            pos = j + 1;
            nu = 0;
        }
    }
    return callnames_segment(unnamed, nu, sites + pos, ns - pos, m, names);
}

int callnames_assign(const callnames_call *calls, uint32_t n, const uint32_t *starts,
                     uint32_t nstarts, const uint8_t *il, uint32_t il_size,
                     const ilcalls_module *m, char **names)
{
    ilcalls_site *sites;
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
        end = callnames_range_end(starts, nstarts, off, il_size);
        for (first = 0; first < nsites && sites[first].il_offset < off; first++)
            ;
        for (last = first; last < nsites && sites[last].il_offset < end; last++)
            ;
        rc = callnames_group(calls, idx, k, sites + first, last - first, m, names, unnamed);
    }
out:
    free(sites);
    free(idx);
    free(unnamed);
    return rc;
}
