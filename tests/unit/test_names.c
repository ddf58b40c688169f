/* test_names.c -- unit tests for agent/names.c (readable .NET method/type names).
 *
 * Builds names_type / names_method trees by hand, as names_resolve.c would from
 * metadata, and checks names_format_method / names_format_type: plain, nested
 * ('+'), generic types with and without a known instantiation, generic methods
 * with arguments or only an arity (``N), nested generics where the innermost
 * type carries the arguments of every level, arrays (T[], T[,], jagged), generic
 * arguments that are generic, module-level functions; truncation into tiny
 * buffers (always NUL-terminated, never past outsz, "..." when cut); nesting
 * deeper than NAMES_MAX_DEPTH and cycles (finite, "..."); more than
 * NAMES_MAX_ARGS arguments.
 * Build: make build/tests/test_names && build/tests/test_names
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "names.h"

static const names_type INT32 = {.name = "System.Int32"};
static const names_type INT64 = {.name = "System.Int64"};
static const names_type STRING = {.name = "System.String"};
static const names_type CANON = {.name = "System.__Canon"};

static char out[1024];

static const char *fmt_method(const names_method *m)
{
    size_t n = names_format_method(m, out, sizeof(out));
    return n == strlen(out) ? out : "(length returned != strlen)";
}

static const char *fmt_type(const names_type *t)
{
    size_t n = names_format_type(t, out, sizeof(out));
    return n == strlen(out) ? out : "(length returned != strlen)";
}

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *got_ = (got), *want_ = (want);                                                 \
        CHECK(strcmp(got_, want_) == 0, "\"%s\" (got \"%s\")", want_, got_);                       \
    } while (0)

TEST(plain_method)
{
    names_type type = {.name = "Ns.Type"};
    names_method m = {.owner = &type, .name = "Method"};

    CHECK_STR(fmt_method(&m), "Ns.Type.Method");
    m.name = ".ctor";
    CHECK_STR(fmt_method(&m), "Ns.Type..ctor");
    type.name = "NoNamespace";
    m.name = "Run";
    CHECK_STR(fmt_method(&m), "NoNamespace.Run");
    CHECK_STR(fmt_type(&INT32), "System.Int32");
}

TEST(nested_type)
{
    names_type outer = {.name = "Ns.Outer"};
    names_type inner = {.name = "Inner", .enclosing = &outer};
    names_type innermost = {.name = "Deep", .enclosing = &inner};
    names_method m = {.owner = &inner, .name = "Method"};

    CHECK_STR(fmt_method(&m), "Ns.Outer+Inner.Method");
    m.owner = &innermost;
    CHECK_STR(fmt_method(&m), "Ns.Outer+Inner+Deep.Method");
}

TEST(generic_type_known_and_unknown)
{
    names_type box = {.name = "Ns.Box`1", .args = {&INT64}, .nargs = 1};
    names_type pair = {.name = "Ns.Pair`2", .args = {&INT32, &STRING}, .nargs = 2};
    names_type open = {.name = "Ns.Box`1"};
    names_method get = {.owner = &box, .name = "Get"};

    CHECK_STR(fmt_method(&get), "Ns.Box<System.Int64>.Get");
    get.owner = &pair;
    CHECK_STR(fmt_method(&get), "Ns.Pair<System.Int32,System.String>.Get");
    get.owner = &open;
    CHECK_STR(fmt_method(&get), "Ns.Box`1.Get");
    CHECK_STR(fmt_type(&open), "Ns.Box`1");
    /* fewer arguments known than the arity says */
    names_type partial = {.name = "Ns.Pair`2", .args = {&INT32}, .nargs = 1};
    CHECK_STR(fmt_type(&partial), "Ns.Pair<...>");
    /* names that only look like arities */
    names_type odd1 = {.name = "Ns.Weird`", .args = {&INT32}, .nargs = 1};
    names_type odd2 = {.name = "Ns.Weird`x1", .args = {&INT32}, .nargs = 1};
    CHECK_STR(fmt_type(&odd1), "Ns.Weird`");
    CHECK_STR(fmt_type(&odd2), "Ns.Weird`x1");
}

