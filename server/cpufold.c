/* cpufold.c -- a CPU sampler run's samples named and folded into its
 * session's profile (see cpufold.h, cpuprof_run.h).
 *
 * One batch: every waiting sample's addresses are classified (cpusym.c, no
 * lock); then, under the sessions lock, the managed ones are looked up in the
 * session's code map (codemap.h), the ones it does not know are marked to be
 * asked of the agent, and every sample whose frames are all named (or given
 * up on) becomes a stack of the profile: FunctionIDs for managed frames,
 * symbols for native ones, and labels where frames are known to be lost
 * (cpusym.h). What the profile gains (symbols, threads, stacks, samples,
 * counters) goes into the session's log as it is added (logrec.h); so do its
 * managed frames by code address (profile_heat.h: the leaf's sampled address,
 * a caller's call instruction), gathered per batch and logged as what the
 * batch added (LOGREC_CPU_HEAT), then added to the profile's. After the
 * lock: the lookups are sent (WIRE_CMD_CODE_LOOKUP) and the prologs of newly
 * found code read, so the samples that wait for them fold in the next batch.
 */
#include "cpufold.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "link.h"
#include "logrec.h"
#include "profile_cpu.h"
#include "sessions.h"
#include "wire.h"

#define CPUFOLD_SAMPLES_PER_RECORD 4096u
#define CPUFOLD_COUNTS_EVERY_MS 1000u
#define CPUFOLD_MAX_NEW_CODE 256u /* prologs read per batch */

typedef struct cpufold_state {
    cpuprof_run *r;
    session *s;
    uint64_t now_ms;
    int64_t now_ns;
    int final, link_id;
    uint64_t lookups[CPUPROF_LOOKUPS_PER_BATCH];
    unsigned lookup_count;
    uint64_t new_code[CPUFOLD_MAX_NEW_CODE];
    unsigned new_code_count;
    profile_heat heat; /* this batch's samples by code address */
} cpufold_state;

/* ---- handing new symbols and threads to the profile ------------------------- */

static void cpufold_symbols(cpufold_state *f)
{
    cpusym *y = &f->r->sym;
    size_t first, n = cpusym_pending_names(y, &first), i;
    char buf[2 * PROFILE_CPU_MAX_NAME];

    for (i = first; i < first + n; i++) {
        const cpusym_symbol *e = &y->names[i];
        size_t nl = profile_cpu_cut(e->name, strlen(e->name));
        size_t ml = e->module ? profile_cpu_cut(e->module, strlen(e->module)) : 0;
        logrec_cpu_symbol h = {(uint32_t)i, (uint16_t)nl, e->module ? (uint16_t)ml : 0xffff};

        if (profile_cpu_symbol(&f->s->profile, (uint32_t)i, e->name, nl, e->module, ml) != 0)
            break; /* full: later names fold as CPUSYM_LABEL_FULL */
        memcpy(buf, e->name, nl);
        memcpy(buf + nl, e->module ? e->module : "", ml);
        session_log_record(f->s, f->now_ns, LOGREC_CPU_SYMBOL, &h, sizeof(h), buf,
                           (uint32_t)(nl + ml));
        y->names_handed = i + 1;
    }
}

/* The session's row of an OS thread (the newest row with that OS id), or
 * NULL: a thread the agent has not reported (native, or not yet). */
static session_thread *cpufold_thread_row(session *s, uint32_t tid)
{
    size_t i;

    for (i = s->thread_count; i-- > 0;)
        if (s->threads[i].os_thread_id == tid)
            return &s->threads[i];
    return NULL;
}

/* The profile's index of an OS thread, made (and logged) on first use; its
 * ThreadID filled in once the agent has reported it. UINT32_MAX when the
 * profile has no room. */
