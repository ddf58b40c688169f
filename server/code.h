/* code.h -- what a session knows of the code the JIT produced.
 *
 * Four things, each folded from agent records by session.c (which resolves
 * FunctionIDs to positions in the session's functions[] and hands them over,
 * so that this file sees no session), each bounded, each counted when full:
 * - the native code versions the session saw (JIT records, catch-up): start,
 *   size and, for live compilations, which compilation of its function made
 *   it. A version the agent's code reply lists is matched to its compilation
 *   (tier, size, JIT time) by its start. 24 bytes per version.
 * - inlining: per compilation, the callees the runtime let the JIT inline
 *   (WIRE_INLINING, attributed to the compilation open on that thread), and
 *   per callee the compilations it went into. 24 bytes per inline.
 * - ReadyToRun: per function, whether the runtime found precompiled code for
 *   it and whether it used it (WIRE_CODE_SEARCH). 1 byte per function.
 * - code replies (WIRE_CMD_CODE): assembled from CODE_VERSION / CODE_PART /
 *   CODE_END by request id; the newest CODE_KEEP_REPLIES complete ones kept,
 *   at most CODE_KEEP_BYTES in all, the oldest evicted first.
 * The first three go into the session's snapshot (code_snapshot_*); the
 * replies' frames are observations kept beside it (record_kinds.h).
 * Every input is hostile: pieces out of order, past their version's declared
 * sizes or for a reply already closed are dropped and counted. Caller holds
 * the sessions lock.
 */
#ifndef JITSCOPE_SERVER_CODE_H
#define JITSCOPE_SERVER_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "wire_decode.h"

#define CODE_NONE UINT32_MAX               /* no function position */
#define CODE_MAX_SEEN (8u * 1024u * 1024u) /* code versions remembered per session */
#define CODE_MAX_INLINES (2u * 1024u * 1024u)
#define CODE_KEEP_REPLIES 64u
#define CODE_KEEP_BYTES (64u * 1024u * 1024u)
#define CODE_PENDING 4u                           /* replies assembled at the same time */
#define CODE_REPLY_MAX_BYTES (4u * 1024u * 1024u) /* maps, refs and code of one reply */

/* One native code version seen. */
typedef struct code_seen {
    uint64_t start;
    uint32_t function; /* position in the session's functions */
    uint32_t size;     /* bytes, 0 unknown */
    uint32_t next;     /* the function's previous entry + 1 (a chain, newest first), 0 none */
    uint16_t ordinal;  /* which compilation of the function made it (0 first); CODE_NO_ORDINAL */
    uint16_t reserved;
} code_seen;
#define CODE_NO_ORDINAL 0xFFFFu /* known only from catch-up (or ReadyToRun code) */

/* One inline: callee went into the compilation `ordinal` of root. */
typedef struct code_inline {
    uint32_t root;   /* the function being compiled */
    uint32_t callee; /* what was inlined */
    uint32_t caller; /* the method whose call site it was (root, or an inlinee of it) */
    uint32_t next_root, next_callee; /* chains + 1, newest first, 0 none */
    uint16_t ordinal;                /* compilation of root; CODE_NO_ORDINAL unknown */
    uint16_t flags;                  /* WIRE_FLAG_DYNAMIC: root is a dynamic method */
} code_inline;

enum code_r2r_bits {
    CODE_R2R_HAS = 1,  /* the image had ReadyToRun code for it (search started) */
    CODE_R2R_USED = 2, /* and it was used (found) */
};

typedef struct code_reply_version {
    wire_code_version_info info;
    uint8_t *code;
    uint32_t code_have; /* bytes received, from offset 0 */
    wire_code_map_entry *map;
    uint32_t map_have; /* entries */
    wire_code_ref *refs;
    uint32_t ref_have;
} code_reply_version;

typedef struct code_reply {
    uint64_t request_id, function_id;
    uint32_t function; /* position in functions, CODE_NONE unknown */
    int complete;      /* its CODE_END came */
    int broken;        /* a piece did not fit: what came is kept, marked incomplete */
    uint64_t age;      /* order of arrival */
    int64_t time_ns;   /* wall clock of its CODE_END (or first record) */
    wire_code_end end;
    code_reply_version versions[WIRE_CODE_MAX_VERSIONS];
    unsigned version_count;
    uint8_t *il;
    uint32_t il_have, il_cap; /* the IL's size comes with the END: the buffer doubles */
    size_t bytes;             /* what it holds */
} code_reply;

