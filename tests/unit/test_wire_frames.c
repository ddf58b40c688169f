/* test_wire_frames.c -- unit tests of proto/wire_decode.c's frames and
 * records: every record type round-trips (header, fixed part, strings), the
 * longest string and empty ones; every strict prefix of a valid frame is
 * NEED_MORE, frames back to back decode one by one; BAD for a length over
 * WIRE_MAX_PAYLOAD, unknown types, payloads shorter than the fixed part,
 * trailing bytes, a missing or overlong string length; only the known flag
 * bits, WIRE_FLAG_OS_NAME only on a thread name.
 *
 * Frames are built by hand from the proto/wire.h structs and strings (u16
 * byte count + UTF-8): wirefix.h, with one valid sample of every record type.
 * Build: make build/tests/test_wire_frames && build/tests/test_wire_frames
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wire_decode.h"
#include "wirefix.h"

TEST(round_trip_every_type)
{
    uint64_t types_seen = 0;

    for (int i = 0; i < N_SAMPLES; i++) {
        const sample *s = &samples[i];
        size_t len, used = 0;
        uint8_t *buf = build_frame(s, 1000 + (uint64_t)i, &len);
        wire_frame f;
        wire_record r;
        const char *why = NULL;
        int ok;

        ok = CHECK(wire_decode_frame(buf, len, &f, &used, &why) == WIRE_DECODE_OK,
                   "%s: frame decodes", s->what);
        if (ok) {
            CHECK(used == len && f.payload == buf + HDR && f.header.length == len - HDR,
                  "%s: consumed the whole frame, payload after the header", s->what);
            CHECK(f.header.type == s->type && f.header.flags == s->flags &&
                      f.header.seq == 1000 + (uint64_t)i &&
                      f.header.time_ns == 1000000007ull * (1000 + (uint64_t)i),
                  "%s: header fields", s->what);
            ok = CHECK(wire_decode_record(&f, &r, &why) == WIRE_DECODE_OK,
                       "%s: record decodes (%s)", s->what, why ? why : "");
        }
        if (ok) {
            int strings_ok = r.string_count == s->nstrings;
            for (unsigned k = 0; strings_ok && k < s->nstrings; k++)
                strings_ok = r.strings[k].length == s->str_len[k] &&
                             memcmp(r.strings[k].text, s->str[k], s->str_len[k]) == 0 &&
                             (const uint8_t *)r.strings[k].text >= f.payload &&
                             (const uint8_t *)r.strings[k].text + r.strings[k].length <=
                                 f.payload + f.header.length;
            CHECK(r.type == s->type && r.flags == s->flags && r.seq == f.header.seq &&
                      r.time_ns == f.header.time_ns,
                  "%s: record header fields", s->what);
            /* a stack thread's fixed part is followed by its frames, a code part's by data */
            size_t fixed_part = s->type == WIRE_STACK_THREAD ? sizeof(wire_stack_thread)
                                : s->type == WIRE_CODE_PART  ? sizeof(wire_code_part)
                                : s->type == WIRE_ALLOCATION ? sizeof(wire_allocation)
                                                             : s->fixed_len;
            if (s->type == WIRE_CODE_PART)
                CHECK(r.data == f.payload + sizeof(wire_code_part) &&
                          r.data_length == sizeof(wire_code_map_entry) &&
                          memcmp(r.data, &s_code_part.e, sizeof(s_code_part.e)) == 0,
                      "code_part: its data points into the payload");
            CHECK(memcmp(&r.u, s->fixed, fixed_part) == 0, "%s: fixed part round-trips", s->what);
            if (s->type == WIRE_STACK_THREAD)
                CHECK(r.stack_frames == f.payload + sizeof(wire_stack_thread) &&
                          memcmp(&(wire_stack_frame[2]){wire_record_frame(&r, 0),
                                                        wire_record_frame(&r, 1)},
                                 s_stack_thread.f, sizeof(s_stack_thread.f)) == 0,
                      "stack_thread: both frames read back");
            if (s->type == WIRE_ALLOCATION)
                CHECK(r.stack_frame_count == 1 &&
                          r.stack_frames == f.payload + sizeof(wire_allocation) &&
                          wire_record_frame(&r, 0).function_id == 0x7f0000001000ull,
                      "allocation: its frame read back");
            CHECK(strings_ok, "%s: %u string(s) round-trip, pointing into the payload", s->what,
                  s->nstrings);
            types_seen |= 1ull << s->type;
        }
        free(buf);
    }
    CHECK(types_seen == known_record_types(NULL), "all %d record types (1..%d) round-tripped",
          N_SAMPLES, WIRE_RECORD_TYPE_MAX);
}

