/* profile_cpu.c -- a CPU profile's symbols, threads and counters, and its log
 * records read back (see profile_cpu.h). */
#include "profile_cpu.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "logrec.h"
#include "utf.h"

void profile_cpu_start(profile_state *p, uint32_t hz, uint64_t period_ns, int64_t now_ns,
                       uint32_t run)
{
    profile_start(p, hz, now_ns);
    p->mode = PROFILE_MODE_CPU;
    p->budget_permille = 0; /* nothing is suspended: no budget */
    p->cpu.counts.period_ns = period_ns;
    p->cpu.run = run;
}

size_t profile_cpu_cut(const char *text, size_t length)
{
    if (length > PROFILE_CPU_MAX_NAME) {
        length = PROFILE_CPU_MAX_NAME;
        while (length > 0 && ((unsigned char)text[length] & 0xc0) == 0x80)
            length--; /* not inside a UTF-8 sequence */
    }
    return length;
}

/* Copies text into cpu.text (cut as profile_cpu_cut says); its offset + 1, or
 * 0 when it does not fit. */
static uint32_t profile_cpu_keep_text(profile_cpu *c, const char *text, size_t length)
{
    size_t at = c->text_used;

    length = profile_cpu_cut(text, length);
    if (c->text_used + length + 1 > PROFILE_CPU_MAX_TEXT ||
        grow_reserve((void **)&c->text, &c->text_cap, c->text_used + length, 1, 4096,
                     PROFILE_CPU_MAX_TEXT, GROW_KEEP) != 0)
        return 0;
    memcpy(c->text + at, text, length);
    c->text[at + length] = '\0';
    c->text_used += length + 1;
    return (uint32_t)at + 1;
}

const char *profile_cpu_text(const profile_state *p, uint32_t offset_plus1)
{
    return offset_plus1 && offset_plus1 <= p->cpu.text_used ? p->cpu.text + offset_plus1 - 1 : NULL;
}

int profile_cpu_symbol(profile_state *p, uint32_t index, const char *name, size_t name_length,
                       const char *module, size_t module_length)
{
    profile_cpu *c = &p->cpu;
    profile_symbol *e;
    uint32_t n, m = UINT32_MAX;

    if (index != c->symbol_count || index >= PROFILE_CPU_MAX_SYMBOLS || name_length == 0 ||
        grow_reserve((void **)&c->symbols, &c->symbol_cap, c->symbol_count, sizeof(*c->symbols),
                     256, PROFILE_CPU_MAX_SYMBOLS, GROW_KEEP) != 0 ||
        !(n = profile_cpu_keep_text(c, name, name_length)) ||
        (module && !(m = profile_cpu_keep_text(c, module, module_length))))
        return -1;
    e = &c->symbols[c->symbol_count++];
    e->name = n;
    e->module = module ? m : UINT32_MAX;
    return 0;
}

int profile_cpu_thread(profile_state *p, uint32_t index, uint32_t os_thread_id, uint64_t thread_id,
                       uint32_t thread_row, const char *name, size_t name_length)
{
    profile_thread *t;

    if (os_thread_id == 0 || index > p->thread_count)
        return -1;
    if (index == p->thread_count) {
        if (idmap_get(&p->thread_index, os_thread_id) != IDMAP_MISSING ||
            grow_reserve((void **)&p->threads, &p->thread_cap, p->thread_count, sizeof(*p->threads),
                         256, PROFILE_MAX_THREADS, GROW_KEEP) != 0 ||
            idmap_put(&p->thread_index, os_thread_id, index) != 0)
            return -1;
        t = &p->threads[p->thread_count++];
        memset(t, 0, sizeof(*t));
        t->os_thread_id = os_thread_id;
    } else {
        t = &p->threads[index];
        if (t->os_thread_id != os_thread_id)
            return -1;
    }
    if (thread_id) {
        t->thread_id = thread_id;
        t->thread_row = thread_row;
    }
    if (name_length && !t->name)
        t->name = profile_cpu_keep_text(&p->cpu, name, name_length);
    return 0;
}

/* The fixed head of a CPU profile's record, after its start: -1 for a record
 * out of place or too short for its head. */
static int profile_cpu_head(const profile_state *p, const uint8_t *b, uint32_t length, void *head,
                            size_t head_size)
{
    if (p->mode != PROFILE_MODE_CPU)
        return -1; /* a CPU profile's record without its start */
    if (length < head_size)
        return -1;
    memcpy(head, b, head_size);
    return 0;
}

/* ---- reading the log back ---------------------------------------------------- */

