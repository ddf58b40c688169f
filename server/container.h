/* container.h -- which container a process runs in, as `jitscope ps`,
 * GET /api/processes, each session, the dashboard and /metrics labels show it.
 *
 * A process is in a container when its mount, pid or UTS namespace is not
 * the server's. Its facts: the container's id where its cgroup path has one
 * (the 64 hex digits an engine names a container's cgroup with: docker-ID.scope,
 * /docker/ID, cri-containerd-ID.scope, crio-ID.scope, libpod-ID.scope,
 * /kubepods/.../ID), the hostname of its UTS namespace (as uname(2) answers
 * inside: read by a short-lived thread that joins that namespace, or, where
 * the server may not join it, the container's /etc/hostname), its pid inside
 * (the last NSpid) and its user namespace (userns.h). The cgroup parser is pure
 * and unit-tested (tests/unit/test_container.c). Thread-safe, no state.
 */
#ifndef JITSCOPE_CONTAINER_H
#define JITSCOPE_CONTAINER_H

#include <stddef.h>
#include <sys/types.h>

#define CONTAINER_ID_LEN 64       /* hex digits of a container's id */
#define CONTAINER_HOSTNAME_MAX 65 /* HOST_NAME_MAX + 1 */

typedef struct container_facts {
    int in_container;              /* mount, pid or UTS namespace not the server's */
    char id[CONTAINER_ID_LEN + 1]; /* "" when its cgroup path holds none */
    char hostname[CONTAINER_HOSTNAME_MAX];
    int hostname_from_file; /* 1: /etc/hostname (its namespace could not be joined) */
    pid_t pid;              /* its pid inside (= the host's when not in a pid ns) */
    int user_namespace;     /* 1: in a user namespace of its own */
    long uid;               /* its uid as it sees itself (-1: unmapped) */
} container_facts;

/* The container id in /proc/PID/cgroup's text (len bytes): the last 64-hex
 * run of a line's path that is a whole path component, or one with an
 * engine's prefix (word ending in '-') and an optional ".scope". 1 and out
 * (CONTAINER_ID_LEN + 1 bytes) set, 0 when none. */
int container_id_from_cgroup(const char *text, size_t len, char *out);

/* What pid's namespaces say. 0 (out->in_container 0 when it shares the
 * server's), or -1 when pid is gone or /proc cannot be read. */
int container_probe(pid_t pid, container_facts *out);

#endif
