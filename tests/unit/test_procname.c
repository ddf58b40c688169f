/* test_procname.c -- unit tests for server/procname.c: the names of the
 * processes a `dotnet build` / `dotnet test` tree runs (the test host started
 * with `dotnet exec --runtimeconfig ... testhost.dll`, vstest.console, MSBuild
 * as a dll or an apphost, the compiler), SDK commands, plain executables, from
 * argv, /proc's NUL-separated form and a space-joined line; names cut on a
 * character boundary, bytes that are not UTF-8 replaced. And which processes
 * server/buildwatch.c takes for build servers (by the same arguments).
 * Build: make build/tests/test_procname && build/tests/test_procname
 */
#include <stdio.h>
#include <string.h>

#include "buildwatch.h"
#include "check.h"
#include "procname.h"
#include "utf.h"

#define ARGV(...)                                                                                  \
    ((const char *const[]){__VA_ARGS__}),                                                          \
        sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)

static int name_is(const char *const *argv, size_t argc, const char *want, int kind)
{
    char out[PROCNAME_MAX];
    int got = procname_of_argv(argv, argc, out, sizeof(out));

    if (got != kind || strcmp(out, want) != 0)
        printf("    %s -> \"%s\" (kind %d), want \"%s\" (kind %d)\n", argv[0], out, got, want,
               kind);
    return got == kind && strcmp(out, want) == 0;
}

TEST(a_test_run)
{
    CHECK(name_is(ARGV("dotnet", "test"), "dotnet test", PROCNAME_SDK_COMMAND), "the launched CLI");
    CHECK(name_is(ARGV("/usr/share/dotnet/dotnet", "exec", "--runtimeconfig",
                       "/w/TestMe/bin/Debug/net10.0/TestMe.runtimeconfig.json", "--depsfile",
                       "/w/TestMe/bin/Debug/net10.0/TestMe.deps.json",
                       "/opt/nuget/packages/microsoft.testplatform.testhost/17.14.1/lib/net8.0/"
                       "testhost.dll",
                       "--port", "40123", "--endpoint", "127.0.0.1:040123", "--role", "client"),
                  "testhost", PROCNAME_PROGRAM),
          "the test host, past dotnet exec's options and their values");
    CHECK(name_is(ARGV("/usr/share/dotnet/dotnet", "exec",
                       "/usr/share/dotnet/sdk/10.0.401/vstest.console.dll", "--port:40123"),
                  "vstest.console", PROCNAME_PROGRAM),
          "vstest.console");
    CHECK(name_is(ARGV("/usr/share/dotnet/dotnet", "/usr/share/dotnet/sdk/8.0.100/MSBuild.dll",
                       "/nologo", "/nodemode:1", "/nodeReuse:true"),
                  "MSBuild", PROCNAME_PROGRAM),
          "an MSBuild node run by the host");
    CHECK(name_is(ARGV("/usr/share/dotnet/sdk/10.0.401/MSBuild", "/nologo", "/nodemode:8"),
                  "MSBuild", PROCNAME_PROGRAM),
          "the MSBuild server as an apphost");
    CHECK(
        name_is(ARGV("/usr/share/dotnet/sdk/10.0.401/Roslyn/bincore/VBCSCompiler", "-pipename:abc"),
                "VBCSCompiler", PROCNAME_PROGRAM),
        "the compiler server");
    CHECK(name_is(ARGV("/usr/share/dotnet/dotnet", "exec",
                       "/usr/share/dotnet/sdk/10.0.401/Roslyn/bincore/csc.dll", "/noconfig"),
                  "csc", PROCNAME_PROGRAM),
          "the compiler, not shared");
}

TEST(other_programs)
{
    CHECK(name_is(ARGV("dotnet", "build/apps/Demo/Demo.dll"), "Demo", PROCNAME_PROGRAM), "an app");
    CHECK(name_is(ARGV("dotnet", "--roll-forward", "Major", "App.DLL", "x.dll"), "App",
                  PROCNAME_PROGRAM),
          "a host option's value is not the app; .DLL in any case");
    CHECK(name_is(ARGV("dotnet", "./tool"), "tool", PROCNAME_PROGRAM), "a path without .dll");
    CHECK(name_is(ARGV("/app/Demo", "--verbose"), "Demo", PROCNAME_PROGRAM), "an apphost");
    CHECK(name_is(ARGV("C:/x/App.exe"), "App", PROCNAME_PROGRAM), "an .exe");
    CHECK(name_is(ARGV("sh", "-c", "dotnet x.dll"), "sh", PROCNAME_PROGRAM), "a shell");
    CHECK(name_is(ARGV("dotnet"), "dotnet", PROCNAME_PROGRAM), "the host alone");
    CHECK(name_is(ARGV("dotnet", "--info"), "dotnet", PROCNAME_PROGRAM), "the host's own option");
    CHECK(name_is(ARGV("dotnet", "exec", "--depsfile"), "dotnet", PROCNAME_PROGRAM),
          "an option whose value is missing");
    CHECK(name_is(ARGV("/usr/bin/dotnet", "-d", "run", "--project", "x"), "dotnet run",
                  PROCNAME_SDK_COMMAND),
          "an SDK command after a host flag");
    CHECK(name_is(ARGV(""), "", PROCNAME_PROGRAM), "an empty argv[0]");
    CHECK(procname_of_argv(NULL, 0, (char[8]){0}, 8) == PROCNAME_NONE, "no arguments");
}

