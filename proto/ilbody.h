/* ilbody.h -- the header of a method's IL body (ECMA-335 II.25.4): where its
 * IL code starts and how many bytes it has.
 *
 * The profiling API's GetILFunctionBody gives the whole body: the header (1
 * byte tiny, 12 bytes fat), the code, and after it the exception-handling
 * sections. A method's "IL size", as the JIT, ildasm ("Code size") and the
 * runtime's MethodJittingStarted event say it, is the code alone. The agent
 * reads sizes with this on the JIT path (describe.c: no tier event came) and
 * the server reads the body the agent sent for the code view. Pure, bounded,
 * no allocation: fit for an application thread and for outside bytes. */
#ifndef JITSCOPE_ILBODY_H
#define JITSCOPE_ILBODY_H

#include <stddef.h>
#include <stdint.h>

#define ILBODY_FAT_HEADER 12u /* the bytes a fat header takes (and the most parsing reads) */

typedef struct ilbody {
    uint32_t header_size; /* where the code starts */
    uint32_t code_size;   /* the IL code's bytes */
} ilbody;

/* Parses the header at body (available: bytes readable there, the body's
 * size or fewer). 0, or -1 when they are no method header (unknown format,
 * cut short: a header longer than `available`, a fat header smaller than 12
 * bytes). */
int ilbody_parse(const uint8_t *body, size_t available, ilbody *out);

#endif