int profile_cpu_read_symbol(profile_state *p, const uint8_t *b, uint32_t length)
{
    logrec_cpu_symbol h;
    const char *name, *module;
    size_t module_length;

    if (profile_cpu_head(p, b, length, &h, sizeof(h)) < 0)
        return -1;
    module_length = h.module_length == 0xffff ? 0 : h.module_length;
    if (h.name_length == 0 || h.name_length > PROFILE_CPU_MAX_NAME ||
        module_length > PROFILE_CPU_MAX_NAME || length != sizeof(h) + h.name_length + module_length)
        return -1;
    name = (const char *)b + sizeof(h);
    module = name + h.name_length;
    if (!utf8_valid(name, h.name_length) || !utf8_valid(module, module_length))
        return -1;
    return profile_cpu_symbol(p, h.index, name, h.name_length,
                              h.module_length == 0xffff ? NULL : module, module_length);
}

int profile_cpu_read_thread(profile_state *p, const uint8_t *b, uint32_t length)
{
    logrec_cpu_thread h;

    if (profile_cpu_head(p, b, length, &h, sizeof(h)) < 0)
        return -1;
    if (h.name_length > PROFILE_CPU_MAX_NAME || length != sizeof(h) + h.name_length ||
        !utf8_valid((const char *)b + sizeof(h), h.name_length))
        return -1;
    return profile_cpu_thread(p, h.index, h.os_thread_id, h.thread_id, h.thread_row,
                              (const char *)b + sizeof(h), h.name_length);
}

/* A stack read back must get the id it had: the same stacks were interned in
 * the same order. Each frame is a FunctionID or a symbol of this profile. */
int profile_cpu_read_stack(profile_state *p, const uint8_t *b, uint32_t length)
{
    uint64_t seq[PROFILE_MAX_DEPTH];
    logrec_cpu_stack h;
    uint32_t i;
    int created, id;

    if (profile_cpu_head(p, b, length, &h, sizeof(h)) < 0)
        return -1;
    if (h.depth > PROFILE_MAX_DEPTH || length != sizeof(h) + (size_t)h.depth * sizeof(uint64_t))
        return -1;
    memcpy(seq, b + sizeof(h), (size_t)h.depth * sizeof(uint64_t));
    for (i = 0; i < h.depth; i++)
        if ((seq[i] & PROFILE_FRAME_SYMBOL) &&
            (seq[i] & ~PROFILE_FRAME_SYMBOL) >= p->cpu.symbol_count)
            return -1;
    id = profile_stack_intern(p, seq, h.depth, &created);
    return id >= 0 && created && (uint32_t)id == h.id ? 0 : -1;
}

int profile_cpu_read_samples(profile_state *p, const uint8_t *b, uint32_t length)
{
    logrec_cpu_samples h;
    uint32_t i;

    if (profile_cpu_head(p, b, length, &h, sizeof(h)) < 0)
        return -1;
    if (length != sizeof(h) + (size_t)h.count * sizeof(profile_sample))
        return -1;
    if (!p->has_base) {
        p->base_ns = h.base_ns;
        p->has_base = 1;
    }
    for (i = 0; i < h.count; i++) {
        profile_sample e;
        memcpy(&e, b + sizeof(h) + (size_t)i * sizeof(e), sizeof(e));
        if (e.thread >= p->thread_count || e.stack >= p->stack_count)
            return -1;
        (void)profile_add_sample(p, p->base_ns + (int64_t)e.t_ms * 1000000, e.thread, e.stack);
    }
    p->walks += h.count;
    p->thread_samples += h.count;
    return 0;
}

int profile_cpu_read_start(profile_state *p, const uint8_t *b, uint32_t length, int64_t now_ns)
{
    logrec_cpu_start start;

    if (length != sizeof(start))
        return -1;
    memcpy(&start, b, sizeof(start));
    if (start.hz == 0 || start.hz > WIRE_PROFILE_MAX_HZ)
        return -1;
    profile_cpu_start(p, start.hz, start.period_ns, now_ns, 0);
    return 0;
}

int profile_cpu_read_counts(profile_state *p, const uint8_t *b, uint32_t length)
{
    if (p->mode != PROFILE_MODE_CPU)
        return -1; /* a CPU profile's record without its start */
    if (length != sizeof(p->cpu.counts))
        return -1;
    memcpy(&p->cpu.counts, b, sizeof(p->cpu.counts));
    return 0;
}

int profile_cpu_read_heat(profile_state *p, const uint8_t *b, uint32_t length)
{
    logrec_cpu_heat h;
    uint32_t i;

    if (profile_cpu_head(p, b, length, &h, sizeof(h)) < 0)
        return -1;
    if (h.count > LOGREC_CPU_HEAT_MAX ||
        length != sizeof(h) + (uint64_t)h.count * sizeof(profile_heat_entry))
        return -1;
    for (i = 0; i < h.count; i++) { /* all checked before any is added */
        profile_heat_entry e;
        memcpy(&e, b + sizeof(h) + (size_t)i * sizeof(e), sizeof(e));
        if (!e.address || e.self > e.total)
            return -1;
    }
    for (i = 0; i < h.count; i++) {
        profile_heat_entry e;
        memcpy(&e, b + sizeof(h) + (size_t)i * sizeof(e), sizeof(e));
        (void)profile_heat_add(&p->heat, e.address, e.self, e.total); /* full: counted */
    }
    return 0;
}