TEST(empty_strings_and_longest_string)
{
    static char big[WIRE_MAX_STRING + 1];
    sample s = samples[4]; /* module_loaded, two strings */
    wire_record r;
    const char *why = NULL;
    size_t len;
    uint8_t *buf;

    s.str[0] = "", s.str_len[0] = 0;
    s.str[1] = "", s.str_len[1] = 0;
    buf = build_frame(&s, 1, &len);
    CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK && r.string_count == 2 &&
              r.strings[0].length == 0 && r.strings[1].length == 0,
          "two empty strings decode");
    free(buf);

    memset(big, 'x', sizeof(big));
    s = samples[3]; /* function_name */
    s.str[0] = big, s.str_len[0] = WIRE_MAX_STRING;
    buf = build_frame(&s, 1, &len);
    CHECK(decode_one(buf, len, &r, &why) == WIRE_DECODE_OK &&
              r.strings[0].length == WIRE_MAX_STRING,
          "a string of exactly WIRE_MAX_STRING bytes decodes");
    free(buf);
    s.str_len[0] = WIRE_MAX_STRING + 1;
    buf = build_frame(&s, 1, &len);
    CHECK(bad_with_reason(buf, len), "a string of WIRE_MAX_STRING + 1 bytes is BAD");
    free(buf);
}

TEST(every_strict_prefix_needs_more)
{
    for (int i = 0; i < N_SAMPLES; i++) {
        size_t len, bad = 0;
        uint8_t *buf = build_frame(&samples[i], 5, &len);

        for (size_t n = 0; n < len; n++) {
            uint8_t *p = copy_of(buf, n);
            wire_frame f;
            size_t used = 12345;
            const char *why = NULL;

            if (wire_decode_frame(p, n, &f, &used, &why) != WIRE_DECODE_NEED_MORE || used != 12345)
                bad++;
            free(p);
        }
        CHECK(bad == 0, "%s: all %zu strict prefixes are NEED_MORE (%zu were not)", samples[i].what,
              len, bad);
        free(buf);
    }
}

TEST(frames_back_to_back)
{
    uint8_t stream[4096];
    size_t total = 0, off = 0;
    int n = 0, ok = 1;

    for (int i = 0; i < N_SAMPLES; i++)
        total += build_frame_ex(stream + total, &samples[i], (uint64_t)i + 1, 0);
    for (;;) {
        wire_frame f;
        wire_record r;
        size_t used;
        const char *why = NULL;
        int rc = wire_decode_frame(stream + off, total - off, &f, &used, &why);

        if (rc != WIRE_DECODE_OK)
            break;
        ok &= wire_decode_record(&f, &r, &why) == WIRE_DECODE_OK && r.seq == (uint64_t)n + 1 &&
              r.type == samples[n].type;
        off += used;
        n++;
    }
    CHECK(n == N_SAMPLES && off == total && ok,
          "%d frames in one buffer decode one after another, in order (%d decoded)", N_SAMPLES, n);
}

