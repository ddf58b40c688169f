/* exccount.c -- exceptions counted per throw site (see exccount.h). */
#include "exccount.h"

#include <stdatomic.h>
#include <string.h>

#include "agent.h"
#include "clock.h"
#include "conn.h"
#include "naming.h"
#include "utf.h"
#include "wire.h"

#define EXCCOUNT_PROBE 16u   /* slots looked at for a site before it is sent instead */
#define EXCCOUNT_CATCHERS 8u /* catching methods kept per site (the server keeps 8) */
#define EXCCOUNT_BUSY 1u     /* a key or catcher being written */
#define EXCCOUNT_SAMPLE_NS 1000000000ull
#define EXCCOUNT_TYPE_UNITS 256u /* a type name's UTF-16 units kept as its key (longer: sent) */

typedef struct exccount_catcher {
    _Atomic uint64_t function_id; /* 0 free, EXCCOUNT_BUSY while claimed */
    _Atomic uint64_t count;
    uint64_t gen;  /* agent.unload_gen when claimed (its naming) */
    uint64_t sent; /* the sender's: count sent */
    int named;     /* the sender's */
} exccount_catcher;

typedef struct exccount_site {
    _Atomic uint64_t key; /* 0 free, EXCCOUNT_BUSY while filled, else its hash (>= 2) */
    uint64_t ip, function_id, gen;
    uint32_t il_offset, type_len, type_units;
    _Atomic uint32_t sampled;
    _Atomic uint64_t last_sample_ns;
    /* open ones: thrown - caught - replaced + reopened - reclosed (a rethrow
     * the runtime reports reopens a caught one, its next catch closes it) */
    _Atomic uint64_t thrown, caught, replaced, reopened, reclosed, other;
    exccount_catcher catchers[EXCCOUNT_CATCHERS];
    /* the sender's own: what went out */
    uint64_t sent_thrown, sent_caught, sent_replaced, sent_other;
    int64_t sent_open;
    int named;
    uint8_t type16[EXCCOUNT_TYPE_UNITS * 2]; /* the key: as the event gives it */
    char type[WIRE_EXCEPTION_TYPE_MAX];      /* as records carry it */
} exccount_site;

static exccount_site exccount_table[EXCCOUNT_SITES];
/* The sites in the order they were claimed (index + 1; 0 while being written). */
static _Atomic uint32_t exccount_order[EXCCOUNT_SITES];
static _Atomic uint32_t exccount_used;

/* The calling thread's newest exception, as the server keeps it. */
static _Thread_local struct {
    exccount_site *site; /* its site when counted */
    uint8_t valid;       /* 0: none yet */
    uint8_t sent;        /* 1: it went out as a record (the server keeps it) */
    uint8_t caught;      /* 1 while a catch has closed it */
    uint8_t counted;     /* 1 once it counted in its site's caught */
} exccount_now;

