/* test_origin.c -- whose code a module holds (server/origin.c): the rule of
 * origin.h on the paths real runs load from (a framework-dependent app, the
 * SDK's processes, a test project's output, a self-contained app), on paths
 * that only look like them, and on modules without a file.
 * Build: make build/tests/test_origin && build/tests/test_origin
 */
#include <string.h>

#include "check.h"
#include "fixtures.h"
#include "origin.h"
#include "records.h"
#include "sessions.h"

#define CORELIB "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll"

static int is(const char *corelib, const char *path, const char *assembly, unsigned want)
{
    unsigned got = origin_classify(corelib, path, assembly);

    if (got != want)
        printf("    %s (%s): %s, not %s\n", path ? path : "(none)", assembly ? assembly : "-",
               origin_name(got), origin_name(want));
    return got == want;
}

TEST(a_framework_dependent_app_and_the_sdks_processes)
{
    CHECK(is(CORELIB, CORELIB, "System.Private.CoreLib", ORIGIN_FRAMEWORK), "CoreLib");
    CHECK(is(CORELIB,
             "/usr/share/dotnet/shared/Microsoft.AspNetCore.App/10.0.12/"
             "Microsoft.AspNetCore.Http.dll",
             NULL, ORIGIN_FRAMEWORK),
          "ASP.NET Core's shared framework");
    CHECK(is(CORELIB, "/usr/share/dotnet/sdk/10.0.401/Roslyn/bincore/csc.dll", "csc", ORIGIN_SDK),
          "the compiler");
    CHECK(is(CORELIB, "/usr/share/dotnet/sdk/10.0.401/MSBuild.dll", "MSBuild", ORIGIN_SDK),
          "MSBuild");
    CHECK(is(CORELIB,
             "/usr/share/dotnet/packs/Microsoft.NETCore.App.Ref/10.0.12/analyzers/dotnet/cs/"
             "System.Text.Json.SourceGeneration.dll",
             NULL, ORIGIN_SDK),
          "an analyzer from the packs");
    CHECK(is(CORELIB, "/root/.nuget/packages/xunit.analyzers/1.18.0/analyzers/xunit.analyzers.dll",
             "xunit.analyzers", ORIGIN_PACKAGE),
          "a package in the NuGet cache");
    CHECK(is(CORELIB, "/home/me/src/Shop/bin/Debug/net10.0/Shop.dll", "Shop", ORIGIN_APP),
          "the app itself");
    CHECK(is(CORELIB, "/home/me/src/Shop/bin/Debug/net10.0/Shop.Data.dll", NULL, ORIGIN_APP),
          "its own library (no assembly name yet: the file's)");
}

TEST(microsoft_libraries_next_to_the_app_are_packages_others_are_the_apps)
{
    const char *bin = "/tmp/TestMe/bin/Debug/net10.0/";
    char path[256];

    snprintf(path, sizeof(path), "%sMicrosoft.TestPlatform.CoreUtilities.dll", bin);
    CHECK(is(CORELIB, path, "Microsoft.TestPlatform.CoreUtilities", ORIGIN_PACKAGE),
          "test platform");
    snprintf(path, sizeof(path), "%sSystem.Reactive.dll", bin);
    CHECK(is(CORELIB, path, NULL, ORIGIN_PACKAGE), "System.* from a package");
    snprintf(path, sizeof(path), "%sTestMe.dll", bin);
    CHECK(is(CORELIB, path, "TestMe", ORIGIN_APP), "the tests");
    snprintf(path, sizeof(path), "%sxunit.core.dll", bin);
    CHECK(is(CORELIB, path, "xunit.core", ORIGIN_APP),
          "a third-party library copied next to the app counts as the app's (origin.h)");
    CHECK(is(CORELIB, "/srv/app/Systematic.dll", "Systematic", ORIGIN_APP),
          "a name that only starts like System");
    CHECK(is(CORELIB, "/srv/app/MicrosoftFan.dll", NULL, ORIGIN_APP), "or like Microsoft");
}

TEST(a_self_contained_app)
{
    const char *corelib = "/opt/shop/System.Private.CoreLib.dll";

    CHECK(is(corelib, corelib, "System.Private.CoreLib", ORIGIN_FRAMEWORK), "its CoreLib");
    CHECK(is(corelib, "/opt/shop/System.Linq.dll", "System.Linq", ORIGIN_FRAMEWORK),
          "the runtime's libraries beside it");
    CHECK(is(corelib, "/opt/shop/Shop.dll", "Shop", ORIGIN_APP), "the app beside them");
    CHECK(is(corelib, "/opt/shop/plugins/Microsoft.Extensions.Foo.dll", NULL, ORIGIN_PACKAGE),
          "a Microsoft library elsewhere");
}

