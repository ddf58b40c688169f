/* codeview.h -- a method's code replies as the code view shows them.
 *
 * GET /api/sessions/{id}/functions/{fid}/code (api_code.c) copies what it
 * needs out of the session under the sessions lock (codeview_take: the reply
 * with its own buffers, the compilation each version came from, the names of
 * the methods the code calls and of the methods inlined into it), then, with
 * the lock released, disassembles each version (disasm.h) and annotates every
 * instruction: the call or jump target by name (a method of the session, a
 * native function or library offset of the process via procsyms.h while it
 * runs, or a label inside the method), the IL offset from the version's
 * IL-to-native map, the samples of the session's newest profile there
 * (codeheat.h). A call whose code does not give its target (through a
 * register, or a stub to a method the session does not know) is named from
 * the IL call at its IL offset (callnames.h), from the module's file. Versions come in the order they were compiled, code the
 * session never saw compiled (ReadyToRun, or compiled before an attach) first.
 */
#ifndef JITSCOPE_CODEVIEW_H
#define JITSCOPE_CODEVIEW_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "code.h"
#include "codeheat.h"
#include "disasm.h"
#include "ilcalls.h"
#include "procsyms.h"
#include "session.h"
#include "symbols.h"
#include "textbuf.h"

#define CODEVIEW_NONE UINT32_MAX /* ref_sym: the reference names no method of the session */

typedef struct codeview_version {
    unsigned index;     /* in the reply */
    int ordinal;        /* compilation of the function (0 first), -1: not seen compiled */
    int compiled;       /* the compilation's fields below are known */
    uint32_t tier;      /* wire_tier */
    int64_t time_ns;    /* when it finished (wall clock) */
    uint64_t jit_ns;    /* how long the JIT took */
    uint32_t *ref_sym;  /* per reference: index in syms of the method it names, or UINT32_MAX */
    uint32_t *inlinees; /* indices in syms: callees inlined into this compilation */
    uint32_t inlinee_count;
    int inlining_known; /* inlinees lists what was inlined (or the tier inlines nothing) */
} codeview_version;

typedef struct codeview {
    uint64_t function_id;
    char *name, *module;
    pid_t pid; /* the process, while it runs (native names come from it); 0 when gone */
    disasm_arch arch;
    code_reply reply; /* a copy, with buffers of its own */
    codeview_version versions[WIRE_CODE_MAX_VERSIONS];
    unsigned order[WIRE_CODE_MAX_VERSIONS]; /* indices of versions, in compilation order */
    uint32_t compilations;                  /* the function's compilations seen live */
    uint8_t r2r;                            /* code_r2r_bits */
    int catchup;                            /* the function was known from catch-up */
    uint32_t inlined_into;                  /* distinct methods it was inlined into */
    uint32_t inlined_sites;                 /* inline records naming it as callee */
    symbols syms;
    codeheat heat;            /* the session's newest profile's samples in this code */
    char *module_path;        /* the module's file, as the process sees it (NULL: none) */
    int files_gone;           /* the process ran in a container that has ended */
    int il_module_tried;      /* il_module opened (or tried), on the first call to name */
    ilcalls_module il_module; /* its metadata: calls named from the IL (callnames.h) */
} codeview;

/* Caller holds the sessions lock. 0, or -1 when out of memory. */
int codeview_take(codeview *v, session *s, const session_function *f, const code_reply *r,
                  pid_t live_pid);
void codeview_free(codeview *v);

/* {"function_id", ..., "versions": [...]}; ps may be NULL (no process). NULL
 * when out of memory or the code does not decode at all. */
json_t *codeview_json(codeview *v, procsyms *ps);

/* Each instruction of version vi (the reply's index), in address order: its
 * IL offset by the version's IL-to-native map (UINT32_MAX: none; the map's
 * own 0xFFFFFFFE prolog, 0xFFFFFFFD epilog) and its samples. *out malloc'd.
 * 0, or -1 (out of memory, or the code does not decode). */
typedef struct codeview_il_insn {
    uint32_t il_offset;
    uint64_t self, total;
} codeview_il_insn;
int codeview_il_insns(const codeview *v, unsigned vi, codeview_il_insn **out, size_t *count);

/* The JIT-like listing; il: interleave IL offsets. 0, or -1 (out's cap). */
int codeview_text(codeview *v, procsyms *ps, int il, textbuf *out);

#endif