TEST(generic_method)
{
    names_type probe = {.name = "Ns.Probe"};
    names_method m = {
        .owner = &probe, .name = "Pick", .generic_arity = 1, .args = {&INT32}, .nargs = 1};

    CHECK_STR(fmt_method(&m), "Ns.Probe.Pick<System.Int32>");
    m.args[0] = &CANON;
    CHECK_STR(fmt_method(&m), "Ns.Probe.Pick<System.__Canon>");
    m.generic_arity = 2, m.args[0] = &INT32, m.args[1] = &STRING, m.nargs = 2;
    CHECK_STR(fmt_method(&m), "Ns.Probe.Pick<System.Int32,System.String>");
    m.nargs = 0;
    CHECK_STR(fmt_method(&m), "Ns.Probe.Pick``2");
    m.generic_arity = 1;
    CHECK_STR(fmt_method(&m), "Ns.Probe.Pick``1");
    m.generic_arity = 12;
    CHECK_STR(fmt_method(&m), "Ns.Probe.Pick``12");
    m.generic_arity = UINT_MAX;
    CHECK_STR(fmt_method(&m), "Ns.Probe.Pick``4294967295");
    m.generic_arity = 0;
    CHECK_STR(fmt_method(&m), "Ns.Probe.Pick");
}

TEST(nested_generic)
{
    names_type outer = {.name = "Ns.Outer`1"};
    names_type inner = {
        .name = "Inner`1", .enclosing = &outer, .args = {&INT32, &STRING}, .nargs = 2};
    names_method m = {.owner = &inner, .name = "M"};

    CHECK_STR(fmt_method(&m), "Ns.Outer<System.Int32>+Inner<System.String>.M");

    /* only the outer level is generic: the nested type still carries its argument */
    names_type plain_inner = {.name = "Inner", .enclosing = &outer, .args = {&INT64}, .nargs = 1};
    CHECK_STR(fmt_type(&plain_inner), "Ns.Outer<System.Int64>+Inner");
    /* only the inner level is generic */
    names_type plain_outer = {.name = "Ns.Outer"};
    names_type gen_inner = {
        .name = "Inner`1", .enclosing = &plain_outer, .args = {&INT64}, .nargs = 1};
    CHECK_STR(fmt_type(&gen_inner), "Ns.Outer+Inner<System.Int64>");
    /* three levels, arguments split 1 / 0 / 2 */
    names_type a = {.name = "Ns.A`1"};
    names_type b = {.name = "B", .enclosing = &a};
    names_type c = {.name = "C`2", .enclosing = &b, .args = {&INT32, &INT64, &STRING}, .nargs = 3};
    CHECK_STR(fmt_type(&c), "Ns.A<System.Int32>+B+C<System.Int64,System.String>");
    /* instantiation unknown: every level keeps its arity */
    names_type open_inner = {.name = "Inner`1", .enclosing = &outer};
    CHECK_STR(fmt_type(&open_inner), "Ns.Outer`1+Inner`1");
    /* too few arguments for the inner level */
    names_type short_inner = {.name = "Inner`1", .enclosing = &outer, .args = {&INT32}, .nargs = 1};
    CHECK_STR(fmt_type(&short_inner), "Ns.Outer<System.Int32>+Inner<...>");
}

TEST(arrays)
{
    names_type arr = {.element = &INT32, .array_rank = 1};
    names_type arr2 = {.element = &INT32, .array_rank = 2};
    names_type arr3 = {.element = &STRING, .array_rank = 3};
    names_type jagged = {.element = &arr, .array_rank = 1};
    names_type list = {.name = "System.Collections.Generic.List`1", .args = {&arr}, .nargs = 1};
    names_type list_int = {
        .name = "System.Collections.Generic.List`1", .args = {&INT32}, .nargs = 1};
    names_type list_arr = {.element = &list_int, .array_rank = 1};
    names_type no_element = {.array_rank = 1};
    names_type probe = {.name = "Ns.Probe"};
    names_method m = {.owner = &probe, .name = "Sum", .args = {&arr2}, .nargs = 1};

    CHECK_STR(fmt_type(&arr), "System.Int32[]");
    CHECK_STR(fmt_type(&arr2), "System.Int32[,]");
    CHECK_STR(fmt_type(&arr3), "System.String[,,]");
    CHECK_STR(fmt_type(&jagged), "System.Int32[][]");
    CHECK_STR(fmt_type(&list), "System.Collections.Generic.List<System.Int32[]>");
    CHECK_STR(fmt_type(&list_arr), "System.Collections.Generic.List<System.Int32>[]");
    CHECK_STR(fmt_type(&no_element), "...[]");
    CHECK_STR(fmt_method(&m), "Ns.Probe.Sum<System.Int32[,]>");
}

