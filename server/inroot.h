/* inroot.h -- a path opened as a process sees it, from its root
 * (/proc/PID/root), never following a link out of that root: openat2 with
 * RESOLVE_IN_ROOT where the kernel has it (Linux 5.6), else (ENOSYS: older
 * kernels, valgrind; EPERM: a seccomp filter that predates openat2) one
 * component at a time with no link followed at all and no "..": a path
 * through a link is then not opened. Used by symfile.c (PDBs and sources in a
 * container) and agentplace.c (its temp directory). */
#ifndef JITSCOPE_INROOT_H
#define JITSCOPE_INROOT_H

#include <sys/types.h>

/* `path` (absolute, as pid sees it) opened with open(2) flags `flags` (the
 * fd), or -1 with errno. */
int inroot_open(pid_t pid, const char *path, int flags);

/* Test hook: nonzero makes inroot_open take the component walk, as if the
 * kernel had no openat2. */
void inroot_force_walk(int on);

#endif
