/* views_alloc.c -- the allocation records' event view (declared in views.h,
 * beside the other kinds' in views.c): an `allocation_second` event, one
 * closed second of sampled allocations (allocsites.h), scaled by the samples
 * the agent counted but did not send as they stand when it is read. */
#include "views.h"

/* ALLOCATION (a closed second): id its estimated objects, value its bytes,
 * extra its samples, all before alloc_scale; take scales id and value. */
void view_event_allocation_take(session *s, const eventlog_entry *e, view_event_copy *c,
                                view_event_names *n)
{
    double scale = s->allocations ? alloc_scale(s->allocations) : 1.0;

    (void)n;
    c->e.id = (uint64_t)((double)e->id * scale + 0.5);
    c->e.value = (uint64_t)((double)e->value * scale + 0.5);
}

/* An estimate as a plain integer (as GET .../allocations writes them). */
static json_t *view_alloc_amount(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

void view_event_allocation_fields(json_t *o, const view_event_copy *c,
                                  const profile_state *profile)
{
    (void)profile;
    json_object_set_new(o, "bytes", view_alloc_amount(c->e.value));
    json_object_set_new(o, "objects", view_alloc_amount(c->e.id));
    json_object_set_new(o, "samples", view_count(c->e.extra));
}
