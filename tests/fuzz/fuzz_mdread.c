/* fuzz_mdread.c -- fuzz target for proto/mdread.c, the agent's reader of a
 * module's ECMA-335 metadata straight from its image.
 *
 * The input is a PE image as a compiler writes it (the seed is the test
 * plugin E2ePlugin.dll). It is opened as a file (flat layout) and as a mapped
 * one, both bounded by the input's size, and from its first byte as a bare
 * metadata root; whatever opens is asked every question on every row and on
 * the rows just outside each table. Checked: no crash or overread (ASan, the
 * input is all there is), and every string handed back is NUL-terminated
 * inside the input. Built and run by `make fuzz` (build/fuzz/mdread);
 * docs/FUZZING.md. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"

#include "mdread.h"

#define FUZZ_ROWS_MAX 4096u /* questions per table: enough to walk the seeds */

static const uint8_t *fuzz_input, *fuzz_end;

static void fuzz_check_string(const char *s)
{
    const uint8_t *p = (const uint8_t *)s;

    FUZZ_REQUIRE(p >= fuzz_input && p < fuzz_end);
    FUZZ_REQUIRE(memchr(p, '\0', (size_t)(fuzz_end - p)) != NULL);
}

static void fuzz_check_blob(const uint8_t *sig, uint32_t len)
{
    FUZZ_REQUIRE(sig >= fuzz_input && sig <= fuzz_end && len <= (size_t)(fuzz_end - sig));
}

static uint32_t fuzz_rows(uint32_t count)
{
    return count + 1 < FUZZ_ROWS_MAX ? count + 1 : FUZZ_ROWS_MAX;
}

static void fuzz_ask_everything(const mdread *r)
{
    uint32_t rid;

    for (rid = 0; rid <= fuzz_rows(r->method_def.count); rid++) {
        mdread_method m;
        if (mdread_method_props(r, MDREAD_TOKEN_METHODDEF | rid, &m) == 0) {
            fuzz_check_string(m.name);
            fuzz_check_blob(m.sig, m.sig_len);
        }
    }
    for (rid = 0; rid <= fuzz_rows(r->type_def.count); rid++) {
        const char *ns, *name;
        uint32_t flags, enclosing;
        if (mdread_type_def(r, MDREAD_TOKEN_TYPEDEF | rid, &ns, &name, &flags) == 0) {
            fuzz_check_string(ns);
            fuzz_check_string(name);
        }
        (void)mdread_enclosing(r, MDREAD_TOKEN_TYPEDEF | rid, &enclosing);
        (void)mdread_knows(r, MDREAD_TOKEN_TYPEDEF | rid);
    }
    for (rid = 0; rid <= fuzz_rows(r->type_ref.count); rid++) {
        const char *ns, *name;
        if (mdread_type_ref(r, MDREAD_TOKEN_TYPEREF | rid, &ns, &name) == 0) {
            fuzz_check_string(ns);
            fuzz_check_string(name);
        }
    }
    for (rid = 0; rid <= fuzz_rows(r->type_spec.count); rid++) {
        const uint8_t *sig;
        uint32_t len;
        if (mdread_type_spec(r, MDREAD_TOKEN_TYPESPEC | rid, &sig, &len) == 0)
            fuzz_check_blob(sig, len);
    }
    for (rid = 0; rid <= fuzz_rows(r->member_ref.count); rid++) {
        mdread_member m;
        if (mdread_member_ref(r, MDREAD_TOKEN_MEMBERREF | rid, &m) == 0) {
            fuzz_check_string(m.name);
            fuzz_check_blob(m.sig, m.sig_len);
        }
    }
    for (rid = 0; rid <= fuzz_rows(r->method_spec.count); rid++) {
        const uint8_t *inst;
        uint32_t len, method;
        if (mdread_method_spec(r, MDREAD_TOKEN_METHODSPEC | rid, &method, &inst, &len) == 0)
            fuzz_check_blob(inst, len);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mdread r;

    if (size == 0)
        return 0; /* a size of 0 means "unknown" to mdread_open_image */
    fuzz_input = data;
    fuzz_end = data + size;
    if (mdread_open_image(&r, data, size, 1) == 0)
        fuzz_ask_everything(&r);
    if (mdread_open_image(&r, data, size, 0) == 0)
        fuzz_ask_everything(&r);
    if (mdread_open_metadata(&r, data, size) == 0)
        fuzz_ask_everything(&r);
    return 0;
}
