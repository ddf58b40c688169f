/* fuzz_wire_decode.c -- libFuzzer target for the server's agent-stream path:
 * proto/wire_decode.c (frames and records) and server/session.c with
 * server/stacks.c, server/profile.c and server/timeline.c (folding records
 * into a session).
 *
 * Input layout: the first 32 bytes are the session token (shorter inputs use a
 * fixed token), the rest is the byte stream an agent would send. The target
 * does what server/link.c does with a connection's buffer: split frames off the
 * front one after another, decode each record, require a hello with the token
 * first, apply every record to a scratch session, and stop at NEED_MORE, at
 * BAD, or when session_apply refuses the connection (a record it refuses as
 * inconsistent, record_check.h, is counted and the stream goes on: checked
 * that it is counted, and that the DROPS counters it lets through are
 * possible). The decoder's answers are
 * checked (abort() on a broken invariant, so a wrong answer is a crash like a
 * memory error): an OK frame never claims more bytes than it was given, its
 * strict prefix is NEED_MORE, re-encoding it (proto/wire_encode.c) gives the
 * same bytes, decoded strings lie inside their payload and are valid UTF-8, a
 * stack thread's frames lie inside its payload. After every record the stack,
 * profile and timeline state is checked against its caps and its own indexes
 * (every sample names a kept thread and stack, every thread's frames lie
 * inside its walk) after each record that commits such state (STACK_END,
 * PROFILE_STATUS, GC_FINISHED) and at the end: checking after every record
 * made a long input quadratic.
 *
 * Built and run by `make fuzz` (build/fuzz/wire_decode, corpus
 * tests/fuzz/corpus/wire_decode); docs/FUZZING.md.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "session.h"
#include "utf.h"
#include "wire_decode.h"
#include "wire_encode.h"

static void fuzz_check_record(const wire_frame *f, const wire_record *r)
{
    FUZZ_REQUIRE(r->type >= WIRE_HELLO && r->type <= WIRE_RECORD_TYPE_MAX);
    FUZZ_REQUIRE(r->type == f->header.type && r->seq == f->header.seq);
    FUZZ_REQUIRE(r->string_count <= 2);
    for (unsigned i = 0; i < r->string_count; i++) {
        const uint8_t *t = (const uint8_t *)r->strings[i].text;
        FUZZ_REQUIRE(r->strings[i].length <= WIRE_MAX_STRING);
        FUZZ_REQUIRE(t >= f->payload && t + r->strings[i].length <= f->payload + f->header.length);
        FUZZ_REQUIRE(utf8_valid(r->strings[i].text, r->strings[i].length));
    }
    if (r->type == WIRE_HELLO) {
        FUZZ_REQUIRE(memcmp(r->u.hello.magic, WIRE_MAGIC, 8) == 0);
        FUZZ_REQUIRE(r->u.hello.version == WIRE_VERSION);
    }
    if (r->type == WIRE_STACK_THREAD) {
        const uint8_t *p = r->stack_frames;
        FUZZ_REQUIRE(r->u.stack_thread.frame_count <= WIRE_STACK_MAX_FRAMES);
        FUZZ_REQUIRE(p == f->payload + sizeof(wire_stack_thread));
        FUZZ_REQUIRE(sizeof(wire_stack_thread) +
                         (size_t)r->u.stack_thread.frame_count * sizeof(wire_stack_frame) ==
                     f->header.length);
    }
    if (r->type == WIRE_STACK_END)
        FUZZ_REQUIRE(r->u.stack_end.kind == WIRE_STACK_SNAPSHOT ||
                     r->u.stack_end.kind == WIRE_STACK_SAMPLE);
    if (r->type == WIRE_CODE_PART) {
        FUZZ_REQUIRE(r->data == f->payload + sizeof(wire_code_part));
        FUZZ_REQUIRE(r->data_length > 0 && r->data_length <= WIRE_CODE_CHUNK &&
                     sizeof(wire_code_part) + r->data_length == f->header.length);
    }
    if (r->type == WIRE_CODE_VERSION)
        FUZZ_REQUIRE(r->u.code_version.index < WIRE_CODE_MAX_VERSIONS &&
                     r->u.code_version.code_sent <= WIRE_CODE_MAX_VERSION_BYTES &&
                     r->u.code_version.ref_count <= WIRE_CODE_MAX_REFS);
}

/* The code state (code.h) within its caps: replies, their pieces as declared. */
static void fuzz_check_code(const session *s)
{
    const code_state *c = &s->code;
    size_t bytes = 0;

    FUZZ_REQUIRE(c->reply_count <= CODE_KEEP_REPLIES + CODE_PENDING);
    FUZZ_REQUIRE(c->seen_count <= CODE_MAX_SEEN && c->inline_count <= CODE_MAX_INLINES);
    for (unsigned i = 0; i < c->reply_count; i++) {
        const code_reply *r = c->replies[i];
        FUZZ_REQUIRE(r->version_count <= WIRE_CODE_MAX_VERSIONS && r->il_have <= WIRE_CODE_MAX_IL);
        FUZZ_REQUIRE(r->bytes <= CODE_REPLY_MAX_BYTES + 2 * sizeof(*r));
        for (unsigned k = 0; k < r->version_count; k++) {
            const code_reply_version *v = &r->versions[k];
            FUZZ_REQUIRE(v->code_have <= v->info.code_sent && v->map_have <= v->info.map_sent &&
                         v->ref_have <= v->info.ref_count);
        }
        bytes += r->bytes;
    }
    FUZZ_REQUIRE(bytes == c->reply_bytes);
    for (size_t i = 0; i < c->inline_count; i++)
        FUZZ_REQUIRE(c->inlines[i].root < s->function_count &&
                     c->inlines[i].callee < s->function_count);
}

