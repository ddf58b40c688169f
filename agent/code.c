/* code.c -- WIRE_CMD_CODE on the sender thread (see code.h for the rules).
 *
 * One request is read in one stretch under the runtime lock into a reply
 * buffer allocated for it (this is the sender thread, not an application
 * thread), and sent after the lock is released, so no socket wait ever holds
 * the lock. Every read of the target's memory goes through process_vm_readv
 * on this process: an address that nothing maps reads as a failure, never a
 * fault. Only the references are read at addresses the agent did not get
 * from the runtime; the code and the IL come from ranges the runtime gave for
 * a method proven alive.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "code.h"
#include "agent.h"
#include "clock.h"
#include "conn.h"
#include "idmap.h"
#include "naming.h"
#include "unload.h"
#include "walk.h"

/* One native code version as read: its header record and its pieces. */
typedef struct code_version {
    wire_code_version_info info;
    uint8_t *code;            /* info.code_sent bytes, in code_reply.code */
    wire_code_map_entry *map; /* info.map_sent entries (own allocation) */
    wire_code_ref *refs;      /* info.ref_count entries (own allocation) */
} code_version;

typedef struct code_reply {
    code_version versions[WIRE_CODE_MAX_VERSIONS];
    unsigned count;
    wire_code_end end;
    uint8_t *code; /* all versions' bytes, end to end */
    size_t code_used, code_cap;
    uint8_t *il; /* end.il_sent bytes */
} code_reply;

_Static_assert(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == sizeof(wire_code_map_entry),
               "the runtime's IL map entries go on the wire as they are");

static uint64_t code_refused; /* requests refused so far, any reason (sender thread) */

/* ---- what is known alive: FunctionID -> ring position it was last seen at ---- */

#define CODE_ALIVE_MAX (4u * 1024u * 1024u)

static idmap code_alive_index; /* FunctionID -> index in code_alive_pos */
static uint64_t *code_alive_pos;
static uint32_t code_alive_count, code_alive_cap;

/* The FunctionID noted last and its index: a JIT's finished record follows
 * its started one, so the second note needs no look-up. */
static uint64_t code_last_id;
static uint32_t code_last_index;

void code_note_alive(uint64_t function_id, uint64_t pos)
{
    uint32_t i;

    if (function_id != 0 && function_id == code_last_id) {
        if (pos > code_alive_pos[code_last_index])
            code_alive_pos[code_last_index] = pos;
        return;
    }
    i = idmap_get(&code_alive_index, function_id);

    if (i != IDMAP_MISSING) {
        if (pos > code_alive_pos[i])
            code_alive_pos[i] = pos;
        code_last_id = function_id, code_last_index = i;
        return;
    }
    if (function_id == 0 || code_alive_count >= CODE_ALIVE_MAX)
        return; /* then never read: refused as not seen */
    if (code_alive_count == code_alive_cap) {
        uint32_t cap = code_alive_cap ? code_alive_cap * 2 : 1024;
        uint64_t *grown = realloc(code_alive_pos, (size_t)cap * sizeof(*grown));
        if (!grown)
            return;
        code_alive_pos = grown;
        code_alive_cap = cap;
    }
    if (idmap_put(&code_alive_index, function_id, code_alive_count) != 0)
        return;
    code_last_id = function_id, code_last_index = code_alive_count;
    code_alive_pos[code_alive_count++] = pos;
}

void code_prefetch(uint64_t function_id) { idmap_prefetch(&code_alive_index, function_id); }

void code_forget(void)
{
    code_last_id = 0;
    idmap_free(&code_alive_index);
    free(code_alive_pos);
    code_alive_pos = NULL;
    code_alive_count = code_alive_cap = 0;
}

/* Seen alive after the newest unload began? */
static int code_alive_now(uint64_t function_id)
{
    uint32_t i = idmap_get(&code_alive_index, function_id);
    return i != IDMAP_MISSING && code_alive_pos[i] >= atomic_load(&agent.unload_fence);
}

