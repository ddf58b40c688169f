/* test_wire_garbage.c -- the decoder of proto/wire_decode.c against
 * garbage: a deterministic loop of 200k random and mutated buffers, each in
 * its own exact-size allocation so ASan sees any overread, that must never
 * crash and never report more bytes consumed than it was given.
 *
 * Frames are built by hand from the proto/wire.h structs and strings (u16
 * byte count + UTF-8): wirefix.h, with one valid sample of every record type.
 * Build: make build/tests/test_wire_garbage && build/tests/test_wire_garbage
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "utf.h"
#include "wire_decode.h"
#include "wirefix.h"

static uint64_t rng_state; /* made-up data: every test starts the sequence again */

static void rng_reset(void) { rng_state = 0x9E3779B97F4A7C15ull; }
static uint64_t xorshift(void) { return check_random(&rng_state); }

typedef struct garbage_stats {
    unsigned long frames_ok, records_ok, violations, bad, need_more;
    unsigned long ok_by_type[WIRE_RECORD_TYPE_MAX + 1];
} garbage_stats;

/* Decodes everything in buf as the link does and checks what the decoder says. */
static void decode_all(const uint8_t *buf, size_t len, garbage_stats *st)
{
    size_t off = 0;

    for (;;) {
        wire_frame f;
        wire_record r;
        size_t used = (size_t)-1;
        const char *why = NULL;
        int rc = wire_decode_frame(buf + off, len - off, &f, &used, &why);

        if (rc == WIRE_DECODE_NEED_MORE) {
            st->need_more++;
            return;
        }
        if (rc != WIRE_DECODE_OK) {
            st->bad++;
            st->violations += rc != WIRE_DECODE_BAD || !why;
            return;
        }
        st->frames_ok++;
        if (used > len - off || used < HDR || used != HDR + f.header.length ||
            f.payload != buf + off + HDR || f.header.length > WIRE_MAX_PAYLOAD) {
            st->violations++;
            return;
        }
        why = NULL;
        rc = wire_decode_record(&f, &r, &why);
        if (rc == WIRE_DECODE_OK) {
            st->records_ok++;
            if (r.type == 0 || r.type > WIRE_RECORD_TYPE_MAX || r.string_count > 2)
                st->violations++;
            else
                st->ok_by_type[r.type]++;
            for (unsigned k = 0; k < r.string_count && k < 2; k++) {
                const uint8_t *t = (const uint8_t *)r.strings[k].text;
                if (t < f.payload || t + r.strings[k].length > f.payload + f.header.length ||
                    r.strings[k].length > WIRE_MAX_STRING ||
                    !utf8_valid(r.strings[k].text, r.strings[k].length))
                    st->violations++;
            }
            if (r.type == WIRE_HELLO &&
                (memcmp(r.u.hello.magic, WIRE_MAGIC, 8) != 0 || r.u.hello.version != WIRE_VERSION))
                st->violations++;
        } else if (rc != WIRE_DECODE_BAD || !why) {
            st->violations++;
        }
        off += used;
    }
}

/* A valid frame of a random type with random fixed bytes and random valid
 * strings, then 0..4 random mutations. Returns the length written to out. */