static void fuzz_check_walk(const stacks_walk *w)
{
    FUZZ_REQUIRE(w->thread_count <= w->thread_cap || (!w->threads && !w->thread_count));
    FUZZ_REQUIRE(w->thread_count <= WIRE_STACK_MAX_THREADS);
    FUZZ_REQUIRE(w->frame_count <= WIRE_STACK_MAX_TOTAL_FRAMES);
    for (uint32_t i = 0; i < w->thread_count; i++) {
        const stacks_thread *t = &w->threads[i];
        FUZZ_REQUIRE(t->frame_count <= WIRE_STACK_MAX_FRAMES);
        FUZZ_REQUIRE((uint64_t)t->first_frame + t->frame_count <= w->frame_count);
    }
}

/* The stack, profile and timeline state agrees with its caps and indexes. */
static void fuzz_check_state(const session *s)
{
    const stacks_state *st = &s->stacks;
    const profile_state *p = &s->profile;
    uint64_t frames = 0;

    FUZZ_REQUIRE(st->kept_count <= STACKS_KEEP);
    for (unsigned i = 0; i < st->kept_count; i++) {
        const stacks_walk *w = stacks_at(st, i);
        FUZZ_REQUIRE(w && w->id > 0 && w->kind == WIRE_STACK_SNAPSHOT);
        FUZZ_REQUIRE(stacks_by_id(st, w->id) == w);
        fuzz_check_walk(w);
        frames += w->frame_count;
    }
    FUZZ_REQUIRE(frames == st->kept_frames && frames <= STACKS_KEEP_FRAMES);
    for (unsigned i = 0; st->pending && i < STACKS_PENDING; i++) /* made at the first walk */
        fuzz_check_walk(&st->pending[i]);
    FUZZ_REQUIRE(p->sample_count <= PROFILE_MAX_SAMPLES && p->stack_count <= PROFILE_MAX_STACKS &&
                 p->frame_count <= PROFILE_MAX_FRAMES && p->thread_count <= PROFILE_MAX_THREADS);
    for (size_t i = 0; i < p->sample_count; i++)
        FUZZ_REQUIRE(p->samples[i].stack < p->stack_count &&
                     p->samples[i].thread < p->thread_count);
    for (size_t i = 0; i < p->stack_count; i++)
        FUZZ_REQUIRE(p->stacks[i].depth <= PROFILE_MAX_DEPTH &&
                     (uint64_t)p->stacks[i].first + p->stacks[i].depth <= p->frame_count);
    FUZZ_REQUIRE(p->thread_samples == p->sample_count + p->dropped_samples);
    FUZZ_REQUIRE(profile_suspend_p50(p) <= p->suspend_ns_max);
    FUZZ_REQUIRE(s->timeline.gc_cap <= TIMELINE_KEEP &&
                 s->timeline.suspension_cap <= TIMELINE_KEEP);
    fuzz_check_code(s);
}

