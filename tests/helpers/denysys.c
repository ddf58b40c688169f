/* denysys.c -- runs a command where the named system calls fail with EPERM,
 * as in a container whose seccomp profile forbids them: a seccomp filter
 * (libseccomp) is installed, then the command is executed; its children
 * inherit the filter. The container tests run an app whose agent may not
 * connect() this way, to see the attach's error name the seccomp filter
 * (tests/e2e/containers.test.mjs).
 *
 *   build/tests/denysys SYSCALL[,SYSCALL...] COMMAND [ARG...]
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char names[256], *name, *save = NULL;
    scmp_filter_ctx ctx;

    if (argc < 3 || strlen(argv[1]) >= sizeof(names)) {
        fprintf(stderr, "usage: denysys SYSCALL[,SYSCALL...] COMMAND [ARG...]\n");
        return 2;
    }
    memcpy(names, argv[1], strlen(argv[1]) + 1);
    if (!(ctx = seccomp_init(SCMP_ACT_ALLOW))) {
        fprintf(stderr, "denysys: seccomp_init failed\n");
        return 1;
    }
    for (name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0) {
            fprintf(stderr, "denysys: cannot deny %s\n", name);
            return 1;
        }
    }
    if (seccomp_load(ctx) != 0) {
        fprintf(stderr, "denysys: could not install the seccomp filter\n");
        return 1;
    }
    seccomp_release(ctx);
    execvp(argv[2], argv + 2);
    fprintf(stderr, "denysys: cannot run %s\n", argv[2]);
    return 127;
}