static void code_note_at(const uint8_t *payload, uint32_t length, uint32_t at, uint64_t pos)
{
    uint64_t fid;

    if (length >= at + sizeof(fid)) {
        memcpy(&fid, payload + at, sizeof(fid));
        code_note_alive(fid, pos);
    }
}

void code_note_record(const uint8_t *record, uint32_t length, uint64_t pos)
{
    wire_frame_header h;
    const uint8_t *p = record + sizeof(h);
    uint32_t n, i;

    if (length < sizeof(h))
        return;
    memcpy(&h, record, sizeof(h));
    n = length - (uint32_t)sizeof(h) < h.length ? length - (uint32_t)sizeof(h) : h.length;
    switch (h.type) {
    case WIRE_JIT_STARTED:
    case WIRE_JIT_FINISHED:
    case WIRE_FUNCTION_NAME:
        if (!(h.flags & WIRE_FLAG_DYNAMIC)) /* dynamic methods are never read anyway */
            code_note_at(p, n, 0, pos);
        break;
    case WIRE_INLINING:
        if (!(h.flags & WIRE_FLAG_DYNAMIC))
            code_note_at(p, n, offsetof(wire_inlining, caller), pos);
        code_note_at(p, n, offsetof(wire_inlining, callee), pos);
        break;
    case WIRE_CODE_SEARCH: code_note_at(p, n, 0, pos); break;
    case WIRE_STACK_THREAD:
        for (i = 0; sizeof(wire_stack_thread) + (i + 1) * sizeof(wire_stack_frame) <= n; i++)
            code_note_at(p, n, (uint32_t)(sizeof(wire_stack_thread) + i * sizeof(wire_stack_frame)),
                         pos);
        break;
    default: break;
    }
}
static uint8_t code_frame[WIRE_MAX_PAYLOAD];

/* Reads n bytes at address of this process; 0, or -1 when not all of them are mapped. */
static int code_peek(uint64_t address, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)(uintptr_t)address, n};

    if (address == 0)
        return -1;
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

static int32_t code_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return (int32_t)v;
}

/* ---- references ---- */

/* Runtime lock held. The managed method (with metadata) whose code holds ip. */
static uint64_t code_function_at(uint64_t ip)
{
    FunctionID fid = 0;

    if (ip == 0 || FAILED(agent.info->lpVtbl->GetFunctionFromIP(agent.info, (LPCBYTE)ip, &fid)))
        return 0;
    return fid;
}

#define CODE_THUNK_LEVELS 2 /* a precode, then a call-counting stub */
#define CODE_THUNK_SCAN 16  /* bytes of a thunk searched for its jmp [rip+d] */

/* Runtime lock held. Where r->value leads: the method whose code it is in or,
 * when it is a stub of the runtime's (a precode, a call-counting stub: code
 * that ends in jmp [rip+disp32] within its first bytes), where that jump goes,
 * up to CODE_THUNK_LEVELS stubs deep. The hint is the method a precode names:
 * the word after a fixup precode's target cell, or what a stub precode loads
 * into r10 (mov r10, [rip+disp32]). Nothing read here can fault (code_peek),
 * and GetFunctionFromIP takes any address. */
static void code_follow(wire_code_ref *r)
{
    uint64_t t = r->value;
    unsigned level;

    r->target = t;
    for (level = 0; level <= CODE_THUNK_LEVELS; level++) {
        uint8_t b[CODE_THUNK_SCAN + 6];
        uint64_t cell = 0, next = 0, hint = 0;
        unsigned i;

        if ((r->function_id = code_function_at(t)) != 0) {
            r->target = t;
            return;
        }
        if (level == CODE_THUNK_LEVELS)
            return;
        if (code_peek(t, b, sizeof(b)) != 0) {
            r->kind |= WIRE_CODE_REF_UNREADABLE;
            return;
        }
        if (b[0] == 0x4C && b[1] == 0x8B && b[2] == 0x15 &&
            code_peek(t + 7 + (uint64_t)(int64_t)code_le32(b + 3), &hint, 8) != 0)
            hint = 0;
        for (i = 0; i < CODE_THUNK_SCAN && !(b[i] == 0xFF && b[i + 1] == 0x25); i++)
            ;
        if (i == CODE_THUNK_SCAN)
            return; /* not a stub we know: the target stays where the call lands */
        cell = t + i + 6 + (uint64_t)(int64_t)code_le32(b + i + 2);
        if (code_peek(cell, &next, sizeof(next)) != 0 || next == 0) {
            r->kind |= WIRE_CODE_REF_UNREADABLE;
            return;
        }
        if (i == 0 && code_peek(cell + 8, &hint, sizeof(hint)) != 0) /* a fixup precode */
            hint = 0;
        r->kind |= WIRE_CODE_REF_THUNK;
        if (hint && !r->method_hint)
            r->method_hint = hint;
        r->target = t = next;
    }
}

