/* excsites.c -- a session's exceptions folded per throw site (see excsites.h). */
#include "excsites.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

static uint64_t exc_hash(uint64_t function_id, uint64_t where, const char *type, size_t type_len)
{
    uint64_t h = 1469598103934665603ull ^ function_id * 0x9e3779b97f4a7c15ull ^ where;
    size_t i;

    for (i = 0; i < type_len; i++)
        h = (h ^ (unsigned char)type[i]) * 1099511628211ull;
    return h ^ h >> 29;
}

/* A site's key as a record gives it (EXCEPTION or EXCEPTION_COUNTS). */
typedef struct exc_key {
    uint64_t function_id, ip;
    uint32_t il_offset;
    const wire_string *type, *message; /* message: NULL for counts */
} exc_key;

/* What tells a site apart: the method and IL offset, or the address when the
 * method is unknown (its IL offset then is too). */
static uint64_t exc_where(const exc_key *k) { return k->function_id ? k->il_offset : k->ip; }

static int exc_same(const exc_site *s, const exc_key *k)
{
    return s->function_id == k->function_id &&
           (k->function_id ? s->il_offset == k->il_offset : s->ip == k->ip) &&
           strlen(s->type) == k->type->length &&
           memcmp(s->type, k->type->text, k->type->length) == 0;
}

static int exc_index_grow(exc_state *x)
{
    uint32_t cap = x->index_cap ? x->index_cap * 2 : 64, i;
    uint32_t *index = calloc(cap, sizeof(*index));

    if (!index)
        return -1;
    for (i = 0; i < x->count; i++) {
        const exc_site *s = &x->sites[i];
        uint64_t h = exc_hash(s->function_id, s->function_id ? s->il_offset : s->ip, s->type,
                              strlen(s->type));
        uint32_t slot = (uint32_t)h & (cap - 1);
        while (index[slot])
            slot = (slot + 1) & (cap - 1);
        index[slot] = i + 1;
    }
    x->bytes += (size_t)(cap - x->index_cap) * sizeof(*index);
    free(x->index);
    x->index = index;
    x->index_cap = cap;
    return 0;
}

static char *exc_text(const wire_string *s)
{
    char *t = malloc((size_t)s->length + 1);

    if (t) {
        memcpy(t, s->text, s->length);
        t[s->length] = '\0';
    }
    return t;
}

/* The site of key k, made when new; -1 when out of memory or past EXC_SITES_MAX. */
static int64_t exc_site_of(exc_state *x, const exc_key *k)
{
    static const wire_string none = {"", 0};
    const wire_string *message = k->message ? k->message : &none;
    uint64_t h = exc_hash(k->function_id, exc_where(k), k->type->text, k->type->length);
    uint32_t slot;
    exc_site *s;

    if (x->index_cap) {
        for (slot = (uint32_t)h & (x->index_cap - 1); x->index[slot];
             slot = (slot + 1) & (x->index_cap - 1))
            if (exc_same(&x->sites[x->index[slot] - 1], k)) {
                s = &x->sites[x->index[slot] - 1];
                if (!s->message[0] && message->length) { /* counted before its first record */
                    char *m = exc_text(message);
                    if (!m)
                        return -1;
                    free(s->message);
                    s->message = m;
                    x->bytes += message->length;
                }
                return x->index[slot] - 1;
            }
    }
    if (x->count >= EXC_SITES_MAX)
        return -1;
    if ((x->count + 1) * 2 > x->index_cap && exc_index_grow(x) != 0)
        return -1;
    if (x->count == x->cap) {
        size_t cap = x->cap;
        if (grow_reserve((void **)&x->sites, &cap, x->count, sizeof(*x->sites), 16, EXC_SITES_MAX,
                         GROW_KEEP) != 0)
            return -1;
        x->bytes += (cap - x->cap) * sizeof(*x->sites);
        x->cap = (uint32_t)cap;
    }
    s = &x->sites[x->count];
    memset(s, 0, sizeof(*s));
    s->number = x->count + 1;
    s->function_id = k->function_id;
    s->ip = k->ip;
    s->il_offset = k->il_offset;
    s->type = exc_text(k->type);
    s->message = exc_text(message);
    if (!s->type || !s->message) {
        free(s->type), free(s->message);
        return -1;
    }
    x->bytes += k->type->length + message->length + 2u;
    for (slot = (uint32_t)h & (x->index_cap - 1); x->index[slot];
         slot = (slot + 1) & (x->index_cap - 1))
        ;
    x->index[slot] = x->count + 1;
    return x->count++;
}

