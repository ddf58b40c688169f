/* pprof.c -- a profile view as a gzip-compressed profile.proto (see pprof.h). */
#include "pprof.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hashslots.h"
#include "idmap.h"
#include "profile.pb-c.h"
#include "wire.h"

typedef Perftools__Profiles__Profile pprof_profile;
typedef Perftools__Profiles__Sample pprof_sample;
typedef Perftools__Profiles__Location pprof_location;
typedef Perftools__Profiles__Line pprof_line;
typedef Perftools__Profiles__Function pprof_function;
typedef Perftools__Profiles__Mapping pprof_mapping;
typedef Perftools__Profiles__Label pprof_label;
typedef Perftools__Profiles__ValueType pprof_value_type;

/* ---- the string table --------------------------------------------------------- */

typedef struct pprof_strings {
    char **items; /* not owned: the view's names, or literals */
    size_t count, cap;
    hashslots index;
} pprof_strings;

static uint64_t pprof_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static uint64_t pprof_hash_of(const void *items, size_t i)
{
    return pprof_hash(((char *const *)items)[i]);
}

static int pprof_is(const void *items, size_t i, const void *key)
{
    return strcmp(((char *const *)items)[i], key) == 0;
}

/* The index of s in the table, added when new; -1 when out of memory. */
static int64_t pprof_string(pprof_strings *t, const char *s)
{
    uint64_t h = pprof_hash(s);
    size_t i = hashslots_find(&t->index, h, pprof_is, t->items, s);

    if (i != HASHSLOTS_NONE)
        return (int64_t)i;
    if (hashslots_reserve(&t->index, t->count, 256, pprof_hash_of, t->items) != 0)
        return -1;
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        char **grown = realloc(t->items, cap * sizeof(*grown));
        if (!grown)
            return -1;
        t->items = grown;
        t->cap = cap;
    }
    t->items[t->count] = (char *)s;
    hashslots_put(&t->index, h, t->count);
    return (int64_t)t->count++;
}

/* ---- building the message ------------------------------------------------------ */

typedef struct pprof_build {
    const profile_view *v;
    const pprof_options *o;
    pprof_strings strings;
    pprof_function *functions;
    pprof_function **function_ptrs;
    pprof_location *locations;
    pprof_location **location_ptrs;
    pprof_line *lines;
    pprof_line **line_ptrs;
    pprof_mapping *mappings;
    pprof_mapping **mapping_ptrs;
    size_t mapping_count;
    pprof_sample *samples;
    pprof_sample **sample_ptrs;
    size_t sample_count;
    uint64_t *location_ids; /* every sample's, one array */
    int64_t *values;        /* every sample's, one array */
    pprof_label *labels;    /* two per thread */
    pprof_label **label_ptrs;
    pprof_value_type types[2], period;
    pprof_value_type *type_ptrs[2];
    int64_t comment;
} pprof_build;

static void pprof_build_free(pprof_build *b)
{
    free(b->strings.items);
    hashslots_free(&b->strings.index);
    free(b->functions);
    free(b->function_ptrs);
    free(b->locations);
    free(b->location_ptrs);
    free(b->lines);
    free(b->line_ptrs);
    free(b->mappings);
    free(b->mapping_ptrs);
    free(b->samples);
    free(b->sample_ptrs);
    free(b->location_ids);
    free(b->values);
    free(b->labels);
    free(b->label_ptrs);
}

/* Functions, lines and locations: one each per symbol of the view; a mapping
 * per module. */
static int pprof_build_functions(pprof_build *b)
{
    const profile_view *v = b->v;
    size_t n = v->syms.count, i, k;
    int64_t empty = pprof_string(&b->strings, "");

    b->functions = calloc(n + 1, sizeof(*b->functions));
    b->function_ptrs = calloc(n + 1, sizeof(*b->function_ptrs));
    b->locations = calloc(n + 1, sizeof(*b->locations));
    b->location_ptrs = calloc(n + 1, sizeof(*b->location_ptrs));
    b->lines = calloc(n + 1, sizeof(*b->lines));
    b->line_ptrs = calloc(n + 1, sizeof(*b->line_ptrs));
    b->mappings = calloc(n + 1, sizeof(*b->mappings));
    b->mapping_ptrs = calloc(n + 1, sizeof(*b->mapping_ptrs));
    if (empty != 0 || !b->functions || !b->function_ptrs || !b->locations || !b->location_ptrs ||
        !b->lines || !b->line_ptrs || !b->mappings || !b->mapping_ptrs)
        return -1;
    for (i = 0; i < n; i++) {
        const symbol *sym = &v->syms.items[i];
        int64_t name = pprof_string(&b->strings, sym->name), file = 0;
        uint64_t mapping = 0;

        if (name < 0)
            return -1;
        if (sym->module) {
            if ((file = pprof_string(&b->strings, sym->module)) < 0)
                return -1;
            for (k = 0; k < b->mapping_count && b->mappings[k].filename != file; k++)
                ;
            if (k == b->mapping_count) {
                pprof_mapping *m = &b->mappings[b->mapping_count++];
                perftools__profiles__mapping__init(m);
                m->id = k + 1;
                m->filename = file;
                m->has_functions = 1;
                b->mapping_ptrs[k] = m;
            }
            mapping = k + 1;
        }
        perftools__profiles__function__init(&b->functions[i]);
        b->functions[i].id = i + 1;
        b->functions[i].name = b->functions[i].system_name = name;
        /* the source file when the method's PDB named it, else the module */
        if (sym->file && (file = pprof_string(&b->strings, sym->file)) < 0)
            return -1;
        b->functions[i].filename = file;
        b->functions[i].start_line = sym->split ? 0 : sym->line;
        b->function_ptrs[i] = &b->functions[i];
        perftools__profiles__line__init(&b->lines[i]);
        /* a frame split by line is a line of its method's function */
        b->lines[i].function_id = (sym->split && sym->base < n ? sym->base : i) + 1;
        b->lines[i].line = sym->split ? sym->line : 0;
        b->line_ptrs[i] = &b->lines[i];
        perftools__profiles__location__init(&b->locations[i]);
        b->locations[i].id = i + 1;
        b->locations[i].mapping_id = mapping;
        b->locations[i].n_line = 1;
        b->locations[i].line = &b->line_ptrs[i];
        b->location_ptrs[i] = &b->locations[i];
    }
    return 0;
}

