/* views_event.c -- an event-log entry as JSON through its kind's row (see
 * views_event.h): above record_kinds.c, which points at each kind's view in
 * views.c. */
#include "views_event.h"

#include <string.h>

#include "record_kinds.h"

/* A function's name record into text, as its name (c->name); without text
 * the record is kept as it is (c->name_record), for view_event_json. */
static int view_keep_record(view_text *text, const char *record, view_event_copy *c)
{
    size_t room, length;

    if (!text) {
        c->name_record = record;
        return 0;
    }
    room = text->size - text->used;
    if (room == 0 || (length = fnname_copy(record, text->data + text->used, room)) >= room)
        return -1;
    c->name = text->data + text->used;
    text->used += length + 1;
    return 0;
}

int view_event_take(session *s, const eventlog_entry *e, view_event_copy *c, view_text *text)
{
    const record_kind *k = record_kind_of(e->type);
    view_event_names n = {0};
    size_t mark = text ? text->used : 0;

    memset(c, 0, sizeof(*c));
    c->e = *e;
    if (k && k->event_take)
        k->event_take(s, e, c, &n);
    if ((n.record ? view_keep_record(text, n.record, c) : view_text_keep(text, n.name, &c->name)) !=
            0 ||
        view_text_keep(text, n.module, &c->module) != 0 ||
        view_text_keep(text, n.assembly, &c->assembly) != 0) {
        text->used = mark;
        return -1;
    }
    return 0;
}

json_t *view_event(session *s, const eventlog_entry *e)
{
    view_event_copy c;

    view_event_take(s, e, &c, NULL); /* pointing into s: cannot fail */
    return view_event_json(&c, &s->profile);
}

json_t *view_event_json(const view_event_copy *c, const profile_state *profile)
{
    const eventlog_entry *e = &c->e;
    const record_kind *k = record_kind_of(e->type);
    json_t *o = json_pack("{s:o, s:s, s:o, s:b}", "seq", view_count(e->seq), "type",
                          record_kind_event_name(e->type), "time_ms", view_ms(e->time_ns),
                          "catchup", (e->flags & WIRE_FLAG_CATCHUP) != 0);

    if (o && k && k->event_json)
        k->event_json(o, c, profile);
    return o;
}
