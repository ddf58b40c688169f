/* names.h -- readable .NET method names from metadata pieces.
 *
 * The agent's sender thread walks the runtime's metadata (names_resolve.c) into
 * the small tree below; names_format_method turns the tree into one string:
 *
 *   Ns.Type.Method                       plain method
 *   Ns.Outer+Inner.Method                nested type ('+' as in reflection)
 *   Ns.Box<System.Int64>.Get             instantiated generic type
 *   Ns.Box`1.Get                         generic type, instantiation unknown
 *   Ns.Probe.Pick<System.__Canon>        method instantiation (shared code)
 *   Ns.Probe.Pick``1                     generic method, instantiation unknown
 *   System.Int32[] / System.Int32[,]     arrays as type arguments
 *
 * Pure functions, no allocation, every output bounded: unit-tested in tests/unit.
 */
#ifndef JITSCOPE_NAMES_H
#define JITSCOPE_NAMES_H

#include <stddef.h>

#define NAMES_MAX_ARGS 8  /* type arguments kept per level; more are shown as "..." */
#define NAMES_MAX_DEPTH 6 /* nesting of type arguments and enclosing types */

typedef struct names_type {
    const char *name;                              /* metadata name: "Ns.Box`1", nested: "Inner" */
    const struct names_type *enclosing;            /* declaring type of a nested type */
    const struct names_type *args[NAMES_MAX_ARGS]; /* instantiation, when known */
    unsigned nargs;                                /* arguments known (may exceed NAMES_MAX_ARGS) */
    const struct names_type *element;              /* arrays: element type */
    unsigned array_rank;                           /* arrays: rank (1 = T[]) */
} names_type;

typedef struct names_method {
    const names_type *owner; /* NULL for module-level functions */
    const char *name;
    unsigned generic_arity; /* from the method signature */
    const names_type *args[NAMES_MAX_ARGS];
    unsigned nargs;
} names_method;

/* Writes a NUL-terminated name into out (outsz >= 4); a name that does not fit
 * ends in "...". Returns the length written. */
size_t names_format_method(const names_method *m, char *out, size_t outsz);
size_t names_format_type(const names_type *t, char *out, size_t outsz);

#endif
