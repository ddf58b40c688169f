/* fuzz_perfrec.c -- libFuzzer target for the decoder of perf ring records,
 * perfring_parse in server/perfring.c (what the CPU profiler reads out of the
 * kernel's ring buffers; decoded with every length checked all the same).
 *
 * The input is one record as the ring holds it, its header's size replaced by
 * the input's length (the ring reader hands over exactly that many bytes).
 * Checked: a decoded sample never has more frames than PERFRING_MAX_STACK,
 * none of them a context marker, and every frame it has was in the input at
 * its place (read within the record's bytes). Each input is decoded twice:
 * as a plain sample, and as one with registers and a stack copy (whose copy
 * must lie within the record).
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"

#include "perfring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static perfring_record rec;
    uint8_t buf[8192];
    uint16_t n;
    int rc;

    if (size > sizeof(buf) || size > UINT16_MAX)
        return 0;
    memcpy(buf, data, size);
    if (size >= sizeof(struct perf_event_header)) {
        n = (uint16_t)size;
        memcpy(buf + 6, &n, sizeof(n)); /* the header's size: the whole input */
    }
    rc = perfring_parse(buf, size, 1, &rec);
    FUZZ_REQUIRE(rc == 0 || rc == -1);
    if (rc == 0 && rec.stack_bytes) {
        FUZZ_REQUIRE(rec.has_regs && rec.stack >= buf && rec.stack_bytes <= PERFRING_MAX_COPY &&
                     (size_t)(rec.stack - buf) + rec.stack_bytes <= size);
    }
    rc = perfring_parse(buf, size, 0, &rec);
    FUZZ_REQUIRE(rc == 0 || rc == -1);
    if (rc != 0 || rec.kind != PERFRING_SAMPLE)
        return 0;
    FUZZ_REQUIRE(size >= sizeof(struct perf_event_header) + 24);
    FUZZ_REQUIRE(rec.nr <= PERFRING_MAX_STACK);
    for (uint32_t i = 0; i < rec.nr; i++) {
        int found = 0;
        FUZZ_REQUIRE(rec.ips[i] < (uint64_t)PERF_CONTEXT_MAX);
        for (size_t off = sizeof(struct perf_event_header) + 24; off + 8 <= size && !found;
             off += 8) {
            uint64_t v;
            memcpy(&v, buf + off, 8);
            found = v == rec.ips[i];
        }
        FUZZ_REQUIRE(found);
    }
    return 0;
}
