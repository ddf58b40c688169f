/* test_code.c -- unit tests for the code view's server side: disasm.c
 * (x86-64 and arm64 bytes to instructions with their control transfers,
 * undecodable bytes kept as data), procsyms.c (/proc maps text, this test's
 * own ELF symbols), code.c (code replies assembled from their pieces, pieces
 * out of order or past their declared sizes refused and counted, replies kept
 * within their caps, versions seen, inlining chains, ReadyToRun bits, all of
 * it through a snapshot and back), and codeview.c (a session's versions
 * matched to their compilations by start, in compilation order with tier and
 * JIT time; call targets named from the agent's references, a precode's hint
 * only when the session knows that method; IL offsets from the map; the text
 * listing).
 * Build: make build/tests/test_code && build/tests/test_code
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "code.h"
#include "codeview.h"
#include "disasm.h"
#include "procsyms.h"
#include "record_kinds.h"
#include "records.h"
#include "snapshot.h"
#include "views.h"

/* ---- disasm ---- */

TEST(disasm_x86_transfers)
{
    /* push rbp; mov rbp,rsp; call +0; call [rip+0x10]; jne -2; (bad) 0x06; ret */
    static const uint8_t code[] = {0x55, 0x48, 0x89, 0xe5, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xff,
                                   0x15, 0x10, 0x00, 0x00, 0x00, 0x75, 0xfe, 0x06, 0xc3};
    disasm_insn *in = NULL;
    size_t n = 0;

    CHECK(disasm_run(DISASM_X86_64, code, sizeof(code), 0x1000, &in, &n) == 0 && n == 7,
          "7 entries (%zu)", n);
    if (n != 7)
        goto out;
    CHECK(strcmp(in[0].mnemonic, "push") == 0 && in[0].flags == 0, "push, no transfer");
    CHECK((in[2].flags & DISASM_CALL) && in[2].target == 0x1009 && in[2].offset == 4,
          "call rel32: target 0x1009 (%llx)", (unsigned long long)in[2].target);
    CHECK((in[3].flags & DISASM_CALL) && in[3].cell == 0x1000 + 9 + 6 + 0x10 && !in[3].target,
          "call [rip+0x10]: its cell (%llx)", (unsigned long long)in[3].cell);
    CHECK((in[4].flags & (DISASM_JUMP | DISASM_COND)) == (DISASM_JUMP | DISASM_COND) &&
              in[4].target == 0x100f,
          "jne: conditional, to itself");
    CHECK((in[5].flags & DISASM_BAD) && in[5].size == 1 && strcmp(in[5].mnemonic, ".byte") == 0,
          "an invalid byte is kept as data");
    CHECK((in[6].flags & DISASM_RET) && in[6].offset == 18, "ret at the end");
out:
    free(in);
}

TEST(disasm_arm64_transfers)
{
    /* bl +8; b.eq +8; cbz x0, +8; ret */
    static const uint32_t words[] = {0x94000002u, 0x54000040u, 0xb4000040u, 0xd65f03c0u};
    disasm_insn *in = NULL;
    size_t n = 0;

    CHECK(disasm_run(DISASM_ARM64, (const uint8_t *)words, sizeof(words), 0x2000, &in, &n) == 0 &&
              n == 4,
          "4 instructions");
    if (n == 4) {
        CHECK((in[0].flags & DISASM_CALL) && in[0].target == 0x2008, "bl: a call to 0x2008");
        CHECK((in[1].flags & DISASM_COND) && in[1].target == 0x200c, "b.eq: conditional");
        CHECK((in[2].flags & DISASM_COND) && in[2].target == 0x2010, "cbz: conditional");
        CHECK(in[3].flags & DISASM_RET, "ret");
    }
    free(in);
    CHECK(strcmp(disasm_arch_name(DISASM_ARM64), "arm64") == 0, "named");
}

/* ---- procsyms ---- */

