/* ipc_discover.h -- /proc probing and finding the diagnostics socket of a pid.
 *
 * The pure parsers of /proc text and socket names come first (unit-tested on
 * their own), then the functions that read /proc and the socket directory.
 * ipc.c resolves the socket with ipc_socket_path before each command;
 * procscan.c uses the parsers to list every attachable process. Callers reach
 * these through ipc.h. Thread-safe, no static state.
 */
#ifndef JITSCOPE_IPC_DISCOVER_H
#define JITSCOPE_IPC_DISCOVER_H

#include "ipc_types.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Start time (field 22) from the text of /proc/{pid}/stat. The text need not be
 * NUL-terminated; the comm field may hold spaces and ')'. IPC_OK or IPC_ERR_PROTO. */
int ipc_parse_stat_starttime(const char *text, size_t len, uint64_t *start_time);

/* Looks up `name` in a NUL-separated environment block (/proc/{pid}/environ).
 * Returns 1 and copies the value when found, 0 when absent, IPC_ERR_INVAL when
 * the value does not fit in outsz. An unterminated last entry is ignored. */
int ipc_environ_lookup(const char *block, size_t len, const char *name, char *out, size_t outsz);

/* Splits "dotnet-diagnostic-{pid}-{key}-socket". Returns 1 on a match, else 0. */
int ipc_parse_socket_name(const char *name, pid_t *pid, uint64_t *key);

/* Whether a socket named with `key` (modified at `mtime`) can be the target's:
 * the key equals its start time, or the key is 0 (the runtime could not read
 * its start time) and the socket is not older than the process. */
int ipc_socket_key_ok(const ipc_target *t, uint64_t key, time_t mtime);

/* Reads /proc/{pid}: owner, start time, pid namespace, socket directory. */
int ipc_target_probe(pid_t pid, ipc_target *t, char *err, size_t errsz);

/* Finds the diagnostics socket of pid (see the top of this file); when the
 * expected name is missing, scans the directory for dotnet-diagnostic-{pid}-*
 * and takes the one whose key matches, else the newest not older than the
 * process. IPC_OK, IPC_ERR_NOPROC, IPC_ERR_NOTDOTNET, IPC_ERR_PERM, IPC_ERR_IO. */
int ipc_socket_path(pid_t pid, char *out, size_t outsz, char *err, size_t errsz);

#endif