TEST(separated_forms)
{
    static const char proc_form[] = "/usr/share/dotnet/dotnet\0exec\0--depsfile\0/w/a b/x.json\0"
                                    "/w/a b/testhost.dll\0--port\0";
    char out[PROCNAME_MAX];

    CHECK(procname_of_args(proc_form, sizeof(proc_form) - 1, '\0', out, sizeof(out)) ==
                  PROCNAME_PROGRAM &&
              strcmp(out, "testhost") == 0,
          "/proc's form, a space inside an argument (got %s)", out);
    CHECK(procname_of_args("dotnet  test   --no-build", 25, ' ', out, sizeof(out)) ==
                  PROCNAME_SDK_COMMAND &&
              strcmp(out, "dotnet test") == 0,
          "a joined line, runs of spaces (got %s)", out);
    CHECK(procname_of_args("dotnet exec --runtimeconfig r.json /x/vstest.console.dll", 56, ' ', out,
                           sizeof(out)) == PROCNAME_PROGRAM &&
              strcmp(out, "vstest.console") == 0,
          "a joined line (got %s)", out);
    CHECK(procname_of_args("dotnet", 6, '\0', out, sizeof(out)) == PROCNAME_PROGRAM &&
              strcmp(out, "dotnet") == 0,
          "the last argument without its NUL");
    CHECK(procname_of_args("", 0, '\0', out, sizeof(out)) == PROCNAME_NONE && out[0] == '\0',
          "empty");
}

TEST(bounded_and_valid)
{
    char path[400], out[PROCNAME_MAX], small[6];
    const char *argv[1] = {path};
    size_t i, n = 0;

    n += (size_t)snprintf(path, sizeof(path), "/x/");
    for (i = 0; i < 100; i++)
        n += (size_t)snprintf(path + n, sizeof(path) - n, "\xc3\xa9"); /* é */
    procname_of_argv(argv, 1, out, sizeof(out));
    CHECK(strlen(out) == 62 && utf8_valid(out, strlen(out)),
          "cut to 62 bytes: 31 whole characters, never half of one (%zu)", strlen(out));
    CHECK(procname_of_args("dotnet\0A\xff\xfe.dll", 14, '\0', out, sizeof(out)) ==
                  PROCNAME_PROGRAM &&
              strcmp(out, "A??") == 0,
          "bytes that are not UTF-8 become '?' (got %s)", out);
    procname_of_argv((const char *const[]){"dotnet", "build"}, 2, small, sizeof(small));
    CHECK(strcmp(small, "dotne") == 0, "an SDK command cut too (got %s)", small);
}

/* A /proc cmdline from a string whose arguments are separated by '|'. */
static int classify(const char *args, char *name, size_t namesz)
{
    char buf[512];
    size_t n = strlen(args), i;

    memcpy(buf, args, n + 1);
    for (i = 0; i < n; i++)
        if (buf[i] == '|')
            buf[i] = '\0';
    name[0] = '\0';
    return buildwatch_classify(buf, n + 1, name, namesz);
}

TEST(build_servers)
{
    char name[40];

    CHECK(classify("/usr/share/dotnet/sdk/10.0.401/MSBuild|/nologo|/nodemode:8", name,
                   sizeof(name)) == 1 &&
              strcmp(name, "MSBuild server") == 0,
          "the MSBuild server (apphost) (%s)", name);
    CHECK(classify("/usr/share/dotnet/dotnet|/usr/share/dotnet/sdk/8.0.100/MSBuild.dll|/nologo|"
                   "/nodemode:1|/nodeReuse:true|/low:false",
                   name, sizeof(name)) == 1 &&
              strcmp(name, "MSBuild node") == 0,
          "a worker node run by the host (%s)", name);
    CHECK(classify("dotnet|MSBuild.dll|-nodeMode:2", name, sizeof(name)) == 1 &&
              strcmp(name, "MSBuild node") == 0,
          "-nodeMode:, any case");
    CHECK(classify("/usr/share/dotnet/sdk/10.0.401/Roslyn/bincore/VBCSCompiler|-pipename:x", name,
                   sizeof(name)) == 1 &&
              strcmp(name, "VBCSCompiler") == 0,
          "the compiler server");
    CHECK(classify("dotnet|exec|/sdk/Sdks/Microsoft.NET.Sdk.Razor/tools/rzc.dll|server|-p|x", name,
                   sizeof(name)) == 1 &&
              strcmp(name, "Razor server") == 0,
          "Razor's server");
    CHECK(classify("dotnet|/sdk/MSBuild.dll|-restore|App.csproj", name, sizeof(name)) == 0,
          "MSBuild building, not a node");
    CHECK(classify("dotnet|/sdk/MSBuild.dll|/nodemode:x", name, sizeof(name)) == 0,
          "a node mode that is not a number");
    CHECK(classify("dotnet|rzc.dll|generate", name, sizeof(name)) == 0, "rzc, not its server");
    CHECK(classify("dotnet|build", name, sizeof(name)) == 0, "the SDK itself");
    CHECK(classify("bash|-c|VBCSCompiler", name, sizeof(name)) == 0, "a word in an argument");
    CHECK(buildwatch_classify("", 0, name, sizeof(name)) == 0, "no arguments");
}

static const check_test tests[] = {
    TEST_ENTRY(a_test_run),        TEST_ENTRY(other_programs), TEST_ENTRY(separated_forms),
    TEST_ENTRY(bounded_and_valid), TEST_ENTRY(build_servers),  TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