TEST(procsyms_maps_text)
{
    static const char text[] =
        "7f0000000000-7f0000001000 r-xp 00002000 08:01 1234    /usr/lib/libx.so\n"
        "7f0000001000-7f0000002000 rw-p 00000000 00:00 0 \n"
        "7f0000002000-7f0000003000 r-xp 00000000 00:05 77   /tmp/a dir/My App.dll\n"
        "garbage line\n"
        "7f0000004000-7f0000003000 r-xp 0 0 0 /backwards\n"
        "7f0000005000-7f0000006000 r-xs 00000000 00:01 9    /memfd:doublemapper (deleted)";
    procsyms p;
    char name[256];
    int rc = procsyms_parse_maps(&p, text, sizeof(text) - 1);

    CHECK(rc == 0 && p.maps.count == 3, "3 executable mappings in 6 lines (%zu)", p.maps.count);
    CHECK(p.maps.entries[0].offset == 0x2000 &&
              strcmp(procmaps_path(&p.maps, &p.maps.entries[0]), "/usr/lib/libx.so") == 0,
          "a library mapping");
    CHECK(strcmp(procmaps_path(&p.maps, &p.maps.entries[1]), "/tmp/a dir/My App.dll") == 0,
          "a path with spaces");
    CHECK(procsyms_name(&p, 0x7f0000000010ull, name, sizeof(name)) == PROCSYMS_FILE &&
              strcmp(name, "libx.so+0x2010") == 0,
          "a library that is not there: file and offset (%s)", name);
    CHECK(procsyms_name(&p, 0x7f0000001010ull, name, sizeof(name)) == PROCSYMS_UNKNOWN && !name[0],
          "data, not code");
    CHECK(procsyms_name(&p, 0x7f0000002010ull, name, sizeof(name)) == PROCSYMS_IMAGE &&
              strcmp(name, "My App.dll+0x10") == 0,
          "a managed image: ReadyToRun code (%s)", name);
    CHECK(procsyms_name(&p, 0x7f0000005008ull, name, sizeof(name)) == PROCSYMS_ANON,
          "double-mapped code: the runtime's (%s)", name);
    CHECK(procsyms_name(&p, 0x1000, name, sizeof(name)) == PROCSYMS_UNKNOWN && !name[0],
          "nothing maps it");
    procsyms_close(&p);
}

/* A target can put a FIFO where a deleted library it mapped was: naming an
 * address in that mapping must not block the server's thread on open(). */
TEST(procsyms_never_blocks_on_a_fifo)
{
    char dir[] = "/tmp/jitscope-fifo-XXXXXX", fifo[64], text[256], name[256];
    procsyms p;
    pid_t child;
    int status = -1, waited;

    if (!CHECK(mkdtemp(dir) != NULL, "a directory"))
        return;
    snprintf(fifo, sizeof(fifo), "%s/lib.so", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "a FIFO named like a library");
    snprintf(text, sizeof(text), "7f0000000000-7f0000001000 r-xp 00000000 00:05 77   %s\n", fifo);
    CHECK(procsyms_parse_maps(&p, text, strlen(text)) == 0 && p.maps.count == 1, "its mapping");
    fflush(NULL);
    if ((child = fork()) == 0) /* a blocked open would hang the child, not the suite */
        _exit(procsyms_name(&p, 0x7f0000000010ull, name, sizeof(name)) == PROCSYMS_FILE ? 0 : 1);
    for (waited = 0; waited < 500 && waitpid(child, &status, WNOHANG) == 0; waited++)
        usleep(10000);
    if (waited == 500) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
    }
    CHECK(waited < 500 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "named by file and offset at once, the FIFO not opened for reading (%d ms)", waited * 10);
    procsyms_close(&p);
    unlink(fifo);
    rmdir(dir);
}

__attribute__((noinline)) int procsyms_probe_function(int x) { return x * 7 + 3; }

TEST(procsyms_names_this_process)
{
    procsyms p;
    char name[256];
    int kind;

    CHECK(procsyms_open(&p, getpid()) == 0 && p.maps.count > 2, "our own maps");
    kind = procsyms_name(&p, (uint64_t)(uintptr_t)procsyms_probe_function + 2, name, sizeof(name));
    CHECK(kind == PROCSYMS_FILE && strstr(name, "test_code!procsyms_probe_function+0x2"),
          "a function of this binary by its ELF symbol (%s)", name);
    kind = procsyms_name(&p, (uint64_t)(uintptr_t)strlen, name, sizeof(name));
    CHECK(kind == PROCSYMS_FILE && strstr(name, ".so"), "a library's export (%s)", name);
    procsyms_close(&p);
    CHECK(procsyms_open(&p, 0x7ffffff0) != 0, "no such process");
}

/* ---- code.c: replies ---- */

#define FID_HOT 0x7f0000001000ull
#define FID_LEAF 0x7f0000001040ull
#define FID_UNKNOWN 0x7f00000010c0ull
#define MODULE 0x7f0000200000ull
#define TID 0x7f00000a0000ull

static wire_record code_version_rec(uint64_t request, uint32_t index, uint64_t start, uint32_t size,
                                    uint32_t maps, uint32_t refs)
{
    return rec_code_version((wire_code_version_info){request, FID_HOT, 0, start, 0, size, 0, index,
                                                     size, maps, maps, refs, 0, 0, 0},
                            REC_MONO + 9000);
}

