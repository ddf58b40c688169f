/* exceptions.c -- managed exceptions as records (see exceptions.h). */
#include "exceptions.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "clock.h"
#include "emit.h"
#include "exccount.h"
#include "utf.h"
#include "walk.h"

#define EXC_KEYWORD 0x8000ull
#define EXC_LEVEL_INFORMATIONAL 4u
#define EXC_EVENT_THROWN 80u       /* ExceptionThrown_V1 */
#define EXC_EVENT_CATCH_START 250u /* ExceptionCatchStart */
#define EXC_CACHE_SLOTS 1024u      /* throw sites kept resolved; a power of two */
#define EXC_IP_BUSY 1u             /* a slot being written */
#define EXC_CODE_VERSIONS 8u
#define EXC_MAP_MAX 512u /* IL-to-native entries read (6 KB of stack) */
#define EXC_FP_NONE 0xFFFFFFFFu

/* One throw address: what it resolved to (its counts: exccount.h). */
typedef struct exc_slot {
    _Atomic uint64_t ip; /* 0 free, EXC_IP_BUSY while written */
    uint64_t function_id;
    uint32_t il_offset;
    uint32_t fp_depth; /* where the frame-pointer chain met it when resolved (EXC_FP_NONE) */
} exc_slot;

static exc_slot exc_cache[EXC_CACHE_SLOTS];
static _Atomic int exc_off_at_start = -1; /* -1: not read yet */
static _Atomic int exc_wanted_now = 1;

int exceptions_wanted(void)
{
    if (atomic_load(&exc_off_at_start) < 0) {
        const char *env = getenv(WIRE_ENV_EXCEPTIONS);
        int off = env && strcmp(env, "0") == 0;
        int unread = -1;
        if (atomic_compare_exchange_strong(&exc_off_at_start, &unread, off) && off)
            atomic_store(&exc_wanted_now, 0);
    }
    return atomic_load(&exc_wanted_now);
}

void exceptions_want(int on)
{
    (void)exceptions_wanted(); /* the environment read first, so it does not undo this */
    atomic_store(&exc_wanted_now, on != 0);
}

void exceptions_config(COR_PRF_EVENTPIPE_PROVIDER_CONFIG *out, const WCHAR *runtime_provider)
{
    *out = (COR_PRF_EVENTPIPE_PROVIDER_CONFIG){runtime_provider, EXC_KEYWORD,
                                               EXC_LEVEL_INFORMATIONAL, NULL};
}

int exceptions_event_id(DWORD event_id)
{
    return event_id == EXC_EVENT_THROWN || event_id == EXC_EVENT_CATCH_START;
}

/* The IL offset of native offset `at` in the code version starting at start. */
static uint32_t exc_il_offset(UINT_PTR start, uint64_t at)
{
    COR_DEBUG_IL_TO_NATIVE_MAP map[EXC_MAP_MAX];
    ULONG32 n = 0, i;
    uint32_t best = WIRE_IL_OFFSET_UNKNOWN;

    if (FAILED(agent.info->lpVtbl->GetILToNativeMapping3(agent.info, start, EXC_MAP_MAX, &n, map)))
        return best;
    for (i = 0; i < n && i < EXC_MAP_MAX; i++)
        if ((int32_t)map[i].ilOffset >= 0 && map[i].nativeStartOffset <= at &&
            at < map[i].nativeEndOffset)
            best = map[i].ilOffset;
    return best;
}

/* The method whose code holds ip and the IL offset of the instruction before
 * ip (ip is a return address: the call that threw), in the code version that
 * starts nearest below ip (GetCodeInfo4 does not list every version's code
 * on .NET 8 and 9; cold parts are not considered). */