/* Adds a reference unless its address is there already. 0, or -1 when full. */
static int code_add_ref(code_version *v, uint32_t kind, uint64_t address)
{
    wire_code_ref *r;
    uint32_t i;

    for (i = 0; i < v->info.ref_count; i++)
        if (v->refs[i].address == address && v->refs[i].kind == kind)
            return 0;
    if (v->info.ref_count >= WIRE_CODE_MAX_REFS) {
        v->info.flags |= WIRE_CODE_TRUNCATED_REFS;
        return -1;
    }
    r = &v->refs[v->info.ref_count++];
    memset(r, 0, sizeof(*r));
    r->address = address;
    r->kind = kind;
    if (kind == WIRE_CODE_REF_DIRECT) {
        r->value = address;
    } else if (code_peek(address, &r->value, sizeof(r->value)) != 0) {
        r->kind |= WIRE_CODE_REF_UNREADABLE;
        return 0;
    }
    code_follow(r);
    return 0;
}

/* Runtime lock held. Scans one range of copied code (which starts at `base`
 * in the target) for the x86-64 control transfers whose destination is
 * written in the code: call/jmp rel32 (E8/E9) and call/jmp [rip+disp32]
 * (FF 15 / FF 25). A byte pair inside another instruction may look like one:
 * the server looks up only what its disassembly finds. Jumps inside the
 * method itself are not references. */
static void code_scan(code_version *v, const uint8_t *bytes, uint32_t n, uint64_t base)
{
    uint64_t lo = v->info.code_start, hi = lo + v->info.hot_size;
    uint32_t i;

#if defined(__x86_64__)
    for (i = 0; i + 5 <= n; i++) {
        uint64_t next, dest;
        if (bytes[i] == 0xE8 || bytes[i] == 0xE9) {
            next = base + i + 5;
            dest = next + (uint64_t)(int64_t)code_le32(bytes + i + 1);
            if ((dest < lo || dest >= hi) && code_add_ref(v, WIRE_CODE_REF_DIRECT, dest) != 0)
                return;
        } else if (bytes[i] == 0xFF && (bytes[i + 1] == 0x15 || bytes[i + 1] == 0x25) &&
                   i + 6 <= n) {
            next = base + i + 6;
            dest = next + (uint64_t)(int64_t)code_le32(bytes + i + 2);
            if (code_add_ref(v, WIRE_CODE_REF_INDIRECT, dest) != 0)
                return;
        }
    }
#else
    (void)bytes, (void)n, (void)base, (void)lo, (void)hi, (void)i;
#endif
}

/* ---- reading (runtime lock held) ---- */

/* One version: its ranges, code bytes (within the reply's budget), IL map and
 * references. */
