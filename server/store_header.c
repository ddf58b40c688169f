/* store_header.c -- a session's own fields as JSON for the sessions table's
 * header column, and back (see store_db.h).
 *
 * A table of (name, offset, kind) drives both ways, so a field added to the
 * session is one row here; a name the file does not have reads as 0, which
 * is how an older file's header reads in a newer server. Lists (functions,
 * modules, threads, events) have their own tables; the state is a name. */
#include "store_db.h"
#include "utf.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum store_kind { K_I32, K_U16, K_U32, K_I64, K_U64 };

typedef struct store_field {
    const char *name;
    size_t offset;
    int kind;
    unsigned count; /* an array of this many */
} store_field;

#define F(field, kind)                                                                             \
    {                                                                                              \
#field, offsetof(session, field), kind, 1                                                  \
    }
#define A(field, kind, n)                                                                          \
    {                                                                                              \
#field, offsetof(session, field), kind, n                                                  \
    }

static const store_field store_fields[] = {
    F(pid, K_I32),
    F(mode, K_I32),
    F(root_id, K_I32),
    F(parent_pid, K_I32),
    F(has_exit_code, K_I32),
    F(exit_code, K_I32),
    F(exit_signal, K_I32),
    F(created_ns, K_I64),
    F(connected_ns, K_I64),
    F(ended_ns, K_I64),
    F(runtime_type, K_U16),
    F(clr_instance_id, K_U16),
    F(major, K_U16),
    F(minor, K_U16),
    F(build, K_U16),
    F(qfe, K_U16),
    F(ring_bytes, K_U32),
    F(clock_offset_ns, K_I64),
    F(records, K_U64),
    F(bytes, K_U64),
    F(last_seq, K_U64),
    F(seq_gaps, K_U64),
    F(connections, K_U64),
    A(drops.dropped, K_U64, WIRE_DROP_REASONS),
    F(drops.produced, K_U64),
    F(drops.ring_used, K_U64),
    F(agent_cost.callbacks, K_U64),
    F(agent_cost.total_ns, K_U64),
    A(agent_cost.buckets, K_U64, WIRE_COST_BUCKETS),
    F(agent_cost.metadata_direct_modules, K_U64),
    F(agent_cost.metadata_importer_opens, K_U64),
    F(catchups, K_U64),
    F(last_catchup.modules, K_U32),
    F(last_catchup.functions, K_U32),
    F(last_catchup.threads, K_U32),
    F(last_catchup.quiet_ms, K_U32),
    F(last_catchup.duration_ns, K_U64),
    F(detach_requested_ns, K_I64),
    F(detach_finished_ns, K_I64),
    F(detach_hresult, K_I32),
    F(jit_time_total_ns, K_U64),
    F(jit_compilations, K_U64),
    F(capacity_drops, K_U64),
    A(tier_compilations, K_U64, WIRE_TIER_COUNT),
    A(tier_jit_ns, K_U64, WIRE_TIER_COUNT),
    F(tiers.enabled, K_U32),
    F(tiers.hresult, K_I32),
    F(tiers.lost, K_U64),
    F(tiers_known, K_I32),
    F(event_seq, K_U64),
    F(events_evicted, K_U64),
};

static size_t store_kind_size(int kind)
{
    return kind == K_U16 ? 2 : kind == K_I32 || kind == K_U32 ? 4 : 8;
}

static json_int_t store_read(const char *at, int kind)
{
    int32_t i32;
    uint16_t u16;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;

    switch (kind) {
    case K_I32: memcpy(&i32, at, 4); return i32;
    case K_U16: memcpy(&u16, at, 2); return u16;
    case K_U32: memcpy(&u32, at, 4); return u32;
    case K_I64: memcpy(&i64, at, 8); return i64;
    default: memcpy(&u64, at, 8); return (json_int_t)u64; /* bit pattern kept */
    }
}

