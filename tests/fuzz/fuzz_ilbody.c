/* fuzz_ilbody.c -- libFuzzer target for a method's IL body header,
 * proto/ilbody.c (ilbody_parse: the body the agent read for the code view,
 * outside bytes to the server).
 *
 * The input is a body (header, code, what follows). Checked: a parsed header
 * lies inside the input (a tiny one is 1 byte with at most 63 bytes of code, a
 * fat one at least 12 bytes, a whole number of dwords); the header alone (its
 * first header_size bytes) parses the same; a header the parser refuses stays
 * refused with fewer bytes.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"

#include "ilbody.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ilbody b, again;

    if (ilbody_parse(data, size, &b) != 0) {
        if (size > 0)
            FUZZ_REQUIRE(ilbody_parse(data, size - 1, &again) != 0);
        return 0;
    }
    FUZZ_REQUIRE(b.header_size >= 1 && b.header_size <= size);
    if (b.header_size == 1) {
        FUZZ_REQUIRE(b.code_size < 64);
    } else {
        FUZZ_REQUIRE(b.header_size >= ILBODY_FAT_HEADER && b.header_size % 4 == 0);
    }
    FUZZ_REQUIRE(ilbody_parse(data, b.header_size, &again) == 0);
    FUZZ_REQUIRE(memcmp(&b, &again, sizeof(b)) == 0);
    return 0;
}