static void exc_resolve(uint64_t ip, uint64_t *function_id, uint32_t *il_offset)
{
    UINT_PTR starts[EXC_CODE_VERSIONS], start = 0;
    FunctionID function = 0;
    ULONG32 n = 0, k;

    *function_id = 0;
    *il_offset = WIRE_IL_OFFSET_UNKNOWN;
    if (ip <= EXC_IP_BUSY ||
        FAILED(
            agent.info->lpVtbl->GetFunctionFromIP(agent.info, (LPCBYTE)(uintptr_t)ip, &function)) ||
        !function)
        return;
    *function_id = function;
    if (FAILED(agent.info->lpVtbl->GetNativeCodeStartAddresses(agent.info, function, 0,
                                                               EXC_CODE_VERSIONS, &n, starts)))
        return;
    for (k = 0; k < n && k < EXC_CODE_VERSIONS; k++)
        if (starts[k] < ip && starts[k] > start)
            start = starts[k];
    if (start)
        *il_offset = exc_il_offset(start, ip - 1 - start);
}

/* ip resolved (its slot claimed and filled when ip is new to it; not kept
 * when another thread is filling that slot now). */
static void exc_site(uint64_t ip, uint32_t fp_depth, uint64_t *function_id, uint32_t *il_offset)
{
    exc_slot *slot = &exc_cache[(ip * 0x9e3779b97f4a7c15ull) >> 54 & (EXC_CACHE_SLOTS - 1)];
    uint64_t seen = atomic_load_explicit(&slot->ip, memory_order_acquire);

    if (seen == ip && ip > EXC_IP_BUSY) {
        *function_id = slot->function_id;
        *il_offset = slot->il_offset;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&slot->ip, memory_order_relaxed) == ip)
            return;
    }
    exc_resolve(ip, function_id, il_offset);
    if (ip <= EXC_IP_BUSY || seen == EXC_IP_BUSY ||
        !atomic_compare_exchange_strong(&slot->ip, &seen, EXC_IP_BUSY))
        return;
    slot->function_id = *function_id;
    slot->il_offset = *il_offset;
    slot->fp_depth = fp_depth;
    atomic_store_explicit(&slot->ip, ip, memory_order_release);
}

/* The calling thread's stack, asked once per thread (for the main thread the
 * C library reads /proc/self/maps, once): 0 when unknown. */
static _Thread_local uintptr_t exc_stack_lo, exc_stack_hi;

static int exc_stack_bounds(void)
{
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;

    if (exc_stack_hi)
        return 1;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr && size) {
        exc_stack_lo = (uintptr_t)addr;
        exc_stack_hi = exc_stack_lo + size;
    }
    pthread_attr_destroy(&attr);
    return exc_stack_hi != 0;
}

#define EXC_FP_FRAMES 48u /* frames of the frame-pointer chain looked at */

/* The return address at `depth` of the frame-pointer chain from the caller
 * up (depths as exc_chain_find's: both are called from exc_thrown), every
 * frame checked as there: 0 when the chain breaks before it. */
__attribute__((noinline)) static uint64_t exc_chain_at(uint32_t depth)
{
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0), next;
    uint32_t i;

    if (depth >= EXC_FP_FRAMES || !exc_stack_bounds())
        return 0;
    for (i = 0;; i++) {
        if (fp < exc_stack_lo || fp > exc_stack_hi - 2 * sizeof(uintptr_t) || (fp & 7u))
            return 0;
        if (i == depth)
            return ((const uintptr_t *)fp)[1];
        next = ((const uintptr_t *)fp)[0];
        if (next <= fp)
            return 0;
        fp = next;
    }
}

/* The thread's last throw site met on the chain, and its depth there: a
 * storm's next throw is checked there first. */
static _Thread_local uint64_t exc_last_ip;
static _Thread_local uint32_t exc_last_depth;

/* The frame-pointer chain from the caller up (libcoreclr, the JIT's code and
 * the agent keep frame pointers): the first return address that is `want` (0:
 * any the cache knows as a throw site), and its depth in *depth. Every frame is
 * checked to lie inside this thread's stack, above the one before it: a chain
 * that breaks (code without frame pointers) ends the search. 0 when none. */
