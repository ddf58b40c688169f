/* test_callnames.c -- the code view's calls named from the IL: the IL
 * decoded for its call sites (server/ilcalls.c), a call's token named from a
 * real module's metadata (the test app's E2eTarget.dll: a MemberRef of a
 * generic instance, a MethodDef, a MethodSpec), and the matching of a
 * version's unnamed calls with the IL calls of their IL offset
 * (server/callnames.c): in order when as many, a register's call with a
 * callvirt only, none where the counts differ, only register calls where the
 * offset holds an inlinee. Run from the repository root (make unit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callnames.h"
#include "check.h"
#include "ilcalls.h"

#define E2E_DLL "build/apps/E2eTarget/E2eTarget.dll"

/* The test app's module opened as the code view opens one (by an absolute path). */
static int open_e2e(ilcalls_module *m)
{
    char path[4096];

    if (!realpath(E2E_DLL, path) || ilcalls_open(m, 0, path) != 0) {
        CHECK(0, "%s opens (make apps first)", E2E_DLL);
        return -1;
    }
    return 0;
}

TEST(ilcalls_scan_sites)
{
    /* ldarg.0; callvirt 0x0A000005; ldc.i4.s 5; switch (2) ...; call 0x06000001;
     * ldftn 0x06000002; newobj 0x0A000002; ldarg 0x0001; ret */
    static const uint8_t il[] = {0x02, 0x6F, 0x05, 0x00, 0x00, 0x0A, 0x1F, 0x05, 0x45, 0x02, 0x00,
                                 0x00, 0x00, 1,    0,    0,    0,    2,    0,    0,    0,    0x28,
                                 0x01, 0x00, 0x00, 0x06, 0xFE, 0x06, 0x02, 0x00, 0x00, 0x06, 0x73,
                                 0x02, 0x00, 0x00, 0x0A, 0xFE, 0x09, 0x01, 0x00, 0x2A};
    ilcalls_site s[8];
    uint32_t n = ilcalls_scan(il, sizeof(il), s, 8);

    CHECK(n == 3, "three call sites, got %u", n);
    CHECK(s[0].il_offset == 1 && s[0].token == 0x0A000005 && s[0].opcode == ILCALLS_CALLVIRT,
          "callvirt at IL_0001");
    CHECK(s[1].il_offset == 21 && s[1].token == 0x06000001 && s[1].opcode == ILCALLS_CALL,
          "call at IL_0015 (past the switch's table), got %u", s[1].il_offset);
    CHECK(s[2].il_offset == 32 && s[2].token == 0x0A000002 && s[2].opcode == ILCALLS_NEWOBJ,
          "newobj past ldftn's token, got %u", s[2].il_offset);
    CHECK(ilcalls_scan(il, 4, s, 8) == 0, "an operand cut short ends the scan");
    CHECK(ilcalls_scan((const uint8_t[]){0x28, 1, 0, 0, 6, 0xF0, 0x28, 2, 0, 0, 6}, 11, s, 8) == 1,
          "an opcode not in the table ends it");
    CHECK(ilcalls_scan(il, sizeof(il), s, 1) == 1, "at most max");
    CHECK(ilcalls_scan((const uint8_t[]){0x45, 0xFF, 0xFF, 0xFF, 0xFF}, 5, s, 8) == 0,
          "a switch whose table runs past the code");
}

/* The first token of `table` (0x0A MemberRef, 0x06 MethodDef, 0x2B MethodSpec) named `want`. */
static uint32_t find_token(const ilcalls_module *m, uint32_t table, const char *want)
{
    uint32_t rid;

    for (rid = 1; rid < 5000; rid++) {
        char name[ILCALLS_NAME_BYTES], simple[128];
        if (ilcalls_name(m, table | rid, name, sizeof(name), simple, sizeof(simple)) != 0)
            continue;
        if (strcmp(name, want) == 0)
            return table | rid;
    }
    return 0;
}

