/* userns.h -- whose a process is when it runs in a user namespace of its own.
 *
 * A container with a user namespace runs its root as an unprivileged user of
 * the host: uid 0 inside is, say, uid 100000 outside. The server sees every
 * uid in its own namespace (/proc, SO_PEERCRED); /proc/PID/uid_map, read from
 * here, says how the target's namespace maps its uids onto ours. jitscope acts
 * for a process (attaches, gives it files in its temp directory) when it is of
 * the server's own uid, or when it runs in a user namespace the server's uid
 * created (directly below the server's own: a container it started), whose
 * users are the server's to manage; and it can give that process files of its
 * own uid only as root. attach.c and agentplace.c ask; the parser is pure and
 * unit-tested (tests/unit/test_container.c). Thread-safe, no state.
 */
#ifndef JITSCOPE_USERNS_H
#define JITSCOPE_USERNS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define USERNS_EXTENTS_MAX 340 /* the kernel's limit of lines in a uid_map */

typedef struct userns_extent {
    uint32_t inside, outside, count;
} userns_extent;

/* The lines "INSIDE OUTSIDE COUNT" of a uid_map's text (len bytes, need not be
 * NUL-terminated). 0 with *n extents, or -1 when the text is not such a map. */
int userns_parse_map(const char *text, size_t len, userns_extent *out, size_t max, size_t *n);
/* The uid inside that maps to `outside` (0), or -1 when none does. */
int userns_to_inside(const userns_extent *map, size_t n, uint32_t outside, uint32_t *inside);

typedef struct userns_facts {
    int other;        /* 1: pid runs in another user namespace than the server */
    uid_t uid;        /* its uid as the server sees it */
    uid_t uid_inside; /* as it sees itself (= uid when not other; -1 when unmapped) */
    uid_t owner;      /* other: the uid (ours) that created its namespace's top one */
    int ours;         /* 1: the server may act for it (see the top of this file) */
    int can_give;     /* 1: the server can make files of the process's uid (ours, or root) */
} userns_facts;

/* What /proc says of pid's user namespace. 0, or -1 with err set (gone,
 * or /proc unreadable). */
int userns_probe(pid_t pid, userns_facts *out, char *err, size_t errsz);

#endif
