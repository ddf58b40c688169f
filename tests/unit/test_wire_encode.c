/* test_wire_encode.c -- unit tests of proto/wire_encode.c and the command
 * decoder: what the encoder writes decodes to what it was given, long strings
 * are cut and flagged, a sequence number stamped into an encoded frame gives
 * the frame encoded with it; the server's commands (profile, detach, code
 * lookups) encode and decode, and bad ones are refused.
 *
 * Frames are built by hand from the proto/wire.h structs and strings (u16
 * byte count + UTF-8): wirefix.h, with one valid sample of every record type.
 * Build: make build/tests/test_wire_encode && build/tests/test_wire_encode
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wire_decode.h"
#include "wire_encode.h"
#include "wirefix.h"

TEST(encoder_round_trips_through_the_decoder)
{
    wire_module_loaded m = {.module_id = 0x1234, .assembly_id = 0x99};
    static const uint16_t path16[] = {'/', 'a', 0xD83D, 0xDE00, '.', 'd', 'l', 'l'}; /* U+1F600 */
    wire_text strings[2] = {{.utf16 = path16, .length = 8}, {.utf8 = "As\xFFm", .length = 4}};
    wire_frame_header h = {
        .type = WIRE_MODULE_LOADED, .flags = WIRE_FLAG_CATCHUP, .seq = 7, .time_ns = 42};
    size_t bound = wire_encode_bound(sizeof(m), 0, strings, 2), size, used = 0;
    uint8_t *buf = malloc(bound);
    wire_frame f;
    wire_record r;
    const char *why = NULL;

    CHECK(bound == HDR + sizeof(m) + 2 + 24 + 2 + 4,
          "bound: header, fixed, 3 bytes a UTF-16 unit (%zu)", bound);
    size = wire_encode(buf, &h, &m, sizeof(m), NULL, 0, strings, 2);
    CHECK(size <= bound, "never more than the bound (%zu <= %zu)", size, bound);
    CHECK(wire_decode_frame(buf, size, &f, &used, &why) == WIRE_DECODE_OK && used == size,
          "one whole frame");
    CHECK(wire_decode_record(&f, &r, &why) == WIRE_DECODE_OK, "decodes (%s)", why ? why : "");
    CHECK(r.seq == 7 && r.time_ns == 42 && r.flags == WIRE_FLAG_CATCHUP,
          "header fields kept, no truncation flag");
    CHECK(r.u.module_loaded.module_id == 0x1234 && r.u.module_loaded.assembly_id == 0x99,
          "fixed part");
    CHECK(r.string_count == 2 && r.strings[0].length == 10 &&
              memcmp(r.strings[0].text, "/a\xF0\x9F\x98\x80.dll", 10) == 0,
          "UTF-16 with a surrogate pair converted");
    CHECK(r.strings[1].length == 4 && memcmp(r.strings[1].text, "As?m", 4) == 0,
          "a bad UTF-8 byte becomes '?'");
    free(buf);
}

TEST(encoder_cuts_long_strings_and_flags_it)
{
    size_t n = WIRE_MAX_STRING + 100;
    char *text = malloc(n);
    wire_text s = {.utf8 = text, .length = n};
    wire_frame_header h = {.type = WIRE_FUNCTION_NAME, .seq = 1};
    wire_function_name fn = {.function_id = 5};
    size_t bound, size, used;
    uint8_t *buf;
    wire_frame f;
    wire_record r;
    const char *why = NULL;

    memset(text, 'x', n);
    text[WIRE_MAX_STRING - 1] = '\xC3'; /* a two-byte character across the cut */
    text[WIRE_MAX_STRING] = '\xA9';
    bound = wire_encode_bound(sizeof(fn), 0, &s, 1);
    buf = malloc(bound);
    size = wire_encode(buf, &h, &fn, sizeof(fn), NULL, 0, &s, 1);
    CHECK(wire_decode_frame(buf, size, &f, &used, &why) == WIRE_DECODE_OK &&
              wire_decode_record(&f, &r, &why) == WIRE_DECODE_OK,
          "decodes (%s)", why ? why : "");
    CHECK(r.flags & WIRE_FLAG_TRUNCATED, "cut string flagged");
    CHECK(r.strings[0].length == WIRE_MAX_STRING - 1,
          "cut before the character, not inside it (%u)", (unsigned)r.strings[0].length);
    free(buf);
    free(text);
}

