/* code.c -- code versions seen, inlining, ReadyToRun and code replies of a
 * session (see code.h). */
#include "code.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define CODE_MAX_FUNCTIONS (4u * 1024u * 1024u) /* SESSION_MAX_FUNCTIONS (session.c checks) */

void code_init(code_state *c) { memset(c, 0, sizeof(*c)); }

static void code_reply_free(code_reply *r)
{
    unsigned i;

    if (!r)
        return;
    for (i = 0; i < r->version_count; i++) {
        free(r->versions[i].code);
        free(r->versions[i].map);
        free(r->versions[i].refs);
    }
    free(r->il);
    free(r);
}

void code_free(code_state *c)
{
    unsigned i;

    free(c->seen);
    free(c->seen_head);
    free(c->inlines);
    free(c->root_head);
    free(c->callee_head);
    free(c->r2r);
    for (i = 0; i < c->reply_count; i++)
        code_reply_free(c->replies[i]);
    memset(c, 0, sizeof(*c));
}

/* Makes per-function array *a (elements of elem bytes) reach position function. */
static int code_reach(void **a, size_t *cap, uint32_t function, size_t elem)
{
    if (function >= CODE_MAX_FUNCTIONS)
        return -1;
    return *cap > function
               ? 0
               : grow_reserve(a, cap, function, elem, 1024, CODE_MAX_FUNCTIONS, GROW_ZERO);
}

/* ---- code versions ---- */

static int code_seen_append(code_state *c, uint32_t function, uint64_t start, uint32_t size,
                            uint16_t ordinal)
{
    code_seen *e;

    if (code_reach((void **)&c->seen_head, &c->seen_head_cap, function, sizeof(uint32_t)) != 0 ||
        grow_reserve((void **)&c->seen, &c->seen_cap, c->seen_count, sizeof(*c->seen), 256,
                     CODE_MAX_SEEN, GROW_KEEP) != 0) {
        c->seen_dropped++;
        return -1;
    }
    e = &c->seen[c->seen_count];
    *e = (code_seen){start, function, size, c->seen_head[function], ordinal, 0};
    c->seen_head[function] = (uint32_t)++c->seen_count;
    return 0;
}

const code_seen *code_seen_first(const code_state *c, uint32_t function)
{
    if (function >= c->seen_head_cap || !c->seen_head[function])
        return NULL;
    return &c->seen[c->seen_head[function] - 1];
}

const code_seen *code_seen_find(const code_state *c, uint32_t function, uint64_t start)
{
    const code_seen *e;

    for (e = code_seen_first(c, function); e; e = e->next ? &c->seen[e->next - 1] : NULL)
        if (e->start == start)
            return e;
    return NULL;
}

void code_note_version(code_state *c, uint32_t function, uint64_t start, uint32_t size,
                       uint16_t ordinal)
{
    code_seen *e;

    if (start == 0 || function == CODE_NONE)
        return;
    e = (code_seen *)code_seen_find(c, function, start);
    if (e) { /* catch-up repeats what is known; a live compilation may name it later */
        if (!e->size)
            e->size = size;
        if (e->ordinal == CODE_NO_ORDINAL && ordinal != CODE_NO_ORDINAL)
            e->ordinal = ordinal;
        return;
    }
    code_seen_append(c, function, start, size, ordinal);
}

/* ---- inlining and ReadyToRun ---- */

static int code_inline_append(code_state *c, const code_inline *in)
{
    code_inline *e;

    if (code_reach((void **)&c->root_head, &c->root_head_cap, in->root, sizeof(uint32_t)) != 0 ||
        code_reach((void **)&c->callee_head, &c->callee_head_cap, in->callee, sizeof(uint32_t)) !=
            0 ||
        grow_reserve((void **)&c->inlines, &c->inline_cap, c->inline_count, sizeof(*c->inlines),
                     256, CODE_MAX_INLINES, GROW_KEEP) != 0) {
        c->inlines_dropped++;
        return -1;
    }
    e = &c->inlines[c->inline_count];
    *e = *in;
    e->next_root = c->root_head[in->root];
    e->next_callee = c->callee_head[in->callee];
    c->inline_count++;
    c->root_head[in->root] = (uint32_t)c->inline_count;
    c->callee_head[in->callee] = (uint32_t)c->inline_count;
    return 0;
}

void code_note_inline(code_state *c, uint32_t root, uint16_t ordinal, uint32_t caller,
                      uint32_t callee, uint16_t flags)
{
    code_inline in = {root, callee, caller, 0, 0, ordinal, flags};

    c->inline_records++;
    if (root == CODE_NONE || callee == CODE_NONE) {
        c->inlines_dropped++;
        return;
    }
    code_inline_append(c, &in);
}