TEST(ilcalls_names_from_metadata)
{
    ilcalls_module m;
    char name[ILCALLS_NAME_BYTES], simple[64];
    uint32_t t, i;

    if (open_e2e(&m) != 0)
        return;
    CHECK(find_token(&m, 0x0A000000u, "System.Func<int, int>.Invoke(int)"),
          "a MemberRef of a generic instance, its parameter from the instance's arguments");
    CHECK(find_token(&m, 0x06000000u, "JitscopeE2e.CallBase.Virt(int)"), "a MethodDef");
    CHECK(find_token(&m, 0x06000000u, "JitscopeE2e.CallWork+<CallAsync>d__4.MoveNext()"),
          "a nested type's method");
    t = find_token(
        &m, 0x2B000000u,
        "System.Runtime.CompilerServices.AsyncTaskMethodBuilder<int>.AwaitUnsafeOnCompleted<"
        "YieldAwaiter, CallWork+<CallAsync>d__4>(ref YieldAwaiter, ref "
        "CallWork+<CallAsync>d__4)");
    CHECK(t != 0, "a MethodSpec with its instantiation (method arguments in parameters)");
    for (i = 1; !t && i < 64; i++) /* say what the MethodSpecs are named */
        if (ilcalls_name(&m, 0x2B000000u | i, name, sizeof(name), NULL, 0) == 0)
            fprintf(stderr, "  MethodSpec %u: %s\n", i, name);
    CHECK(ilcalls_name(&m, 0x0A000000u | 0xFFFFFF, name, sizeof(name), NULL, 0) != 0,
          "a token past its table");
    CHECK(ilcalls_name(&m, 0x02000001u, name, sizeof(name), NULL, 0) != 0, "a type is no method");
    t = find_token(&m, 0x06000000u, "JitscopeE2e.CallBase.Virt(int)");
    CHECK(ilcalls_name(&m, t, NULL, 0, simple, sizeof(simple)) == 0 && !strcmp(simple, "Virt"),
          "the simple name alone");
    ilcalls_close(&m);
    CHECK(ilcalls_open(&m, 0, "/nonexistent/x.dll") != 0, "no file");
    CHECK(ilcalls_open(&m, 0, "/etc/hostname") != 0, "no managed image");
    CHECK(ilcalls_open(&m, 0, "build/apps/E2eTarget/E2eTarget.dll") != 0, "a relative path");
}

TEST(callnames_simple_names)
{
    char out[64];

    callnames_simple("Ns.Type<A, B.C>.Method<D>(int, E.F)", out, sizeof(out));
    CHECK(!strcmp(out, "Method"), "generic type and method: %s", out);
    callnames_simple("Ns.Type..ctor(int)", out, sizeof(out));
    CHECK(!strcmp(out, ".ctor"), "a constructor: %s", out);
    callnames_simple("Ns.Outer+<Run>d__4.MoveNext()", out, sizeof(out));
    CHECK(!strcmp(out, "MoveNext"), "a nested type's: %s", out);
}

/* IL: ldarg.0; callvirt Invoke; ldarg.0; callvirt Invoke; ret, or with a call
 * instead of the second callvirt. */
static void make_il(uint8_t *il, uint32_t token, uint8_t second)
{
    uint8_t t[4] = {(uint8_t)token, (uint8_t)(token >> 8), (uint8_t)(token >> 16),
                    (uint8_t)(token >> 24)};
    il[0] = 0x02, il[1] = 0x6F, memcpy(il + 2, t, 4);
    il[6] = 0x02, il[7] = second, memcpy(il + 8, t, 4);
    il[12] = 0x2A;
}

