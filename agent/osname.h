/* osname.h -- the OS's name of a thread of this process, sent to the server.
 *
 * The runtime names its own threads (".NET Finalizer", ".NET Tiered Compilation
 * Worker"...) only at the OS level, before they run; ThreadNameChanged reports
 * only names set through Thread.Name. Linux keeps the first 15 bytes of a
 * thread's name in /proc/self/task/TID/comm. The sender reads it for every
 * thread it announces (a live THREAD_CREATED as it passes, each thread of a
 * catch-up) and sends it as a THREAD_NAME flagged WIRE_FLAG_OS_NAME, which the
 * server keeps only while the runtime gave that thread no name of its own. A
 * thread started without a name carries its starter's OS name (Linux copies it
 * at creation). Sender thread only: this is file I/O (open, read, close: about
 * 25 us a thread on the test machine), never on an app thread.
 */
#ifndef JITSCOPE_OSNAME_H
#define JITSCOPE_OSNAME_H

#include <stdint.h>

/* Reads the OS name of thread os_tid and sends it for thread_id (the record
 * also carries WIRE_FLAG_OS_NAME and `flags`). Nothing when os_tid is 0, the
 * thread is gone, or its name is empty. Returns 1 when a name was sent. */
int osname_send(uint64_t thread_id, uint32_t os_tid, uint16_t flags);

#endif