const code_inline *code_inlines_of_root(const code_state *c, uint32_t function)
{
    return function < c->root_head_cap ? code_inline_next(c, c->root_head[function]) : NULL;
}

const code_inline *code_inlines_of_callee(const code_state *c, uint32_t function)
{
    return function < c->callee_head_cap ? code_inline_next(c, c->callee_head[function]) : NULL;
}

void code_note_search(code_state *c, uint32_t function, uint32_t result)
{
    uint8_t *bits;

    c->r2r_searches++;
    if (function == CODE_NONE ||
        code_reach((void **)&c->r2r, &c->r2r_cap, function, sizeof(uint8_t)) != 0)
        return;
    bits = &c->r2r[function];
    if (result == WIRE_SEARCH_STARTED) {
        *bits |= CODE_R2R_HAS;
    } else if (result == WIRE_SEARCH_FOUND) {
        if (!(*bits & CODE_R2R_USED))
            c->r2r_found++;
        *bits |= CODE_R2R_HAS | CODE_R2R_USED;
    } else {
        c->r2r_rejected_searches++;
    }
}

uint8_t code_r2r(const code_state *c, uint32_t function)
{
    return function < c->r2r_cap ? c->r2r[function] : 0;
}

/* ---- replies ---- */

/* Removes reply i from the list (freeing it). */
static void code_reply_drop(code_state *c, unsigned i)
{
    c->reply_bytes -= c->replies[i]->bytes;
    code_reply_free(c->replies[i]);
    memmove(&c->replies[i], &c->replies[i + 1], (c->reply_count - i - 1) * sizeof(c->replies[0]));
    c->reply_count--;
}

/* The reply being assembled for request_id; created when create is set (the
 * oldest pending one is abandoned when CODE_PENDING are open). */
static code_reply *code_reply_pending(code_state *c, uint64_t request_id, int create,
                                      int64_t now_ns)
{
    unsigned i, pending = 0, oldest = 0;
    code_reply *r;

    for (i = 0; i < c->reply_count; i++) {
        if (c->replies[i]->complete)
            continue;
        if (c->replies[i]->request_id == request_id)
            return c->replies[i];
        if (!pending++ || c->replies[i]->age < c->replies[oldest]->age)
            oldest = i;
    }
    if (!create)
        return NULL;
    if (pending >= CODE_PENDING) {
        c->replies_broken++;
        code_reply_drop(c, oldest);
    }
    if (c->reply_count >= CODE_KEEP_REPLIES + CODE_PENDING) { /* the oldest complete one goes */
        for (i = 0; i < c->reply_count && !c->replies[i]->complete; i++)
            ;
        c->replies_evicted++;
        code_reply_drop(c, i < c->reply_count ? i : 0);
    }
    if (!(r = calloc(1, sizeof(*r))))
        return NULL;
    r->request_id = request_id;
    r->function = CODE_NONE;
    r->age = ++c->reply_age;
    r->time_ns = now_ns;
    r->bytes = sizeof(*r);
    c->reply_bytes += r->bytes;
    c->replies[c->reply_count++] = r;
    return r;
}

/* Allocates n bytes for a reply within its cap; NULL when over it or out of memory. */
static void *code_reply_alloc(code_state *c, code_reply *r, size_t n)
{
    void *p;

    if (n == 0 || r->bytes + n > CODE_REPLY_MAX_BYTES + sizeof(*r) || !(p = malloc(n)))
        return NULL;
    r->bytes += n;
    c->reply_bytes += n;
    return p;
}

static void code_apply_version(code_state *c, code_reply *r, const wire_code_version_info *in)
{
    code_reply_version *v;

    if (in->index != r->version_count || r->version_count >= WIRE_CODE_MAX_VERSIONS) {
        r->broken = 1;
        c->pieces_dropped++;
        return;
    }
    v = &r->versions[r->version_count++];
    memset(v, 0, sizeof(*v));
    v->info = *in;
    if ((in->code_sent && !(v->code = code_reply_alloc(c, r, in->code_sent))) ||
        (in->map_sent &&
         !(v->map = code_reply_alloc(c, r, (size_t)in->map_sent * sizeof(*v->map)))) ||
        (in->ref_count &&
         !(v->refs = code_reply_alloc(c, r, (size_t)in->ref_count * sizeof(*v->refs))))) {
        v->info.code_sent = v->code ? v->info.code_sent : 0;
        v->info.map_sent = v->map ? v->info.map_sent : 0;
        v->info.ref_count = v->refs ? v->info.ref_count : 0;
        r->broken = 1;
    }
}

