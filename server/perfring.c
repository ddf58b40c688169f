/* perfring.c -- a perf event on one thread of the target and its ring (see perfring.h). */
#include "perfring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERFRING_PAGE 4096u
/* a sample: 8 * (5 + 128 + markers) bytes of chain, 32 of registers, 16 + the stack copy */
#define PERFRING_RECORD_MAX (4096u + 64u + PERFRING_MAX_COPY)
#define PERFRING_REGS ((1ull << 6) | (1ull << 7) | (1ull << 8)) /* x86-64 rbp, rsp, rip */

void perfring_fill_attr(struct perf_event_attr *a, const perfring_config *c)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_CPU_CLOCK;
    a->sample_period = c->period_ns;
    a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
    a->exclude_kernel = c->exclude_kernel ? 1 : 0;
    a->exclude_hv = 1;
    a->exclude_callchain_kernel = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    a->sample_max_stack = PERFRING_MAX_STACK;
    if (c->stack_copy) {
        a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a->sample_regs_user = PERFRING_REGS;
        a->sample_stack_user = c->stack_copy > PERFRING_MAX_COPY ? PERFRING_MAX_COPY
                                                                 : c->stack_copy & ~7u;
    }
    a->watermark = 1;
    a->wakeup_watermark = (uint32_t)(c->data_pages * PERFRING_PAGE / 2);
}

int perfring_try(pid_t tid, int exclude_kernel)
{
    perfring_config c = {1000000u, exclude_kernel, 1, 0};
    struct perf_event_attr a;
    int fd;

    perfring_fill_attr(&a, &c);
    a.disabled = 1;
    fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

int perfring_open(perfring *r, pid_t tid, const perfring_config *c)
{
    struct perf_event_attr a;
    size_t map;
    int fd, err;

    memset(r, 0, sizeof(*r));
    r->fd = -1;
    perfring_fill_attr(&a, c);
    fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    map = (size_t)(c->data_pages + 1) * PERFRING_PAGE;
    r->base = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r->base == MAP_FAILED) {
        err = errno;
        close(fd);
        r->base = NULL;
        errno = err;
        return -1;
    }
    r->fd = fd;
    r->tid = (uint32_t)tid;
    r->copy = c->stack_copy != 0;
    r->data_bytes = (size_t)c->data_pages * PERFRING_PAGE;
    return 0;
}

void perfring_close(perfring *r)
{
    if (r->base)
        munmap(r->base, r->data_bytes + PERFRING_PAGE);
    if (r->fd >= 0)
        close(r->fd);
    r->base = NULL;
    r->fd = -1;
}

static uint64_t perfring_u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

int perfring_parse(const uint8_t *rec, size_t length, int copy, perfring_record *out)
{
    struct perf_event_header h;
    uint64_t nr, i, abi, size;
    size_t need, at;

    out->kind = PERFRING_OTHER;
    out->nr = 0;
    out->has_regs = 0;
    out->stack_bytes = 0;
    out->stack = NULL;
    if (length < sizeof(h))
        return -1;
    memcpy(&h, rec, sizeof(h));
    if (h.size != length || h.size < sizeof(h))
        return -1;
    if (h.type == PERF_RECORD_LOST) {
        if (length < sizeof(h) + 16)
            return -1;
        out->kind = PERFRING_LOST;
        out->lost = perfring_u64(rec + sizeof(h) + 8);
        return 0;
    }
    if (h.type != PERF_RECORD_SAMPLE)
        return 0;
    /* u32 pid, tid; u64 time; u64 nr; u64 ips[nr] */
    need = sizeof(h) + 8 + 8 + 8;
    if (length < need)
        return -1;
    memcpy(&out->pid, rec + sizeof(h), 4);
    memcpy(&out->tid, rec + sizeof(h) + 4, 4);
    out->time_ns = perfring_u64(rec + sizeof(h) + 8);
    nr = perfring_u64(rec + sizeof(h) + 16);
    if (nr > (length - need) / 8)
        return -1;
    at = need + (size_t)nr * 8;
    if (copy) { /* u64 abi; u64 regs[3] when abi; u64 size; u8 data[size]; u64 dyn_size when size */
        if (length < at + 8)
            return -1;
        abi = perfring_u64(rec + at);
        at += 8;
        if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
            if (length < at + 24)
                return -1;
            out->bp = perfring_u64(rec + at);
            out->sp = perfring_u64(rec + at + 8);
            out->ip = perfring_u64(rec + at + 16);
            out->has_regs = 1;
            at += 24;
        }
        if (length < at + 8)
            return -1;
        size = perfring_u64(rec + at);
        at += 8;
        if (size) {
            uint64_t dyn;
            if (size > PERFRING_MAX_COPY || length - at < size + 8)
                return -1;
            dyn = perfring_u64(rec + at + size);
            if (dyn <= size && out->has_regs) {
                out->stack = rec + at;
                out->stack_bytes = (uint32_t)dyn;
            }
        }
    }
    out->kind = PERFRING_SAMPLE;
    out->kernel = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    for (i = 0; i < nr; i++) {
        uint64_t ip = perfring_u64(rec + need + i * 8);
        if (ip >= (uint64_t)PERF_CONTEXT_MAX)
            continue; /* a context marker (user, kernel...) */
        if (out->nr < PERFRING_MAX_STACK)
            out->ips[out->nr++] = ip;
    }
    return 0;
}

int perfring_drain(perfring *r, void (*fn)(void *ctx, const perfring_record *rec), void *ctx)
{
    struct perf_event_mmap_page *meta = r->base;
    const uint8_t *data = (const uint8_t *)r->base + PERFRING_PAGE;
    static __thread perfring_record rec;
    static __thread uint8_t copy[PERFRING_RECORD_MAX];
    uint64_t head, tail;
    int n = 0;

    if (!r->base)
        return 0;
    head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    tail = meta->data_tail;
    if (head - tail > r->data_bytes) { /* cannot be: start over */
        __atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
        return -1;
    }
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        size_t at = (size_t)(tail & (r->data_bytes - 1)), first;
        const uint8_t *p;

        first = r->data_bytes - at;
        if (first >= sizeof(h)) {
            memcpy(&h, data + at, sizeof(h));
        } else {
            memcpy(&h, data + at, first);
            memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
        }
        if (h.size < sizeof(h) || tail + h.size > head) {
            tail = head; /* a torn or bad record: skip what is there */
            n = -1;
            break;
        }
        if (h.size <= first) {
            p = data + at;
        } else if (h.size <= sizeof(copy)) {
            memcpy(copy, data + at, first);
            memcpy(copy + first, data, h.size - first);
            p = copy;
        } else {
            tail += h.size; /* larger than any record we ask for */
            continue;
        }
        if (perfring_parse(p, h.size, r->copy, &rec) == 0) {
            if (rec.kind == PERFRING_LOST)
                r->lost += rec.lost;
            if (rec.kind != PERFRING_OTHER)
                fn(ctx, &rec);
        }
        tail += h.size;
        if (n >= 0)
            n++;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
    return n;
}