static void code_read_version(code_reply *out, uint64_t fid, ReJITID rejit, UINT_PTR start)
{
    ICorProfilerInfo10 *info = agent.info;
    code_version *v = &out->versions[out->count];
    COR_PRF_CODE_INFO ranges[2];
    ULONG32 nranges = 0, nmap = 0, kept;
    uint64_t want, room;
    HRESULT hr;

    memset(v, 0, sizeof(*v));
    v->info.function_id = fid;
    v->info.rejit_id = rejit;
    v->info.code_start = start;
    v->info.index = out->count++;
    hr = info->lpVtbl->GetCodeInfo4(info, start, 2, &nranges, ranges);
    if (FAILED(hr) || nranges == 0) {
        v->info.hresult = FAILED(hr) ? hr : E_FAIL;
        return;
    }
    v->info.code_start = ranges[0].startAddress;
    v->info.hot_size = ranges[0].size > UINT32_MAX ? UINT32_MAX : (uint32_t)ranges[0].size;
    if (nranges > 1) {
        v->info.cold_start = ranges[1].startAddress;
        v->info.cold_size = ranges[1].size > UINT32_MAX ? UINT32_MAX : (uint32_t)ranges[1].size;
    }
    want = (uint64_t)v->info.hot_size + v->info.cold_size;
    room = out->code_cap - out->code_used;
    if (room > WIRE_CODE_MAX_VERSION_BYTES)
        room = WIRE_CODE_MAX_VERSION_BYTES;
    if (want > room) {
        want = room;
        v->info.flags |= WIRE_CODE_TRUNCATED_CODE;
    }
    v->code = out->code + out->code_used;
    {
        uint32_t hot = want < v->info.hot_size ? (uint32_t)want : v->info.hot_size;
        uint32_t cold = (uint32_t)want - hot;
        if (code_peek(v->info.code_start, v->code, hot) != 0 ||
            (cold && code_peek(v->info.cold_start, v->code + hot, cold) != 0)) {
            v->info.hresult = E_FAIL; /* the runtime's range did not read: send none of it */
            want = 0;
        }
        v->info.code_sent = (uint32_t)want;
        out->code_used += want;
        if ((v->refs = malloc(WIRE_CODE_MAX_REFS * sizeof(*v->refs))) != NULL) {
            code_scan(v, v->code, hot < want ? hot : (uint32_t)want, v->info.code_start);
            if (cold && want > hot)
                code_scan(v, v->code + hot, (uint32_t)want - hot, v->info.cold_start);
        }
    }
    hr = info->lpVtbl->GetILToNativeMapping3(info, start, 0, &nmap, NULL);
    if (SUCCEEDED(hr) && nmap > 0) {
        kept = nmap > WIRE_CODE_MAX_MAP ? WIRE_CODE_MAX_MAP : nmap;
        v->map = malloc((size_t)kept * sizeof(COR_DEBUG_IL_TO_NATIVE_MAP));
        if (v->map && SUCCEEDED(info->lpVtbl->GetILToNativeMapping3(
                          info, start, kept, &nmap, (COR_DEBUG_IL_TO_NATIVE_MAP *)v->map))) {
            v->info.map_count = nmap;
            v->info.map_sent = nmap < kept ? nmap : kept;
            if (nmap > kept)
                v->info.flags |= WIRE_CODE_TRUNCATED_MAP;
        }
    } else if (FAILED(hr) && !v->info.hresult) {
        v->info.hresult = hr;
    }
}

/* The method's IL body (header and code), within WIRE_CODE_MAX_IL. */
static void code_read_il(code_reply *out, uint64_t module, uint32_t token)
{
    LPCBYTE header = NULL, base = NULL;
    ULONG size = 0;
    uint32_t kept;
    AssemblyID assembly = 0;
    DWORD flags = 0;

    /* a Reflection.Emit module's IL is not in an image: the runtime's
     * GetILFunctionBody does not take such methods (seen crashing in it) */
    if (!module || !token ||
        FAILED(agent.info->lpVtbl->GetModuleInfo2(agent.info, module, &base, 0, NULL, NULL,
                                                  &assembly, &flags)) ||
        (flags & COR_PRF_MODULE_DYNAMIC))
        return;
    if (FAILED(agent.info->lpVtbl->GetILFunctionBody(agent.info, module, token, &header, &size)) ||
        !header || size == 0)
        return;
    out->end.il_size = size;
    kept = size > WIRE_CODE_MAX_IL ? WIRE_CODE_MAX_IL : (uint32_t)size;
    if (kept < size)
        out->end.flags |= WIRE_CODE_TRUNCATED_IL;
    if ((out->il = malloc(kept)) != NULL &&
        code_peek((uint64_t)(uintptr_t)header, out->il, kept) == 0)
        out->end.il_sent = kept;
}