static uint32_t cpufold_thread(cpufold_state *f, uint32_t tid)
{
    cpuprof_run *r = f->r;
    uint32_t i = idmap_get(&r->thread_by_tid, tid);
    cpuprof_thread *t;
    profile_state *p = &f->s->profile;

    if (i == IDMAP_MISSING)
        return UINT32_MAX; /* not a thread of the run (cannot be: rings are per thread) */
    t = &r->threads[i];
    if (t->index == UINT32_MAX || !t->thread_id) {
        session_thread *st = cpufold_thread_row(f->s, tid);
        uint64_t id = st ? st->thread_id : 0;
        uint32_t row = st ? session_thread_row_of(f->s, st) : 0;
        if (t->index == UINT32_MAX || id != t->thread_id) {
            uint32_t index = t->index == UINT32_MAX ? (uint32_t)p->thread_count : t->index;
            size_t nl = strlen(t->name);
            logrec_cpu_thread h = {.thread_id = id,
                                   .index = index,
                                   .os_thread_id = tid,
                                   .name_length = (uint16_t)nl,
                                   .thread_row = row};
            if (profile_cpu_thread(p, index, tid, id, row, t->name, nl) != 0)
                return UINT32_MAX;
            t->index = index;
            t->thread_id = id;
            session_log_record(f->s, f->now_ns, LOGREC_CPU_THREAD, &h, sizeof(h), t->name,
                               (uint32_t)nl);
        }
    }
    return t->index;
}

/* ---- naming the managed frames ------------------------------------------------ */

/* Brings a managed address forward: the code map, else a lookup to send, else
 * (no agent, or no answer in time) given up. */
static void cpufold_managed(cpufold_state *f, cpusym_ip *c)
{
    codemap_range range;

    if (c->state == CPUSYM_UNKNOWN || c->state == CPUSYM_ASKED) {
        if (codemap_find(&f->s->codemap, c->ip, &range)) {
            if (range.function == CODEMAP_NOT_MANAGED) {
                c->state = CPUSYM_NOT_MANAGED;
            } else if (range.function < f->s->function_count) {
                c->state = CPUSYM_FOUND;
                c->function_id = f->s->functions[range.function].function_id;
                c->code_start = range.start;
            }
        }
    }
    if (c->state == CPUSYM_UNKNOWN) {
        if (!f->link_id || f->final) {
            c->state = CPUSYM_GAVE_UP;
        } else if (f->lookup_count < CPUPROF_LOOKUPS_PER_BATCH) {
            f->lookups[f->lookup_count++] = c->ip;
            c->state = CPUSYM_ASKED;
            c->asked_ms = (uint32_t)f->now_ms;
            f->r->counts.lookups++;
        }
    } else if (c->state == CPUSYM_ASKED &&
               (f->final || !f->link_id || f->now_ms - c->asked_ms > CPUPROF_LOOKUP_WAIT_MS)) {
        c->state = CPUSYM_GAVE_UP;
    }
}

/* Whether every frame of the sample is named now (its code's prolog known). */
static int cpufold_ready(cpufold_state *f, const cpuprof_sample *e)
{
    int ready = 1;
    uint32_t k;

    for (k = 0; k < (uint32_t)e->nr + e->extra; k++) {
        cpusym_ip *c = cpusym_find(&f->r->sym, f->r->ips[e->first + k]);
        cpusym_code info;
        if (!c || c->kind != CPUSYM_MANAGED)
            continue;
        cpufold_managed(f, c);
        if (c->state == CPUSYM_UNKNOWN || c->state == CPUSYM_ASKED) {
            ready = 0;
        } else if (c->state == CPUSYM_FOUND && !f->final &&
                   !cpusym_code_peek(&f->r->sym, c->code_start, &info)) {
            unsigned j;
            for (j = 0; j < f->new_code_count && f->new_code[j] != c->code_start; j++)
                ;
            if (j == f->new_code_count && j < CPUFOLD_MAX_NEW_CODE)
                f->new_code[f->new_code_count++] = c->code_start;
            ready = 0;
        }
    }
    return ready;
}

/* ---- one sample into the profile ------------------------------------------------- */

static uint64_t cpufold_symbol_key(const cpufold_state *f, uint32_t symbol)
{
    if (symbol >= f->r->sym.names_handed)
        symbol = CPUSYM_LABEL_FULL;
    return PROFILE_FRAME_SYMBOL | symbol;
}

/* The caller of the OSR frame k of sample e, whose next frame c is the Tier0
 * call site of its patchpoint (frames.h): the candidate under frame k whose
 * distance is 16 + the Tier0 prolog's rbp - rsp, when it is named. NULL when
 * there is none. */