TEST(length_limit)
{
    uint8_t hdr[HDR];
    wire_frame_header h = {.type = WIRE_DROPS, .length = WIRE_MAX_PAYLOAD + 1};
    wire_frame f;
    size_t used;
    const char *why = NULL;
    uint8_t *big;

    memcpy(hdr, &h, HDR);
    CHECK(wire_decode_frame(hdr, HDR, &f, &used, &why) == WIRE_DECODE_BAD && why,
          "length WIRE_MAX_PAYLOAD + 1 is BAD as soon as the header is there");
    h.length = UINT32_MAX;
    memcpy(hdr, &h, HDR);
    why = NULL;
    CHECK(wire_decode_frame(hdr, HDR, &f, &used, &why) == WIRE_DECODE_BAD && why,
          "length UINT32_MAX is BAD");
    h.length = WIRE_MAX_PAYLOAD;
    memcpy(hdr, &h, HDR);
    CHECK(wire_decode_frame(hdr, HDR, &f, &used, &why) == WIRE_DECODE_NEED_MORE,
          "length WIRE_MAX_PAYLOAD with only the header: NEED_MORE");
    big = calloc(1, HDR + WIRE_MAX_PAYLOAD);
    memcpy(big, &h, HDR);
    CHECK(wire_decode_frame(big, HDR + WIRE_MAX_PAYLOAD, &f, &used, &why) == WIRE_DECODE_OK &&
              used == HDR + WIRE_MAX_PAYLOAD,
          "a frame of exactly WIRE_MAX_PAYLOAD payload bytes is OK");
    CHECK(wire_decode_record(&f, &(wire_record){0}, &why) == WIRE_DECODE_BAD,
          "... but a drops record that long has trailing bytes: BAD");
    free(big);
}

TEST(unknown_types)
{
    static const uint16_t types[] = {
        0, WIRE_RECORD_TYPE_MAX + 1, 99, WIRE_CMD_DETACH, WIRE_CMD_PING, 0x7FFF, 0xFFFF};

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        sample s = {"unknown", types[i], 0, &s_pong, sizeof(s_pong), 0, {0}, {0}};
        size_t len;
        uint8_t *buf = build_frame(&s, 1, &len);
        wire_frame f;
        size_t used;
        const char *why = NULL;

        CHECK(wire_decode_frame(buf, len, &f, &used, &why) == WIRE_DECODE_OK,
              "type %u: the frame layer does not judge types", types[i]);
        CHECK(bad_with_reason(buf, len), "type %u: the record is BAD", types[i]);
        free(buf);
    }
}

TEST(payload_shorter_than_fixed_part)
{
    for (int i = 0; i < N_SAMPLES; i++) {
        sample s = samples[i];
        size_t len, bad = 0;

        s.nstrings = 0;
        for (size_t cut = 0; cut < samples[i].fixed_len; cut++) {
            uint8_t *buf;
            s.fixed_len = cut;
            buf = build_frame(&s, 1, &len);
            /* the one shorter hello that is valid: an older agent's (next test) */
            bad += bad_with_reason(buf, len) || (s.type == WIRE_HELLO && cut == WIRE_HELLO_BASE);
            free(buf);
        }
        CHECK(bad == samples[i].fixed_len,
              "%s: all %zu payloads shorter than the fixed part are BAD", samples[i].what,
              samples[i].fixed_len);
    }
}

TEST(trailing_bytes)
{
    for (int i = 0; i < N_SAMPLES; i++) {
        size_t len = frame_size(&samples[i]);
        uint8_t *buf = calloc(1, len + 3);
        int all = 1;

        for (long extra = 1; extra <= 3; extra++) {
            build_frame_ex(buf, &samples[i], 1, extra); /* header claims `extra` more bytes */
            all &= bad_with_reason(buf, len + (size_t)extra);
        }
        CHECK(all, "%s: 1, 2 or 3 bytes after the record are BAD", samples[i].what);
        free(buf);
    }
}

