/* session_header.c -- a session's own fields as JSON, and back (see session_header.h).
 *
 * A table of (name, offset, kind) drives both ways, so a field added to the
 * session is one row here; a name the JSON does not have reads as 0, which
 * is how an older file's header reads in a newer server. Fields marked
 * FOLDED are counters the agent's records make: storage's files of versions
 * 1-3 kept them in the header (read back only for those); now they come from
 * folding the log again, so they are not written. The state is a name. */
#include "session_header.h"
#include "utf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum header_kind { K_I32, K_U16, K_U32, K_I64, K_U64 };

typedef struct header_field {
    const char *name;
    size_t offset;
    int kind;
    unsigned count; /* an array of this many */
    int folded;     /* a counter from the agent's records (read from old files only) */
} header_field;

#define OWN 0
#define FOLDED 1
#define F(field, kind, folded)                                                                     \
    {                                                                                              \
#field, offsetof(session, field), kind, 1, folded                                          \
    }
#define NF(name, field, kind, folded)                                                              \
    {                                                                                              \
        name, offsetof(session, field), kind, 1, folded                                            \
    }
#define A(field, kind, n, folded)                                                                  \
    {                                                                                              \
#field, offsetof(session, field), kind, n, folded                                          \
    }

static const header_field header_fields[] = {
    F(pid, K_I32, OWN),
    F(mode, K_I32, OWN),
    F(root_id, K_I32, OWN),
    F(parent_pid, K_I32, OWN),
    F(has_exit_code, K_I32, OWN),
    F(exit_code, K_I32, OWN),
    F(exit_signal, K_I32, OWN),
    F(start_time, K_U64, OWN),
    F(created_ns, K_I64, OWN),
    F(connected_ns, K_I64, FOLDED),
    F(ended_ns, K_I64, OWN),
    F(runtime_type, K_U16, FOLDED),
    F(clr_instance_id, K_U16, FOLDED),
    F(major, K_U16, FOLDED),
    F(minor, K_U16, FOLDED),
    F(build, K_U16, FOLDED),
    F(qfe, K_U16, FOLDED),
    F(ring_bytes, K_U32, FOLDED),
    /* from the hello, but kept here: a snapshot has no room for them */
    F(agent_flags, K_U32, OWN),
    F(event_mask, K_U32, OWN),
    F(event_mask_high, K_U32, OWN),
    F(clock_offset_ns, K_I64, FOLDED),
    F(records, K_U64, FOLDED),
    F(bytes, K_U64, FOLDED),
    F(last_seq, K_U64, FOLDED),
    F(seq_gaps, K_U64, FOLDED),
    F(connections, K_U64, FOLDED),
    A(drops.dropped, K_U64, WIRE_DROP_REASONS, FOLDED),
    F(drops.produced, K_U64, FOLDED),
    F(drops.ring_used, K_U64, FOLDED),
    F(agent_cost.callbacks, K_U64, FOLDED),
    F(agent_cost.total_ns, K_U64, FOLDED),
    A(agent_cost.buckets, K_U64, WIRE_COST_BUCKETS, FOLDED),
    F(agent_cost.metadata_direct_modules, K_U64, FOLDED),
    F(agent_cost.metadata_importer_opens, K_U64, FOLDED),
    F(catchups, K_U64, FOLDED),
    F(last_catchup.modules, K_U32, FOLDED),
    F(last_catchup.functions, K_U32, FOLDED),
    F(last_catchup.threads, K_U32, FOLDED),
    F(last_catchup.quiet_ms, K_U32, FOLDED),
    F(last_catchup.duration_ns, K_U64, FOLDED),
    F(detach_requested_ns, K_I64, OWN),
    F(detach_finished_ns, K_I64, FOLDED),
    F(detach_hresult, K_I32, FOLDED),
    F(jit_time_total_ns, K_U64, FOLDED),
    F(jit_compilations, K_U64, FOLDED),
    F(capacity_drops, K_U64, FOLDED),
    A(tier_compilations, K_U64, WIRE_TIER_COUNT, FOLDED),
    A(tier_jit_ns, K_U64, WIRE_TIER_COUNT, FOLDED),
    F(tiers.enabled, K_U32, FOLDED),
    F(tiers.hresult, K_I32, FOLDED),
    F(tiers.lost, K_U64, FOLDED),
    F(tiers_known, K_I32, FOLDED),
    NF("event_seq", events.last_seq, K_U64, FOLDED),
    NF("events_evicted", events.evicted, K_U64, FOLDED),
    /* where it ran, how it came (its container's id and hostname, its
     * runtime's cookie: strings, below) */
    F(via_port, K_I32, OWN),
    F(pid_hidden, K_I32, OWN),
    NF("container_in", container.in_container, K_I32, OWN),
    NF("container_pid", container.pid, K_I32, OWN),
    NF("container_userns", container.user_namespace, K_I32, OWN),
    NF("container_uid", container.uid, K_I64, OWN),
};
_Static_assert(sizeof(((session *)0)->container.uid) == sizeof(int64_t), "container uid: K_I64");

static size_t header_kind_size(int kind)
{
    return kind == K_U16 ? 2 : kind == K_I32 || kind == K_U32 ? 4 : 8;
}