TEST(callnames_matching)
{
    ilcalls_module m;
    uint8_t il[13];
    uint32_t invoke, starts[1] = {0};
    char *names[4];
    const char *inlinee = "System.Func<System.Int32, System.Int32>.Invoke(int)";
    callnames_call calls[4] = {{0, CALLNAMES_UNNAMED, 1, NULL},
                               {0, CALLNAMES_HELPER, 0, NULL},
                               {0, CALLNAMES_UNNAMED, 1, NULL},
                               {UINT32_MAX, CALLNAMES_UNNAMED, 1, NULL}};
    callnames_version ver = {il, sizeof(il), starts, 1, NULL, 0, 1};
    int i;

    if (open_e2e(&m) != 0)
        return;
    invoke = find_token(&m, 0x0A000000u, "System.Func<int, int>.Invoke(int)");
    make_il(il, invoke, 0x6F);
    CHECK(callnames_assign(calls, 4, &ver, &m, names) == 0, "assigned");
    CHECK(names[0] && !strcmp(names[0], "System.Func<int, int>.Invoke(int)") && names[2] &&
              !names[1] && !names[3],
          "both register calls named, the helper and the call without an IL offset not");
    for (i = 0; i < 4; i++)
        free(names[i]);
    /* a third unnamed call at the offset: three calls, two IL calls: none named */
    calls[1] = (callnames_call){0, CALLNAMES_UNNAMED, 0, NULL};
    CHECK(callnames_assign(calls, 4, &ver, &m, names) == 0 && !names[0] && !names[1] && !names[2],
          "counts that differ name nothing");
    /* a call named by its code anchors the first IL call: the other takes the second */
    calls[0] = (callnames_call){0, CALLNAMES_NAMED, 0, "System.Func<int, int>.Invoke(int)"};
    calls[1] = (callnames_call){0, CALLNAMES_HELPER, 0, NULL};
    CHECK(callnames_assign(calls, 4, &ver, &m, names) == 0 && !names[0] && names[2],
          "the anchored IL call is taken");
    free(names[2]);
    /* a register's call does not take a non-virtual call */
    calls[0] = (callnames_call){0, CALLNAMES_UNNAMED, 1, NULL};
    make_il(il, invoke, 0x28);
    CHECK(callnames_assign(calls, 4, &ver, &m, names) == 0 && !names[0] && !names[2],
          "register versus call: none named");
    /* the offset holds an inlinee: a stub's call is not named, a register's is (from a callvirt) */
    make_il(il, invoke, 0x6F);
    calls[0] = (callnames_call){0, CALLNAMES_UNNAMED, 0, NULL};
    ver.inlinees = &inlinee, ver.ninlinees = 1;
    calls[2] = (callnames_call){0, CALLNAMES_HELPER, 0, NULL};
    CHECK(callnames_assign(calls, 4, &ver, &m, names) == 0 && !names[0],
          "a stub's call where an inlinee's code is: not named");
    calls[0] = (callnames_call){0, CALLNAMES_UNNAMED, 1, NULL};
    calls[2] = (callnames_call){0, CALLNAMES_UNNAMED, 1, NULL};
    CHECK(callnames_assign(calls, 4, &ver, &m, names) == 0 && names[0] && names[2],
          "register calls there: named from the callvirts");
    for (i = 0; i < 4; i++)
        free(names[i]);
    /* what was inlined is not known (compiled before an attach): as where an inlinee is */
    ver.inlinees = NULL, ver.ninlinees = 0, ver.inlining_known = 0;
    calls[0] = (callnames_call){0, CALLNAMES_UNNAMED, 0, NULL};
    calls[2] = (callnames_call){0, CALLNAMES_HELPER, 0, NULL};
    CHECK(callnames_assign(calls, 4, &ver, &m, names) == 0 && !names[0],
          "inlining not known: a stub's call is not named");
    ilcalls_close(&m);
}

static const check_test tests[] = {
    TEST_ENTRY(ilcalls_scan_sites),
    TEST_ENTRY(ilcalls_names_from_metadata),
    TEST_ENTRY(callnames_simple_names),
    TEST_ENTRY(callnames_matching),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
