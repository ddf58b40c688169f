/* procname.c -- the name of what a process runs (see procname.h). */
#include "procname.h"

#include <string.h>
#include <strings.h>

#include "utf.h"

/* The arguments, from argv or from one separated buffer. */
typedef struct procname_words {
    const char *const *argv;
    size_t argc, index;
    const char *args;
    size_t length, at;
    char sep;
} procname_words;

/* The next argument (not NUL-terminated). 0, or -1 at the end. */
static int procname_next(procname_words *w, const char **word, size_t *n)
{
    if (w->argv) {
        if (w->index >= w->argc || !w->argv[w->index])
            return -1;
        *word = w->argv[w->index++];
        *n = strlen(*word);
        return 0;
    }
    while (w->sep == ' ' && w->at < w->length && w->args[w->at] == ' ')
        w->at++; /* a joined line: runs of spaces are one separator */
    if (w->at >= w->length)
        return -1;
    *word = w->args + w->at;
    while (w->at < w->length && w->args[w->at] != w->sep)
        w->at++;
    *n = (size_t)(w->args + w->at - *word);
    if (w->at < w->length)
        w->at++;
    return 0;
}

static int procname_is(const char *word, size_t n, const char *text)
{
    return n == strlen(text) && memcmp(word, text, n) == 0;
}

/* The file name part of a path. */
static const char *procname_base(const char *word, size_t *n)
{
    size_t i = *n;

    while (i > 0 && word[i - 1] != '/')
        i--;
    *n -= i;
    return word + i;
}

/* Without a ".dll" or ".exe" ending (any case); 1 when it had one. */
static int procname_strip_ext(const char *word, size_t *n)
{
    if (*n > 4 && (strncasecmp(word + *n - 4, ".dll", 4) == 0 ||
                   strncasecmp(word + *n - 4, ".exe", 4) == 0)) {
        *n -= 4;
        return 1;
    }
    return 0;
}

/* The dotnet host's options that take a value (`dotnet --depsfile F app.dll`,
 * also after `exec`). */
static int procname_host_option_with_value(const char *word, size_t n)
{
    static const char *const with_value[] = {"--additionalprobingpath",
                                             "--additional-deps",
                                             "--depsfile",
                                             "--runtimeconfig",
                                             "--fx-version",
                                             "--roll-forward",
                                             "--roll-forward-on-no-candidate-fx"};
    size_t i;

    for (i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
        if (procname_is(word, n, with_value[i]))
            return 1;
    return 0;
}

/* out = a (na bytes), then b (nb bytes), as valid UTF-8, cut to outsz - 1. */
static void procname_put(const char *a, size_t na, const char *b, size_t nb, char *out,
                         size_t outsz)
{
    size_t used;
    int cut;

    if (outsz == 0)
        return;
    used = utf8_sanitize(a, na, out, outsz - 1, &cut);
    if (!cut && b)
        used += utf8_sanitize(b, nb, out + used, outsz - 1 - used, &cut);
    out[used] = '\0';
}

static int procname_of(procname_words *w, char *out, size_t outsz)
{
    const char *word, *base;
    size_t n, nb;

    if (outsz)
        out[0] = '\0';
    if (procname_next(w, &word, &n) != 0)
        return PROCNAME_NONE;
    nb = n;
    base = procname_base(word, &nb);
    if (!procname_is(base, nb, "dotnet") && !procname_is(base, nb, "dotnet.exe")) {
        procname_strip_ext(base, &nb);
        procname_put(base, nb, NULL, 0, out, outsz);
        return PROCNAME_PROGRAM;
    }
    while (procname_next(w, &word, &n) == 0) {
        if (procname_is(word, n, "exec"))
            continue;
        if (n > 0 && word[0] == '-') {
            if (procname_host_option_with_value(word, n) && procname_next(w, &word, &n) != 0)
                break;
            continue;
        }
        nb = n;
        base = procname_base(word, &nb);
        if (procname_strip_ext(base, &nb) || nb != n) { /* App.dll, or a path */
            procname_put(base, nb, NULL, 0, out, outsz);
            return PROCNAME_PROGRAM;
        }
        procname_put("dotnet ", 7, word, n, out, outsz);
        return PROCNAME_SDK_COMMAND;
    }
    procname_put("dotnet", 6, NULL, 0, out, outsz);
    return PROCNAME_PROGRAM;
}

int procname_of_argv(const char *const *argv, size_t argc, char *out, size_t outsz)
{
    procname_words w = {.argv = argv, .argc = argc};

    return procname_of(&w, out, outsz);
}

int procname_of_args(const char *args, size_t length, char sep, char *out, size_t outsz)
{
    procname_words w = {.args = args, .length = length, .sep = sep};

    return procname_of(&w, out, outsz);
}
