/* views_alloc.c -- the allocation records' event view (declared in views.h,
 * beside the other kinds' in views.c): an `allocation_second` event, one
 * closed second of sampled allocations (allocsites.h), as estimated when it
 * closed. */
#include "views.h"

/* ALLOCATION (a closed second): id its estimated objects, value its bytes,
 * extra its samples. */
/* An estimate as a plain integer (as GET .../allocations writes them). */
static json_t *view_alloc_amount(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

void view_event_allocation_fields(json_t *o, const view_event_copy *c, const profile_state *profile)
{
    (void)profile;
    json_object_set_new(o, "bytes", view_alloc_amount(c->e.value));
    json_object_set_new(o, "objects", view_alloc_amount(c->e.id));
    json_object_set_new(o, "samples", view_count(c->e.extra));
}