TEST(generic_argument_is_generic)
{
    names_type dict = {
        .name = "System.Collections.Generic.Dictionary`2", .args = {&INT32, &STRING}, .nargs = 2};
    names_type list = {.name = "System.Collections.Generic.List`1", .args = {&dict}, .nargs = 1};
    names_type owner = {.name = "Ns.Cache`1", .args = {&list}, .nargs = 1};
    names_method m = {.owner = &owner, .name = "Get"};

    CHECK_STR(fmt_type(&list), "System.Collections.Generic.List<System.Collections.Generic."
                               "Dictionary<System.Int32,System.String>>");
    CHECK_STR(fmt_method(&m), "Ns.Cache<System.Collections.Generic.List<System.Collections."
                              "Generic.Dictionary<System.Int32,System.String>>>.Get");
}

TEST(global_function)
{
    names_method m = {.owner = NULL, .name = "main"};

    CHECK_STR(fmt_method(&m), "main");
    m.args[0] = &INT32, m.nargs = 1;
    CHECK_STR(fmt_method(&m), "main<System.Int32>");
    m.nargs = 0, m.generic_arity = 3;
    CHECK_STR(fmt_method(&m), "main``3");
    m.name = NULL, m.generic_arity = 0;
    CHECK_STR(fmt_method(&m), "?");
    names_type unnamed = {0};
    CHECK_STR(fmt_type(&unnamed), "?");
}

/* Formats into a buffer of exactly outsz bytes followed by a canary. */
static int check_bounded(const char *full, size_t outsz,
                         size_t (*fmt)(const void *, char *, size_t), const void *what,
                         const char *label)
{
    size_t full_len = strlen(full), n, i;
    char *buf = malloc(outsz + 16);
    int ok = 1;

    memset(buf, 0x5A, outsz + 16);
    n = fmt(what, buf, outsz);
    for (i = outsz; i < outsz + 16; i++)
        ok &= buf[i] == 0x5A;
    if (!CHECK(ok, "%s, outsz %zu: nothing written past outsz", label, outsz)) {
        free(buf);
        return 0;
    }
    ok = memchr(buf, '\0', outsz) != NULL && strlen(buf) == n && n <= outsz - 1;
    if (ok && full_len <= outsz - 1)
        ok = strcmp(buf, full) == 0; /* fits: unchanged */
    else if (ok)
        ok = n >= 3 && strcmp(buf + n - 3, "...") == 0 && memcmp(buf, full, n - 3) == 0 &&
             n == outsz - 1; /* cut: a prefix of the name, then "...", using the whole buffer */
    CHECK(ok, "%s, outsz %zu: NUL-terminated, returns strlen, %s (\"%s\")", label, outsz,
          full_len <= outsz - 1 ? "whole name" : "prefix + \"...\"", ok ? buf : "?");
    free(buf);
    return ok;
}

static size_t fmt_method_v(const void *m, char *o, size_t n)
{
    return names_format_method(m, o, n);
}
static size_t fmt_type_v(const void *t, char *o, size_t n) { return names_format_type(t, o, n); }

TEST(truncation)
{
    names_type dict = {
        .name = "System.Collections.Generic.Dictionary`2", .args = {&INT32, &STRING}, .nargs = 2};
    names_type owner = {.name = "Ns.Cache`1", .args = {&dict}, .nargs = 1};
    names_method m = {.owner = &owner, .name = "GetOrAdd", .args = {&INT64}, .nargs = 1};
    char full_m[512], full_t[512];
    size_t len_m = names_format_method(&m, full_m, sizeof(full_m));
    size_t len_t = names_format_type(&owner, full_t, sizeof(full_t));
    int all = 1;

    CHECK(len_m > 40 && len_t > 40, "the names used are longer than the small buffers");
    for (size_t outsz = 4; outsz <= 40; outsz++) {
        all &= check_bounded(full_m, outsz, fmt_method_v, &m, "method");
        all &= check_bounded(full_t, outsz, fmt_type_v, &owner, "type");
    }
    /* around the exact fit */
    for (size_t outsz = len_m - 2; outsz <= len_m + 2; outsz++)
        all &= check_bounded(full_m, outsz, fmt_method_v, &m, "method near fit");
    CHECK(all, "every size 4..40 and around the exact fit is bounded and well-formed");

    /* generic arity suffix on a global function, cut in the middle of "``12" */
    names_method g = {.name = "f", .generic_arity = 12};
    for (size_t outsz = 4; outsz <= 8; outsz++)
        check_bounded("f``12", outsz, fmt_method_v, &g, "arity");
}

