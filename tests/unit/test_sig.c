/* test_sig.c -- unit tests for proto/sig.c, method signatures as parameter lists.
 *
 * The blobs are the bytes the C# compiler writes for the declarations quoted
 * beside them (ECMA-335 II.23.2; TypeRef/TypeDef rows as small numbers): every
 * built-in type, by-ref (`ref`, `out`, and `in` with its modreq), pointers,
 * single and multi-dimensional arrays, generic instances (nested too), class
 * and method generic parameters with and without known arguments, a vararg
 * sentinel, a function pointer, compressed integers of 1, 2 and 4 bytes; then
 * malformed blobs (cut anywhere, unknown element types, bad token tags, absurd
 * counts, nesting past the cap) and outputs too small for the list.
 * Build: make build/tests/test_sig && build/tests/test_sig
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sig.h"

/* Names TypeRef 1 "List`1", TypeRef 2 "Dictionary`2", TypeDef 3 "Point",
 * TypeRef 4 "IsReadOnlyAttribute", TypeDef 0x123 "Grid", anything else unknown. */
static size_t test_token_name(void *ctx, uint32_t token, char *out, size_t outsz)
{
    const char *name = NULL;

    (void)ctx;
    switch (token) {
    case 0x01000001u: name = "List`1"; break;
    case 0x01000002u: name = "Dictionary`2"; break;
    case 0x02000003u: name = "Point"; break;
    case 0x02000123u: name = "Grid"; break;
    case 0x01000004u: name = "IsReadOnlyAttribute"; break;
    default: return 0;
    }
    return (size_t)snprintf(out, outsz, "%s", name);
}

static const sig_names plain_names = {.type_token = test_token_name};

typedef struct sig_case {
    const char *declaration;
    uint8_t blob[32];
    size_t length;
    int params;
    const char *expect;
} sig_case;

/* TypeDefOrRef encodings: TypeRef n = (n << 2) | 1, TypeDef n = n << 2. */
#define TR(n) (uint8_t)(((n) << 2) | 1)
#define TD(n) (uint8_t)((n) << 2)

static const sig_case cases[] = {
    {"static void M()", {0x00, 0x00, 0x01}, 3, 0, "()"},
    {"static int Calc(int a, ref long b)",
     {0x00, 0x02, 0x08, 0x08, 0x10, 0x0a},
     6,
     2,
     "(int, ref long)"},
    {"int Calc(double a, double b) (instance)",
     {0x20, 0x02, 0x08, 0x0d, 0x0d},
     5,
     2,
     "(double, double)"},
    {"static void All(bool, char, sbyte, byte, short, ushort, int, uint, long, ulong, float, "
     "double, string, object, nint, nuint)",
     {0x00, 16, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
      0x1c, 0x18, 0x19},
     19,
     16,
     "(bool, char, sbyte, byte, short, ushort, int, uint, long, ulong, float, double, string, "
     "object, nint, nuint)"},
    {"static void M(string[] args)", {0x00, 0x01, 0x01, 0x1d, 0x0e}, 5, 1, "(string[])"},
    {"static void M(int[,] grid, int*[] ptrs)",
     {0x00, 0x02, 0x01, 0x14, 0x08, 0x02, 0x00, 0x00, 0x1d, 0x0f, 0x08},
     11,
     2,
     "(int[,], int*[])"},
    {"static void M(int[0..3, 0..] with sizes and lower bounds)",
     {0x00, 0x01, 0x01, 0x14, 0x08, 0x02, 0x01, 0x04, 0x02, 0x00, 0x00},
     11,
     1,
     "(int[,])"},
    {"void M(List<int> xs, Dictionary<string, List<Point>> map)",
     {0x20, 0x02, 0x01, 0x15, 0x12, TR(1), 0x01, 0x08, 0x15, 0x12, TR(2), 0x02, 0x0e, 0x15, 0x12,
      TR(1), 0x01, 0x11, TD(3)},
     19,
     2,
     "(List<int>, Dictionary<string, List<Point>>)"},
    {"static void M(in Point p) (modreq IsReadOnly before the byref)",
     {0x00, 0x01, 0x01, 0x1f, TR(4), 0x10, 0x11, TD(3)},
     8,
     1,
     "(ref Point)"},
    {"static void M(out int x, ref int[] y)",
     {0x00, 0x02, 0x01, 0x10, 0x08, 0x10, 0x1d, 0x08},
     8,
     2,
     "(ref int, ref int[])"},
    {"static T Pick<T>(T[] xs, int i), no instantiation known",
     {0x10, 0x01, 0x02, 0x1e, 0x00, 0x1d, 0x1e, 0x00, 0x08},
     9,
     2,
     "(!!0[], int)"},
    {"void Box<T>.Set(T value, TypedReference r)",
     {0x20, 0x02, 0x01, 0x13, 0x00, 0x16},
     6,
     2,
     "(!0, TypedReference)"},
    {"static void M(int x, __arglist) called with (string)",
     {0x05, 0x02, 0x01, 0x08, 0x41, 0x0e},
     6,
     2,
     "(int, ..., string)"},
    {"static void M(delegate*<int, void> f)",
     {0x00, 0x01, 0x01, 0x1b, 0x00, 0x01, 0x01, 0x08},
     8,
     1,
     "(fnptr)"},
    {"static void M(Unknown u) (a TypeRef nobody can name)",
     {0x00, 0x01, 0x01, 0x12, TR(9)},
     5,
     1,
     "(?)"},
    {"static void M(Grid g) with a two-byte coded TypeDef row 0x123",
     {0x00, 0x01, 0x01, 0x11, 0x80 | 0x04, 0x8C},
     6,
     1,
     "(Grid)"},
};