/* The key's hash: the address, the name's UTF-16 bytes 8 at a time. */
static uint64_t exccount_hash(uint64_t ip, const uint8_t *type16, size_t bytes)
{
    uint64_t h = ip * 0x9e3779b97f4a7c15ull, w;
    size_t i;

    for (i = 0; i + 8 <= bytes; i += 8) {
        memcpy(&w, type16 + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (w = 0; i < bytes; i++)
        w = w << 8 | type16[i];
    h = (h ^ w ^ bytes) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return h < 2 ? h + 2 : h;
}

/* The site of (ip, type), claimed when new; NULL when its slots are taken or
 * being written, or the name is too long to be a key (the exception then
 * goes out as a record). */
static exccount_site *exccount_site_of(uint64_t ip, uint64_t function_id, uint32_t il_offset,
                                       const uint8_t *type16, size_t units)
{
    static _Thread_local exccount_site *last; /* the thread's last site: a storm's next */
    uint64_t h;
    uint32_t i;

    if (last && last->ip == ip && last->type_units == units &&
        memcmp(last->type16, type16, units * 2) == 0)
        return last;
    if (units > EXCCOUNT_TYPE_UNITS || units == 0)
        return NULL;
    h = exccount_hash(ip, type16, units * 2);
    for (i = 0; i < EXCCOUNT_PROBE; i++) {
        uint32_t at = (uint32_t)(h + i) & (EXCCOUNT_SITES - 1);
        exccount_site *s = &exccount_table[at];
        uint64_t key = atomic_load_explicit(&s->key, memory_order_acquire);
        if (key == 0 && atomic_compare_exchange_strong(&s->key, &key, EXCCOUNT_BUSY)) {
            int cut = 0;
            s->ip = ip;
            s->function_id = function_id;
            s->il_offset = il_offset;
            s->type_units = (uint32_t)units;
            memcpy(s->type16, type16, units * 2);
            s->type_len = (uint32_t)utf16le_to_utf8(type16, units, s->type, sizeof(s->type), &cut);
            s->gen = atomic_load(&agent.unload_gen);
            atomic_store_explicit(&s->key, h, memory_order_release);
            atomic_store_explicit(&exccount_order[atomic_fetch_add(&exccount_used, 1)], at + 1,
                                  memory_order_release);
            return last = s;
        }
        if (key == EXCCOUNT_BUSY)
            return NULL;
        if (key == h && s->ip == ip && s->type_units == units &&
            memcmp(s->type16, type16, units * 2) == 0)
            return last = s;
    }
    return NULL;
}

/* 1 when this exception of s carries its stack: the first few, then one a second. */
static int exccount_sample(exccount_site *s, uint64_t now)
{
    uint64_t last;

    /* the first few: counted out; past them, no write unless a second went by */
    if (atomic_load_explicit(&s->sampled, memory_order_relaxed) < WIRE_EXCEPTION_SAMPLED_FIRST &&
        atomic_fetch_add_explicit(&s->sampled, 1, memory_order_relaxed) <
            WIRE_EXCEPTION_SAMPLED_FIRST) {
        atomic_store_explicit(&s->last_sample_ns, now, memory_order_relaxed);
        return 1;
    }
    last = atomic_load_explicit(&s->last_sample_ns, memory_order_relaxed);
    return now - last >= EXCCOUNT_SAMPLE_NS &&
           atomic_compare_exchange_strong(&s->last_sample_ns, &last, now);
}

enum exccount_verdict exccount_thrown(uint64_t ip, uint64_t function_id, uint32_t il_offset,
                                      const uint8_t *type16, size_t units, int rethrown,
                                      uint64_t now)
{
    exccount_site *s;
    int force = 0;

    if (rethrown && exccount_now.valid) { /* the same exception on its way again */
        if (exccount_now.sent)
            return EXCCOUNT_SEND; /* the server opens it again */
        if (exccount_now.caught) {
            exccount_now.caught = 0;
            atomic_fetch_add_explicit(&exccount_now.site->reopened, 1, memory_order_relaxed);
        }
        return EXCCOUNT_COUNTED;
    }
    if (exccount_now.valid && !exccount_now.caught) { /* thrown while the older one unwound */
        if (exccount_now.sent) {
            force = 1; /* the server must see this one replace it */
        } else {
            atomic_fetch_add_explicit(&exccount_now.site->replaced, 1, memory_order_relaxed);
        }
    }
    exccount_now.valid = 1;
    exccount_now.caught = exccount_now.counted = 0;
    if (!(s = exccount_site_of(ip, function_id, il_offset, type16, units))) {
        exccount_now.sent = 1;
        return EXCCOUNT_SEND;
    }
    exccount_now.site = s;
    if (exccount_sample(s, now)) {
        exccount_now.sent = 1;
        return EXCCOUNT_SEND_STACK;
    }
    if (force) {
        exccount_now.sent = 1;
        return EXCCOUNT_SEND;
    }
    exccount_now.sent = 0;
    atomic_fetch_add_explicit(&s->thrown, 1, memory_order_relaxed);
    return EXCCOUNT_COUNTED;
}

static void exccount_catcher_add(exccount_site *s, uint64_t function_id)
{
    uint32_t i;

    for (i = 0; i < EXCCOUNT_CATCHERS && function_id > EXCCOUNT_BUSY; i++) {
        exccount_catcher *c = &s->catchers[i];
        uint64_t f = atomic_load_explicit(&c->function_id, memory_order_acquire);
        if (f == 0 && atomic_compare_exchange_strong(&c->function_id, &f, EXCCOUNT_BUSY)) {
            c->gen = atomic_load(&agent.unload_gen);
            atomic_store_explicit(&c->function_id, function_id, memory_order_release);
            f = function_id;
        }
        if (f == function_id) {
            atomic_fetch_add_explicit(&c->count, 1, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&s->other, 1, memory_order_relaxed);
}

int exccount_caught(uint64_t function_id)
{
    exccount_site *s = exccount_now.site;

    if (!exccount_now.valid || exccount_now.sent) {
        exccount_now.caught = exccount_now.counted = exccount_now.valid;
        return 1;
    }
    if (!exccount_now.counted)
        atomic_fetch_add_explicit(&s->caught, 1, memory_order_relaxed);
    else if (!exccount_now.caught) /* its catch after a reported rethrow */
        atomic_fetch_add_explicit(&s->reclosed, 1, memory_order_relaxed);
    exccount_now.caught = exccount_now.counted = 1;
    exccount_catcher_add(s, function_id);
    return 0;
}

static uint32_t exccount_delta(uint64_t now, uint64_t sent)
{
    return now - sent > UINT32_MAX ? UINT32_MAX : (uint32_t)(now - sent);
}

/* A FunctionID named before the first record that mentions it (unless an
 * unload began since it was seen: it may be gone, and goes out unnamed).
 * 0, or CONN_NO_ROOM. */
static int exccount_name(uint64_t function_id, uint64_t gen, int *named)
{
    if (*named || !function_id)
        return 0;
    naming_live_since(gen);
    if (naming_function(function_id, NAMING_ASK_DYNAMIC, 0, NAMING_LIVE) == CONN_NO_ROOM)
        return CONN_NO_ROOM;
    *named = 1;
    return 0;
}

/* One record of s (c filled by the caller); 0 sent or dropped (no server:
 * its throws counted as no-server drops), CONN_NO_ROOM kept for later. */
static int exccount_emit(exccount_site *s, const wire_exception_counts *c)
{
    int rc = conn_emit_or_keep(WIRE_EXCEPTION_COUNTS, 0, clock_mono_ns(), c, sizeof(*c), s->type,
                               s->type_len, NULL, 0);

    if (rc == CONN_NO_ROOM)
        return rc;
    if (rc != 0 && c->thrown)
        atomic_fetch_add_explicit(&agent.no_server_drops, c->thrown, memory_order_relaxed);
    return 0;
}

/* The changes of s out; 0, or CONN_NO_ROOM (the rest stays for the next pass). */
static int exccount_flush_site(exccount_site *s)
{
    wire_exception_counts c;
    uint64_t thrown, caught, replaced, reopened, reclosed, other;
    int64_t open;
    uint32_t i;
    int first = 1;

    /* what closes before what opens: a catch counted here had its throw counted first */
    reclosed = atomic_load_explicit(&s->reclosed, memory_order_acquire);
    reopened = atomic_load_explicit(&s->reopened, memory_order_acquire);
    caught = atomic_load_explicit(&s->caught, memory_order_acquire);
    replaced = atomic_load_explicit(&s->replaced, memory_order_acquire);
    other = atomic_load_explicit(&s->other, memory_order_acquire);
    thrown = atomic_load_explicit(&s->thrown, memory_order_acquire);
    open = (int64_t)(thrown - caught - replaced + reopened - reclosed);
    memset(&c, 0, sizeof(c));
    c.function_id = s->function_id;
    c.ip = s->ip;
    c.il_offset = s->il_offset;
    c.thrown = exccount_delta(thrown, s->sent_thrown);
    c.caught = exccount_delta(caught, s->sent_caught);
    c.replaced = exccount_delta(replaced, s->sent_replaced);
    c.open = (int32_t)(open - s->sent_open);
    if (exccount_name(s->function_id, s->gen, &s->named) != 0)
        return CONN_NO_ROOM;
    for (i = 0; i <= EXCCOUNT_CATCHERS; i++) {
        exccount_catcher *k = i < EXCCOUNT_CATCHERS ? &s->catchers[i] : NULL;
        uint64_t f = k ? atomic_load_explicit(&k->function_id, memory_order_acquire)
                       : WIRE_EXC_CATCHER_OTHER;
        uint64_t n = k ? atomic_load_explicit(&k->count, memory_order_relaxed) : other;
        uint64_t sent = k ? k->sent : s->sent_other;
        if (f <= EXCCOUNT_BUSY || n == sent)
            continue;
        if (k && exccount_name(f, k->gen, &k->named) != 0)
            return CONN_NO_ROOM;
        c.catcher_id = f;
        c.catches = exccount_delta(n, sent);
        if (exccount_emit(s, &c) != 0)
            return CONN_NO_ROOM;
        if (k)
            k->sent += c.catches;
        else
            s->sent_other += c.catches;
        if (first) {
            s->sent_thrown += c.thrown, s->sent_caught += c.caught;
            s->sent_replaced += c.replaced, s->sent_open += c.open;
            c.thrown = c.caught = c.replaced = 0, c.open = 0;
            first = 0;
        }
    }
    if (first && (c.thrown || c.caught || c.replaced || c.open)) {
        c.catcher_id = 0, c.catches = 0;
        if (exccount_emit(s, &c) != 0)
            return CONN_NO_ROOM;
        s->sent_thrown += c.thrown, s->sent_caught += c.caught;
        s->sent_replaced += c.replaced, s->sent_open += c.open;
    }
    return 0;
}

void exccount_flush(void)
{
    uint32_t used = atomic_load_explicit(&exccount_used, memory_order_acquire), i;

    if (used > EXCCOUNT_SITES)
        used = EXCCOUNT_SITES;
    for (i = 0; i < used && conn_connected(); i++) {
        uint32_t at = atomic_load_explicit(&exccount_order[i], memory_order_acquire);
        exccount_site *s = at ? &exccount_table[at - 1] : NULL;
        if (s && atomic_load_explicit(&s->key, memory_order_acquire) > EXCCOUNT_BUSY &&
            exccount_flush_site(s) != 0)
            return;
    }
}