static cpusym_ip *cpufold_osr_caller(cpufold_state *f, const cpuprof_sample *e, uint32_t k,
                                     const cpusym_ip *c)
{
    cpusym_code info;
    unsigned i;

    if (!cpusym_code_peek(&f->r->sym, c->code_start, &info) ||
        !(info.flags & CPUSYM_CODE_FP_DELTA) || (info.flags & CPUSYM_CODE_OSR))
        return NULL;
    for (i = 0; i < e->extra; i++) {
        cpusym_ip *caller;
        if (e->cand_k[i] != k || e->cand_dist[i] != 16u + info.fp_delta)
            continue;
        caller = cpusym_find(&f->r->sym, f->r->ips[e->first + e->nr + i]);
        if (caller && ((caller->kind == CPUSYM_MANAGED && caller->state == CPUSYM_FOUND) ||
                       (caller->kind == CPUSYM_NATIVE && caller->symbol != CPUSYM_LABEL_UNMAPPED)))
            return caller;
    }
    return NULL;
}

/* The sample's stack, leaf first, with the labels that say where frames are
 * missing (cpusym.h); counts what it found. at[k] is frame k's code address
 * for the heat when it is a method's frame (the sampled address for k 0, the
 * return address - 1 after), else 0. Returns the depth. */
static uint32_t cpufold_stack(cpufold_state *f, const cpuprof_sample *e, uint64_t *seq,
                              uint64_t *at, uint64_t *seq_at)
{
    cpuprof_run *r = f->r;
    uint32_t depth = 0, k;
    int missing = 0, last_managed = 0, broken = 0, after_native = 0;
    uint64_t osr_function = 0; /* the frame before was OSR code of this function */

    memset(at, 0, e->nr * sizeof(*at)); /* frames past a break count nowhere */
    memset(seq_at, 0, PROFILE_MAX_DEPTH * sizeof(*seq_at));
    if (e->kernel) {
        seq[depth++] = cpufold_symbol_key(f, CPUSYM_LABEL_KERNEL);
        r->counts.kernel++;
    }
    for (k = 0; k < e->nr && !broken; k++) {
        uint64_t ip = r->ips[e->first + k], osr = osr_function;
        cpusym_ip *c = cpusym_find(&r->sym, ip);
        cpusym_code info;

        osr_function = 0;
        at[k] = 0;
        if (!c) { /* not classified (the address cache was full): said as unknown */
            seq[depth++] = cpufold_symbol_key(f, CPUSYM_LABEL_UNMAPPED);
            last_managed = 0;
            continue;
        }
        if (c->kind == CPUSYM_NATIVE && c->symbol == CPUSYM_LABEL_UNMAPPED) {
            if (k > 0) { /* a frame pointer into nowhere: the rest of the chain is garbage */
                broken = 1;
                after_native = !last_managed;
                break;
            }
            seq[depth++] = cpufold_symbol_key(f, CPUSYM_LABEL_UNMAPPED);
            last_managed = 0;
            continue;
        }
        if (c->kind == CPUSYM_NATIVE) {
            seq[depth++] = cpufold_symbol_key(f, c->symbol);
            last_managed = 0;
            continue;
        }
        last_managed = 1;
        switch (c->state) {
        case CPUSYM_FOUND:
            if (osr && c->function_id == osr) {
                /* the call site in the code the OSR frame replaced: the same
                 * method; the method's own caller is found on the Tier0 frame
                 * (frames.h), else it is what is lost */
                cpusym_ip *caller = k > 0 ? cpufold_osr_caller(f, e, k - 1, c) : NULL;
                if (!caller) {
                    seq[depth++] = cpufold_symbol_key(f, CPUSYM_LABEL_OSR);
                    missing = 1;
                } else if (caller->kind == CPUSYM_NATIVE) {
                    seq[depth++] = cpufold_symbol_key(f, caller->symbol);
                    last_managed = 0;
                } else {
                    at[k] = caller->ip - 1;
                    seq_at[depth] = at[k]; /* its line too (lines=2) */
                    seq[depth++] = caller->function_id;
                }
                break;
            }
            at[k] = k == 0 ? ip : ip - 1;
            seq_at[depth] = at[k];
            seq[depth++] = c->function_id;
            if (!cpusym_code_peek(&r->sym, c->code_start, &info) ||
                !(info.flags & CPUSYM_CODE_KNOWN))
                break;
            if (info.flags & CPUSYM_CODE_OSR) {
                osr_function = c->function_id;
            } else if (!(info.flags & CPUSYM_CODE_FRAMED) ||
                       (k == 0 && !e->kernel && !e->leaf_caller &&
                        ip - c->code_start < info.prolog_end)) {
                /* no frame pointer (yet): the walk skipped its caller */
                seq[depth++] = cpufold_symbol_key(f, CPUSYM_LABEL_NO_FP);
                missing = 1;
            }
            break;
        case CPUSYM_NOT_MANAGED:
            seq[depth++] = cpufold_symbol_key(f, CPUSYM_LABEL_STUB);
            if (k == 0 && !e->kernel)
                missing = 1; /* a stub keeps no frame: who called it is not known */
            break;
        default:
            seq[depth++] = cpufold_symbol_key(f, CPUSYM_LABEL_UNNAMED);
            r->counts.unresolved++;
            break;
        }
    }
    if (e->cut && !broken) { /* the chain after a leaf that reused rbp ended with the copy */
        seq[depth++] = cpufold_symbol_key(f, CPUSYM_LABEL_BROKEN_NATIVE);
        r->counts.broken++;
        broken = 1;
    } else if (e->truncated && !broken) {
        seq[depth++] = PROFILE_FRAME_TRUNCATED;
    } else if (broken || last_managed) {
        /* managed code is always entered from native code: a chain that ends
         * in it, or runs into nowhere, lost the frames toward the thread's start */
        seq[depth++] = cpufold_symbol_key(f, after_native ? CPUSYM_LABEL_BROKEN_NATIVE
                                                          : CPUSYM_LABEL_BROKEN);
        r->counts.broken++;
        broken = 1;
    }
    if (missing)
        r->counts.missing++;
    if (!missing && !e->truncated && !broken)
        r->counts.complete++;
    return depth;
}