/* Reads back what a record may have touched, as the API would. */
static void fuzz_read_back(session *s, const wire_record *r)
{
    volatile size_t sink = 0;
    session_function *f;
    session_module *m;
    session_thread *t;

    switch (r->type) {
    case WIRE_JIT_STARTED:
    case WIRE_JIT_FINISHED:
    case WIRE_FUNCTION_NAME:
        f = session_find_function(s, r->u.jit_finished.function_id);
        if (f) {
            FUZZ_REQUIRE(f->function_id == r->u.jit_finished.function_id);
            if (f->name_record) { /* both parts readable, and joined as long as they say */
                char whole[FNNAME_MAX + 1];
                size_t length = fnname_copy(f->name_record, whole, sizeof(whole));
                FUZZ_REQUIRE(length == fnname_length(f->name_record) && whole[length] == '\0');
                sink += length;
            }
        }
        break;
    case WIRE_MODULE_LOADED:
    case WIRE_MODULE_UNLOADED:
        m = session_find_module(s, r->u.module_loaded.module_id);
        if (m) {
            FUZZ_REQUIRE(m->module_id == r->u.module_loaded.module_id);
            sink += (m->path ? strlen(m->path) : 0) + (m->assembly ? strlen(m->assembly) : 0);
        }
        break;
    case WIRE_THREAD_CREATED:
    case WIRE_THREAD_DESTROYED:
    case WIRE_THREAD_OS_ID:
    case WIRE_THREAD_NAME:
        t = session_find_thread(s, r->u.thread.thread_id);
        if (t) {
            FUZZ_REQUIRE(t->thread_id == r->u.thread.thread_id);
            FUZZ_REQUIRE(t->jit_depth <= SESSION_JIT_NESTING);
            sink += t->name ? strlen(t->name) : 0;
        }
        break;
    default: break;
    }
    if (s->events.last_seq) {
        const eventlog_entry *e = eventlog_at(&s->events, s->events.last_seq);
        FUZZ_REQUIRE(e && e->seq == s->events.last_seq);
        FUZZ_REQUIRE(eventlog_at(&s->events, eventlog_first_seq(&s->events)) != NULL);
    }
    (void)sink;
}

/* The frame re-encoded by proto/wire_encode.c (its payload as the fixed part)
 * is the same bytes: the encoder and the decoder agree on the header. */