static size_t mutated_frame(uint8_t *out, size_t cap)
{
    const sample *base = &samples[xorshift() % N_SAMPLES];
    uint8_t fixed[512]; /* larger than any fixed part (wire_agent_cost: 288) */
    char strs[2][40];
    sample s = *base;
    size_t len;
    unsigned mutations = (unsigned)(xorshift() % 5);

    for (size_t k = 0; k < s.fixed_len; k++)
        fixed[k] = (xorshift() & 3) ? ((const uint8_t *)base->fixed)[k] : (uint8_t)xorshift();
    if (s.type == WIRE_HELLO && (xorshift() & 7)) { /* mostly keep the hello acceptable */
        memcpy(fixed, WIRE_MAGIC, 8);
        memcpy(fixed + 8, &(uint32_t){WIRE_VERSION}, 4);
    }
    if ((s.type == WIRE_DROPS || s.type == WIRE_AGENT_COST) && (xorshift() & 7)) {
        for (size_t k = 7; k < s.fixed_len;
             k += 8) /* mostly keep counters under WIRE_COUNTER_MAX */
            fixed[k] = 0;
    }
    s.fixed = fixed;
    for (unsigned i = 0; i < s.nstrings; i++) {
        size_t n = xorshift() % sizeof(strs[i]);
        for (size_t k = 0; k < n; k++)
            strs[i][k] = (char)('a' + xorshift() % 26);
        s.str[i] = strs[i];
        s.str_len[i] = n;
    }
    len = build_frame_ex(out, &s, xorshift(), 0);
    while (mutations-- > 0 && len > 0) {
        uint64_t r = xorshift();
        switch (r % 6) {
        case 0: /* flip a byte */ out[(r >> 8) % len] ^= (uint8_t)(1u << ((r >> 40) % 8)); break;
        case 1: /* random byte */ out[(r >> 8) % len] = (uint8_t)(r >> 32); break;
        case 2: /* cut */ len = (r >> 8) % (len + 1); break;
        case 3: /* append random bytes */
            for (size_t k = (r >> 8) % 8; k > 0 && len < cap; k--)
                out[len++] = (uint8_t)xorshift();
            break;
        case 4: /* nudge the header length */
            if (len >= 8) {
                uint32_t l;
                memcpy(&l, out + 4, 4);
                l += (uint32_t)((int)((r >> 8) % 7) - 3);
                memcpy(out + 4, &l, 4);
            }
            break;
        default: /* nudge a string length */
            if (len > HDR + s.fixed_len + 1)
                out[HDR + s.fixed_len + ((r >> 8) & 1)] += (uint8_t)((int)((r >> 16) % 5) - 2);
            break;
        }
    }
    return len;
}

TEST(garbage_never_crashes_or_overreads)
{
    enum { ROUNDS = 200000 };
    garbage_stats st;
    uint8_t tmp[4096];
    unsigned types_ok = 0, types_known = 0;

    memset(&st, 0, sizeof(st));
    rng_state = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < ROUNDS; i++) {
        size_t len = 0;
        uint8_t *buf;

        if (i % 2 == 0) { /* pure random bytes, sometimes with a plausible header */
            len = xorshift() % ((i % 1000 == 0) ? 70000 : 300);
            buf = malloc(len ? len : 1);
            for (size_t k = 0; k < len; k++)
                buf[k] = (uint8_t)xorshift();
            if (len >= HDR && (xorshift() & 1)) {
                uint16_t type = (uint16_t)(xorshift() % (WIRE_RECORD_TYPE_MAX + 2));
                uint32_t plen = (uint32_t)(len - HDR - xorshift() % 3 * (len > HDR + 2));
                memcpy(buf, &type, 2);
                memcpy(buf + 4, &plen, 4);
            }
        } else { /* 1..3 mutated valid frames back to back */
            unsigned frames = 1 + (unsigned)(xorshift() % 3);
            for (unsigned k = 0; k < frames && len < sizeof(tmp) - 512; k++)
                len += mutated_frame(tmp + len, sizeof(tmp) - len);
            buf = copy_of(tmp, len);
        }
        decode_all(buf, len, &st);
        free(buf);
    }
    for (int t = 1; t <= WIRE_RECORD_TYPE_MAX; t++)
        types_ok += st.ok_by_type[t] > 0;
    (void)known_record_types(&types_known);
    CHECK(st.violations == 0,
          "%d random/mutated buffers: no OK with more bytes consumed than given, no string "
          "outside its payload, BAD always with a reason (%lu violations)",
          ROUNDS, st.violations);
    CHECK(types_ok == types_known,
          "mutated frames decoded as every record type at least once (%u types; %lu frames, "
          "%lu records OK, %lu BAD, %lu NEED_MORE)",
          types_ok, st.frames_ok, st.records_ok, st.bad, st.need_more);
    CHECK(st.bad > 1000 && st.need_more > 1000, "both BAD and NEED_MORE were exercised");
}

static const check_test tests[] = {
    TEST_ENTRY(garbage_never_crashes_or_overreads),
    TEST_END,
};

int main(int argc, char **argv)
{
    make_samples();
    return check_main_each(argc, argv, tests, rng_reset, NULL);
}
