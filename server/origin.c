/* origin.c -- whose code a module holds (origin.h has the rule): the pure
 * classifier of a path and an assembly name, and the session's answers for a
 * module (kept in the module once they cannot change) and a function. */
#include "origin.h"

#include <string.h>

#include "session.h"

static const char *const origin_names[ORIGIN_COUNT] = {
    [ORIGIN_APP] = "app",
    [ORIGIN_PACKAGE] = "package",
    [ORIGIN_FRAMEWORK] = "framework",
    [ORIGIN_SDK] = "sdk",
    [ORIGIN_IN_MEMORY] = "in_memory",
    [ORIGIN_DYNAMIC] = "dynamic",
    [ORIGIN_UNKNOWN] = "unknown",
};

#define ORIGIN_CORELIB_FILE "/System.Private.CoreLib.dll"

const char *origin_name(unsigned origin)
{
    return origin < ORIGIN_COUNT ? origin_names[origin] : "unknown";
}

int origin_from_name(const char *name, size_t length)
{
    unsigned i;

    for (i = 0; i < ORIGIN_COUNT; i++)
        if (strlen(origin_names[i]) == length && memcmp(origin_names[i], name, length) == 0)
            return (int)i;
    return -1;
}

/* 1 when text starts with prefix. */
static int origin_starts(const char *text, size_t length, const char *prefix)
{
    size_t n = strlen(prefix);
    return length >= n && memcmp(text, prefix, n) == 0;
}

/* 1 for the names Microsoft gives its own libraries: System, System.*,
 * Microsoft.*, mscorlib, netstandard, WindowsBase. */
static int origin_microsoft_name(const char *name, size_t length)
{
    return (length == 6 && memcmp(name, "System", 6) == 0) ||
           origin_starts(name, length, "System.") || origin_starts(name, length, "Microsoft.") ||
           (length == 8 && memcmp(name, "mscorlib", 8) == 0) ||
           (length == 11 && memcmp(name, "netstandard", 11) == 0) ||
           (length == 11 && memcmp(name, "WindowsBase", 11) == 0);
}

/* The length of the directory part of path (up to its last '/', excluded). */
static size_t origin_dir_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

/* The dotnet root of a path in ROOT/shared/Microsoft.NAME.App/VERSION/...:
 * the length of ROOT, or 0 when the path is not so. */
static size_t origin_root_of(const char *path)
{
    const char *at = path, *hit = NULL, *end;

    while ((at = strstr(at, "/shared/Microsoft.")) != NULL) { /* the last one */
        end = strchr(at + 8, '/');
        if (at > path && end && end - (at + 8) > 14 && memcmp(end - 4, ".App", 4) == 0 &&
            strchr(end + 1, '/'))
            hit = at;
        at++;
    }
    return hit ? (size_t)(hit - path) : 0;
}

/* The file's name without ".dll" / ".exe" (the assembly's name, as the SDK
 * names files), or the assembly's when known. */
static void origin_stem(const char *path, const char *assembly, const char **name, size_t *length)
{
    const char *base;
    size_t n;

    if (assembly && *assembly) {
        *name = assembly, *length = strlen(assembly);
        return;
    }
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    n = strlen(base);
    if (n > 4 && (strcmp(base + n - 4, ".dll") == 0 || strcmp(base + n - 4, ".exe") == 0))
        n -= 4;
    *name = base, *length = n;
}

unsigned origin_classify(const char *corelib_path, const char *path, const char *assembly)
{
    size_t root = 0, dir, length;
    const char *name;

    if ((!path || !*path) && (!assembly || !*assembly))
        return ORIGIN_UNKNOWN;
    if (!path || path[0] != '/')
        return ORIGIN_IN_MEMORY;
    origin_stem(path, assembly, &name, &length);
    if (corelib_path && corelib_path[0] == '/')
        root = origin_root_of(corelib_path);
    if (!root || strncmp(path, corelib_path, root) != 0 || path[root] != '/')
        root = origin_root_of(path); /* another dotnet root than the runtime's, or none known */
    if (root) {
        if (strncmp(path + root, "/shared/", 8) == 0)
            return ORIGIN_FRAMEWORK;
        return ORIGIN_SDK;
    }
    if (corelib_path && corelib_path[0] == '/' && !origin_root_of(corelib_path)) {
        /* a self-contained app: the runtime's files lie beside the app's */
        dir = origin_dir_length(corelib_path);
        if (dir && origin_dir_length(path) == dir && strncmp(path, corelib_path, dir) == 0 &&
            origin_microsoft_name(name, length))
            return ORIGIN_FRAMEWORK;
    }
    if (strstr(path, "/.nuget/packages/"))
        return ORIGIN_PACKAGE;
    if (origin_microsoft_name(name, length))
        return ORIGIN_PACKAGE;
    return ORIGIN_APP;
}

/* Where the session's System.Private.CoreLib was loaded from; NULL while no
 * module of that file is known. The modules are looked through again only
 * when there are new ones (a module's path may come after its entry). */
static const char *origin_corelib(session *s)
{
    size_t i;

    if (s->origin_corelib_row) {
        session_module *m = &s->modules[s->origin_corelib_row - 1];
        return m->path;
    }
    if (s->origin_modules_seen == s->module_count)
        return NULL;
    for (i = 0; i < s->module_count; i++) {
        const session_module *m = &s->modules[i];
        size_t n = m->path ? strlen(m->path) : 0;
        if (n > sizeof(ORIGIN_CORELIB_FILE) && m->path[0] == '/' &&
            strcmp(m->path + n - (sizeof(ORIGIN_CORELIB_FILE) - 1), ORIGIN_CORELIB_FILE) == 0) {
            size_t k;
            s->origin_corelib_row = i + 1;
            for (k = 0; k < s->module_count; k++) /* answered without it: asked again */
                s->modules[k].origin = 0;
            return m->path;
        }
    }
    s->origin_modules_seen = s->module_count;
    return NULL;
}

unsigned origin_of_module(session *s, session_module *m)
{
    const char *corelib;
    unsigned origin;

    corelib = origin_corelib(s); /* first: when it is new, it clears what was kept */
    if (m->origin)
        return m->origin - 1u;
    origin = origin_classify(corelib, m->path, m->assembly);
    /* kept once its path (with the assembly's name for a module without a
     * file) is known; the runtime's place, when it comes later, clears it
     * (origin_corelib) */
    if (m->path && (m->path[0] == '/' || m->assembly))
        m->origin = (uint8_t)(origin + 1u);
    return origin;
}

unsigned origin_of_function(session *s, const session_function *f)
{
    session_module *m;

    if (f->flags & WIRE_FLAG_DYNAMIC)
        return ORIGIN_DYNAMIC;
    if (!f->module_id) /* its name never came (a JIT the app's end cut short): not known */
        return ORIGIN_UNKNOWN;
    m = session_find_module(s, f->module_id);
    return m ? origin_of_module(s, m) : ORIGIN_UNKNOWN;
}