__attribute__((noinline)) static uint64_t exc_chain_find(uint64_t want, uint32_t *depth)
{
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    uint32_t i;

    if (!exc_stack_bounds())
        return 0;
    for (i = 0; i < EXC_FP_FRAMES; i++) {
        uintptr_t next, ret;
        if (fp < exc_stack_lo || fp > exc_stack_hi - 2 * sizeof(uintptr_t) || (fp & 7u))
            return 0;
        next = ((const uintptr_t *)fp)[0];
        ret = ((const uintptr_t *)fp)[1];
        if (want
                ? ret == want
                : ret > EXC_IP_BUSY &&
                      atomic_load_explicit(
                          &exc_cache[(ret * 0x9e3779b97f4a7c15ull) >> 54 & (EXC_CACHE_SLOTS - 1)].ip,
                          memory_order_relaxed) == ret) {
            *depth = i;
            return ret;
        }
        if (next <= fp)
            return 0;
        fp = next;
    }
    return 0;
}

/* A NUL-terminated UTF-16 string at *pos: its units, *pos moved past its NUL;
 * -1 when the payload ends first. */
static long exc_utf16(const uint8_t *payload, size_t size, size_t *pos)
{
    size_t start = *pos, i = start;
    uint64_t w;

    /* four units at a time while none is 0 (a zero 16-bit lane sets its top bit) */
    for (; i + 8 <= size; i += 8) {
        memcpy(&w, payload + i, 8);
        if ((w - 0x0001000100010001ull) & ~w & 0x8000800080008000ull)
            break;
    }
    for (; i + 1 < size; i += 2)
        if (payload[i] == 0 && payload[i + 1] == 0) {
            *pos = i + 2;
            return (long)((i - start) / 2);
        }
    return -1;
}

/* The event's thread, else (the runtime sometimes delivers none: 0 was seen
 * on the main thread of an app whose agent started its sessions again at
 * its connection) the calling thread's, asked of the runtime. */
static ThreadID exc_thread(ThreadID thread)
{
    if (!thread && FAILED(agent.info->lpVtbl->GetCurrentThreadID(agent.info, &thread)))
        thread = 0;
    return thread;
}

