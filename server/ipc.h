/* ipc.h -- the server's client for the .NET runtime's diagnostics IPC protocol.
 *
 * Every CoreCLR process (unless DOTNET_EnableDiagnostics=0) listens on a Unix
 * socket named  $TMPDIR/dotnet-diagnostic-{pid}-{key}-socket  where TMPDIR is
 * the target's own (default /tmp) and key is the target's start time, field 22
 * of /proc/{pid}/stat. One request per connection: the client sends one message
 * and reads one reply; the runtime then closes the connection.
 *
 * A message is a 20-byte little-endian header followed by a payload:
 *   magic "DOTNET_IPC_V1\0" (14) | uint16 total size | uint8 command set |
 *   uint8 command id | uint16 reserved (0)
 * Replies carry command set 0xFF and id 0x00 (OK) or 0xFF (error, payload is an
 * int32 HRESULT). Strings are uint32 UTF-16 code-unit count including the NUL,
 * then UTF-16LE units; a count of 0 is an empty string.
 *
 * jitscope uses two commands: AttachProfiler (0x03/0x01) to load the agent into
 * a running process, and ProcessInfo (0x04/0x00, 0x04/0x04, 0x04/0x08) to show
 * what a process is. The builders and parsers below are pure, bounded functions
 * (everything that comes back from the runtime is treated as hostile) so they
 * can be unit-tested and fuzzed; the I/O functions put them on a socket with a
 * deadline so that no call waits forever. procscan.c uses the path helpers to
 * list every attachable process. All functions are thread-safe (no static state).
 * The protocol facts and their sources are listed at the top of ipc.c. The code
 * is split by job: ipc_types.h (codes, constants, types), ipc_codec.{c,h} (the
 * builders and parsers), ipc_discover.{c,h} (/proc probing, socket discovery),
 * ipc_io.{c,h} (deadline socket I/O, internal), ipc_port.{c,h} (the messages
 * of a diagnostic port's reverse connections) and ipc.c (the commands). This
 * header includes all but ipc_io.h, so callers need only ipc.h.
 */
#ifndef JITSCOPE_IPC_H
#define JITSCOPE_IPC_H

#include "ipc_codec.h"
#include "ipc_discover.h"
#include "ipc_port.h"
#include "ipc_types.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Short text for an IPC_* return code. */
const char *ipc_strerror(int code);

/* ---- commands (I/O) --------------------------------------------------------- */

/* Sends AttachProfiler and waits at most timeout_ms + IPC_ATTACH_MARGIN_MS.
 * IPC_OK means the runtime replied: *hresult_out is its verdict (S_OK or an
 * error such as IPC_HR_PROFILER_ALREADY_ACTIVE). Otherwise an IPC_ERR_* with a
 * message naming the failing step in err. */
int ipc_attach_profiler(pid_t pid, uint32_t timeout_ms, const uint8_t clsid[16], const char *path,
                        const uint8_t *client, uint32_t clen, int32_t *hresult_out, char *err,
                        size_t errsz);

/* ProcessInfo2, falling back to ProcessInfo when the runtime does not know it
 * (.NET 5); IPC_ERR_TOO_OLD when it knows neither (.NET Core 3.1 and older). */
int ipc_process_info(pid_t pid, ipc_procinfo *out, char *err, size_t errsz);
/* The same on a socket already found (procscan_entry.socket_path). */
int ipc_process_info_at(const char *socket_path, ipc_procinfo *out, char *err, size_t errsz);

/* One ProcessInfo request of the given command id (IPC_PROCESS_INFO, _INFO2 or
 * _INFO3). An error reply gives IPC_ERR_RUNTIME with the HRESULT in *hresult_out
 * (may be NULL). */
int ipc_query_process_info(pid_t pid, uint8_t command_id, ipc_procinfo *out, int32_t *hresult_out,
                           char *err, size_t errsz);

/* ---- commands on a connection a runtime made to a diagnostic port ------------
 * (diagport.c): fd is connected and its advertise read; each call sends one
 * request and reads its reply (the runtime then closes the connection and
 * connects again). */

/* A command whose reply is an HRESULT (StartupProfiler, SetEnvironmentVariable,
 * ResumeRuntime, AttachProfiler): IPC_OK with the runtime's verdict in
 * *hresult_out, or an IPC_ERR_* with err set. */
int ipc_port_command(int fd, const uint8_t *req, size_t reqlen, uint32_t timeout_ms,
                     int32_t *hresult_out, char *err, size_t errsz);
/* ProcessInfo of that command id (IPC_PROCESS_INFO2, ...; IPC_INFO_TIMEOUT_MS). */
int ipc_port_process_info(int fd, uint8_t command_id, ipc_procinfo *out, int32_t *hresult_out,
                          char *err, size_t errsz);
/* ProcessEnvironment: the environment block (malloc'd, free it) for
 * ipc_env_lookup_block. IPC_ERR_RUNTIME with *hresult_out on an error reply. */
int ipc_port_environment(int fd, uint32_t timeout_ms, uint8_t **block_out, size_t *len_out,
                         int32_t *hresult_out, char *err, size_t errsz);

#endif
