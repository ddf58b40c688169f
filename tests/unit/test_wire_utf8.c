/* test_wire_utf8.c -- unit tests of the strings of records: invalid
 * UTF-8 (overlong, surrogate, truncated, > U+10FFFF) makes a record BAD;
 * utf8_valid against a table and against the agent's utf8_sanitize (a string
 * is valid exactly when sanitizing leaves it unchanged).
 *
 * Frames are built by hand from the proto/wire.h structs and strings (u16
 * byte count + UTF-8): wirefix.h, with one valid sample of every record type.
 * Build: make build/tests/test_wire_utf8 && build/tests/test_wire_utf8
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "utf.h"
#include "wire_decode.h"
#include "wirefix.h"

TEST(invalid_utf8_in_strings)
{
    static const struct {
        const char *bytes;
        size_t n;
        const char *what;
    } bad[] = {
        {"\xC0\xAF", 2, "overlong 2-byte '/'"},
        {"\xC1\xBF", 2, "overlong 2-byte U+007F"},
        {"\xE0\x80\xAF", 3, "overlong 3-byte"},
        {"\xF0\x80\x80\xAF", 4, "overlong 4-byte"},
        {"\xED\xA0\x80", 3, "surrogate U+D800"},
        {"\xED\xBF\xBF", 3, "surrogate U+DFFF"},
        {"\xE4\xB8", 2, "truncated 3-byte sequence at the end"},
        {"a\xF0\x9F\x98", 4, "truncated 4-byte sequence at the end"},
        {"\xE4\xB8"
         "a",
         3, "truncated 3-byte sequence before ASCII"},
        {"\xF4\x90\x80\x80", 4, "code point above U+10FFFF"},
        {"\x80", 1, "lone continuation byte"},
        {"\xFF", 1, "byte 0xFF"},
        {"\xF8\x88\x80\x80\x80", 5, "5-byte form"},
    };
    const sample *bases[] = {&samples[3], &samples[4], &samples[6], &samples[10]};

    for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
        int all = 1;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            sample s = *bases[b];
            uint8_t buf[512];
            size_t len;

            s.str[s.nstrings - 1] = bad[i].bytes; /* last string: checks every string is read */
            s.str_len[s.nstrings - 1] = bad[i].n;
            len = build_frame_ex(buf, &s, 1, 0);
            if (!bad_with_reason(buf, len)) {
                all = 0;
                printf("    %s accepted with %s\n", s.what, bad[i].what);
            }
        }
        CHECK(all, "%s: each of %zu invalid UTF-8 strings is BAD", bases[b]->what,
              sizeof(bad) / sizeof(bad[0]));
    }
    {
        sample s = samples[4];
        uint8_t buf[512];
        size_t len;
        s.str[0] = "\xED\xA0\x80", s.str_len[0] = 3; /* first of two strings */
        len = build_frame_ex(buf, &s, 1, 0);
        CHECK(bad_with_reason(buf, len),
              "module_loaded with invalid UTF-8 in the first string is BAD");
    }
}