/* Appends one piece in order: 0, or -1 when it is not the next one or does not fit. */
static int code_take(void *buf, uint32_t *have, uint32_t cap, uint32_t entry, uint32_t offset,
                     const uint8_t *data, uint32_t length)
{
    uint32_t n = length / entry;

    if (!buf || offset / entry != *have || n > cap - *have)
        return -1;
    memcpy((uint8_t *)buf + (size_t)*have * entry, data, length);
    *have += n;
    return 0;
}

/* Makes the IL buffer hold at least `need` bytes (at most WIRE_CODE_MAX_IL): it doubles, so an
 * agent sending its IL in many small parts costs linear time, not a copy of all so far per part. */
static int code_il_room(code_state *c, code_reply *r, uint32_t need)
{
    uint32_t cap = r->il_cap ? r->il_cap : 1024;
    uint8_t *grown;

    if (need <= r->il_cap)
        return 0;
    while (cap < need)
        cap *= 2;
    if (cap > WIRE_CODE_MAX_IL)
        cap = WIRE_CODE_MAX_IL;
    if (!(grown = code_reply_alloc(c, r, cap)))
        return -1;
    if (r->il_have)
        memcpy(grown, r->il, r->il_have);
    if (r->il) {
        r->bytes -= r->il_cap;
        c->reply_bytes -= r->il_cap;
    }
    free(r->il);
    r->il = grown;
    r->il_cap = cap;
    return 0;
}

static void code_apply_part(code_state *c, code_reply *r, const wire_record *rec)
{
    const wire_code_part *p = &rec->u.code_part;
    code_reply_version *v = p->index < r->version_count ? &r->versions[p->index] : NULL;
    int rc = -1;

    switch (p->kind) {
    case WIRE_CODE_PART_CODE:
        if (v)
            rc = code_take(v->code, &v->code_have, v->info.code_sent, 1, p->offset, rec->data,
                           rec->data_length);
        break;
    case WIRE_CODE_PART_MAP:
        if (v)
            rc = code_take(v->map, &v->map_have, v->info.map_sent, sizeof(*v->map), p->offset,
                           rec->data, rec->data_length);
        break;
    case WIRE_CODE_PART_REFS:
        if (v)
            rc = code_take(v->refs, &v->ref_have, v->info.ref_count, sizeof(*v->refs), p->offset,
                           rec->data, rec->data_length);
        break;
    default: /* WIRE_CODE_PART_IL */
        if (p->offset == r->il_have && r->il_have + rec->data_length <= WIRE_CODE_MAX_IL &&
            code_il_room(c, r, r->il_have + rec->data_length) == 0) {
            memcpy(r->il + r->il_have, rec->data, rec->data_length);
            r->il_have += rec->data_length;
            rc = 0;
        }
        break;
    }
    if (rc != 0) {
        r->broken = 1;
        c->pieces_dropped++;
    }
}

/* A reply whose END came: is every piece there that the agent announced? */
static int code_reply_whole(const code_reply *r)
{
    unsigned i;

    if (r->broken || r->version_count != r->end.versions_sent || r->il_have != r->end.il_sent)
        return 0;
    for (i = 0; i < r->version_count; i++) {
        const code_reply_version *v = &r->versions[i];
        if (v->code_have != v->info.code_sent || v->map_have != v->info.map_sent ||
            v->ref_have != v->info.ref_count)
            return 0;
    }
    return 1;
}

void code_apply_reply_version(code_state *c, const wire_code_version_info *v, int64_t now_ns)
{
    code_reply *reply = code_reply_pending(c, v->request_id, 1, now_ns);

    if (reply)
        code_apply_version(c, reply, v);
}

void code_apply_reply_part(code_state *c, const wire_record *r, int64_t now_ns)
{
    code_reply *reply = code_reply_pending(c, r->u.code_part.request_id, 0, now_ns);

    if (reply)
        code_apply_part(c, reply, r);
    else
        c->pieces_dropped++; /* for a reply never begun, or already closed */
}

