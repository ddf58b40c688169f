/* proclist.h -- the one listing of attachable .NET processes, each with what its
 * runtime says about itself (ProcessInfo), shared by GET /api/processes and
 * `jitscope ps` so that both show the same processes under the same cap.
 *
 * procscan.c finds the processes; ipc.c asks each one; container.c says which
 * container each runs in. A process that does not answer keeps its row, with
 * the reason in `error`.
 */
#ifndef JITSCOPE_PROCLIST_H
#define JITSCOPE_PROCLIST_H

#include <stddef.h>
#include <sys/types.h>

#include "container.h"
#include "ipc.h"

/* Most processes in one listing; more sets `truncated`. */
#define PROCLIST_MAX 1024u

typedef struct proclist_item {
    pid_t pid;
    int info_ok; /* 1: info holds the runtime's answer; 0: error says why not */
    ipc_procinfo info;
    char error[256];
    container_facts container; /* where it runs (in_container 0: beside the server) */
} proclist_item;

typedef struct proclist {
    proclist_item *items; /* sorted by pid */
    size_t count;
    int truncated; /* 1: more than PROCLIST_MAX processes were found */
} proclist;

/* Fills *out (free it with proclist_free). 0, or -1 when /proc cannot be
 * scanned or memory runs out (then *out is empty). */
int proclist_build(proclist *out);

void proclist_free(proclist *list);

#endif
