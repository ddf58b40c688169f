/* callnames.h -- names for the call instructions of a code version whose
 * target its code does not give: a call through a register (a delegate's
 * Invoke, a virtual call through the method table, an interface call
 * through its dispatch cell in r11) or through a stub to a method the
 * session does not know (a precode of a method not compiled yet), from the
 * IL call at that instruction's IL offset.
 *
 * The IL-to-native map gives each instruction the IL offset of the
 * statement it belongs to, not of the call itself; so the calls of one IL
 * offset (all the native calls whose map entry has it, in code order) are
 * matched with the IL's call, callvirt and newobj instructions from that
 * offset to the map's next IL offset (in IL order). The calls already named
 * by their code anchor the match: a named call is matched with the next IL
 * call of the same method name, and between two anchors the unnamed calls
 * take the IL calls in order only when there are as many of each (a call
 * the JIT expanded or inlined away, or a call of an inlinee, which the map
 * gives the IL offset of its root's statement, makes them differ: then none
 * of them is named). A call through a register takes a callvirt only. Where
 * the IL offset's IL calls a method among the version's inlinees, the
 * inlinee's own calls are there too: only the calls through a register are
 * named there, from the callvirts (a virtual call the JIT inlined for the
 * type it guessed keeps its call through a register for the others).
 * Helpers (a native target) take no IL call. */
#ifndef JITSCOPE_CALLNAMES_H
#define JITSCOPE_CALLNAMES_H

#include <stdint.h>

#include "ilcalls.h"

#define CALLNAMES_MAX_SITES 4096u /* IL calls of one method looked at */

enum { CALLNAMES_HELPER, CALLNAMES_NAMED, CALLNAMES_UNNAMED };

/* One call instruction of a version, in code order. */
typedef struct callnames_call {
    uint32_t il_offset; /* its map entry's IL offset; UINT32_MAX and above: none */
    int kind;           /* CALLNAMES_* */
    int via_register;   /* CALLNAMES_UNNAMED: through a register (else through a stub) */
    const char *name;   /* CALLNAMES_NAMED: the method's name as the session has it */
} callnames_call;

/* The version being named: its IL code (without the body's header), the
 * distinct IL offsets of its map (ascending), the names of the methods the
 * runtime let the JIT inline into it: an IL offset whose IL calls one of
 * them may hold that inlinee's own calls, so none of its calls is named. */
typedef struct callnames_version {
    const uint8_t *il;
    uint32_t il_size;
    const uint32_t *starts;
    uint32_t nstarts;
    const char *const *inlinees;
    uint32_t ninlinees;
    int inlining_known; /* 0: what was inlined is not known (code compiled before an attach,
                           the agent's inlining records off): every offset may hold inlined code */
} callnames_version;

/* Fills names[i] for each unnamed calls[i] it can name (malloc'd; the rest
 * NULL). 0, or -1 when memory ran out. */
int callnames_assign(const callnames_call *calls, uint32_t n, const callnames_version *ver,
                     const ilcalls_module *m, char **names);

/* The method's own name in a session's name ("Ns.Type.Method<A>(int)" ->
 * "Method", ".ctor" kept whole) into out. */
void callnames_simple(const char *name, char *out, size_t outsz);

#endif
