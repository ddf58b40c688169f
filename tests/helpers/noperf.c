/* noperf.c -- runs a command where perf_event_open is not allowed, as in a
 * container whose seccomp profile blocks it (Docker's default does): a seccomp
 * filter (libseccomp) makes the system call fail with EPERM, then the command
 * is executed; its children inherit the filter. The CPU profile tests start
 * the server under it to see the refusal, its reason and the fall back to
 * wall-clock sampling (tests/e2e/cpuprofile.test.mjs).
 *
 *   build/tests/noperf COMMAND [ARG...]
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    scmp_filter_ctx ctx;

    if (argc < 2) {
        fprintf(stderr, "usage: noperf COMMAND [ARG...]\n");
        return 2;
    }
    if (!(ctx = seccomp_init(SCMP_ACT_ALLOW)) ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(perf_event_open), 0) != 0 ||
        seccomp_load(ctx) != 0) {
        fprintf(stderr, "noperf: could not install the seccomp filter\n");
        return 1;
    }
    seccomp_release(ctx);
    execvp(argv[1], argv + 1);
    fprintf(stderr, "noperf: cannot run %s\n", argv[1]);
    return 127;
}