/* Runtime lock held. The whole request; returns the wire_code_status. */
static uint32_t code_read(const wire_cmd_code *cmd, code_reply *out)
{
    ICorProfilerInfo10 *info = agent.info;
    ReJITID rejits[WIRE_CODE_MAX_VERSIONS];
    ULONG nrejits = 0, r;
    FunctionID owner = 0;
    ReJITID owner_rejit = 0;
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    BOOL dynamic = FALSE;
    HRESULT hr;

    if (atomic_load(&agent.detach_requested))
        return WIRE_CODE_DETACHING;
    if (unload_in_progress())
        return WIRE_CODE_UNLOADING;
    if (idmap_get(&code_alive_index, cmd->function_id) == IDMAP_MISSING)
        return WIRE_CODE_NOT_SEEN;
    if (!code_alive_now(cmd->function_id))
        return WIRE_CODE_STALE; /* a module unload began since: it may be dead */
    /* the proof: the runtime itself finds this method's code at that address */
    hr = info->lpVtbl->GetFunctionFromIP3(info, (LPCBYTE)(uintptr_t)cmd->code_address, &owner,
                                          &owner_rejit);
    if (FAILED(hr) || owner != cmd->function_id) {
        out->end.hresult = FAILED(hr) ? hr : 0;
        return WIRE_CODE_NOT_ALIVE;
    }
    if (SUCCEEDED(info->lpVtbl->IsFunctionDynamic(info, owner, &dynamic)) && dynamic)
        return WIRE_CODE_DYNAMIC;
    if (SUCCEEDED(info->lpVtbl->GetFunctionInfo(info, owner, &cls, &module, &token))) {
        out->end.module_id = module;
        out->end.token = token;
    }
    rejits[0] = 0; /* the original IL's versions, then any ReJIT's */
    if (FAILED(info->lpVtbl->GetReJITIDs(info, owner, WIRE_CODE_MAX_VERSIONS - 1, &nrejits,
                                         rejits + 1)))
        nrejits = 0;
    if (nrejits > WIRE_CODE_MAX_VERSIONS - 1)
        nrejits = WIRE_CODE_MAX_VERSIONS - 1;
    for (r = 1; r <= nrejits;) /* the runtime lists the original's id (0) too */
        if (rejits[r] == 0)
            rejits[r] = rejits[nrejits--];
        else
            r++;
    for (r = 0; r <= nrejits; r++) {
        UINT_PTR starts[WIRE_CODE_MAX_VERSIONS];
        ULONG32 n = 0, i;
        hr = info->lpVtbl->GetNativeCodeStartAddresses(info, owner, rejits[r],
                                                       WIRE_CODE_MAX_VERSIONS, &n, starts);
        if (FAILED(hr)) {
            if (r == 0)
                out->end.hresult = hr;
            continue;
        }
        for (i = 0; i < n && i < WIRE_CODE_MAX_VERSIONS; i++) {
            unsigned k;
            for (k = 0; k < out->count && out->versions[k].info.code_start != starts[i]; k++)
                ;
            if (k < out->count)
                continue; /* listed already (under another ReJIT id) */
            out->end.versions++;
            if (out->count == WIRE_CODE_MAX_VERSIONS) {
                out->end.flags |= WIRE_CODE_TRUNCATED_VERSIONS;
                break;
            }
            code_read_version(out, owner, rejits[r], starts[i]);
        }
        if (n > WIRE_CODE_MAX_VERSIONS) {
            out->end.versions += n - WIRE_CODE_MAX_VERSIONS;
            out->end.flags |= WIRE_CODE_TRUNCATED_VERSIONS;
        }
    }
    out->end.versions_sent = out->count;
    code_read_il(out, module, token);
    return out->count ? WIRE_CODE_OK : WIRE_CODE_FAILED;
}

/* ---- sending (no lock) ---- */

