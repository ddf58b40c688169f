/* procname.h -- what a process runs, in a word: the name a session goes by.
 *
 * The processes of one `jitscope run -- dotnet test` all start with
 * "/usr/share/dotnet/dotnet exec --runtimeconfig ...", so their command lines
 * do not tell them apart at a glance; their programs do: testhost,
 * vstest.console, MSBuild, VBCSCompiler, csc. The name is taken from the
 * arguments (argv, or /proc/PID/cmdline with its NULs):
 *   - `dotnet [host options] [exec [options]] path/App.dll ...`: the app's file
 *     name without ".dll" (host options with a value, such as --runtimeconfig
 *     FILE or --depsfile FILE, are skipped with it);
 *   - `dotnet COMMAND ...` (the SDK: build, test, run...): "dotnet COMMAND";
 *   - anything else (an apphost such as .../sdk/10.0.100/MSBuild, a script):
 *     its file name, without ".dll" or ".exe".
 * Pure: no I/O, no allocation. */
#ifndef JITSCOPE_PROCNAME_H
#define JITSCOPE_PROCNAME_H

#include <stddef.h>

#define PROCNAME_MAX 64 /* bytes of a name, its NUL included */

enum procname_kind {
    PROCNAME_NONE = 0,    /* no arguments */
    PROCNAME_PROGRAM,     /* an executable, or an app run by the dotnet host */
    PROCNAME_SDK_COMMAND, /* dotnet COMMAND: the SDK (dotnet build, dotnet test...) */
};

/* The name of what argv[0..argc) runs into out (cut to outsz - 1 bytes on a
 * UTF-8 character boundary; "" when argc is 0). Returns its kind. */
int procname_of_argv(const char *const *argv, size_t argc, char *out, size_t outsz);

/* The same for arguments in one buffer, each ended by sep (NUL for
 * /proc/PID/cmdline; ' ' for a command line joined with spaces, which cannot
 * hold an argument with a space in it); the last one may lack its sep. */
int procname_of_args(const char *args, size_t length, char sep, char *out, size_t outsz);

#endif