static json_int_t header_read(const char *at, int kind)
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

static void header_write(char *at, int kind, json_int_t v)
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
static json_t *session_outside_to_json(const session *s)
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

static void session_outside_from_json(session *s, const json_t *list)
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

/* The runtime's cookie (a port's runtime) as 32 hex digits, "" when none. */
static json_t *session_cookie_to_json(const session *s)
{
    char hex[33];
    unsigned i;

    if (!s->via_port)
        return json_string("");
    for (i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", s->runtime_cookie[i]);
    return json_string(hex);
}

static void session_cookie_from_json(session *s, const char *hex)
{
    char two[3] = {0};
    unsigned i;

    for (i = 0; hex && strlen(hex) == 32 && strspn(hex, "0123456789abcdef") == 32 && i < 16; i++) {
        memcpy(two, hex + 2 * i, 2);
        s->runtime_cookie[i] = (uint8_t)strtoul(two, NULL, 16);
    }
}

/* A string of the header into out (size), valid UTF-8, "" when absent. */
static void session_text_from_json(const json_t *header, const char *name, char *out, size_t size)
{
    const char *text = json_string_value(json_object_get(header, name));
    int cut;

    out[utf8_sanitize(text ? text : "", text ? strlen(text) : 0, out, size - 1, &cut)] = '\0';
}

json_t *session_header_to_json(const session *s)
{
    json_t *o = json_object();
    size_t i;
    unsigned k;

    if (!o)
        return NULL;
    for (i = 0; i < sizeof(header_fields) / sizeof(header_fields[0]); i++) {
        const header_field *f = &header_fields[i];
        const char *at = (const char *)s + f->offset;
        json_t *v;
        if (f->folded)
            continue;
        if (f->count == 1) {
            v = json_integer(header_read(at, f->kind));
        } else {
            v = json_array();
            for (k = 0; v && k < f->count; k++)
                json_array_append_new(
                    v, json_integer(header_read(at + k * header_kind_size(f->kind), f->kind)));
        }
        if (json_object_set_new(o, f->name, v) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    json_object_set_new(o, "state", json_string(session_state_name(s->state)));
    json_object_set_new(o, "token", json_string(s->token));
    json_object_set_new(o, "error", json_string(s->error));
    json_object_set_new(o, "command_line", json_string(s->command_line));
    json_object_set_new(o, "program", json_string(s->program));
    json_object_set_new(o, "outside", session_outside_to_json(s));
    json_object_set_new(o, "container_id", json_string(s->container.id));
    json_object_set_new(o, "container_hostname", json_string(s->container.hostname));
    json_object_set_new(o, "runtime_cookie", session_cookie_to_json(s));
    return o;
}

session_state session_state_from_name(const char *name)
{
    session_state st;

    for (st = SESSION_STARTING; st <= SESSION_INTERRUPTED; st++)
        if (name && strcmp(name, session_state_name(st)) == 0)
            return st;
    return SESSION_INTERRUPTED; /* unknown: a newer server's state; it is not live here */
}

void session_header_from_json(session *s, const json_t *header, int with_folded)
{
    size_t i;
    unsigned k;
    const char *text;
    int cut;

    for (i = 0; i < sizeof(header_fields) / sizeof(header_fields[0]); i++) {
        const header_field *f = &header_fields[i];
        char *at = (char *)s + f->offset;
        const json_t *v = json_object_get(header, f->name);
        if (f->folded && !with_folded)
            continue;
        if (f->count == 1) {
            header_write(at, f->kind, json_is_integer(v) ? json_integer_value(v) : 0);
            continue;
        }
        for (k = 0; k < f->count; k++) {
            const json_t *e = json_array_get(v, k);
            header_write(at + k * header_kind_size(f->kind), f->kind,
                         json_is_integer(e) ? json_integer_value(e) : 0);
        }
    }
    s->state = session_state_from_name(json_string_value(json_object_get(header, "state")));
    text = json_string_value(json_object_get(header, "token"));
    snprintf(s->token, sizeof(s->token), "%s", text ? text : "");
    text = json_string_value(json_object_get(header, "command_line"));
    if (text) {
        char *line = malloc(strlen(text) + 1);
        if (line) {
            line[utf8_sanitize(text, strlen(text), line, strlen(text), &cut)] = '\0';
            free(s->command_line);
            s->command_line = line;
        }
    }
    text = json_string_value(json_object_get(header, "error"));
    s->error[utf8_sanitize(text ? text : "", text ? strlen(text) : 0, s->error,
                           sizeof(s->error) - 1, &cut)] = '\0';   /* never half a character */
    text = json_string_value(json_object_get(header, "program")); /* none in older files */
    s->program[utf8_sanitize(text ? text : "", text ? strlen(text) : 0, s->program,
                             sizeof(s->program) - 1, &cut)] = '\0';
    session_outside_from_json(s, json_object_get(header, "outside"));
    session_text_from_json(header, "container_id", s->container.id, sizeof(s->container.id));
    session_text_from_json(header, "container_hostname", s->container.hostname,
                           sizeof(s->container.hostname));
    session_cookie_from_json(s, json_string_value(json_object_get(header, "runtime_cookie")));
}