/* Labels: the thread's name (when it has one) and its OS id, two per thread. */
static int pprof_build_labels(pprof_build *b)
{
    const profile_view *v = b->v;
    int64_t key_name = pprof_string(&b->strings, "thread"),
            key_id = pprof_string(&b->strings, "thread_id");
    size_t i;

    b->labels = calloc(2 * v->thread_count + 1, sizeof(*b->labels));
    b->label_ptrs = calloc(2 * v->thread_count + 1, sizeof(*b->label_ptrs));
    if (key_name < 0 || key_id < 0 || !b->labels || !b->label_ptrs)
        return -1;
    for (i = 0; i < v->thread_count; i++) {
        pprof_label *name = &b->labels[2 * i], *id = &b->labels[2 * i + 1];
        perftools__profiles__label__init(name);
        perftools__profiles__label__init(id);
        id->key = key_id;
        id->num = v->threads[i].os_thread_id;
        name->key = key_name;
        if (v->threads[i].name && (name->str = pprof_string(&b->strings, v->threads[i].name)) < 0)
            return -1;
        /* the name label first when there is one, else only the id */
        b->label_ptrs[2 * i] = v->threads[i].name ? name : id;
        b->label_ptrs[2 * i + 1] = id;
    }
    return 0;
}

/* One sample per (stack, thread), with its count. */
static int pprof_build_samples(pprof_build *b)
{
    const profile_view *v = b->v;
    unsigned values = b->o->cpu || b->o->alloc_bytes ? 2 : 1;
    uint64_t *counts = NULL;
    uint32_t *stack_of = NULL, *thread_of = NULL;
    size_t i, frames = 0, at = 0;
    idmap pairs = {0};
    int rc = -1;

    counts = calloc(v->sample_count + 1, sizeof(*counts));
    stack_of = calloc(v->sample_count + 1, sizeof(*stack_of));
    thread_of = calloc(v->sample_count + 1, sizeof(*thread_of));
    if (!counts || !stack_of || !thread_of)
        goto done;
    for (i = 0; i < v->sample_count; i++) {
        const profile_view_sample *e = &v->samples[i];
        uint64_t key = ((uint64_t)e->stack + 1) << 32 | e->thread;
        uint32_t k = idmap_get(&pairs, key);
        if (k == IDMAP_MISSING) {
            k = (uint32_t)b->sample_count++;
            if (idmap_put(&pairs, key, k) != 0)
                goto done;
            stack_of[k] = e->stack;
            thread_of[k] = e->thread;
            frames += v->stacks[e->stack].depth;
        }
        counts[k]++;
    }
    b->samples = calloc(b->sample_count + 1, sizeof(*b->samples));
    b->sample_ptrs = calloc(b->sample_count + 1, sizeof(*b->sample_ptrs));
    b->location_ids = calloc(frames + 1, sizeof(*b->location_ids));
    b->values = calloc(b->sample_count * values + 1, sizeof(*b->values));
    if (!b->samples || !b->sample_ptrs || !b->location_ids || !b->values)
        goto done;
    for (i = 0; i < b->sample_count; i++) {
        const profile_view_stack *st = &v->stacks[stack_of[i]];
        pprof_sample *s = &b->samples[i];
        uint32_t k;

        perftools__profiles__sample__init(s);
        s->location_id = &b->location_ids[at];
        s->n_location_id = st->depth;
        for (k = 0; k < st->depth; k++) /* leaf first, as the view keeps them */
            b->location_ids[at++] = (uint64_t)v->frames[st->first + k] + 1;
        s->value = &b->values[i * values];
        s->n_value = values;
        s->value[0] = (int64_t)counts[i];
        if (b->o->alloc_bytes) {
            s->value[0] = (int64_t)(b->o->alloc_objects[stack_of[i]] + 0.5);
            s->value[1] = (int64_t)(b->o->alloc_bytes[stack_of[i]] + 0.5);
        } else if (b->o->cpu)
            s->value[1] = (int64_t)(counts[i] * b->o->period_ns);
        s->label = &b->label_ptrs[2 * thread_of[i]];
        s->n_label = v->threads[thread_of[i]].name ? 2 : 1;
        b->sample_ptrs[i] = s;
    }
    rc = 0;
done:
    idmap_free(&pairs);
    free(counts);
    free(stack_of);
    free(thread_of);
    return rc;
}