/* The agent encodes a ring record once without its number and stamps the
 * number later (wire_stamp_seq): the result is the frame encoded with it. */
TEST(stamped_seq_is_the_encoding_with_it)
{
    static const char name[] = "Ns.Type.M\xff(int)"; /* a bad byte: sanitized */
    wire_text s = {.utf8 = name, .length = sizeof(name) - 1};
    wire_frame_header h = {.type = WIRE_FUNCTION_NAME, .flags = WIRE_FLAG_CATCHUP, .time_ns = 77};
    wire_function_name fn = {.function_id = 5, .module_id = 6, .token = 0x06000001};
    uint8_t stamped[256], direct[256];
    size_t n1, n2;

    n1 = wire_encode(stamped, &h, &fn, sizeof(fn), NULL, 0, &s, 1);
    wire_stamp_seq(stamped, 0x0102030405060708ull);
    h.seq = 0x0102030405060708ull;
    n2 = wire_encode(direct, &h, &fn, sizeof(fn), NULL, 0, &s, 1);
    CHECK(n1 == n2 && memcmp(stamped, direct, n1) == 0,
          "byte for byte the frame encoded with that number (%zu bytes)", n1);
}

TEST(commands)
{
    uint8_t buf[HDR + WIRE_MAX_COMMAND + 8];
    wire_cmd_profile_start ps = {.hz = 49, .duration_ms = 1000};
    wire_cmd_detach d = {.expected_ms = 5000};
    wire_frame_header h = {.type = WIRE_CMD_PROFILE_START};
    wire_command c;
    size_t size, used = 0, two;
    const char *why = NULL;

    size = wire_encode(buf, &h, &ps, sizeof(ps), NULL, 0, NULL, 0);
    h.type = WIRE_CMD_DETACH;
    two = size + wire_encode(buf + size, &h, &d, sizeof(d), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, two, &c, &used, &why) == WIRE_DECODE_OK && used == size &&
              c.type == WIRE_CMD_PROFILE_START && c.u.profile_start.hz == 49 &&
              c.u.profile_start.duration_ms == 1000,
          "profile start");
    CHECK(wire_decode_command(buf + used, two - used, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_DETACH && c.u.detach.expected_ms == 5000,
          "then detach, back to back");
    for (size_t k = 0; k < size; k++)
        CHECK(wire_decode_command(buf, k, &c, &used, &why) == WIRE_DECODE_NEED_MORE,
              "prefix %zu needs more", k);
    h.type = WIRE_CMD_SNAPSHOT;
    size = wire_encode(buf, &h, &d, 4, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD,
          "snapshot shorter than its id: bad");
    h.type = WIRE_CMD_TIERS;
    size = wire_encode(buf, &h, &(wire_cmd_tiers){.enabled = 1}, sizeof(wire_cmd_tiers), NULL, 0,
                       NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_TIERS && c.u.tiers.enabled == 1,
          "tiers on");
    size = wire_encode(buf, &h, &d, 2, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD,
          "tiers shorter than its flag: bad");
    h.type = WIRE_CMD_CODE;
    size = wire_encode(buf, &h, &(wire_cmd_code){5, 0x7f00001000ull, 0x7f12340000ull, 0, 0},
                       sizeof(wire_cmd_code), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_CODE && c.u.code.request_id == 5 &&
              c.u.code.function_id == 0x7f00001000ull && c.u.code.code_address == 0x7f12340000ull,
          "code request");
    size = wire_encode(buf, &h, &d, sizeof(d), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD,
          "code request shorter than its fields: bad");
    h.type = 4242;
    size = wire_encode(buf, &h, &d, sizeof(d), NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK && c.type == 4242 &&
              used == size,
          "unknown command: skipped whole, for a newer server");
    memset(buf, 0, sizeof(buf));
    h.type = WIRE_CMD_PING;
    h.length = WIRE_MAX_COMMAND + 1;
    memcpy(buf, &h, sizeof(h));
    CHECK(wire_decode_command(buf, HDR, &c, &used, &why) == WIRE_DECODE_BAD,
          "over WIRE_MAX_COMMAND: bad at once, not need-more");
}

