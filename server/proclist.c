/* proclist.c -- scans for .NET processes and asks each for its ProcessInfo on
 * the socket the scan found (no second probe of /proc). See proclist.h. */
#include "proclist.h"

#include <stdlib.h>
#include <string.h>

#include "procscan.h"

int proclist_build(proclist *out)
{
    procscan_entry *entries = calloc(PROCLIST_MAX, sizeof(*entries));
    size_t count = 0, i;
    int scan, rc = -1;

    memset(out, 0, sizeof(*out));
    if (!entries)
        return -1;
    scan = procscan_list(entries, PROCLIST_MAX, &count);
    if (scan < 0)
        goto done;
    out->truncated = scan == PROCSCAN_MORE;
    if (count) {
        out->items = calloc(count, sizeof(*out->items));
        if (!out->items)
            goto done;
    }
    for (i = 0; i < count; i++) {
        proclist_item *item = &out->items[i];

        item->pid = entries[i].pid;
        item->info_ok = ipc_process_info_at(entries[i].socket_path, &item->info, item->error,
                                            sizeof(item->error)) == IPC_OK;
        if (item->info_ok)
            item->error[0] = '\0';
        container_probe(item->pid, &item->container);
    }
    out->count = count;
    rc = 0;
done: /* a failure holds nothing in out: the scan failed, or the items were not allocated */
    free(entries);
    return rc;
}

void proclist_free(proclist *list)
{
    free(list->items);
    memset(list, 0, sizeof(*list));
}