TEST(valid_utf8_table)
{
    static const struct {
        const char *s;
        size_t n;
        int valid;
        const char *what;
    } t[] = {
        {"", 0, 1, "empty"},
        {"plain ASCII", 11, 1, "ASCII"},
        {"a\0b", 3, 1, "embedded NUL"},
        {"\x7F", 1, 1, "U+007F"},
        {"\xC2\x80", 2, 1, "U+0080"},
        {"\xC3\xA9", 2, 1, "e acute"},
        {"\xDF\xBF", 2, 1, "U+07FF"},
        {"\xE0\xA0\x80", 3, 1, "U+0800"},
        {"\xE4\xB8\xAD", 3, 1, "CJK U+4E2D"},
        {"\xED\x9F\xBF", 3, 1, "U+D7FF, last before the surrogates"},
        {"\xEE\x80\x80", 3, 1, "U+E000, first after the surrogates"},
        {"\xEF\xBF\xBD", 3, 1, "U+FFFD"},
        {"\xEF\xBF\xBF", 3, 1, "U+FFFF"},
        {"\xF0\x90\x80\x80", 4, 1, "U+10000"},
        {"\xF0\x9F\x98\x80", 4, 1, "emoji U+1F600"},
        {"\xF4\x8F\xBF\xBF", 4, 1, "U+10FFFF"},
        {"a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80z", 11, 1, "mixed"},
        {"\x80", 1, 0, "lone continuation"},
        {"\xBF", 1, 0, "lone continuation 0xBF"},
        {"\xC0\x80", 2, 0, "overlong NUL"},
        {"\xC1\xBF", 2, 0, "overlong U+007F"},
        {"\xE0\x80\x80", 3, 0, "overlong 3-byte NUL"},
        {"\xE0\x9F\xBF", 3, 0, "overlong U+07FF"},
        {"\xF0\x80\x80\x80", 4, 0, "overlong 4-byte NUL"},
        {"\xF0\x8F\xBF\xBF", 4, 0, "overlong U+FFFF"},
        {"\xED\xA0\x80", 3, 0, "surrogate U+D800"},
        {"\xED\xAF\xBF", 3, 0, "surrogate U+DBFF"},
        {"\xED\xB0\x80", 3, 0, "surrogate U+DC00"},
        {"\xED\xBF\xBF", 3, 0, "surrogate U+DFFF"},
        {"\xED\xA0\xBD\xED\xB8\x80", 6, 0, "CESU-8 surrogate pair"},
        {"\xF4\x90\x80\x80", 4, 0, "U+110000"},
        {"\xF5\x80\x80\x80", 4, 0, "lead byte 0xF5"},
        {"\xF7\xBF\xBF\xBF", 4, 0, "lead byte 0xF7"},
        {"\xF8\x88\x80\x80\x80", 5, 0, "5-byte form"},
        {"\xFC\x84\x80\x80\x80\x80", 6, 0, "6-byte form"},
        {"\xFE", 1, 0, "0xFE"},
        {"\xFF", 1, 0, "0xFF"},
        {"\xC3", 1, 0, "truncated 2-byte"},
        {"\xE4\xB8", 2, 0, "truncated 3-byte"},
        {"\xF0\x9F\x98", 3, 0, "truncated 4-byte"},
        {"\xC3\x28", 2, 0, "bad continuation"},
        {"\xE4\x28\xAD", 3, 0, "bad second byte"},
        {"\xE4\xB8\x28", 3, 0, "bad third byte"},
        {"\xF0\x9F\x98\x28", 4, 0, "bad fourth byte"},
        {"ok\xC3", 3, 0, "valid then truncated"},
        {"\xC3\xA9\x80", 3, 0, "valid then stray continuation"},
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *copy = (char *)copy_of((const uint8_t *)t[i].s, t[i].n); /* exact size */
        CHECK(utf8_valid(copy, t[i].n) == t[i].valid, "utf8_valid(%s) == %d", t[i].what,
              t[i].valid);
        free(copy);
    }
    CHECK(utf8_valid(NULL, 0) == 1, "zero bytes at NULL are valid");
    CHECK(utf8_valid("\xE4\xB8\xAD", 2) == 0, "the length bounds the check (cut character)");
}

static uint64_t rng_state; /* made-up data: every test starts the sequence again */

static void rng_reset(void) { rng_state = 0x9E3779B97F4A7C15ull; }
static uint64_t xorshift(void) { return check_random(&rng_state); }

/* The agent writes strings through utf8_sanitize; the server accepts strings
 * with utf8_valid. They must agree: a string is valid exactly when
 * sanitizing leaves it unchanged, and what the agent sends is always valid. */
TEST(valid_utf8_agrees_with_agent_sanitizer)
{
    unsigned long disagree = 0, unsent = 0, valid_seen = 0;

    for (int i = 0; i < 100000; i++) {
        uint8_t in[24];
        char out[24];
        size_t n = xorshift() % sizeof(in), m;
        int truncated;

        for (size_t k = 0; k < n; k++) {
            uint64_t r = xorshift();
            /* mostly bytes that form or nearly form multi-byte sequences */
            static const uint8_t pool[] = {0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2,
                                           0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF};
            in[k] = (r & 1) ? pool[(r >> 1) % sizeof(pool)] : (uint8_t)(r >> 8);
        }
        m = utf8_sanitize((const char *)in, n, out, sizeof(out), &truncated);
        if (utf8_valid((const char *)in, n) != (m == n && memcmp(in, out, n) == 0))
            disagree++;
        if (!utf8_valid(out, m) || m != n || truncated)
            unsent++;
        valid_seen += utf8_valid((const char *)in, n);
    }
    CHECK(disagree == 0,
          "utf8_valid(s) == (utf8_sanitize(s) == s) on 100000 random strings "
          "(%lu disagree)",
          disagree);
    CHECK(unsent == 0, "utf8_sanitize output is always valid for the server, same length (%lu not)",
          unsent);
    CHECK(valid_seen > 2000 && valid_seen < 98000,
          "the random strings mix valid and invalid (%lu valid)", valid_seen);
}

static const check_test tests[] = {
    TEST_ENTRY(invalid_utf8_in_strings),
    TEST_ENTRY(valid_utf8_table),
    TEST_ENTRY(valid_utf8_agrees_with_agent_sanitizer),
    TEST_END,
};

int main(int argc, char **argv)
{
    make_samples();
    return check_main_each(argc, argv, tests, rng_reset, NULL);
}
