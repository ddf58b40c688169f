/* codeheat.c -- the code view's samples per instruction (see codeheat.h). */
#include "codeheat.h"

#include <stdlib.h>
#include <string.h>

#include "views.h"

int codeheat_take(codeheat *h, const profile_state *p, const code_reply *r)
{
    uint64_t ranges[4 * WIRE_CODE_MAX_VERSIONS];
    unsigned n = 0, i;

    memset(h, 0, sizeof(*h));
    if (!p->number || p->state == PROFILE_IDLE)
        return 0;
    h->have = 1;
    h->number = p->number;
    h->mode = p->mode;
    h->state = p->state;
    h->samples = p->sample_count;
    h->dropped = p->heat.dropped;
    for (i = 0; i < r->version_count; i++) {
        const wire_code_version_info *info = &r->versions[i].info;
        ranges[2 * n] = info->code_start;
        ranges[2 * n++ + 1] = info->code_start + info->hot_size;
        if (info->cold_start && info->cold_size) {
            ranges[2 * n] = info->cold_start;
            ranges[2 * n++ + 1] = info->cold_start + info->cold_size;
        }
    }
    h->count = profile_heat_collect(&p->heat, ranges, n, &h->entries);
    return h->count < 0 ? -1 : 0;
}

void codeheat_sum(const codeheat *h, uint64_t address, uint32_t size, uint64_t *self,
                  uint64_t *total)
{
    long lo = 0, hi = h->count;

    *self = *total = 0;
    while (lo < hi) { /* the first entry at or after address */
        long mid = lo + (hi - lo) / 2;
        if (h->entries[mid].address < address)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < h->count && h->entries[lo].address < address + size; lo++) {
        *self += h->entries[lo].self;
        *total += h->entries[lo].total;
    }
}

json_t *codeheat_json(const codeheat *h)
{
    if (!h->have)
        return json_null();
    return json_pack("{s:i, s:s, s:s, s:o, s:o}", "number", (int)h->number, "mode",
                     profile_mode_name(h->mode), "state", profile_state_name(h->state), "samples",
                     view_count(h->samples), "dropped_addresses", view_count(h->dropped));
}

void codeheat_free(codeheat *h)
{
    free(h->entries);
    memset(h, 0, sizeof(*h));
}