static wire_record code_part_rec(uint64_t request, uint32_t index, uint16_t kind, uint32_t offset,
                                 const void *data, uint32_t length)
{
    return rec_code_part((wire_code_part){request, index, kind, 0, offset, 0}, data, length,
                         REC_MONO + 9001);
}

static wire_record code_end_rec(uint64_t request, uint32_t status, uint32_t versions,
                                uint32_t il_size)
{
    return rec_code_end((wire_code_end){request, FID_HOT, MODULE, 5000, 0, status, 0, versions,
                                        versions, il_size, il_size, 0x06000001u, 0},
                        REC_MONO + 9002);
}

/* One piece of a code reply into c, by its kind (CODE_END: filed under `function`). */
static void reply_piece(code_state *c, const wire_record *r, uint32_t function, int64_t now_ns)
{
    if (r->type == WIRE_CODE_VERSION)
        code_apply_reply_version(c, &r->u.code_version, now_ns);
    else if (r->type == WIRE_CODE_PART)
        code_apply_reply_part(c, r, now_ns);
    else
        code_apply_reply_end(c, &r->u.code_end, function, now_ns);
}

TEST(replies_assembled_checked_and_kept)
{
    code_state c;
    static const uint8_t bytes[4] = {0x55, 0x48, 0x89, 0xe5};
    wire_code_map_entry map[2] = {{0xFFFFFFFEu, 0, 1}, {0, 1, 4}};
    wire_record r;
    const code_reply *got;
    unsigned i;

    code_init(&c);
    r = code_version_rec(1, 0, 0x5000, 4, 2, 0);
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(1, 0, WIRE_CODE_PART_CODE, 0, bytes, 2);
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(1, 0, WIRE_CODE_PART_CODE, 2, bytes + 2, 2);
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(1, 0, WIRE_CODE_PART_MAP, 0, map, sizeof(map));
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(1, WIRE_CODE_IL_INDEX, WIRE_CODE_PART_IL, 0, "\x02\x2a", 2);
    reply_piece(&c, &r, 3, REC_NOW);
    CHECK(!code_reply_find(&c, 1, CODE_NONE), "not complete before its END");
    r = code_end_rec(1, WIRE_CODE_OK, 1, 2);
    reply_piece(&c, &r, 3, REC_NOW);
    got = code_reply_find(&c, 1, CODE_NONE);
    CHECK(got && !got->broken && got->version_count == 1 && got->versions[0].code_have == 4 &&
              memcmp(got->versions[0].code, bytes, 4) == 0 && got->versions[0].map_have == 2 &&
              got->il_have == 2,
          "a whole reply: bytes, map and IL");
    CHECK(code_reply_find(&c, 0, 3) == got && !code_reply_find(&c, 0, 4), "found by function");
    CHECK(c.replies_done == 1 && c.pieces_dropped == 0, "counted");

    /* pieces out of order, past their sizes, for replies never begun */
    r = code_version_rec(2, 0, 0x6000, 4, 0, 0);
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(2, 0, WIRE_CODE_PART_CODE, 2, bytes, 2); /* not from 0 */
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(2, 0, WIRE_CODE_PART_MAP, 0, map, sizeof(map)); /* none announced */
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(2, 5, WIRE_CODE_PART_CODE, 0, bytes, 2); /* no such version */
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_version_rec(2, 3, 0x6100, 4, 0, 0); /* index out of order */
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(99, 0, WIRE_CODE_PART_CODE, 0, bytes, 2); /* no such reply */
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_end_rec(2, WIRE_CODE_OK, 1, 0);
    reply_piece(&c, &r, 3, REC_NOW);
    got = code_reply_find(&c, 2, CODE_NONE);
    CHECK(got && got->broken && c.pieces_dropped == 5 && c.replies_broken == 1,
          "a damaged reply is kept, marked, and what was refused counted (%llu)",
          (unsigned long long)c.pieces_dropped);
    CHECK(code_reply_find(&c, 0, 3)->request_id == 2, "the newest reply of the function");

    /* a refusal: an END alone */
    r = code_end_rec(3, WIRE_CODE_STALE, 0, 0);
    r.u.code_end.refused = 1;
    reply_piece(&c, &r, 3, REC_NOW);
    CHECK(code_reply_find(&c, 3, CODE_NONE) && c.replies_refused == 1 && c.agent_refused == 1,
          "a refusal is a reply of its own, counted");
    CHECK(code_reply_find(&c, 0, 3)->request_id == 2, "and never the code of its function");

    /* at most CODE_KEEP_REPLIES complete replies, the oldest go */
    for (i = 0; i < CODE_KEEP_REPLIES + 10; i++) {
        r = code_end_rec(100 + i, WIRE_CODE_FAILED, 0, 0);
        reply_piece(&c, &r, 7, REC_NOW);
    }
    CHECK(c.reply_count <= CODE_KEEP_REPLIES + CODE_PENDING && !code_reply_find(&c, 1, CODE_NONE) &&
              code_reply_find(&c, 100 + CODE_KEEP_REPLIES + 9, CODE_NONE) && c.replies_evicted > 0,
          "kept within the cap, oldest first (%u kept)", c.reply_count);
    code_free(&c);
}