static void exc_series_add(exc_site *s, int64_t when_ns, uint32_t n)
{
    int64_t sec = when_ns / 1000000000;
    int64_t shift = sec - s->series_end;

    if (s->count == n || shift >= (int64_t)EXC_SERIES) {
        memset(s->series, 0, sizeof(s->series));
        s->series_end = sec;
    } else if (shift > 0) {
        memmove(s->series, s->series + shift, (EXC_SERIES - (size_t)shift) * sizeof(s->series[0]));
        memset(s->series + EXC_SERIES - shift, 0, (size_t)shift * sizeof(s->series[0]));
        s->series_end = sec;
    } else if (shift <= -(int64_t)EXC_SERIES) {
        return; /* older than the series: in the count only */
    }
    s->series[EXC_SERIES - 1 - (s->series_end - sec)] += n;
}

/* The recent entry at position pos of site, NULL once it was overwritten. */
static exc_recent *exc_recent_at(exc_site *s, uint64_t pos)
{
    if (pos >= s->recent_total || s->recent_total - pos > EXC_RECENT)
        return NULL;
    return &s->recent[pos % EXC_RECENT];
}

static void exc_recent_free(exc_state *x, exc_recent *e)
{
    if (e->message)
        x->bytes -= strlen(e->message) + 1;
    x->bytes -= (size_t)e->frame_count * sizeof(wire_stack_frame);
    free(e->frames);
    free(e->message);
    memset(e, 0, sizeof(*e));
}

static void exc_recent_add(exc_state *x, exc_site *s, const wire_record *r, int64_t when_ns)
{
    exc_recent *e = &s->recent[s->recent_total % EXC_RECENT];
    uint32_t n = r->u.exception.frame_count, i;

    exc_recent_free(x, e);
    e->time_ns = when_ns;
    e->thread_id = r->u.exception.thread_id;
    e->hresult = r->u.exception.hresult;
    e->runtime_flags = r->u.exception.runtime_flags;
    e->outcome = EXC_OPEN;
    if ((e->message = exc_text(&r->strings[1])) != NULL)
        x->bytes += r->strings[1].length + 1u;
    if (n && (e->frames = malloc((size_t)n * sizeof(*e->frames))) != NULL) {
        for (i = 0; i < n; i++)
            e->frames[i] = wire_record_frame(r, i);
        e->frame_count = n;
        x->bytes += (size_t)n * sizeof(*e->frames);
    }
    s->recent_total++;
}

static exc_open *exc_open_of(exc_state *x, uint64_t thread_id)
{
    uint32_t i;

    for (i = 0; i < x->open_count; i++)
        if (x->open[i].thread_id == thread_id)
            return &x->open[i];
    return NULL;
}

static void exc_catcher_add(exc_site *s, uint64_t catcher, uint64_t n)
{
    uint32_t i;

    if (catcher == WIRE_EXC_CATCHER_OTHER) {
        s->catchers_other += n;
        return;
    }
    for (i = 0; i < s->catcher_count && s->catchers[i].function_id != catcher; i++)
        ;
    if (i < s->catcher_count)
        s->catchers[i].count += n;
    else if (s->catcher_count < EXC_CATCHERS)
        s->catchers[s->catcher_count++] = (exc_catcher){catcher, n};
    else
        s->catchers_other += n;
}

/* The thread's exception caught (again: a rethrown one's further catch) or
 * replaced (its slot then freed). */
static void exc_open_end(exc_state *x, exc_open *o, uint32_t outcome, uint64_t catcher)
{
    exc_site *s = &x->sites[o->site];
    exc_recent *e = exc_recent_at(s, o->recent);

    if (!o->caught)
        s->open--;
    if (outcome == EXC_CAUGHT) {
        if (!o->counted)
            s->caught++;
        o->caught = o->counted = 1;
        exc_catcher_add(s, catcher, 1);
    } else if (!o->caught) {
        s->replaced++;
    }
    if (e && (outcome == EXC_CAUGHT || !o->caught)) {
        e->outcome = outcome;
        e->caught_by = catcher;
    }
    if (outcome != EXC_CAUGHT)
        *o = x->open[--x->open_count];
}