/* gzip of in[0..n) in *out. 0 or -1. */
static int pprof_gzip(const uint8_t *in, size_t n, size_t max_bytes, uint8_t **out, size_t *length)
{
    z_stream z;
    size_t cap;
    uint8_t *buf;
    int rc;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    cap = deflateBound(&z, (uLong)n);
    if (cap > max_bytes || !(buf = malloc(cap))) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    rc = deflate(&z, Z_FINISH);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return -1;
    }
    *out = buf;
    *length = cap - z.avail_out;
    return 0;
}

int pprof_export(const profile_view *v, const pprof_options *o, size_t max_bytes, uint8_t **out,
                 size_t *length, const char **why)
{
    pprof_profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
    pprof_build b;
    uint8_t *packed = NULL;
    size_t size;
    int rc = -1;

    memset(&b, 0, sizeof(b));
    b.v = v;
    b.o = o;
    *why = "out of memory building the pprof file";
    if (pprof_build_functions(&b) != 0 || pprof_build_labels(&b) != 0 ||
        pprof_build_samples(&b) != 0)
        goto done;
    perftools__profiles__value_type__init(&b.types[0]);
    perftools__profiles__value_type__init(&b.types[1]);
    perftools__profiles__value_type__init(&b.period);
    b.types[0].type = pprof_string(&b.strings, "samples");
    b.types[0].unit = pprof_string(&b.strings, "count");
    b.type_ptrs[0] = &b.types[0];
    if (o->alloc_bytes) {
        b.types[0].type = pprof_string(&b.strings, "alloc_objects");
        b.types[1].type = pprof_string(&b.strings, "alloc_space");
        b.types[1].unit = pprof_string(&b.strings, "bytes");
        b.type_ptrs[1] = &b.types[1];
        b.period = b.types[1];
        p.period = (int64_t)WIRE_ALLOC_SAMPLING_MEAN;
        p.default_sample_type = b.types[1].type;
        b.comment = pprof_string(&b.strings, "jitscope allocations: the runtime's allocation "
                                             "samples, scaled to estimated bytes and objects");
    } else if (o->cpu) {
        b.types[1].type = pprof_string(&b.strings, "cpu");
        b.types[1].unit = pprof_string(&b.strings, "nanoseconds");
        b.type_ptrs[1] = &b.types[1];
        b.period = b.types[1];
        p.period = (int64_t)o->period_ns;
        p.default_sample_type = b.types[1].type;
        b.comment = pprof_string(&b.strings, "jitscope CPU profile: perf events on the "
                                             "target's threads, named by its JIT code map");
    } else {
        b.period = b.types[0];
        p.period = 1;
        b.comment = pprof_string(&b.strings, "jitscope wall-clock profile: suspended walks of "
                                             "every managed thread");
    }
    if (b.types[0].type < 0 || b.types[0].unit < 0 || b.types[1].type < 0 || b.types[1].unit < 0 ||
        b.comment < 0)
        goto done;
    p.n_sample_type = o->cpu || o->alloc_bytes ? 2 : 1;
    p.sample_type = b.type_ptrs;
    p.period_type = &b.period;
    p.n_sample = b.sample_count;
    p.sample = b.sample_ptrs;
    p.n_mapping = b.mapping_count;
    p.mapping = b.mapping_ptrs;
    p.n_location = v->syms.count;
    p.location = b.location_ptrs;
    p.n_function = v->syms.count;
    p.function = b.function_ptrs;
    p.n_string_table = b.strings.count;
    p.string_table = b.strings.items;
    p.time_nanos = o->time_ns;
    p.duration_nanos = o->duration_ns;
    p.n_comment = 1;
    p.comment = &b.comment;
    size = perftools__profiles__profile__get_packed_size(&p);
    if (size > max_bytes) {
        *why = "the pprof file would be larger than the response limit; filter by thread or time";
        goto done;
    }
    if (!(packed = malloc(size ? size : 1)))
        goto done;
    if (perftools__profiles__profile__pack(&p, packed) != size)
        goto done;
    if (pprof_gzip(packed, size, max_bytes, out, length) != 0) {
        *why = "could not compress the pprof file";
        goto done;
    }
    rc = 0;
done:
    free(packed);
    pprof_build_free(&b);
    return rc;
}