/* Type arguments nested deeper than NAMES_MAX_DEPTH, and cycles (which real
 * metadata cannot produce, but a resolver bug could): output is finite and says
 * "..." where it stopped. */
TEST(depth_limit_type_arguments)
{
    names_type chain[20];
    names_type self_arg = {.name = "Ns.Loop`1", .nargs = 1};
    names_type self_elem = {.array_rank = 1};
    names_type self_encl = {.name = "Loop"};
    int opens = 0;

    chain[0] = (names_type){.name = "Leaf"};
    for (int i = 1; i < 20; i++)
        chain[i] = (names_type){.name = "Ns.Wrap`1", .args = {&chain[i - 1]}, .nargs = 1};
    fmt_type(&chain[19]);
    for (const char *p = out; *p; p++)
        opens += *p == '<';
    CHECK(strstr(out, "...") != NULL && strstr(out, "Leaf") == NULL,
          "20 nested type arguments: cut with \"...\" (\"%s\")", out);
    CHECK(opens <= NAMES_MAX_DEPTH + 1 && opens >= NAMES_MAX_DEPTH - 1,
          "about NAMES_MAX_DEPTH levels printed (%d)", opens);

    self_arg.args[0] = &self_arg;
    fmt_type(&self_arg);
    CHECK(strstr(out, "...") != NULL && strlen(out) < 200, "type that is its own argument: \"%s\"",
          out);
    self_elem.element = &self_elem;
    fmt_type(&self_elem);
    CHECK(strstr(out, "...") != NULL && strlen(out) < 200, "array of itself: \"%s\"", out);
    self_encl.enclosing = &self_encl;
    fmt_type(&self_encl);
    CHECK(strlen(out) < 200, "type that encloses itself terminates: \"%s\"", out);
}

/* Enclosing types nested deeper than NAMES_MAX_DEPTH: the cut must be visible
 * ("..." where the outer levels were dropped), and each printed level must show
 * its own type arguments. In an instantiated nested type the innermost type
 * lists the arguments of all levels, outermost first, so skipping outer levels
 * without skipping their arguments shifts every argument onto the wrong level. */
TEST(depth_limit_enclosing_types)
{
    enum { PLAIN = NAMES_MAX_DEPTH + 3, GEN = NAMES_MAX_ARGS };
    static const char *const plain_names[] = {"Ns.L0", "L1", "L2", "L3", "L4",
                                              "L5",    "L6", "L7", "L8", "L9"};
    static const char *const gen_names[] = {"Ns.G0`1", "G1`1", "G2`1", "G3`1", "G4`1",
                                            "G5`1",    "G6`1", "G7`1", "G8`1", "G9`1"};
    static const char *const arg_names[] = {"A0", "A1", "A2", "A3", "A4",
                                            "A5", "A6", "A7", "A8", "A9"};
    names_type plain[PLAIN], gen[GEN], args[GEN];
    char want[64];
    size_t n;

    _Static_assert(PLAIN <= 10 && GEN <= 10 && GEN > NAMES_MAX_DEPTH + 1, "name tables");
    for (int i = 0; i < PLAIN; i++)
        plain[i] = (names_type){.name = plain_names[i], .enclosing = i ? &plain[i - 1] : NULL};
    for (int i = 0; i < GEN; i++) {
        args[i] = (names_type){.name = arg_names[i]};
        gen[i] = (names_type){.name = gen_names[i], .enclosing = i ? &gen[i - 1] : NULL};
    }
    for (int i = 0; i < GEN; i++) /* the innermost type lists every level's argument */
        gen[GEN - 1].args[i] = &args[i];
    gen[GEN - 1].nargs = GEN;

    /* plain nested types: Ns.L0+L1+...+L8, too deep to print whole */
    fmt_type(&plain[PLAIN - 1]);
    snprintf(want, sizeof(want), "+L%d", PLAIN - 1);
    n = strlen(out);
    CHECK(n > strlen(want) && strcmp(out + n - strlen(want), want) == 0,
          "%d nested levels end with the innermost \"%s\" (\"%s\")", PLAIN, want, out);
    CHECK(strstr(out, "...") != NULL,
          "%d nested levels: the dropped outer levels are marked with \"...\" (\"%s\")", PLAIN,
          out);

    /* generic nested types Ns.G0<A0>+G1<A1>+...+G7<A7>: every printed level keeps
     * its own argument, whatever is cut at the front */
    fmt_type(&gen[GEN - 1]);
    n = strlen(out);
    snprintf(want, sizeof(want), "+G%d<A%d>", GEN - 1, GEN - 1);
    CHECK(n > strlen(want) && strcmp(out + n - strlen(want), want) == 0,
          "%d nested generic levels: the innermost shows its own argument \"%s\" (\"%s\")", GEN,
          want, out);
    snprintf(want, sizeof(want), "+G%d<A%d>+", GEN - 2, GEN - 2);
    CHECK(strstr(out, want) != NULL, "... and the one around it its own, \"%s\" (\"%s\")", want,
          out);
}