TEST(real_signatures)
{
    char out[256];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const sig_case *c = &cases[i];
        int n = sig_format_params(c->blob, c->length, &plain_names, out, sizeof(out));
        CHECK(n == c->params && strcmp(out, c->expect) == 0, "%s: got %d \"%s\", want %d \"%s\"",
              c->declaration, n, out, c->params, c->expect);
    }
}

TEST(known_generic_arguments)
{
    static const char *const class_args[] = {"int"};
    static const char *const method_args[] = {"string", "Point"};
    sig_names names = {.type_token = test_token_name,
                       .class_args = class_args,
                       .class_arg_count = 1,
                       .method_args = method_args,
                       .method_arg_count = 2};
    /* static void Map<A, B>(A a, B b, T t, List<B> l) in class C<T> */
    const uint8_t blob[] = {0x10, 0x02, 0x04, 0x01, 0x1e,  0x00, 0x1e, 0x01,
                            0x13, 0x00, 0x15, 0x12, TR(1), 0x01, 0x1e, 0x01};
    const uint8_t third[] = {0x10, 0x03, 0x01, 0x01, 0x1e, 0x02}; /* !!2: past what is known */
    char out[128];

    CHECK(sig_format_params(blob, sizeof(blob), &names, out, sizeof(out)) == 4 &&
              strcmp(out, "(string, Point, int, List<Point>)") == 0,
          "arguments mapped: %s", out);
    CHECK(sig_format_params(third, sizeof(third), &names, out, sizeof(out)) == 1 &&
              strcmp(out, "(!!2)") == 0,
          "an index past the known arguments stays !!n: %s", out);
    CHECK(sig_format_params(blob, sizeof(blob), NULL, out, sizeof(out)) == 4 &&
              strcmp(out, "(!!0, !!1, !0, ?<!!1>)") == 0,
          "no names at all: %s", out);
}

TEST(compressed_integers)
{
    const uint8_t one[] = {0x7f}, two[] = {0xBF, 0xFF}, four[] = {0xDF, 0xFF, 0xFF, 0xFF};
    const uint8_t cut_two[] = {0x80}, cut_four[] = {0xC0, 0x00, 0x00}, bad[] = {0xE0, 0, 0, 0};
    size_t pos = 0;
    uint32_t v = 0;

    CHECK(sig_read_compressed(one, 1, &pos, &v) == 0 && v == 0x7f && pos == 1, "one byte");
    pos = 0;
    CHECK(sig_read_compressed(two, 2, &pos, &v) == 0 && v == 0x3fff && pos == 2, "two bytes");
    pos = 0;
    CHECK(sig_read_compressed(four, 4, &pos, &v) == 0 && v == 0x1fffffff && pos == 4, "four bytes");
    pos = 0;
    CHECK(sig_read_compressed(cut_two, 1, &pos, &v) == -1 && pos == 0, "two-byte form cut short");
    CHECK(sig_read_compressed(cut_four, 3, &pos, &v) == -1, "four-byte form cut short");
    CHECK(sig_read_compressed(bad, 4, &pos, &v) == -1, "111xxxxx is no valid lead byte");
    pos = 1;
    CHECK(sig_read_compressed(one, 1, &pos, &v) == -1, "at the end");
}

