/* sig.h -- method signature blobs (ECMA-335 II.23.2) as readable parameter lists.
 *
 * GetMethodProps hands the sender thread a method's signature blob; this turns
 * it into "(int, ref long, string[], List<T>)" so overloads can be told apart.
 * Types named by token (classes, value types, generic instances' definitions)
 * are named through a callback, so this file needs no metadata and stays a pure
 * function over untrusted bytes: every read is bounded by the blob's length,
 * nesting is capped, output is bounded, no allocation. Unit-tested by
 * tests/unit/test_sig.c and fuzzed by tests/fuzz/fuzz_sig.c.
 *
 * Naming: C# keywords for the built-in types (int, string, object, nint...),
 * `ref T` for by-ref, `T*` for pointers, `T[]` / `T[,]` for arrays, `Name<A, B>`
 * for generic instances, custom modifiers skipped, `...` for a vararg
 * sentinel. The runtime's own signatures (dynamic methods) may carry types as
 * raw handles (ELEMENT_TYPE_INTERNAL, a pointer-sized value): named through a
 * second callback. Generic parameters take the known type arguments' names when the
 * caller has them (class: VAR n, method: MVAR n), else `!n` / `!!n` as in IL.
 */
#ifndef JITSCOPE_SIG_H
#define JITSCOPE_SIG_H

#include <stddef.h>
#include <stdint.h>

#define SIG_MAX_DEPTH 8     /* nesting of type arguments, arrays, pointers, by-refs */
#define SIG_MAX_PARAMS 1024 /* more parameters than this is a malformed blob */

typedef struct sig_names {
    /* Writes the name of a TypeDef (0x02......), TypeRef (0x01......) or
     * TypeSpec (0x1b......) token into out (NUL-terminated, at most outsz
     * bytes); returns the length, or 0 when unknown (then "?" is printed). */
    size_t (*type_token)(void *ctx, uint32_t token, char *out, size_t outsz);
    /* Writes the name of a type given by runtime handle (ELEMENT_TYPE_INTERNAL,
     * found in the signatures the runtime builds for dynamic methods; the
     * handle is a ClassID); same contract as type_token. May be NULL. */
    size_t (*type_handle)(void *ctx, uint64_t handle, char *out, size_t outsz);
    void *ctx;
    const char *const *class_args; /* names of the owner's type arguments (VAR n) */
    unsigned class_arg_count;
    const char *const *method_args; /* names of the method's type arguments (MVAR n) */
    unsigned method_arg_count;
} sig_names;

/* Formats the parameter list of a method signature (MethodDefSig / MethodRefSig)
 * as "(a, b)" into out (outsz >= 8; cut with "...)" when it does not fit).
 * Returns the number of parameters, or -1 when the blob is malformed (out then
 * holds "(?)"). */
int sig_format_params(const uint8_t *sig, size_t length, const sig_names *names, char *out,
                      size_t outsz);

/* Formats one type (a TypeSpec blob's content) into out. Returns the length,
 * or -1 when malformed. Used by a type_token callback for TypeSpec tokens. */
int sig_format_type(const uint8_t *sig, size_t length, const sig_names *names, char *out,
                    size_t outsz);

/* The C# keyword of a built-in type's full name ("System.Int64" -> "long"), or
 * NULL when the name is not one of them. */
const char *sig_keyword_of(const char *clr_name);
/* "System.Int32" for ELEMENT_TYPE_I4 and the other built-in element types;
 * NULL for any other element type. */
const char *sig_clr_name_of(uint8_t element);

/* Reads a compressed unsigned integer (ECMA-335 II.23.2) at *pos; -1 when the
 * encoding is invalid or runs past length. */
int sig_read_compressed(const uint8_t *sig, size_t length, size_t *pos, uint32_t *value);

#endif