void code_apply_reply_end(code_state *c, const wire_code_end *end, uint32_t function,
                          int64_t now_ns)
{
    code_reply *reply;
    unsigned i;

    if (!(reply = code_reply_pending(c, end->request_id, 1, now_ns)))
        return;
    reply->end = *end;
    reply->function_id = end->function_id;
    reply->function = function;
    reply->time_ns = now_ns;
    reply->complete = 1;
    reply->broken = !code_reply_whole(reply);
    c->agent_refused = end->refused;
    if (reply->end.status != WIRE_CODE_OK)
        c->replies_refused++;
    else if (reply->broken)
        c->replies_broken++;
    else
        c->replies_done++;
    /* the oldest complete replies go while there are too many or they hold too much */
    for (;;) {
        unsigned complete = 0, oldest = c->reply_count;
        for (i = 0; i < c->reply_count; i++)
            if (c->replies[i]->complete && c->replies[i] != reply) {
                complete++;
                if (oldest == c->reply_count || c->replies[i]->age < c->replies[oldest]->age)
                    oldest = i;
            }
        if (oldest == c->reply_count ||
            (complete < CODE_KEEP_REPLIES && c->reply_bytes <= CODE_KEEP_BYTES))
            break;
        c->replies_evicted++;
        code_reply_drop(c, oldest);
    }
}

const code_reply *code_reply_find(const code_state *c, uint64_t request_id, uint32_t function)
{
    const code_reply *best = NULL;
    unsigned i;

    for (i = 0; i < c->reply_count; i++) {
        const code_reply *r = c->replies[i];
        if (!r->complete)
            continue;
        if (request_id ? r->request_id != request_id
                       : (function == CODE_NONE || r->function != function ||
                          r->end.status != WIRE_CODE_OK))
            continue;
        if (!best || r->age > best->age)
            best = r;
    }
    return best;
}

size_t code_memory(const code_state *c)
{
    return c->seen_cap * sizeof(*c->seen) + c->seen_head_cap * sizeof(uint32_t) +
           c->inline_cap * sizeof(*c->inlines) +
           (c->root_head_cap + c->callee_head_cap) * sizeof(uint32_t) + c->r2r_cap + c->reply_bytes;
}

/* ---- snapshot ---- */

enum { CODE_SNAP_SEEN = 1, CODE_SNAP_INLINES = 2, CODE_SNAP_R2R = 3, CODE_SNAP_COUNTERS = 4 };

typedef struct code_snap_header {
    uint32_t kind, count; /* entries that follow */
    uint64_t first;       /* CODE_SNAP_R2R: the function position of the first byte */
} code_snap_header;

typedef struct code_snap_seen {
    uint64_t start;
    uint32_t function, size, ordinal, reserved;
} code_snap_seen;
_Static_assert(sizeof(code_snap_seen) == 24, "code_snap_seen layout");

typedef struct code_snap_inline {
    uint32_t root, callee, caller;
    uint16_t ordinal, flags;
} code_snap_inline;
_Static_assert(sizeof(code_snap_inline) == 16, "code_snap_inline layout");

#define CODE_SNAP_COUNTER_COUNT 11u

static uint8_t code_snap_buf[WIRE_MAX_PAYLOAD];

static void code_snap_fill_seen(const code_state *c, size_t i, uint8_t *out)
{
    const code_seen *e = &c->seen[i];
    code_snap_seen o = {e->start, e->function, e->size, e->ordinal, 0};

    memcpy(out, &o, sizeof(o));
}

static void code_snap_fill_inline(const code_state *c, size_t i, uint8_t *out)
{
    const code_inline *e = &c->inlines[i];
    code_snap_inline o = {e->root, e->callee, e->caller, e->ordinal, e->flags};

    memcpy(out, &o, sizeof(o));
}

/* Puts count entries of `size` bytes each (fill writes entry i at out) in
 * pieces of `kind`, as many a piece as one payload holds. */
static int code_snap_put_entries(const code_state *c, uint32_t kind, size_t count, size_t size,
                                 void (*fill)(const code_state *c, size_t i, uint8_t *out),
                                 int (*put)(void *ctx, const void *payload, uint32_t length),
                                 void *ctx)
{
    const size_t room = (WIRE_MAX_PAYLOAD - sizeof(code_snap_header)) / size;
    size_t i, k, n;

    for (i = 0; i < count; i += n) {
        code_snap_header h;
        n = count - i < room ? count - i : room;
        h = (code_snap_header){kind, (uint32_t)n, 0};
        memcpy(code_snap_buf, &h, sizeof(h));
        for (k = 0; k < n; k++)
            fill(c, i + k, code_snap_buf + sizeof(h) + k * size);
        if (put(ctx, code_snap_buf, (uint32_t)(sizeof(h) + n * size)) != 0)
            return -1;
    }
    return 0;
}