/* The CPU profiler's code lookups: the command carries exactly `count`
 * addresses (1..WIRE_CODE_LOOKUP_MAX), and an answer's range holds its address. */
TEST(code_lookups)
{
    uint8_t buf[HDR + WIRE_MAX_COMMAND + 8];
    wire_frame_header h = {.type = WIRE_CMD_CODE_LOOKUP};
    wire_cmd_code_lookup cmd;
    wire_command c;
    wire_record r;
    size_t size, used = 0;
    const char *why = NULL;

    memset(&cmd, 0, sizeof(cmd));
    for (uint32_t i = 0; i < WIRE_CODE_LOOKUP_MAX; i++)
        cmd.ips[i] = 0x7f0000100000ull + i * 16;
    cmd.count = WIRE_CODE_LOOKUP_MAX;
    size = wire_encode(buf, &h, &cmd, 8 + WIRE_CODE_LOOKUP_MAX * 8, NULL, 0, NULL, 0);
    CHECK(size - HDR <= WIRE_MAX_COMMAND, "the largest lookup fits a command");
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.type == WIRE_CMD_CODE_LOOKUP && c.u.code_lookup.count == WIRE_CODE_LOOKUP_MAX &&
              c.u.code_lookup.ips[WIRE_CODE_LOOKUP_MAX - 1] == cmd.ips[WIRE_CODE_LOOKUP_MAX - 1],
          "30 addresses");
    cmd.count = 2;
    size = wire_encode(buf, &h, &cmd, 8 + 2 * 8, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_OK &&
              c.u.code_lookup.count == 2 && c.u.code_lookup.ips[1] == cmd.ips[1] &&
              c.u.code_lookup.ips[2] == 0,
          "2 addresses, the rest zero");
    size = wire_encode(buf, &h, &cmd, 8 + 3 * 8, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD && why,
          "a length that disagrees with the count: bad");
    cmd.count = 0;
    size = wire_encode(buf, &h, &cmd, 8, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD, "no address: bad");
    cmd.count = WIRE_CODE_LOOKUP_MAX + 1;
    size = wire_encode(buf, &h, &cmd, 8 + 8 * 8, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD, "31: bad");
    size = wire_encode(buf, &h, &cmd, 4, NULL, 0, NULL, 0);
    CHECK(wire_decode_command(buf, size, &c, &used, &why) == WIRE_DECODE_BAD,
          "shorter than its count: bad");

    /* answers */
    {
        wire_code_range a = s_code_range;
        wire_frame_header rh = {.type = WIRE_CODE_RANGE, .seq = 1};
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(decode_one(buf, size, &r, &why) == WIRE_DECODE_OK && r.u.code_range.size == 143 &&
                  r.u.code_range.function_id == a.function_id,
              "an answer with its range");
        a.ip = a.start + a.size; /* one past the end */
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(bad_with_reason(buf, size), "a range that does not hold the address: bad");
        a.ip = a.start - 1;
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(bad_with_reason(buf, size), "an address below the range: bad");
        a = (wire_code_range){.ip = 0x1234, .hresult = (int32_t)0x80004005};
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(decode_one(buf, size, &r, &why) == WIRE_DECODE_OK,
              "no function (not managed code): fine");
        a.start = 0x1000;
        size = wire_encode(buf, &rh, &a, sizeof(a), NULL, 0, NULL, 0);
        CHECK(bad_with_reason(buf, size), "a range without a function: bad");
    }
}

static const check_test tests[] = {
    TEST_ENTRY(encoder_round_trips_through_the_decoder),
    TEST_ENTRY(encoder_cuts_long_strings_and_flags_it),
    TEST_ENTRY(stamped_seq_is_the_encoding_with_it),
    TEST_ENTRY(commands),
    TEST_ENTRY(code_lookups),
    TEST_END,
};

int main(int argc, char **argv)
{
    make_samples();
    return check_main_each(argc, argv, tests, NULL, NULL);
}
