/* frames.c -- frames the frame-pointer chain misses, from the sample's stack copy (see frames.h). */
#include "frames.h"

#include <string.h>

typedef struct frames_copy {
    const uint8_t *bytes;
    uint64_t sp;
    size_t n;
} frames_copy;

/* The word at address a of the thread's stack, when the copy holds it. */
static int frames_word(const frames_copy *s, uint64_t a, uint64_t *v)
{
    if (a < s->sp || a - s->sp > s->n || s->n - (a - s->sp) < 8 || (a & 7))
        return 0;
    memcpy(v, s->bytes + (a - s->sp), 8);
    return 1;
}

/* Whether a return address is code: managed, or a native function named. */
static int frames_is_code(cpuprof_run *r, uint64_t ra)
{
    cpusym_ip *c = cpusym_lookup(&r->sym, ra, cpuprof_run_ms(r));

    return c && (c->kind == CPUSYM_MANAGED || c->symbol != CPUSYM_LABEL_UNMAPPED);
}

/* The chain rebuilt through the copy from the frame whose return address is
 * ips[e->nr - 1] (its caller's rsp sp, rbp bp): a native frame by its unwind
 * rule (looked up at the call, ra - 1), others by the frame pointer; it stops
 * where the copy or a rule ends, or at an address that is no code. */
static void frames_unwind(cpuprof_run *r, const frames_copy *s, cpuprof_sample *e, uint64_t *ips,
                          size_t cap, uint64_t sp, uint64_t bp)
{
    while (e->nr < cap) {
        cpusym_ip *c = cpusym_lookup(&r->sym, ips[e->nr - 1] - 1, cpuprof_run_ms(r));
        uint64_t cfa, ra, saved = bp;
        int rule = c && c->kind == CPUSYM_NATIVE && c->symbol != CPUSYM_LABEL_UNMAPPED
                       ? cpusym_leaf_rule(&r->sym, c)
                       : CPUSYM_RULE_NONE;

        if (rule == CPUSYM_RULE_RSP || rule == CPUSYM_RULE_RBP) {
            cfa = (rule == CPUSYM_RULE_RSP ? sp : bp) + c->cfa_off;
            if (c->rbp_saved && !frames_word(s, cfa + (int64_t)c->rbp_off, &saved))
                return;
        } else { /* managed code (or a native function without a rule): its frame pointer */
            cfa = bp + 16;
            if (!frames_word(s, bp, &saved))
                return;
        }
        if (cfa <= sp || !frames_word(s, cfa - 8, &ra) || !frames_is_code(r, ra))
            return;
        ips[e->nr++] = ra;
        sp = cfa;
        bp = saved;
    }
}

/* Frame 1 for a native leaf without a frame pointer; returns 1 when it was
 * inserted (ips has room for one more). */
static int frames_leaf(cpuprof_run *r, const perfring_record *rec, const frames_copy *s,
                       cpuprof_sample *e, uint64_t *ips, size_t room)
{
    cpusym_ip *c = cpusym_lookup(&r->sym, ips[0], cpuprof_run_ms(r));
    uint64_t ra, at, saved = 0;
    size_t cap = e->nr + room < PERFRING_MAX_STACK ? e->nr + room : PERFRING_MAX_STACK;
    int clobbered = 0;

    cpusym_code info;
    uint32_t depth;

    if (!c || ips[0] != rec->ip)
        return 0;
    if (c->kind == CPUSYM_MANAGED) {
        /* in a method's prolog before rbp is set (its code already known) */
        if (c->state != CPUSYM_FOUND || e->kernel ||
            !cpusym_code_peek(&r->sym, c->code_start, &info) ||
            !cpusym_prolog_depth(&info, (uint32_t)(c->ip - c->code_start), &depth) ||
            !frames_word(s, at = s->sp + depth, &ra))
            return 0;
    } else if (c->symbol == CPUSYM_LABEL_UNMAPPED ||
               cpusym_leaf_rule(&r->sym, c) != CPUSYM_RULE_RSP ||
               !frames_word(s, at = s->sp + c->cfa_off - 8, &ra)) {
        return 0;
    } else if (c->rbp_saved && frames_word(s, s->sp + c->cfa_off + (int64_t)c->rbp_off, &saved)) {
        clobbered = saved != rec->bp;
    }
    if (!ra || at == rec->bp + 8) /* the slot the kernel read frame 1 from: already there */
        return 0;
    if (e->nr >= PERFRING_MAX_STACK) {
        e->nr--; /* the root-most frame makes room */
        e->truncated = 1;
    } else if (!room) {
        return 0;
    }
    memmove(&ips[2], &ips[1], (e->nr - 1u) * sizeof(*ips));
    ips[1] = ra;
    e->nr++;
    e->leaf_caller = 1;
    if (clobbered) { /* the kernel walked from a value that is no frame pointer */
        e->nr = 2;
        e->truncated = 0;
        frames_unwind(r, s, e, ips, cap, at + 8, saved);
        e->cut = 1;
    }
    return 1;
}

void frames_recover(cpuprof_run *r, const perfring_record *rec, cpuprof_sample *e, size_t room)
{
    uint64_t *ips = &r->ips[e->first], f;
    frames_copy s = {rec->stack, rec->sp, rec->stack_bytes};
    uint32_t j;
    int inserted;
    size_t before = e->nr;

    if (!rec->has_regs || !rec->stack_bytes || !e->nr)
        return;
    inserted = frames_leaf(r, rec, &s, e, ips, room);
    if (e->cut)
        return;
    if (e->nr > before)
        room -= e->nr - before;
    /* the kernel's chain through the copy: frame j-1's frame pointer f holds
     * the return address ips[j] above it */
    f = rec->bp;
    for (j = inserted ? 2 : 1; j < e->nr && e->extra < CPUPROF_CANDIDATES && e->extra < room; j++) {
        uint64_t next, ra, a, v;
        if (!frames_word(&s, f, &next) || !frames_word(&s, f + 8, &ra) || ra != ips[j] || next <= f)
            break;
        for (a = f + 16;
             a < next && a - f <= 0xffff && e->extra < CPUPROF_CANDIDATES && e->extra < room;
             a += 8) {
            uint64_t caller;
            if (!frames_word(&s, a, &v))
                break;
            /* a slot holding the same saved rbp: a frame below this one, or a local that
             * happens to hold that value (cpufold.c takes only the one the prolog says) */
            if (v == next && frames_word(&s, a + 8, &caller) && caller) {
                e->cand_k[e->extra] = (uint8_t)(j - 1);
                e->cand_dist[e->extra] = (uint16_t)(a - f);
                ips[e->nr + e->extra++] = caller;
            }
        }
        f = next;
    }
}