static void fuzz_round_trip(const wire_frame *f, const uint8_t *bytes, size_t used)
{
    uint8_t *copy = malloc(used);
    size_t n;

    FUZZ_REQUIRE(copy != NULL);
    FUZZ_REQUIRE(wire_encode_bound(f->header.length, 0, NULL, 0) == used);
    n = wire_encode(copy, &f->header, f->payload, f->header.length, NULL, 0, NULL, 0);
    FUZZ_REQUIRE(n == used && memcmp(copy, bytes, used) == 0);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char token[WIRE_TOKEN_LEN + 1] = "00000000000000000000000000000000";
    const uint8_t *buf = data;
    size_t len = size, off = 0;
    int bound = 0;
    session *s;

    if (size >= WIRE_TOKEN_LEN) {
        memcpy(token, data, WIRE_TOKEN_LEN);
        buf += WIRE_TOKEN_LEN;
        len -= WIRE_TOKEN_LEN;
    }
    s = session_new(1, SESSION_MODE_ATTACH, 0, "fuzz", token);
    if (!s)
        return 0;
    for (;;) {
        wire_frame f;
        wire_record r;
        size_t used = (size_t)-1, used2;
        const char *why = NULL;
        uint64_t refused;
        int rc = wire_decode_frame(buf + off, len - off, &f, &used, &why);

        if (rc == WIRE_DECODE_NEED_MORE)
            break;
        if (rc != WIRE_DECODE_OK) {
            FUZZ_REQUIRE(rc == WIRE_DECODE_BAD && why != NULL);
            break;
        }
        FUZZ_REQUIRE(used >= sizeof(wire_frame_header) && used <= len - off);
        FUZZ_REQUIRE(used == sizeof(wire_frame_header) + f.header.length);
        FUZZ_REQUIRE(f.header.length <= WIRE_MAX_PAYLOAD);
        FUZZ_REQUIRE(f.payload == buf + off + sizeof(wire_frame_header));
        /* one byte less of the same frame is not enough */
        FUZZ_REQUIRE(wire_decode_frame(buf + off, used - 1, &(wire_frame){0}, &used2, &why) ==
                     WIRE_DECODE_NEED_MORE);
        fuzz_round_trip(&f, buf + off, used);
        off += used;
        why = NULL;
        rc = wire_decode_record(&f, &r, &why);
        if (rc != WIRE_DECODE_OK) {
            FUZZ_REQUIRE(rc == WIRE_DECODE_BAD && why != NULL);
            break;
        }
        fuzz_check_record(&f, &r);
        if (!bound && r.type != WIRE_HELLO)
            break; /* the link refuses a connection that does not start with a hello */
        why = NULL;
        refused = s->records_refused;
        rc = session_apply(s, &r, 1700000000000000000ll + (int64_t)off, &why);
        if (rc == SESSION_REFUSED) { /* inconsistent: counted, the connection goes on */
            FUZZ_REQUIRE(s->records_refused == refused + 1 && s->refused_why != NULL);
            continue;
        }
        if (rc != 0) {
            FUZZ_REQUIRE(rc == -1 && why != NULL);
            break;
        }
        FUZZ_REQUIRE(s->records_refused == refused);
        if (r.type == WIRE_DROPS) /* what the checks let through is possible */
            FUZZ_REQUIRE(s->drops.ring_used <= s->ring_bytes &&
                         s->drops.dropped[WIRE_DROP_RING_FULL] +
                                 s->drops.dropped[WIRE_DROP_TOO_LARGE] +
                                 s->drops.dropped[WIRE_DROP_NO_SERVER] +
                                 s->drops.dropped[WIRE_DROP_SHUTDOWN] <=
                             s->drops.produced &&
                         s->drops.dropped[WIRE_DROP_SLOW_SERVER] >= s->seq_gaps);
        if (r.type == WIRE_HELLO) {
            FUZZ_REQUIRE(memcmp(r.u.hello.token, s->token, WIRE_TOKEN_LEN) == 0);
            bound = 1;
        }
        fuzz_read_back(s, &r);
        if (r.type == WIRE_STACK_END || r.type == WIRE_PROFILE_STATUS || r.type == WIRE_GC_FINISHED)
            fuzz_check_state(s); /* where walks, samples and GCs are committed */
    }
    fuzz_check_state(s);
    FUZZ_REQUIRE(off <= len);
    session_mark_ended(s, 1800000000000000000ll);
    session_free(s);
    return 0;
}