TEST(paths_that_only_look_like_a_dotnet_root)
{
    CHECK(is(CORELIB, "/home/me/shared/Microsoft.Stuff/1.0/My.dll", "My", ORIGIN_APP),
          "shared/Microsoft.X without .App");
    CHECK(is(CORELIB, "/usr/share/dotnet-apps/shop/Shop.dll", "Shop", ORIGIN_APP),
          "a sibling of the dotnet root");
    CHECK(is(NULL, "/opt/dotnet/shared/Microsoft.NETCore.App/8.0.1/System.Runtime.dll", NULL,
             ORIGIN_FRAMEWORK),
          "a framework module before CoreLib is known");
    CHECK(is(CORELIB, "/opt/dotnet8/shared/Microsoft.NETCore.App/8.0.1/System.Runtime.dll", NULL,
             ORIGIN_FRAMEWORK),
          "another dotnet root's framework");
    CHECK(is(CORELIB, "/shared/Microsoft.NETCore.App/8.0.1/My.dll", NULL, ORIGIN_APP),
          "no root before /shared");
}

TEST(modules_without_a_file)
{
    CHECK(is(CORELIB, "RefEmit_InMemoryManifestModule",
             "Anonymously Hosted DynamicMethods Assembly", ORIGIN_IN_MEMORY),
          "Reflection.Emit's module");
    CHECK(is(CORELIB, NULL, "Generated", ORIGIN_IN_MEMORY), "an assembly loaded from bytes");
    CHECK(is(CORELIB, "", NULL, ORIGIN_UNKNOWN), "nothing known");
    CHECK(is(CORELIB, NULL, NULL, ORIGIN_UNKNOWN), "nothing at all");
}

TEST(names_round_trip)
{
    unsigned i, ok = 1;

    for (i = 0; i < ORIGIN_COUNT; i++)
        ok &= origin_from_name(origin_name(i), strlen(origin_name(i))) == (int)i;
    CHECK(ok, "every origin's name parses back to it");
    CHECK(origin_from_name("apps", 4) == -1 && origin_from_name("ap", 2) == -1 &&
              origin_from_name("", 0) == -1,
          "other words do not");
    CHECK(strcmp(origin_name(ORIGIN_COUNT), "unknown") == 0, "out of range: unknown");
}

/* A session's modules: an answer given before System.Private.CoreLib was
 * known is asked again once it is (a self-contained app's System.Linq is
 * first a Microsoft library next to the app, then the runtime's own). */
TEST(a_session_asks_again_once_corelib_is_known)
{
    session *s;
    session_module *linq;
    unsigned before, after, dynamic, nameless;

    sessions_lock();
    s = fixture_session("/opt/shop/Shop");
    rec_apply(s, rec_module_loaded(0x200, "/opt/shop/System.Linq.dll", "System.Linq", 0, REC_MONO));
    linq = session_find_module(s, 0x200);
    before = origin_of_module(s, linq);
    rec_apply(s, rec_module_loaded(0x100, "/opt/shop/System.Private.CoreLib.dll",
                                   "System.Private.CoreLib", 0, REC_MONO));
    linq = session_find_module(s, 0x200);
    after = origin_of_module(s, linq);
    rec_apply(s, rec_function_name(0x7000, 0, "[dynamic] Lambda(int)", WIRE_FLAG_DYNAMIC));
    dynamic = origin_of_function(s, session_find_function(s, 0x7000));
    rec_apply(s, rec_jit_started(0x7100, 1, 10)); /* its name never came: the app ended */
    nameless = origin_of_function(s, session_find_function(s, 0x7100));
    sessions_unlock();
    CHECK(before == ORIGIN_PACKAGE && after == ORIGIN_FRAMEWORK, "System.Linq: %s, then %s",
          origin_name(before), origin_name(after));
    CHECK(dynamic == ORIGIN_DYNAMIC, "a dynamic method: %s", origin_name(dynamic));
    CHECK(nameless == ORIGIN_UNKNOWN, "a function never named (not known dynamic): %s",
          origin_name(nameless));
    fixture_sessions_clear();
}

static const check_test tests[] = {
    TEST_ENTRY(a_framework_dependent_app_and_the_sdks_processes),
    TEST_ENTRY(microsoft_libraries_next_to_the_app_are_packages_others_are_the_apps),
    TEST_ENTRY(a_self_contained_app),
    TEST_ENTRY(paths_that_only_look_like_a_dotnet_root),
    TEST_ENTRY(modules_without_a_file),
    TEST_ENTRY(names_round_trip),
    TEST_ENTRY(a_session_asks_again_once_corelib_is_known),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