static void exc_thrown(const uint8_t *payload, size_t size, ThreadID thread)
{
    char type[WIRE_EXCEPTION_TYPE_MAX], message[WIRE_EXCEPTION_MESSAGE_MAX];
    wire_stack_frame frames[WIRE_EXCEPTION_MAX_FRAMES];
    wire_exception e = {.il_offset = WIRE_IL_OFFSET_UNKNOWN};
    size_t pos = 0, type_at, message_at, type_len, message_len;
    long type_units, message_units;
    int cut_type = 0, cut_message = 0;
    uint64_t now = clock_ns_of(CLOCK_MONOTONIC_COARSE); /* the 1/s sampling's (a few ms) */
    uint32_t depth = EXC_FP_NONE;
    enum exccount_verdict verdict;

    type_at = pos;
    if ((type_units = exc_utf16(payload, size, &pos)) < 0)
        return;
    message_at = pos;
    if ((message_units = exc_utf16(payload, size, &pos)) < 0 ||
        size - pos < sizeof(uint64_t) + sizeof(uint32_t) + sizeof(uint16_t))
        return;
    memcpy(&e.ip, payload + pos, sizeof(e.ip));
    memcpy(&e.hresult, payload + pos + 8, sizeof(e.hresult));
    memcpy(&e.runtime_flags, payload + pos + 12, sizeof(e.runtime_flags));
    e.thread_id = exc_thread(thread);
    if (!e.thread_id)
        return; /* not a managed thread: nothing to tie the catch to */
    /* a throw site already resolved, found without the runtime's walk: the
     * first return address of the chain that the cache knows is the call that
     * threw (a return address is one call instruction), at the depth where it
     * was met when the site was resolved: an exception thrown in a filter or a
     * catch block, while another's throw call is still on the stack further
     * out, is deeper there, and is left to the walk */
    if (exc_last_ip && exc_chain_at(exc_last_depth) == exc_last_ip) {
        e.ip = exc_last_ip; /* the thread's last site again, at its depth */
        depth = exc_last_depth;
    } else {
        e.ip = exc_chain_find(0, &depth);
        if (e.ip &&
            exc_cache[(e.ip * 0x9e3779b97f4a7c15ull) >> 54 & (EXC_CACHE_SLOTS - 1)].fp_depth !=
                depth)
            e.ip = 0;
        else if (e.ip)
            exc_last_ip = e.ip, exc_last_depth = depth;
    }
    if (e.ip == 0) {
        /* the throwing frame is the first of the thread's own walk (the
         * dispatch's frames are not in it): the runtime's address is no use,
         * 0 on .NET 9 and 10, the catching frame's on .NET 8 */
        uint32_t n = walk_current_thread(frames, 1);
        e.ip = n ? frames[0].ip : 0;
        if (!e.ip || !exc_chain_find(e.ip, &depth))
            depth = EXC_FP_NONE; /* not on the chain: always walked */
    }
    exc_site(e.ip, depth, &e.function_id, &e.il_offset);
    /* most exceptions of a site are only counted (exccount.h) */
    verdict = exccount_thrown(e.ip, e.function_id, e.il_offset, payload + type_at,
                              (size_t)type_units, (e.runtime_flags & WIRE_EXCEPTION_RETHROWN) != 0,
                              now);
    if (verdict == EXCCOUNT_COUNTED)
        return;
    now = clock_mono_ns(); /* a record's time */
    type_len = utf16le_to_utf8(payload + type_at, (size_t)type_units, type, sizeof(type),
                               &cut_type);
    if (type_len == 0)
        type[0] = '?', type_len = 1;
    message_len = utf16le_to_utf8(payload + message_at, (size_t)message_units, message,
                                  sizeof(message), &cut_message);
    if (verdict == EXCCOUNT_SEND_STACK) {
        uint32_t n = walk_current_thread(frames, WIRE_EXCEPTION_MAX_FRAMES), skip = 0;
        /* where the runtime's dispatch frames show (managed on .NET 9 and
         * later), the stack starts at the throw */
        while (e.function_id && skip < n && frames[skip].function_id != e.function_id)
            skip++;
        if (skip == n)
            skip = 0;
        memmove(frames, frames + skip, (n - skip) * sizeof(frames[0]));
        e.frame_count = n - skip;
    }
    wire_text strings[2] = {{.utf8 = type, .length = type_len},
                            {.utf8 = message, .length = message_len}};
    emit_record_at(WIRE_EXCEPTION, cut_type || cut_message ? WIRE_FLAG_TRUNCATED : 0, now, &e,
                   sizeof(e), frames, e.frame_count * (uint32_t)sizeof(wire_stack_frame), strings,
                   2);
}

static void exc_caught(const uint8_t *payload, size_t size, ThreadID thread)
{
    wire_exception_caught c;

    if (size < 2 * sizeof(uint64_t))
        return;
    memcpy(&c.function_id, payload + sizeof(uint64_t), sizeof(c.function_id)); /* MethodID */
    if ((c.thread_id = exc_thread(thread)) == 0 || !exccount_caught(c.function_id))
        return;
    emit_record(WIRE_EXCEPTION_CAUGHT, 0, &c, sizeof(c), NULL, 0, NULL, 0);
}

void exceptions_event(DWORD event_id, const uint8_t *payload, size_t size, ThreadID thread)
{
    if (!payload || !atomic_load_explicit(&exc_wanted_now, memory_order_relaxed))
        return;
    if (event_id == EXC_EVENT_THROWN)
        exc_thrown(payload, size, thread);
    else if (event_id == EXC_EVENT_CATCH_START)
        exc_caught(payload, size, thread);
}