TEST(malformed_blobs)
{
    const uint8_t calc[] = {0x00, 0x02, 0x08, 0x08, 0x10, 0x0a};
    const uint8_t unknown_element[] = {0x00, 0x01, 0x01, 0x17};
    const uint8_t bad_tag[] = {0x00, 0x01, 0x01, 0x12, 0x03};
    const uint8_t huge_count[] = {0x00, 0xC0, 0x10, 0x00, 0x00, 0x01};
    const uint8_t generic_no_args[] = {0x00, 0x01, 0x01, 0x15, 0x12, TR(1), 0x00};
    const uint8_t generic_of_int[] = {0x00, 0x01, 0x01, 0x15, 0x08, TR(1), 0x01, 0x08};
    const uint8_t rank_zero[] = {0x00, 0x01, 0x01, 0x14, 0x08, 0x00, 0x00, 0x00};
    uint8_t deep[64];
    char out[64];
    size_t k;

    for (k = 0; k < sizeof(calc); k++)
        CHECK(sig_format_params(calc, k, &plain_names, out, sizeof(out)) == -1 &&
                  strcmp(out, "(?)") == 0,
              "cut after %zu bytes: malformed", k);
    CHECK(sig_format_params(NULL, 6, &plain_names, out, sizeof(out)) == -1, "no blob");
    CHECK(sig_format_params(unknown_element, sizeof(unknown_element), &plain_names, out,
                            sizeof(out)) == -1,
          "unknown element type");
    CHECK(sig_format_params(bad_tag, sizeof(bad_tag), &plain_names, out, sizeof(out)) == -1,
          "token tag 3");
    CHECK(sig_format_params(huge_count, sizeof(huge_count), &plain_names, out, sizeof(out)) == -1,
          "a million parameters");
    CHECK(sig_format_params(generic_no_args, sizeof(generic_no_args), &plain_names, out,
                            sizeof(out)) == -1,
          "generic instance of no arguments");
    CHECK(sig_format_params(generic_of_int, sizeof(generic_of_int), &plain_names, out,
                            sizeof(out)) == -1,
          "generic instance of a non-class");
    CHECK(sig_format_params(rank_zero, sizeof(rank_zero), &plain_names, out, sizeof(out)) == -1,
          "rank 0 array");
    /* static void M(int[][]...[]) nested past SIG_MAX_DEPTH */
    deep[0] = 0x00, deep[1] = 0x01, deep[2] = 0x01;
    for (k = 3; k < sizeof(deep) - 1; k++)
        deep[k] = 0x1d;
    deep[sizeof(deep) - 1] = 0x08;
    CHECK(sig_format_params(deep, sizeof(deep), &plain_names, out, sizeof(out)) == -1,
          "nesting past the cap");
    CHECK(sig_format_params(deep + (sizeof(deep) - 3 - SIG_MAX_DEPTH + 1) - 3, 3 + SIG_MAX_DEPTH,
                            &plain_names, out, sizeof(out)) >= -1,
          "near the cap: no crash");
    CHECK(sig_format_params(calc, sizeof(calc), &plain_names, out, 7) == -1,
          "output under 8 bytes refused");
}

TEST(output_too_small)
{
    const uint8_t all[] = {0x00, 6, 0x01, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e, 0x0e};
    char out[32];
    int n;

    for (size_t size = 8; size <= sizeof(out); size++) {
        memset(out, 'X', sizeof(out));
        n = sig_format_params(all, sizeof(all), &plain_names, out, size);
        CHECK(n == 6, "still 6 parameters at %zu bytes", size);
        CHECK(strlen(out) < size, "NUL inside the %zu bytes", size);
        CHECK(out[0] == '(' && out[strlen(out) - 1] == ')', "still a list at %zu bytes: %s", size,
              out);
    }
    n = sig_format_params(all, sizeof(all), &plain_names, out, 16);
    CHECK(strcmp(out, "(string, st...)") == 0, "cut with ...): %s", out);
}