static void code_send_part(uint64_t request_id, uint32_t index, uint16_t kind, const void *data,
                           uint32_t length)
{
    uint32_t off;

    for (off = 0; off < length && conn_connected(); off += WIRE_CODE_CHUNK) {
        uint32_t n = length - off < WIRE_CODE_CHUNK ? length - off : WIRE_CODE_CHUNK;
        wire_code_part p = {.request_id = request_id, .index = index, .kind = kind, .offset = off};
        memcpy(code_frame, &p, sizeof(p));
        memcpy(code_frame + sizeof(p), (const uint8_t *)data + off, n);
        conn_emit(WIRE_CODE_PART, 0, clock_mono_ns(), code_frame, (uint32_t)sizeof(p) + n, NULL, 0,
                  NULL, 0);
    }
}

/* Names the methods the references lead to, as long as no module unload
 * started since they were read (generation gen). */
static void code_name_targets(const code_reply *out, uint64_t gen)
{
    unsigned v;
    uint32_t i;

    naming_live_since(gen);
    for (v = 0; v < out->count; v++)
        for (i = 0; i < out->versions[v].info.ref_count; i++) {
            uint64_t fid = out->versions[v].refs[i].function_id;
            /* found through its code only, which may outlive its module for a while
             * after an unload: named when that cannot be, else left to the server */
            if (!fid || (atomic_load(&agent.unload_fence) && !code_alive_now(fid)))
                continue;
            if (naming_function(fid, NAMING_HAS_METADATA, 0, NAMING_LIVE) == -1)
                return; /* an unload started: the rest go unnamed */
        }
}

static void code_send(const code_reply *out, uint64_t request_id)
{
    unsigned v;

    for (v = 0; v < out->count && conn_connected(); v++) {
        const code_version *cv = &out->versions[v];
        wire_code_version_info info = cv->info;
        info.request_id = request_id;
        conn_emit(WIRE_CODE_VERSION, 0, clock_mono_ns(), &info, sizeof(info), NULL, 0, NULL, 0);
        code_send_part(request_id, v, WIRE_CODE_PART_CODE, cv->code, cv->info.code_sent);
        code_send_part(request_id, v, WIRE_CODE_PART_MAP, cv->map,
                       cv->info.map_sent * (uint32_t)sizeof(wire_code_map_entry));
        code_send_part(request_id, v, WIRE_CODE_PART_REFS, cv->refs,
                       cv->info.ref_count * (uint32_t)sizeof(wire_code_ref));
    }
    code_send_part(request_id, WIRE_CODE_IL_INDEX, WIRE_CODE_PART_IL, out->il, out->end.il_sent);
}

static void code_free(code_reply *out)
{
    unsigned v;

    for (v = 0; v < out->count; v++) {
        free(out->versions[v].map);
        free(out->versions[v].refs);
    }
    free(out->code);
    free(out->il);
}

void code_request(const wire_cmd_code *cmd)
{
    uint64_t start = clock_mono_ns(), gen;
    code_reply *out = calloc(1, sizeof(*out));
    wire_code_end end = {.request_id = cmd->request_id, .function_id = cmd->function_id};
    uint32_t cap = cmd->max_bytes && cmd->max_bytes < WIRE_CODE_MAX_REQUEST_BYTES
                       ? cmd->max_bytes
                       : WIRE_CODE_MAX_REQUEST_BYTES;

    if (out && (out->code = malloc(cap)) != NULL) {
        out->code_cap = cap;
        walk_runtime_lock();
        gen = unload_generation();
        end.status = code_read(cmd, out);
        walk_runtime_unlock();
        end.hresult = out->end.hresult;
        end.module_id = out->end.module_id;
        end.token = out->end.token;
        end.versions = out->end.versions;
        end.versions_sent = out->end.versions_sent;
        end.il_size = out->end.il_size;
        end.il_sent = out->end.il_sent;
        end.flags = out->end.flags;
        end.elapsed_ns = clock_mono_ns() - start;
        if (end.status == WIRE_CODE_OK) {
            code_name_targets(out, gen);
            code_send(out, cmd->request_id);
        }
    } else {
        end.status = WIRE_CODE_NO_MEMORY;
    }
    if (end.status != WIRE_CODE_OK)
        code_refused++;
    end.refused = code_refused;
    conn_emit(WIRE_CODE_END, 0, clock_mono_ns(), &end, sizeof(end), NULL, 0, NULL, 0);
    if (out)
        code_free(out);
    free(out);
}