TEST(string_lengths)
{
    const sample *fn = &samples[3], *mod = &samples[4];
    uint8_t buf[512];
    size_t len;
    uint16_t n;

    /* missing length: payload ends right after the fixed part, or one byte later */
    len = build_frame_ex(
        buf, &(sample){"fn", WIRE_FUNCTION_NAME, 0, fn->fixed, fn->fixed_len, 0, {0}, {0}}, 1, 0);
    CHECK(bad_with_reason(buf, len), "function_name without its string length is BAD");
    len = build_frame_ex(
        buf, &(sample){"fn", WIRE_FUNCTION_NAME, 0, fn->fixed, fn->fixed_len, 0, {0}, {0}}, 1, 1);
    buf[len++] = 3;
    CHECK(bad_with_reason(buf, len), "function_name with half a string length is BAD");

    /* length past the end: say 10 bytes, give 5 */
    len = build_frame_ex(buf, fn, 1, 0);
    n = (uint16_t)(fn->str_len[0] + 1);
    memcpy(buf + HDR + fn->fixed_len, &n, 2);
    CHECK(bad_with_reason(buf, len), "string length one past the end of the payload is BAD");
    n = 0xFFFF;
    memcpy(buf + HDR + fn->fixed_len, &n, 2);
    CHECK(bad_with_reason(buf, len), "string length 65535 is BAD");
    n = (uint16_t)(fn->str_len[0] - 1);
    memcpy(buf + HDR + fn->fixed_len, &n, 2);
    CHECK(bad_with_reason(buf, len), "string length one short (leaves a trailing byte) is BAD");

    /* the second string of a module record overruns by one */
    len = build_frame_ex(buf, mod, 1, 0);
    n = (uint16_t)(mod->str_len[1] + 1);
    memcpy(buf + len - mod->str_len[1] - 2, &n, 2);
    CHECK(bad_with_reason(buf, len), "second string overrunning the payload is BAD");
    /* the second string missing entirely */
    len = build_frame_ex(buf,
                         &(sample){"m1",
                                   WIRE_MODULE_LOADED,
                                   0,
                                   mod->fixed,
                                   mod->fixed_len,
                                   1,
                                   {mod->str[0]},
                                   {mod->str_len[0]}},
                         1, 0);
    CHECK(bad_with_reason(buf, len), "module_loaded with only one string is BAD");
}

/* Flags: only the known bits, and WIRE_FLAG_OS_NAME only on a thread name. */
TEST(record_flags)
{
    wire_thread t = {0x71, 4071, 0};
    sample name = {
        "name", WIRE_THREAD_NAME, WIRE_FLAG_OS_NAME, &t, sizeof(t), 1, {".NET Finalizer"}, {14}};
    sample created = {"created", WIRE_THREAD_CREATED, WIRE_FLAG_OS_NAME, &t, sizeof(t), 0, {0},
                      {0}};
    sample unknown = {"unknown", WIRE_THREAD_CREATED, 1u << 4, &t, sizeof(t), 0, {0}, {0}};
    sample catchup = {"catchup",
                      WIRE_THREAD_NAME,
                      WIRE_FLAG_OS_NAME | WIRE_FLAG_CATCHUP,
                      &t,
                      sizeof(t),
                      1,
                      {"dotnet"},
                      {6}};
    wire_record r;
    const char *why = NULL;
    size_t len;
    uint8_t *b;

    b = build_frame(&name, 1, &len);
    CHECK(decode_one(b, len, &r, &why) == WIRE_DECODE_OK && r.flags == WIRE_FLAG_OS_NAME &&
              r.u.thread.os_thread_id == 4071 && r.strings[0].length == 14,
          "an OS name: a THREAD_NAME flagged WIRE_FLAG_OS_NAME, with the OS thread id");
    free(b);
    b = build_frame(&catchup, 1, &len);
    CHECK(decode_one(b, len, &r, &why) == WIRE_DECODE_OK &&
              r.flags == (WIRE_FLAG_OS_NAME | WIRE_FLAG_CATCHUP),
          "also from the catch-up");
    free(b);
    b = build_frame(&created, 1, &len);
    CHECK(bad_with_reason(b, len), "WIRE_FLAG_OS_NAME on another record: refused");
    free(b);
    b = build_frame(&unknown, 1, &len);
    CHECK(bad_with_reason(b, len), "an unknown flag: refused");
    free(b);
}

static const check_test tests[] = {
    TEST_ENTRY(round_trip_every_type),
    TEST_ENTRY(empty_strings_and_longest_string),
    TEST_ENTRY(every_strict_prefix_needs_more),
    TEST_ENTRY(frames_back_to_back),
    TEST_ENTRY(length_limit),
    TEST_ENTRY(unknown_types),
    TEST_ENTRY(payload_shorter_than_fixed_part),
    TEST_ENTRY(trailing_bytes),
    TEST_ENTRY(string_lengths),
    TEST_ENTRY(record_flags),
    TEST_END,
};

int main(int argc, char **argv)
{
    make_samples();
    return check_main_each(argc, argv, tests, NULL, NULL);
}