TEST(lone_types)
{
    const uint8_t list_of_point[] = {0x15, 0x12, TR(1), 0x01, 0x11, TD(3)};
    char out[64];

    CHECK(sig_format_type(list_of_point, sizeof(list_of_point), &plain_names, out, sizeof(out)) ==
                  11 &&
              strcmp(out, "List<Point>") == 0,
          "TypeSpec content: %s", out);
    CHECK(sig_format_type(list_of_point, 3, &plain_names, out, sizeof(out)) == -1, "cut TypeSpec");
}

/* Names two runtime type handles as handle_name (names_resolve.c) would:
 * RegexRunner, and the open ReadOnlySpan<T> (with its arguments unknown). */
#define H_RUNNER 0x00007f1122334455ull
#define H_SPAN 0x00007f99aabbcc00ull
#define HANDLE(h)                                                                                  \
    (uint8_t)(h), (uint8_t)((h) >> 8), (uint8_t)((h) >> 16), (uint8_t)((h) >> 24),                 \
        (uint8_t)((h) >> 32), (uint8_t)((h) >> 40), (uint8_t)((h) >> 48), (uint8_t)((h) >> 56)

static size_t test_handle_name(void *ctx, uint64_t handle, char *out, size_t outsz)
{
    (void)ctx;
    if (handle == H_RUNNER)
        return (size_t)snprintf(out, outsz, "RegexRunner");
    if (handle == H_SPAN)
        return (size_t)snprintf(out, outsz, "ReadOnlySpan<?>");
    return 0;
}

TEST(runtime_type_handles)
{
    /* what GetDynamicFunctionInfo returns for Regex1_Scan(RegexRunner, ReadOnlySpan<char>) */
    const uint8_t scan[] = {0x00, 0x02, 0x01,           0x21, HANDLE(H_RUNNER),
                            0x15, 0x21, HANDLE(H_SPAN), 0x01, 0x03};
    const uint8_t cmod[] = {0x00, 0x01, 0x01, 0x22, 0x01, HANDLE(H_RUNNER), 0x08};
    const uint8_t unknown[] = {0x00, 0x01, 0x01, 0x21, HANDLE(0x1234ull)};
    sig_names names = {.type_handle = test_handle_name};
    char out[128];
    int n;

    n = sig_format_params(scan, sizeof(scan), &names, out, sizeof(out));
    CHECK(n == 2 && strcmp(out, "(RegexRunner, ReadOnlySpan<char>)") == 0, "handles: %d %s", n,
          out);
    n = sig_format_params(scan, sizeof(scan), NULL, out, sizeof(out));
    CHECK(n == 2 && strcmp(out, "(?, ?<char>)") == 0, "no handle callback: %d %s", n, out);
    n = sig_format_params(cmod, sizeof(cmod), &names, out, sizeof(out));
    CHECK(n == 1 && strcmp(out, "(int)") == 0, "internal modifier skipped: %d %s", n, out);
    n = sig_format_params(unknown, sizeof(unknown), &names, out, sizeof(out));
    CHECK(n == 1 && strcmp(out, "(?)") == 0, "unknown handle: %d %s", n, out);
    for (size_t cut = 4; cut < sizeof(scan); cut++) {
        n = sig_format_params(scan, cut, &names, out, sizeof(out));
        CHECK(n == -1 && strcmp(out, "(?)") == 0, "cut at %zu: %d %s", cut, n, out);
    }
}

static const check_test tests[] = {
    TEST_ENTRY(runtime_type_handles),
    TEST_ENTRY(real_signatures),
    TEST_ENTRY(known_generic_arguments),
    TEST_ENTRY(compressed_integers),
    TEST_ENTRY(malformed_blobs),
    TEST_ENTRY(output_too_small),
    TEST_ENTRY(lone_types),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
