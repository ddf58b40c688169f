/* test_wire_hello.c -- unit tests of the hello as proto/wire_decode.c reads
 * it: bad magic or version refused, a hello of an older agent (its first
 * WIRE_HELLO_BASE bytes) read with the later fields 0, and a stored session's
 * hello of an older version read back where a live agent's is refused.
 *
 * Frames are built by hand from the proto/wire.h structs and strings (u16
 * byte count + UTF-8): wirefix.h, with one valid sample of every record type.
 * Build: make build/tests/test_wire_hello && build/tests/test_wire_hello
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "records.h"
#include "wire_decode.h"
#include "wirefix.h"

TEST(hello_of_an_older_agent)
{
    wire_hello h = rec_hello(REC_TOKEN).u.hello;
    sample s = {"old hello", WIRE_HELLO, 0, &h, WIRE_HELLO_BASE, 0, {0}, {0}};
    wire_record r;
    const char *why = NULL;
    size_t len;
    uint8_t *buf;

    h.agent_flags = WIRE_AGENT_FLOOR, h.event_mask = 0x1234, h.event_mask_high = 0x90;
    buf = build_frame(&s, 1, &len); /* only its first WIRE_HELLO_BASE bytes go out */
    CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK, "a hello of %u bytes decodes (%s)",
          WIRE_HELLO_BASE, why ? why : "");
    CHECK(r.u.hello.pid == h.pid && r.u.hello.ring_bytes == h.ring_bytes &&
              memcmp(r.u.hello.token, h.token, WIRE_TOKEN_LEN) == 0,
          "its fields are read");
    CHECK(r.u.hello.agent_flags == 0 && r.u.hello.event_mask == 0 && r.u.hello.event_mask_high == 0,
          "the fields it does not have read as 0 (not a floor, masks not known)");
    free(buf);
    s.fixed_len = sizeof(h); /* the whole of today's hello: its fields come through */
    buf = build_frame(&s, 1, &len);
    CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK &&
              r.u.hello.agent_flags == WIRE_AGENT_FLOOR && r.u.hello.event_mask == 0x1234 &&
              r.u.hello.event_mask_high == 0x90,
          "a whole hello carries the agent's flags and masks");
    free(buf);
}

TEST(hello_checks)
{
    wire_hello h = rec_hello(REC_TOKEN).u.hello;
    sample s = samples[0];
    uint8_t buf[256];
    size_t len;
    wire_record r;
    const char *why = NULL;

    s.fixed = &h;
    memcpy(h.magic, "JITSCOPX", 8);
    len = build_frame_ex(buf, &s, 1, 0);
    CHECK(bad_with_reason(buf, len), "hello with magic JITSCOPX is BAD");
    memcpy(h.magic, "jitscope", 8);
    len = build_frame_ex(buf, &s, 1, 0);
    CHECK(bad_with_reason(buf, len), "hello with lower-case magic is BAD");
    memcpy(h.magic, WIRE_MAGIC, 8);
    for (uint32_t v = 0; v < 4; v++) {
        h.version = v == 3 ? UINT32_MAX : v;
        len = build_frame_ex(buf, &s, 1, 0);
        if (h.version == WIRE_VERSION)
            CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK &&
                      memcmp(r.u.hello.token, REC_TOKEN, WIRE_TOKEN_LEN) == 0,
                  "hello with version %u is OK and carries the token", h.version);
        else
            CHECK(bad_with_reason(buf, len), "hello with version %u is BAD", h.version);
    }
}

TEST(stored_hello_of_an_older_version)
{
    wire_hello h = rec_hello(REC_TOKEN).u.hello;
    sample s = {"hello", WIRE_HELLO, 0, &h, sizeof(h), 0, {0}, {0}};
    size_t len, used;
    uint8_t *buf;
    wire_frame f;
    wire_record r;
    const char *why = NULL;

    h.version = WIRE_VERSION_STORED_MIN;
    buf = build_frame(&s, 1, &len);
    CHECK(wire_decode_frame(buf, len, &f, &used, &why) == WIRE_DECODE_OK, "framed");
    CHECK(wire_decode_record(&f, &r, &why) == WIRE_DECODE_BAD,
          "a live agent of version %u is refused", WIRE_VERSION_STORED_MIN);
    CHECK(wire_decode_stored_record(&f, &r, &why) == WIRE_DECODE_OK,
          "a stored session of version %u reads back", WIRE_VERSION_STORED_MIN);
    free(buf);
    h.version = WIRE_VERSION_STORED_MIN - 1;
    buf = build_frame(&s, 1, &len);
    wire_decode_frame(buf, len, &f, &used, &why);
    CHECK(wire_decode_stored_record(&f, &r, &why) == WIRE_DECODE_BAD, "older ones do not");
    free(buf);
    h.version = WIRE_VERSION + 1;
    buf = build_frame(&s, 1, &len);
    wire_decode_frame(buf, len, &f, &used, &why);
    CHECK(wire_decode_stored_record(&f, &r, &why) == WIRE_DECODE_BAD, "nor newer ones");
    free(buf);
}

static const check_test tests[] = {
    TEST_ENTRY(hello_of_an_older_agent),
    TEST_ENTRY(hello_checks),
    TEST_ENTRY(stored_hello_of_an_older_version),
    TEST_END,
};

int main(int argc, char **argv)
{
    make_samples();
    return check_main_each(argc, argv, tests, NULL, NULL);
}
