/* origin.h -- whose code a module holds: the app's own ("my code"), a
 * package's, the runtime's shared framework, the SDK's, or code made at run
 * time. What the functions query's `origin=` filter, the live feed's "My code"
 * filter and the CI report's JIT time by origin go by.
 *
 * The rule (docs/API.md, "Whose code"), first match wins:
 *   dynamic    a dynamic method (LCG, DynamicMethod: no module of its own);
 *   unknown    its module was never described;
 *   in_memory  a module without a file (Reflection.Emit, loaded from bytes);
 *   framework  under the dotnet root's shared/ (Microsoft.NETCore.App,
 *              Microsoft.AspNetCore.App...), the root taken from where
 *              System.Private.CoreLib was loaded (ROOT/shared/NAME/VERSION/) or
 *              from the module's own path; or, in a self-contained app, beside
 *              System.Private.CoreLib and named System*, Microsoft.*, mscorlib,
 *              netstandard or WindowsBase;
 *   sdk        elsewhere under that dotnet root (sdk/, packs/: MSBuild, the
 *              compiler, analyzers);
 *   package    in a NuGet global packages folder (a path with /.nuget/packages/),
 *              or named System*, Microsoft.*, mscorlib or netstandard wherever it
 *              lies (Microsoft's libraries copied next to an app);
 *   app        everything else: "my code".
 * Only paths and names count (the same answer live and read back from
 * storage): a third-party library copied next to the app (xunit.*.dll in a
 * test project's output) is the app's. */
#ifndef JITSCOPE_ORIGIN_H
#define JITSCOPE_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

enum origin {
    ORIGIN_APP = 0,
    ORIGIN_PACKAGE,
    ORIGIN_FRAMEWORK,
    ORIGIN_SDK,
    ORIGIN_IN_MEMORY,
    ORIGIN_DYNAMIC,
    ORIGIN_UNKNOWN,
    ORIGIN_COUNT
};

/* "app", "package", "framework", "sdk", "in_memory", "dynamic", "unknown". */
const char *origin_name(unsigned origin);
/* The origin a name (as origin_name gives it) stands for, or -1. */
int origin_from_name(const char *name, size_t length);

/* The origin of a module from its file's path (NULL or "": none) and its
 * assembly name (NULL: unknown), given where System.Private.CoreLib was loaded
 * from (NULL: not known). Pure. */
unsigned origin_classify(const char *corelib_path, const char *path, const char *assembly);

struct session;
struct session_module;
struct session_function;
/* The origin of a module of s, and of a function (dynamic methods and
 * functions of modules never described included). A module's answer is kept
 * with it once its path is known, and asked again when the runtime's place
 * becomes known. Sessions lock held. */
unsigned origin_of_module(struct session *s, struct session_module *m);
unsigned origin_of_function(struct session *s, const struct session_function *f);

#endif