/* Logs the samples p->samples[from ..) in records of at most
 * CPUFOLD_SAMPLES_PER_RECORD. */
static void cpufold_log_samples(cpufold_state *f, size_t from)
{
    profile_state *p = &f->s->profile;

    while (from < p->sample_count) {
        size_t n = p->sample_count - from;
        logrec_cpu_samples h;
        if (n > CPUFOLD_SAMPLES_PER_RECORD)
            n = CPUFOLD_SAMPLES_PER_RECORD;
        h = (logrec_cpu_samples){.base_ns = p->base_ns, .count = (uint32_t)n};
        session_log_record(f->s, f->now_ns, LOGREC_CPU_SAMPLES, &h, sizeof(h), &p->samples[from],
                           (uint32_t)(n * sizeof(profile_sample)));
        from += n;
    }
}

static void cpufold_one(cpufold_state *f, const cpuprof_sample *e)
{
    uint64_t seq[PROFILE_MAX_DEPTH], at[PERFRING_MAX_STACK], seq_at[PROFILE_MAX_DEPTH];
    profile_state *p = &f->s->profile;
    uint32_t depth, thread;
    int stack, created;

    if (p->state == PROFILE_STOPPED && p->stopped_ns && e->wall_ns > p->stopped_ns)
        return; /* read after the stop: not part of the profile */
    depth = cpufold_stack(f, e, seq, at, seq_at);
    p->walks++;
    p->thread_samples++;
    if ((thread = cpufold_thread(f, e->tid)) == UINT32_MAX) {
        p->dropped_samples++;
        return;
    }
    stack = profile_stack_intern(p, seq, depth, &created);
    if (stack < 0) {
        p->dropped_samples++;
        return;
    }
    if (created) {
        logrec_cpu_stack h = {(uint32_t)stack, depth};
        session_log_record(f->s, f->now_ns, LOGREC_CPU_STACK, &h, sizeof(h), seq,
                           depth * (uint32_t)sizeof(uint64_t));
    }
    if (profile_add_sample(p, e->wall_ns, thread, (uint32_t)stack) == 0) {
        profile_heat_sample(&f->heat, at, e->nr, !e->kernel); /* in the kernel: no managed leaf */
        (void)profile_addr_set(&p->addr, p->sample_count - 1, seq_at, depth); /* counted */
    }
}

/* The batch's counts by code address into the log, in records of at most
 * LOGREC_CPU_HEAT_MAX entries, and into the profile's (as a read-back adds them). */
static void cpufold_log_heat(cpufold_state *f)
{
    const profile_heat_entry *e;
    size_t i = 0;
    uint32_t n = 0;
    profile_heat_entry *buf = malloc(LOGREC_CPU_HEAT_MAX * sizeof(*buf));

    if (!buf) { /* the batch's counts are lost: said as dropped */
        f->s->profile.heat.dropped += f->heat.count;
        return;
    }
    do {
        if ((e = profile_heat_next(&f->heat, &i))) {
            buf[n++] = *e;
            (void)profile_heat_add(&f->s->profile.heat, e->address, e->self, e->total);
        }
        if (n && (n == LOGREC_CPU_HEAT_MAX || !e)) {
            logrec_cpu_heat h = {n, 0};
            session_log_record(f->s, f->now_ns, LOGREC_CPU_HEAT, &h, sizeof(h), buf,
                               n * (uint32_t)sizeof(*buf));
            n = 0;
        }
    } while (e);
    free(buf);
}