int exc_thrown(exc_state *x, eventlog *log, const wire_record *r, int64_t when_ns)
{
    exc_key key;
    int64_t at;
    exc_open *o;
    exc_site *s;

    if ((r->u.exception.runtime_flags & WIRE_EXCEPTION_RETHROWN) &&
        (o = exc_open_of(x, r->u.exception.thread_id)) != NULL) {
        if (o->caught) { /* the same exception on its way again */
            o->caught = 0;
            x->sites[o->site].open++;
        }
        return 0;
    }
    x->total++;
    key = (exc_key){r->u.exception.function_id, r->u.exception.ip, r->u.exception.il_offset,
                    &r->strings[0], &r->strings[1]};
    if ((at = exc_site_of(x, &key)) < 0) {
        x->sites_dropped++;
        return x->count >= EXC_SITES_MAX ? 0 : -1;
    }
    s = &x->sites[at];
    if ((o = exc_open_of(x, r->u.exception.thread_id)) != NULL)
        exc_open_end(x, o, EXC_REPLACED, 0); /* thrown while the older one unwound */
    if (!s->count++)
        s->first_ns = when_ns;
    if (when_ns > s->last_ns)
        s->last_ns = when_ns;
    exc_series_add(s, when_ns, 1);
    exc_recent_add(x, s, r, when_ns);
    if (x->open_count == EXC_THREADS_MAX) {
        if (!x->open[0].caught) {
            x->open_forgotten++;
            x->sites[x->open[0].site].open--;
        }
        x->open[0] = x->open[--x->open_count];
    }
    x->open[x->open_count++] = (exc_open){r->u.exception.thread_id, (uint32_t)at, 0, 0,
                                          s->recent_total - 1};
    s->open++;
    eventlog_append(log, WIRE_EXCEPTION, r->flags, when_ns, s->number, r->u.exception.function_id,
                    (uint32_t)s->count);
    return 0;
}

int exc_counts(exc_state *x, eventlog *log, const wire_record *r, int64_t when_ns)
{
    const wire_exception_counts *c = &r->u.exception_counts;
    exc_key key = {c->function_id, c->ip, c->il_offset, &r->strings[0], NULL};
    int64_t at;
    exc_site *s;

    x->total += c->thrown;
    if ((at = exc_site_of(x, &key)) < 0) {
        x->sites_dropped += c->thrown;
        return x->count >= EXC_SITES_MAX ? 0 : -1;
    }
    s = &x->sites[at];
    if (c->thrown) {
        if (!s->count)
            s->first_ns = when_ns;
        s->count += c->thrown;
        if (when_ns > s->last_ns)
            s->last_ns = when_ns;
        exc_series_add(s, when_ns, c->thrown);
    }
    s->caught += c->caught;
    s->replaced += c->replaced;
    s->open += (uint64_t)(int64_t)c->open; /* modulo 2^64: the sum of the deltas is >= 0 */
    if (c->catches)
        exc_catcher_add(s, c->catcher_id, c->catches);
    if (c->thrown)
        eventlog_append(log, WIRE_EXCEPTION, r->flags, when_ns, s->number, c->function_id,
                        (uint32_t)s->count); /* an `exception` event: the site's count now */
    return 0;
}

void exc_caught(exc_state *x, const wire_record *r)
{
    exc_open *o = exc_open_of(x, r->u.exception_caught.thread_id);

    if (!o) {
        x->catches_unpaired++; /* its throw came before an attach, or was dropped */
        return;
    }
    exc_open_end(x, o, EXC_CAUGHT, r->u.exception_caught.function_id);
}

const exc_site *exc_site_at(const exc_state *x, uint64_t number)
{
    return number >= 1 && number <= x->count ? &x->sites[number - 1] : NULL;
}

double exc_site_rate(const exc_site *site, int64_t now_s)
{
    uint64_t n = 0;
    int64_t sec;

    for (sec = now_s - (int64_t)EXC_RATE_SECONDS + 1; sec <= now_s; sec++) {
        int64_t back = site->series_end - sec;
        if (back >= 0 && back < (int64_t)EXC_SERIES)
            n += site->series[EXC_SERIES - 1 - back];
    }
    return (double)n / EXC_RATE_SECONDS;
}

uint64_t exc_counts_need(const exc_state *x, const wire_record *r)
{
    /* a new site at most */
    return sizeof(exc_site) * (x->cap ? x->cap : 1) + (uint64_t)(x->index_cap + 64) * 8u +
           r->strings[0].length + 2u;
}

uint64_t exc_need(const exc_state *x, const wire_record *r)
{
    uint64_t n = (uint64_t)r->u.exception.frame_count * sizeof(wire_stack_frame) +
                 r->strings[1].length + 1u;

    /* a new site (its strings, a doubling of the sites and their index) */
    n += sizeof(exc_site) * (x->cap ? x->cap : 1) + (uint64_t)(x->index_cap + 64) * 8u +
         r->strings[0].length + r->strings[1].length + 2u;
    return n;
}

void exc_free(exc_state *x)
{
    uint32_t i, k;

    for (i = 0; i < x->count; i++) {
        for (k = 0; k < EXC_RECENT; k++)
            exc_recent_free(x, &x->sites[i].recent[k]);
        free(x->sites[i].type);
        free(x->sites[i].message);
    }
    free(x->sites);
    free(x->index);
    memset(x, 0, sizeof(*x));
}