int code_snapshot_encode(const code_state *c, size_t function_count,
                         int (*put)(void *ctx, const void *payload, uint32_t length), void *ctx)
{
    const size_t room = WIRE_MAX_PAYLOAD - sizeof(code_snap_header);
    code_snap_header h;
    size_t i, n;
    uint64_t counters[CODE_SNAP_COUNTER_COUNT] = {
        c->seen_dropped,          c->inlines_dropped, c->inline_records, c->r2r_found,
        c->r2r_rejected_searches, c->r2r_searches,    c->replies_done,   c->replies_refused,
        c->replies_broken,        c->pieces_dropped,  c->agent_refused};

    if (code_snap_put_entries(c, CODE_SNAP_SEEN, c->seen_count, sizeof(code_snap_seen),
                              code_snap_fill_seen, put, ctx) != 0 ||
        code_snap_put_entries(c, CODE_SNAP_INLINES, c->inline_count, sizeof(code_snap_inline),
                              code_snap_fill_inline, put, ctx) != 0)
        return -1;
    for (i = 0; i < c->r2r_cap && i < function_count; i += n) {
        size_t end = c->r2r_cap < function_count ? c->r2r_cap : function_count;
        n = end - i < room ? end - i : room;
        h = (code_snap_header){CODE_SNAP_R2R, (uint32_t)n, i};
        memcpy(code_snap_buf, &h, sizeof(h));
        memcpy(code_snap_buf + sizeof(h), c->r2r + i, n);
        if (put(ctx, code_snap_buf, (uint32_t)(sizeof(h) + n)) != 0)
            return -1;
    }
    h = (code_snap_header){CODE_SNAP_COUNTERS, CODE_SNAP_COUNTER_COUNT, 0};
    memcpy(code_snap_buf, &h, sizeof(h));
    memcpy(code_snap_buf + sizeof(h), counters, sizeof(counters));
    return put(ctx, code_snap_buf, (uint32_t)(sizeof(h) + sizeof(counters)));
}

int code_snapshot_restore(code_state *c, size_t function_count, const uint8_t *payload,
                          uint32_t length)
{
    code_snap_header h;
    const uint8_t *at = payload + sizeof(h);
    size_t entry, k;

    if (length < sizeof(h))
        return -1;
    memcpy(&h, payload, sizeof(h));
    switch (h.kind) {
    case CODE_SNAP_SEEN: entry = sizeof(code_snap_seen); break;
    case CODE_SNAP_INLINES: entry = sizeof(code_snap_inline); break;
    case CODE_SNAP_R2R: entry = 1; break;
    case CODE_SNAP_COUNTERS: entry = sizeof(uint64_t); break;
    default: return -1;
    }
    if ((length - sizeof(h)) / entry != h.count || (length - sizeof(h)) % entry != 0)
        return -1;
    for (k = 0; k < h.count; k++, at += entry) {
        if (h.kind == CODE_SNAP_SEEN) {
            code_snap_seen o;
            memcpy(&o, at, sizeof(o));
            if (o.function >= function_count || o.ordinal > CODE_NO_ORDINAL ||
                code_seen_append(c, o.function, o.start, o.size, (uint16_t)o.ordinal) != 0)
                return -1;
        } else if (h.kind == CODE_SNAP_INLINES) {
            code_snap_inline o;
            code_inline in;
            memcpy(&o, at, sizeof(o));
            if (o.root >= function_count || o.callee >= function_count ||
                (o.caller >= function_count && o.caller != CODE_NONE))
                return -1;
            in = (code_inline){o.root, o.callee, o.caller, 0, 0, o.ordinal, o.flags};
            if (code_inline_append(c, &in) != 0)
                return -1;
        } else if (h.kind == CODE_SNAP_R2R) {
            uint64_t function = h.first + k;
            if (function >= function_count ||
                code_reach((void **)&c->r2r, &c->r2r_cap, (uint32_t)function, 1) != 0)
                return -1;
            c->r2r[function] = *at & (CODE_R2R_HAS | CODE_R2R_USED);
        }
    }
    if (h.kind == CODE_SNAP_COUNTERS) {
        uint64_t v[CODE_SNAP_COUNTER_COUNT];
        if (h.count != CODE_SNAP_COUNTER_COUNT)
            return -1;
        memcpy(v, payload + sizeof(h), sizeof(v));
        c->seen_dropped = v[0], c->inlines_dropped = v[1], c->inline_records = v[2];
        c->r2r_found = v[3], c->r2r_rejected_searches = v[4], c->r2r_searches = v[5];
        c->replies_done = v[6], c->replies_refused = v[7], c->replies_broken = v[8];
        c->pieces_dropped = v[9], c->agent_refused = v[10];
    }
    return 0;
}