/* The IL's size comes only with the END, so its parts are appended as they come: an agent that
 * sends the largest IL allowed one byte at a time gets it assembled whole, in linear time (the
 * buffer doubles; copying everything so far for each part was 8 GB of copies for 128 KiB), and
 * the reply's accounted bytes stay within twice the IL. */
TEST(il_in_many_small_parts)
{
    code_state c;
    wire_record r;
    const code_reply *got;
    uint8_t byte;
    uint32_t i;
    int same = 1;
    struct timespec cpu0, cpu1;
    double cpu_s;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
    code_init(&c);
    r = code_version_rec(1, 0, 0x5000, 4, 0, 0);
    reply_piece(&c, &r, 3, REC_NOW);
    r = code_part_rec(1, 0, WIRE_CODE_PART_CODE, 0, "\x55\x48\x89\xe5", 4);
    reply_piece(&c, &r, 3, REC_NOW);
    for (i = 0; i < WIRE_CODE_MAX_IL; i++) {
        byte = (uint8_t)(i * 7u);
        r = code_part_rec(1, WIRE_CODE_IL_INDEX, WIRE_CODE_PART_IL, i, &byte, 1);
        reply_piece(&c, &r, 3, REC_NOW);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
    cpu_s = (double)(cpu1.tv_sec - cpu0.tv_sec) + (double)(cpu1.tv_nsec - cpu0.tv_nsec) / 1e9;
    /* CPU time, not wall time: a loaded machine does not change it (0.01 s; 7 s with a copy
     * of everything so far per part) */
    CHECK(cpu_s < 2.0, "%u parts took %.3f s of CPU", WIRE_CODE_MAX_IL, cpu_s);
    CHECK(c.reply_bytes <= 4 + 2u * WIRE_CODE_MAX_IL, "held: %zu bytes", (size_t)c.reply_bytes);
    r = code_end_rec(1, WIRE_CODE_OK, 1, WIRE_CODE_MAX_IL);
    reply_piece(&c, &r, 3, REC_NOW);
    got = code_reply_find(&c, 1, CODE_NONE);
    CHECK(got && !got->broken && got->il_have == WIRE_CODE_MAX_IL, "the whole IL");
    for (i = 0; got && i < got->il_have; i++)
        same &= got->il[i] == (uint8_t)(i * 7u);
    CHECK(same && c.pieces_dropped == 0, "byte for byte, in order, nothing refused");
    code_free(&c);
}

/* The largest code a version may carry, every instruction a jump to the next (each a label)
 * and the largest map: the view and the listing take one pass and a sort, not a search of
 * every label and map entry per instruction (minutes of CPU before). */
TEST(a_big_method_is_listed_in_linear_time)
{
    session *s = rec_live_session(1);
    const uint32_t size = WIRE_CODE_MAX_VERSION_BYTES, maps = WIRE_CODE_MAX_MAP;
    uint8_t *code = malloc(size);
    wire_code_map_entry *map = malloc((size_t)maps * sizeof(*map));
    const uint64_t start = 0x7f1000000000ull;
    uint64_t t = REC_MONO + 100;
    const session_function *f;
    const code_reply *r;
    struct timespec cpu0, cpu1;
    double cpu_s;
    codeview v;
    textbuf out;
    json_t *o;
    char *text;
    size_t len;
    uint32_t i;
    wire_record rec;

    CHECK(code && map, "memory");
    if (!code || !map)
        goto done;
    for (i = 0; i < size; i += 2) {
        code[i] = 0x75; /* jne rel8 +0: to the next instruction */
        code[i + 1] = 0x00;
    }
    for (i = 0; i < maps; i++)
        map[i] = (wire_code_map_entry){i, i * 16, i * 16 + 16};
    rec_apply(s, rec_module_loaded(MODULE, "/app/App.dll", "App", 0, t++));
    rec_apply(s, rec_function_name(FID_HOT, MODULE, "Ns.C.Big()", 0));
    rec_apply(s, rec_jit_started(FID_HOT, TID, t));
    rec = rec_jit_finished(FID_HOT, TID, start, size, t + 1000, 0);
    rec.u.jit_finished.tier = WIRE_TIER_1;
    rec_apply(s, rec);
    rec_apply(s, code_version_rec(7, 0, start, size, maps, 0));
    for (i = 0; i < size; i += WIRE_CODE_CHUNK)
        rec_apply(s, code_part_rec(7, 0, WIRE_CODE_PART_CODE, i, code + i,
                                   size - i < WIRE_CODE_CHUNK ? size - i : WIRE_CODE_CHUNK));
    for (i = 0; i < maps; i += 4096)
        rec_apply(s, code_part_rec(7, 0, WIRE_CODE_PART_MAP, i * (uint32_t)sizeof(*map), map + i,
                                   4096 * (uint32_t)sizeof(*map)));
    rec_apply(s, code_end_rec(7, WIRE_CODE_OK, 1, 0));
    f = session_find_function(s, FID_HOT);
    r = code_reply_find(&s->code, 7, CODE_NONE);
    CHECK(f && r && !r->broken && r->versions[0].code_have == size &&
              r->versions[0].map_have == maps,
          "the reply arrived whole");
    if (!f || !r || codeview_take(&v, s, f, r, 0) != 0)
        goto done;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
    o = codeview_json(&v, NULL);
    textbuf_init(&out, 64u << 20);
    CHECK(codeview_text(&v, NULL, 1, &out) == 0, "a listing");
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
    cpu_s = (double)(cpu1.tv_sec - cpu0.tv_sec) + (double)(cpu1.tv_nsec - cpu0.tv_nsec) / 1e9;
    text = textbuf_take(&out, &len);
    CHECK(o && json_array_size(json_object_get(json_array_get(json_object_get(o, "versions"), 0),
                                               "instructions")) == size / 2,
          "every instruction in the view");
    CHECK(text && strstr(text, "L_1000:\n") && strstr(text, "; IL_0100\n") &&
              strstr(text, "; IL_3FFF\n"),
          "labels and IL offsets in the listing");
    /* CPU time, not wall time: the machine's load does not change it */
    CHECK(cpu_s < 8.0, "%u instructions took %.1f s of CPU (1.4 s here; 23 s before)", size / 2,
          cpu_s);
    free(text);
    textbuf_free(&out);
    json_decref(o);
    codeview_free(&v);
done:
    free(code);
    free(map);
    session_free(s);
}

TEST(versions_inlines_and_ready_to_run)
{
    code_state c;
    const code_seen *e;
    const code_inline *in;
    unsigned n = 0;

    code_init(&c);
    code_note_version(&c, 4, 0x9000, 100, CODE_NO_ORDINAL); /* catch-up first */
    code_note_version(&c, 4, 0x9000, 0, 0);                 /* then a compilation says it is #1 */
    code_note_version(&c, 4, 0xA000, 50, 1);
    code_note_version(&c, 4, 0, 10, 2); /* no start: ignored */
    e = code_seen_find(&c, 4, 0x9000);
    CHECK(e && e->ordinal == 0 && e->size == 100, "a repeat fills in, never adds");
    for (e = code_seen_first(&c, 4); e; e = e->next ? &c.seen[e->next - 1] : NULL)
        n++;
    CHECK(n == 2 && code_seen_first(&c, 4)->start == 0xA000, "two versions, newest first");
    CHECK(!code_seen_first(&c, 5) && !code_seen_first(&c, 1u << 30), "none for others");

    code_note_inline(&c, 4, 1, 4, 9, 0);
    code_note_inline(&c, 4, 1, 9, 10, 0); /* nested: 10 inlined at 9's call site */
    code_note_inline(&c, 6, 0, 6, 9, 0);
    code_note_inline(&c, CODE_NONE, 0, 6, 9, 0);
    n = 0;
    for (in = code_inlines_of_root(&c, 4); in; in = code_inline_next(&c, in->next_root))
        n++;
    CHECK(n == 2, "two inlines in function 4's compilations");
    n = 0;
    for (in = code_inlines_of_callee(&c, 9); in; in = code_inline_next(&c, in->next_callee))
        n++;
    CHECK(n == 2 && c.inlines_dropped == 1 && c.inline_records == 4,
          "9 went into two compilations; a record without its root is counted");

    code_note_search(&c, 4, WIRE_SEARCH_STARTED);
    code_note_search(&c, 5, WIRE_SEARCH_STARTED);
    code_note_search(&c, 5, WIRE_SEARCH_FOUND);
    code_note_search(&c, 5, WIRE_SEARCH_FOUND);
    CHECK(code_r2r(&c, 4) == CODE_R2R_HAS && code_r2r(&c, 5) == (CODE_R2R_HAS | CODE_R2R_USED) &&
              code_r2r(&c, 6) == 0 && c.r2r_found == 1,
          "ReadyToRun: had it, used it, counted once");
    CHECK(code_memory(&c) > 0, "memory counted");
    code_free(&c);
}

/* ---- a session, its code view, its snapshot ---- */

static const uint8_t HOT_TIER0[] = {
    0x55,                               /* push rbp */
    0xff, 0x15, 0x10, 0x00, 0x00, 0x00, /* call [rip+0x10]: CodeLeaf */
    0xff, 0x15, 0x20, 0x00, 0x00, 0x00, /* call [rip+0x20]: an unknown method's precode */
    0xe8, 0x00, 0x10, 0x00, 0x00,       /* call rel32: a native helper */
    0x75, 0xec,                         /* jne 0 */
    0xc3};                              /* ret */

static session *code_session(void)
{
    session *s = rec_live_session(1);
    wire_record r;
    wire_code_ref refs[3];
    wire_code_map_entry map[2] = {{0xFFFFFFFEu, 0, 1}, {6, 1, 13}};
    uint64_t t = REC_MONO + 100, t0 = 0x7f1000000000ull, t1 = 0x7f1000010000ull;

    rec_apply(s, rec_module_loaded(MODULE, "/app/App.dll", "App", 0, t++));
    rec_apply(s, rec_thread(WIRE_THREAD_CREATED, TID, 101, 0, NULL, t++));
    rec_apply(s, rec_function_name(FID_HOT, MODULE, "Ns.C.Hot(int)", 0));
    rec_apply(s, rec_function_name(FID_LEAF, MODULE, "Ns.C.Leaf(int)", 0));
    /* Hot: Tier0, then Tier1 (which inlines Leaf) */
    rec_apply(s, rec_jit_started(FID_HOT, TID, t));
    r = rec_jit_finished(FID_HOT, TID, t0, sizeof(HOT_TIER0), t + 500000, 0);
    r.u.jit_finished.tier = WIRE_TIER_0;
    rec_apply(s, r);
    t += 1000000;
    rec_apply(s, rec_jit_started(FID_HOT, TID, t));
    rec_apply(s, rec_inlining(FID_HOT, FID_LEAF, TID, t + 10));
    r = rec_jit_finished(FID_HOT, TID, t1, 1, t + 2000000, 0);
    r.u.jit_finished.tier = WIRE_TIER_1;
    rec_apply(s, r);
    rec_apply(s, rec_code_search(FID_LEAF, WIRE_SEARCH_FOUND, t));
    /* the agent's reply: Tier1 first (the runtime's order), then Tier0 */
    rec_apply(s, code_version_rec(42, 0, t1, 1, 0, 0));
    rec_apply(s, code_part_rec(42, 0, WIRE_CODE_PART_CODE, 0, "\xc3", 1));
    rec_apply(s, code_version_rec(42, 1, t0, sizeof(HOT_TIER0), 2, 3));
    rec_apply(s, code_part_rec(42, 1, WIRE_CODE_PART_CODE, 0, HOT_TIER0, sizeof(HOT_TIER0)));
    rec_apply(s, code_part_rec(42, 1, WIRE_CODE_PART_MAP, 0, map, sizeof(map)));
    memset(refs, 0, sizeof(refs));
    refs[0] = (wire_code_ref){t0 + 7 + 0x10,
                              0x7f2000000000ull,
                              0x7f2000000100ull,
                              FID_LEAF,
                              0,
                              WIRE_CODE_REF_INDIRECT | WIRE_CODE_REF_THUNK,
                              0};
    refs[1] = (wire_code_ref){t0 + 13 + 0x20,
                              0x7f2000000200ull,
                              0x7f3000000000ull,
                              0,
                              FID_UNKNOWN,
                              WIRE_CODE_REF_INDIRECT | WIRE_CODE_REF_THUNK,
                              0};
    refs[2] = (wire_code_ref){
        t0 + 18 + 0x1000, t0 + 18 + 0x1000, t0 + 18 + 0x1000, 0, 0, WIRE_CODE_REF_DIRECT, 0};
    rec_apply(s, code_part_rec(42, 1, WIRE_CODE_PART_REFS, 0, refs, sizeof(refs)));
    rec_apply(s, code_end_rec(42, WIRE_CODE_OK, 2, 0));
    return s;
}

TEST(view_orders_matches_and_names)
{
    session *s = code_session();
    const session_function *f = session_find_function(s, FID_HOT);
    const code_reply *r = code_reply_find(&s->code, 42, CODE_NONE);
    codeview v;
    json_t *o, *t0, *t1, *ins;
    textbuf out;
    char *text;
    size_t len;

    CHECK(f && r && !r->broken, "the reply arrived whole");
    if (!f || !r)
        return;
    CHECK(codeview_take(&v, s, f, r, 0) == 0, "copied out");
    o = codeview_json(&v, NULL);
    t0 = json_array_get(json_object_get(o, "versions"), 0);
    t1 = json_array_get(json_object_get(o, "versions"), 1);
    CHECK(o && json_array_size(json_object_get(o, "versions")) == 2, "two versions");
    CHECK(strcmp(json_string_value(json_object_get(t0, "tier")), "Tier0") == 0 &&
              json_integer_value(json_object_get(t0, "compilation")) == 1 &&
              strcmp(json_string_value(json_object_get(t1, "tier")), "Tier1") == 0 &&
              json_integer_value(json_object_get(t1, "compilation")) == 2,
          "in compilation order, with their tiers, whatever the runtime's order");
    CHECK(json_real_value(json_object_get(t0, "jit_ms")) > 0.49 &&
              json_real_value(json_object_get(t0, "jit_ms")) < 0.51,
          "Tier0's JIT time (%.3f ms)", json_real_value(json_object_get(t0, "jit_ms")));
    ins = json_object_get(t0, "instructions");
    CHECK(json_array_size(ins) == 6, "six instructions (%zu)", json_array_size(ins));
    CHECK(strcmp(json_string_value(
                     json_object_get(json_object_get(json_array_get(ins, 1), "target"), "name")),
                 "Ns.C.Leaf(int)") == 0,
          "call [cell]: the method the agent found");
    CHECK(strcmp(json_string_value(
                     json_object_get(json_object_get(json_array_get(ins, 2), "target"), "kind")),
                 "native") == 0,
          "a precode's hint the session does not know: not taken for a name");
    CHECK(strcmp(json_string_value(
                     json_object_get(json_object_get(json_array_get(ins, 3), "target"), "kind")),
                 "native") == 0,
          "call rel32 to native code");
    CHECK(json_integer_value(
              json_object_get(json_object_get(json_array_get(ins, 4), "target"), "offset")) == 0,
          "jne: a local label");
    CHECK(strcmp(json_string_value(json_object_get(json_array_get(ins, 0), "il_offset")),
                 "prolog") == 0 &&
              json_integer_value(json_object_get(json_array_get(ins, 1), "il_offset")) == 6,
          "IL offsets from the map");
    CHECK(json_array_size(json_object_get(t1, "inlinees")) == 1 &&
              json_array_size(json_object_get(t0, "inlinees")) == 0,
          "Leaf inlined into the Tier1 compilation only");
    textbuf_init(&out, 1 << 20);
    CHECK(codeview_text(&v, NULL, 1, &out) == 0, "a listing");
    text = textbuf_take(&out, &len);
    CHECK(text && strstr(text, "; Assembly listing for method Ns.C.Hot(int) (Tier0)") &&
              strstr(text, "call     [Ns.C.Leaf(int)]") && strstr(text, "; IL_0006") &&
              strstr(text, "; Total bytes of code 21"),
          "JIT-like, with IL offsets");
    free(text);
    textbuf_free(&out);
    json_decref(o);
    codeview_free(&v);
    /* the leaf: inlined into one method; ReadyToRun used */
    f = session_find_function(s, FID_LEAF);
    CHECK(code_r2r(&s->code, (uint32_t)(f - s->functions)) & CODE_R2R_USED, "Leaf ran R2R code");
    session_free(s);
}

/* 1 when v is the string of digits `want`. */
static int same_digits(const json_t *v, const char *want)
{
    return json_is_string(v) && strcmp(json_string_value(v), want) == 0;
}

/* What the agent says of a reply (its time, a version's ReJIT id, its count
 * of refusals) is served exactly however large (views.h, view_count): an
 * integer up to 2^53 - 1, the exact digits above it. */
TEST(agent_numbers_served_exactly)
{
    session *s = code_session();
    const session_function *f = session_find_function(s, FID_HOT);
    const code_reply *r;
    wire_record v = code_version_rec(43, 0, 0x7f1000010000ull, 1, 0, 0), end;
    codeview cv;
    json_t *o, *detail;

    v.u.code_version.rejit_id = (1ull << 60) + 1;
    end = code_end_rec(43, WIRE_CODE_OK, 1, 0);
    end.u.code_end.elapsed_ns = (1ull << 63) + 5;
    end.u.code_end.refused = (1ull << 62) + 7;
    rec_apply(s, v);
    rec_apply(s, code_part_rec(43, 0, WIRE_CODE_PART_CODE, 0, "\xc3", 1));
    rec_apply(s, end);
    r = code_reply_find(&s->code, 43, CODE_NONE);
    CHECK(f && r && !r->broken, "the reply arrived whole");
    if (!f || !r) {
        session_free(s);
        return;
    }
    CHECK(codeview_take(&cv, s, f, r, 0) == 0, "copied out");
    o = codeview_json(&cv, NULL);
    CHECK(same_digits(json_object_get(o, "agent_ns"), "9223372036854775813"),
          "2^63 + 5 ns: the exact digits");
    CHECK(
        same_digits(json_object_get(json_array_get(json_object_get(o, "versions"), 0), "rejit_id"),
                    "1152921504606846977"),
        "a ReJIT id of 2^60 + 1: the exact digits");
    detail = view_session_detail(s);
    CHECK(same_digits(json_object_get(json_object_get(detail, "code"), "agent_refused"),
                      "4611686018427387911"),
          "the agent's refusal count of 2^62 + 7: the exact digits");
    json_decref(detail);
    json_decref(o);
    codeview_free(&cv);
    session_free(s);
}

static int snap_restore(session *s, const char *bytes, size_t n)
{
    snapshot_reader rd = {0};
    size_t off = 0;
    const char *why = NULL;

    while (off < n) {
        wire_frame f;
        size_t used;
        if (wire_decode_frame((const uint8_t *)bytes + off, n - off, &f, &used, &why) !=
                WIRE_DECODE_OK ||
            snapshot_apply(s, &rd, f.header.type, f.header.flags, f.payload, f.header.length,
                           &why) != 0)
            return -1;
        off += used;
    }
    return snapshot_finish(s, &rd, &why);
}

TEST(code_state_through_a_snapshot)
{
    session *s = code_session(), *back = session_new(1, SESSION_MODE_RUN, 999, "x", REC_TOKEN);
    textbuf out;
    char *bytes;
    size_t n;
    uint32_t hot, leaf;

    textbuf_init(&out, 1 << 26);
    CHECK(snapshot_encode(s, 0, &out) == 0, "encoded");
    bytes = textbuf_take(&out, &n);
    CHECK(bytes && snap_restore(back, bytes, n) == 0, "restored");
    hot = (uint32_t)(session_find_function(back, FID_HOT) - back->functions);
    leaf = (uint32_t)(session_find_function(back, FID_LEAF) - back->functions);
    CHECK(back->code.seen_count == s->code.seen_count &&
              code_seen_find(&back->code, hot, 0x7f1000010000ull) &&
              code_seen_find(&back->code, hot, 0x7f1000010000ull)->ordinal == 1,
          "versions seen, with their compilations");
    CHECK(back->code.inline_count == 1 && code_inlines_of_callee(&back->code, leaf) &&
              code_inlines_of_callee(&back->code, leaf)->root == hot,
          "inlining");
    CHECK(code_r2r(&back->code, leaf) == code_r2r(&s->code, leaf) &&
              back->code.r2r_found == s->code.r2r_found &&
              back->code.inline_records == s->code.inline_records,
          "ReadyToRun bits and counters");
    CHECK(back->code.reply_count == 0, "replies are not in the snapshot (their frames are kept)");
    CHECK(record_kind_is_observation(WIRE_CODE_VERSION) &&
              record_kind_is_observation(WIRE_CODE_PART) &&
              record_kind_is_observation(WIRE_CODE_END) &&
              !record_kind_is_observation(WIRE_INLINING),
          "the replies' frames are observations");
    free(bytes);
    textbuf_free(&out);
    session_free(s);
    session_free(back);
}

static const check_test tests[] = {TEST_ENTRY(disasm_x86_transfers),
                                   TEST_ENTRY(disasm_arm64_transfers),
                                   TEST_ENTRY(procsyms_maps_text),
                                   TEST_ENTRY(procsyms_names_this_process),
                                   TEST_ENTRY(procsyms_never_blocks_on_a_fifo),
                                   TEST_ENTRY(replies_assembled_checked_and_kept),
                                   TEST_ENTRY(il_in_many_small_parts),
                                   TEST_ENTRY(a_big_method_is_listed_in_linear_time),
                                   TEST_ENTRY(versions_inlines_and_ready_to_run),
                                   TEST_ENTRY(view_orders_matches_and_names),
                                   TEST_ENTRY(agent_numbers_served_exactly),
                                   TEST_ENTRY(code_state_through_a_snapshot),
                                   TEST_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