TEST(more_args_than_kept)
{
    names_type t[NAMES_MAX_ARGS];
    static const char *const tn[] = {"T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7"};
    names_method m = {.name = "M", .nargs = NAMES_MAX_ARGS + 2};
    names_type big = {.name = "Ns.Big`10", .nargs = NAMES_MAX_ARGS + 2};

    _Static_assert(NAMES_MAX_ARGS == 8, "name table");
    for (int i = 0; i < NAMES_MAX_ARGS; i++) {
        t[i] = (names_type){.name = tn[i]};
        m.args[i] = &t[i];
        big.args[i] = &t[i];
    }
    CHECK_STR(fmt_method(&m), "M<T0,T1,T2,T3,T4,T5,T6,T7,...>");
    CHECK_STR(fmt_type(&big), "Ns.Big<T0,T1,T2,T3,T4,T5,T6,T7,...>");
    m.nargs = NAMES_MAX_ARGS;
    CHECK_STR(fmt_method(&m), "M<T0,T1,T2,T3,T4,T5,T6,T7>");
    m.nargs = 3, m.args[1] = NULL;
    CHECK_STR(fmt_method(&m), "M<T0,...>");
    m.nargs = 1000000;
    m.args[1] = &t[1];
    CHECK_STR(fmt_method(&m), "M<T0,T1,T2,T3,T4,T5,T6,T7,...>");
}

/* Nanoseconds for `rounds` formats of t into a 64-byte buffer: the fastest of 5 tries. */
static double format_ns(const names_type *t, int rounds)
{
    double best = 1e300;
    char small[64];

    for (int k = 0; k < 5; k++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < rounds; i++)
            names_format_type(t, small, sizeof(small));
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        best = ns < best ? ns : best;
    }
    return best;
}

/* Found profiling tests/fuzz/fuzz_names.c (its inputs ran at 8,000/s): a tree whose levels share their arguments
 * (8 per level, every level pointing at the next) is 8^6 leaves; the formatter
 * walked all of them even after its buffer was full. Now the walk stops with
 * the output. Timed against a one-node name in the same run: with the bound
 * the shared tree costs about as much as a name that fills the buffer (measured
 * 14x the one-node name under ASan); without it, about 1,000,000x (47 ms a
 * name, 48 s for this test). The bound of
 * 1000x leaves room for a loaded machine. */
TEST(shared_arguments_cost_bounded_by_output)
{
    names_type level[8];
    const names_type plain = {.name = "Ns.Plain"};
    double base, shared;

    for (int d = 0; d < 8; d++) {
        memset(&level[d], 0, sizeof(level[d]));
        level[d].name = d < 7 ? "Ns.G`8" : "System.Int32";
        level[d].nargs = d < 7 ? 8 : 0;
        for (int i = 0; d < 7 && i < 8; i++)
            level[d].args[i] = &level[d + 1];
    }
    names_format_type(&level[0], out, 64);
    CHECK_STR(out, "Ns.G<Ns.G<Ns.G<Ns.G<Ns.G<Ns.G<Ns.G<...,...,...,...,...,...,....");
    base = format_ns(&plain, 200);
    shared = format_ns(&level[0], 200);
    CHECK(shared < base * 1000, "shared tree %.0f ns vs one node %.0f ns (200 formats)", shared,
          base);
}

static const check_test tests[] = {
    TEST_ENTRY(plain_method),
    TEST_ENTRY(nested_type),
    TEST_ENTRY(generic_type_known_and_unknown),
    TEST_ENTRY(generic_method),
    TEST_ENTRY(nested_generic),
    TEST_ENTRY(arrays),
    TEST_ENTRY(generic_argument_is_generic),
    TEST_ENTRY(global_function),
    TEST_ENTRY(truncation),
    TEST_ENTRY(depth_limit_type_arguments),
    TEST_ENTRY(depth_limit_enclosing_types),
    TEST_ENTRY(more_args_than_kept),
    TEST_ENTRY(shared_arguments_cost_bounded_by_output),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
