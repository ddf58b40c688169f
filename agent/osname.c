/* osname.c -- the OS's name of a thread, from /proc (see osname.h). */
#include "osname.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "agent.h"
#include "clock.h"
#include "conn.h"

int osname_send(uint64_t thread_id, uint32_t os_tid, uint16_t flags)
{
    char path[64], name[64];
    wire_thread t = {.thread_id = thread_id, .os_thread_id = os_tid};
    ssize_t n;
    int fd;

    if (os_tid == 0)
        return 0;
    snprintf(path, sizeof(path), "/proc/self/task/%u/comm", (unsigned)os_tid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* the thread has ended already */
    n = read(fd, name, sizeof(name) - 1);
    close(fd);
    while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
        n--;
    if (n <= 0)
        return 0;
    conn_emit(WIRE_THREAD_NAME, (uint16_t)(flags | WIRE_FLAG_OS_NAME), clock_mono_ns(), &t,
              sizeof(t), name, (size_t)n, NULL, 0);
    return 1;
}