static void store_write(char *at, int kind, json_int_t v)
{
    int32_t i32 = (int32_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    int64_t i64 = (int64_t)v;
    uint64_t u64 = (uint64_t)v;

    switch (kind) {
    case K_I32: memcpy(at, &i32, 4); break;
    case K_U16: memcpy(at, &u16, 2); break;
    case K_U32: memcpy(at, &u32, 4); break;
    case K_I64: memcpy(at, &i64, 8); break;
    default: memcpy(at, &u64, 8); break;
    }
}

/* A run's build servers outside it: [[pid, cpu_ms, started_before, name]...]. */
static json_t *store_outside_to_json(const session *s)
{
    json_t *list = json_array();
    uint32_t i;

    for (i = 0; list && i < s->outside_count && i < SESSION_OUTSIDE_MAX; i++) {
        const session_outsider *o = &s->outside[i];
        json_array_append_new(list, json_pack("[i, I, b, s]", (int)o->pid, (json_int_t)o->cpu_ms,
                                              (int)o->started_before, o->name));
    }
    return list;
}

static void store_outside_from_json(session *s, const json_t *list)
{
    const char *name;
    json_int_t pid, cpu_ms;
    int before;
    size_t i;
    int cut;

    s->outside_count = 0;
    for (i = 0; i < json_array_size(list) && s->outside_count < SESSION_OUTSIDE_MAX; i++) {
        session_outsider *o = &s->outside[s->outside_count];
        if (json_unpack(json_array_get(list, i), "[I, I, b, s]", &pid, &cpu_ms, &before, &name) !=
                0 ||
            pid <= 0 || pid > 4194304 || cpu_ms < 0 || cpu_ms > UINT32_MAX)
            continue; /* not what this server writes: left out */
        o->pid = (int32_t)pid;
        o->cpu_ms = (uint32_t)cpu_ms;
        o->started_before = before != 0;
        o->name[utf8_sanitize(name, strlen(name), o->name, sizeof(o->name) - 1, &cut)] = '\0';
        s->outside_count++;
    }
}

json_t *store_header_to_json(const session *s)
{
    json_t *o = json_object();
    size_t i;
    unsigned k;

    if (!o)
        return NULL;
    for (i = 0; i < sizeof(store_fields) / sizeof(store_fields[0]); i++) {
        const store_field *f = &store_fields[i];
        const char *at = (const char *)s + f->offset;
        json_t *v;
        if (f->count == 1) {
            v = json_integer(store_read(at, f->kind));
        } else {
            v = json_array();
            for (k = 0; v && k < f->count; k++)
                json_array_append_new(
                    v, json_integer(store_read(at + k * store_kind_size(f->kind), f->kind)));
        }
        if (json_object_set_new(o, f->name, v) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    json_object_set_new(o, "state", json_string(session_state_name(s->state)));
    json_object_set_new(o, "token", json_string(s->token));
    json_object_set_new(o, "error", json_string(s->error));
    json_object_set_new(o, "program", json_string(s->program));
    json_object_set_new(o, "outside", store_outside_to_json(s));
    return o;
}

static session_state store_state_from_name(const char *name)
{
    session_state st;

    for (st = SESSION_STARTING; st <= SESSION_INTERRUPTED; st++)
        if (name && strcmp(name, session_state_name(st)) == 0)
            return st;
    return SESSION_INTERRUPTED; /* unknown: a newer server's state; it is not live here */
}

void store_header_from_json(session *s, const json_t *header)
{
    size_t i;
    unsigned k;
    const char *text;
    int cut;

    for (i = 0; i < sizeof(store_fields) / sizeof(store_fields[0]); i++) {
        const store_field *f = &store_fields[i];
        char *at = (char *)s + f->offset;
        const json_t *v = json_object_get(header, f->name);
        if (f->count == 1) {
            store_write(at, f->kind, json_is_integer(v) ? json_integer_value(v) : 0);
            continue;
        }
        for (k = 0; k < f->count; k++) {
            const json_t *e = json_array_get(v, k);
            store_write(at + k * store_kind_size(f->kind), f->kind,
                        json_is_integer(e) ? json_integer_value(e) : 0);
        }
    }
    s->state = store_state_from_name(json_string_value(json_object_get(header, "state")));
    text = json_string_value(json_object_get(header, "token"));
    snprintf(s->token, sizeof(s->token), "%s", text ? text : "");
    text = json_string_value(json_object_get(header, "error"));
    s->error[utf8_sanitize(text ? text : "", text ? strlen(text) : 0, s->error,
                           sizeof(s->error) - 1, &cut)] = '\0';   /* never half a character */
    text = json_string_value(json_object_get(header, "program")); /* none in older files */
    s->program[utf8_sanitize(text ? text : "", text ? strlen(text) : 0, s->program,
                             sizeof(s->program) - 1, &cut)] = '\0';
    store_outside_from_json(s, json_object_get(header, "outside"));
}
