/* openapi_doc.c -- embeds server/openapi.json in the binary (see openapi_doc.h).
 *
 * The assembler copies the file's bytes in with .incbin at build time: the
 * server has no run-time dependency on the file, and the document is never
 * copied by hand into C. The path is relative to the build's working directory
 * (the repository root, where make runs every compile); the Makefile lists the
 * file among the server's prerequisites so a change rebuilds it. */
#include "openapi_doc.h"

__asm__(".pushsection .rodata\n"
        ".balign 16\n"
        "jitscope_openapi_start:\n"
        ".incbin \"server/openapi.json\"\n"
        "jitscope_openapi_end:\n"
        ".byte 0\n"
        ".popsection\n");

extern const char jitscope_openapi_start[], jitscope_openapi_end[];

const char *openapi_document(size_t *length)
{
    *length = (size_t)(jitscope_openapi_end - jitscope_openapi_start);
    return jitscope_openapi_start;
}
