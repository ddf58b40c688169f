/* ilcalls.h -- the calls in a method's IL and the names of the methods they
 * call, from its module's metadata: what names a call instruction of the
 * JIT's code that goes through a register (a delegate's Invoke, a virtual or
 * interface call) or through a stub to a method not compiled yet, whose
 * target the code itself does not give (callnames.h matches them).
 *
 * The IL is decoded by the opcode table of ECMA-335 III (operand sizes only);
 * a token is named from the module file's metadata (proto/mdread.h, the same
 * reader the agent uses on the image in memory): a MethodDef by its type,
 * a MemberRef by its parent (a TypeRef, TypeDef or generic instantiation's
 * TypeSpec), a MethodSpec by its method and instantiation, each with its
 * parameter list (proto/sig.h). Pure but for ilcalls_open, which maps the
 * module's file as the process sees it (symfile.h). */
#ifndef JITSCOPE_ILCALLS_H
#define JITSCOPE_ILCALLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mdread.h"

#define ILCALLS_MAX_FILE (128u * 1024u * 1024u) /* a module file's size, at most (read whole) */
#define ILCALLS_NAME_BYTES 512u

enum { ILCALLS_CALL = 0x28, ILCALLS_CALLVIRT = 0x6F, ILCALLS_NEWOBJ = 0x73 };

/* One call, callvirt or newobj instruction of the IL. */
typedef struct ilcalls_site {
    uint32_t il_offset, token;
    uint8_t opcode;
} ilcalls_site;

/* The call sites of IL code (the body's code, without its header), in IL
 * order, at most max of them. Returns how many; decoding stops at an opcode
 * that is not in the table or an operand that runs past the code. */
uint32_t ilcalls_scan(const uint8_t *code, uint32_t size, ilcalls_site *out, uint32_t max);

/* A module's metadata, from its file. */
typedef struct ilcalls_module {
    void *map; /* the file read whole (symfile_read_file) */
    size_t size;
    mdread md;
} ilcalls_module;

/* Maps the module file at `path` as process pid sees it (0: the server's
 * view) and opens its metadata. 0, or -1 (no file, not a managed image). */
int ilcalls_open(ilcalls_module *m, pid_t pid, const char *path);
void ilcalls_close(ilcalls_module *m);

/* "Ns.Type.Method(int, string)" of a MethodDef, MemberRef or MethodSpec
 * token into out; the method's own name alone into simple (may be NULL).
 * 0, or -1 when the token is not a method of this metadata. */
int ilcalls_name(const ilcalls_module *m, uint32_t token, char *out, size_t outsz, char *simple,
                 size_t simple_size);

#endif