/* ---- the batch ------------------------------------------------------------------------ */

/* Keeps the samples not folded (kept[i]) at the front, frames and all. */
static void cpufold_compact(cpuprof_run *r, const unsigned char *kept)
{
    size_t i, n = 0, ips = 0;

    for (i = 0; i < r->sample_count; i++) {
        cpuprof_sample e = r->samples[i];
        if (!kept[i])
            continue;
        memmove(&r->ips[ips], &r->ips[e.first], ((size_t)e.nr + e.extra) * sizeof(*r->ips));
        e.first = (uint32_t)ips;
        ips += (size_t)e.nr + e.extra;
        r->samples[n++] = e;
    }
    r->sample_count = n;
    r->ip_count = ips;
}

int cpufold_batch(cpuprof_run *r, int final)
{
    cpufold_state f;
    unsigned char *kept;
    size_t i, first_sample;
    unsigned j;
    session *s;

    memset(&f, 0, sizeof(f));
    f.r = r;
    f.final = final;
    f.now_ms = cpuprof_run_ms(r);
    if (!(kept = calloc(r->sample_count + 1, 1)))
        return 0; /* out of memory: try again next time */
    cpusym_batch_begin(&r->sym);
    for (i = 0; i < r->ip_count; i++) /* classify without the lock (maps, ELF files) */
        (void)cpusym_lookup(&r->sym, r->ips[i], f.now_ms);

    sessions_lock();
    s = sessions_get(r->session_id);
    if (!s || s->profile.mode != PROFILE_MODE_CPU || s->profile.cpu.run != r->run) {
        sessions_unlock();
        profile_heat_free(&f.heat);
        free(kept);
        return -1;
    }
    f.s = s;
    f.now_ns = (int64_t)clock_real_ns();
    f.link_id = s->state == SESSION_LIVE ? s->link_id : 0;
    cpufold_symbols(&f);
    first_sample = s->profile.sample_count;
    for (i = 0; i < r->sample_count; i++) {
        if (cpufold_ready(&f, &r->samples[i]))
            cpufold_one(&f, &r->samples[i]);
        else
            kept[i] = 1;
    }
    cpufold_log_samples(&f, first_sample);
    cpufold_log_heat(&f);
    r->counts.threads = r->ring_count;
    s->profile.dropped_samples += r->dropped;
    r->dropped = 0;
    if (memcmp(&s->profile.cpu.counts, &r->counts, sizeof(r->counts)) != 0) {
        s->profile.cpu.counts = r->counts;
        r->counts_changed = 1;
    }
    if (r->counts_changed && (final || f.now_ms - r->counts_logged_ms >= CPUFOLD_COUNTS_EVERY_MS)) {
        session_log_record(s, f.now_ns, LOGREC_CPU_COUNTS, &r->counts, sizeof(r->counts), NULL, 0);
        r->counts_logged_ms = f.now_ms;
        r->counts_changed = 0;
    }
    sessions_unlock();

    profile_heat_free(&f.heat);
    cpufold_compact(r, kept);
    free(kept);
    for (j = 0; j < f.new_code_count; j++) /* read outside the lock; used next batch */
        (void)cpusym_code_info(&r->sym, f.new_code[j]);
    for (j = 0; j < f.lookup_count && f.link_id; j += WIRE_CODE_LOOKUP_MAX) {
        wire_cmd_code_lookup cmd;
        unsigned n = f.lookup_count - j < WIRE_CODE_LOOKUP_MAX ? f.lookup_count - j
                                                               : WIRE_CODE_LOOKUP_MAX;
        memset(&cmd, 0, sizeof(cmd));
        cmd.count = n;
        memcpy(cmd.ips, &f.lookups[j], n * sizeof(uint64_t));
        if (link_send(f.link_id, WIRE_CMD_CODE_LOOKUP, &cmd,
                      (uint32_t)(sizeof(uint64_t) + n * sizeof(uint64_t))) != 0)
            break; /* the answers will not come: they are given up after the wait */
    }
    return 0;
}