typedef struct code_state {
    code_seen *seen;
    size_t seen_count, seen_cap;
    uint32_t *seen_head; /* per function position: newest entry + 1 */
    size_t seen_head_cap;
    code_inline *inlines;
    size_t inline_count, inline_cap;
    uint32_t *root_head, *callee_head; /* per function position */
    size_t root_head_cap, callee_head_cap;
    uint8_t *r2r; /* per function position: code_r2r_bits */
    size_t r2r_cap;
    code_reply *replies[CODE_KEEP_REPLIES + CODE_PENDING];
    unsigned reply_count;
    size_t reply_bytes;
    uint64_t reply_age;
    /* counters */
    uint64_t seen_dropped, inlines_dropped, inline_records;
    uint64_t r2r_found, r2r_rejected_searches, r2r_searches;
    uint64_t replies_done, replies_refused, replies_broken, pieces_dropped, replies_evicted;
    uint64_t agent_refused; /* the agent's own count, from its newest CODE_END */
} code_state;

void code_init(code_state *c);
void code_free(code_state *c);

/* A native code version of function `function` (a position) was seen: by a
 * live compilation (ordinal: which of its compilations, from 0) or by
 * catch-up (CODE_NO_ORDINAL). A start already known for the function is not
 * added again (its size is filled in when it was unknown). */
void code_note_version(code_state *c, uint32_t function, uint64_t start, uint32_t size,
                       uint16_t ordinal);

/* WIRE_INLINING: callee inlined into compilation `ordinal` of root, at caller's
 * call site. */
void code_note_inline(code_state *c, uint32_t root, uint16_t ordinal, uint32_t caller,
                      uint32_t callee, uint16_t flags);

/* WIRE_CODE_SEARCH for the function at `function`. */
void code_note_search(code_state *c, uint32_t function, uint32_t result);

/* A code reply's pieces, as they come: a version (the reply begins with its
 * first piece), a part of a version's code, map or references or of the IL
 * (the record: its data), and its end; `function` is the position of
 * end->function_id now (CODE_NONE when unknown). */
void code_apply_reply_version(code_state *c, const wire_code_version_info *v, int64_t now_ns);
void code_apply_reply_part(code_state *c, const wire_record *r, int64_t now_ns);
void code_apply_reply_end(code_state *c, const wire_code_end *end, uint32_t function,
                          int64_t now_ns);

/* The newest complete reply for a request id, or for a function position
 * (request_id 0), or NULL. */
const code_reply *code_reply_find(const code_state *c, uint64_t request_id, uint32_t function);

/* The newest entry of a function's code versions (then ->next - 1 ...), or NULL. */
const code_seen *code_seen_first(const code_state *c, uint32_t function);
/* A function's version starting at `start`, or NULL. */
const code_seen *code_seen_find(const code_state *c, uint32_t function, uint64_t start);

/* Inlines of a function as root (newest first), or as callee. */
const code_inline *code_inlines_of_root(const code_state *c, uint32_t function);
const code_inline *code_inlines_of_callee(const code_state *c, uint32_t function);
static inline const code_inline *code_inline_next(const code_state *c, uint32_t next)
{
    return next ? &c->inlines[next - 1] : NULL;
}

/* code_r2r_bits of a function position. */
uint8_t code_r2r(const code_state *c, uint32_t function);

/* Memory held, in bytes. */
size_t code_memory(const code_state *c);

/* The snapshot (snapshot.h, record SNAPSHOT_CODE): the versions seen, the
 * inlines, the ReadyToRun bits and the counters as payloads handed to put
 * (each at most WIRE_MAX_PAYLOAD bytes). 0, or -1 when put failed. */
int code_snapshot_encode(const code_state *c, size_t function_count,
                         int (*put)(void *ctx, const void *payload, uint32_t length), void *ctx);
/* One SNAPSHOT_CODE payload back; function positions must be below
 * function_count. 0, or -1 (bad payload or out of memory). */
int code_snapshot_restore(code_state *c, size_t function_count, const uint8_t *payload,
                          uint32_t length);

#endif
