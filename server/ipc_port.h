/* ipc_port.h -- the messages of a diagnostic port (the runtime's reverse
 * connection, DOTNET_DiagnosticPorts=PATH[,suspend|nosuspend]): the advertise
 * a runtime sends when it connects, and the requests jitscope sends on such a
 * connection that it never sends on the runtime's own socket: StartupProfiler,
 * SetEnvironmentVariable, ResumeRuntime and ProcessEnvironment (whose reply
 * is parsed here too).
 *
 * Pure, bounded functions with no I/O, like ipc_codec.h: what a peer on the
 * port sends is hostile until checked, and is fuzzed (tests/fuzz). diagport.c
 * puts them on its connections through ipc.h's ipc_exchange. The facts and
 * their sources are listed at the top of ipc_port.c.
 */
#ifndef JITSCOPE_IPC_PORT_H
#define JITSCOPE_IPC_PORT_H

#include "ipc_types.h"

#include <stddef.h>
#include <stdint.h>

#define IPC_ADVERTISE_SIZE 34u /* "ADVR_V1\0", cookie, pid, 2 bytes for the future */
#define IPC_PROFILER_STARTUP 0x02u
#define IPC_PROCESS_RESUME 0x01u
#define IPC_PROCESS_ENVIRONMENT 0x02u
#define IPC_PROCESS_SET_ENV 0x03u
/* ProcessEnvironment: the most bytes of environment block read from a runtime */
#define IPC_ENV_BLOCK_MAX (1u << 20)

typedef struct ipc_advertise {
    uint8_t cookie[IPC_GUID_SIZE]; /* the runtime instance's cookie, as ProcessInfo has it */
    uint64_t pid;                  /* in the runtime's own pid namespace */
} ipc_advertise;

/* The advertise (exactly IPC_ADVERTISE_SIZE bytes). IPC_OK or IPC_ERR_PROTO. */
int ipc_parse_advertise(const uint8_t *buf, size_t len, ipc_advertise *out);

/* A request with no payload (ResumeRuntime, ProcessEnvironment, ProcessInfo*):
 * set and id as given. Its size, or 0 when bufsz is too small. */
size_t ipc_build_bare(uint8_t *buf, size_t bufsz, uint8_t command_set, uint8_t command_id);
/* StartupProfiler (0x03/0x02): the CLSID and the library's path. */
size_t ipc_build_startup_profiler(uint8_t *buf, size_t bufsz, const uint8_t clsid[16],
                                  const char *profiler_path_utf8);
/* SetEnvironmentVariable (0x04/0x03): name and value (both UTF-8, non-empty name). */
size_t ipc_build_set_env(uint8_t *buf, size_t bufsz, const char *name, const char *value);

/* The payload of ProcessEnvironment's OK reply: how many bytes of environment
 * block follow the reply (uint32), then 2 unused bytes. IPC_OK or
 * IPC_ERR_PROTO (also when the count is over IPC_ENV_BLOCK_MAX). */
int ipc_parse_env_reply(const uint8_t *payload, size_t len, uint32_t *block_bytes);
/* Looks `name` up in an environment block: a uint32 count of strings, then
 * that many protocol strings "NAME=VALUE". 1 with the value in out (UTF-8,
 * cut to fit), 0 when absent, IPC_ERR_PROTO when the block is malformed
 * anywhere (it is checked whole, whatever is found). */
int ipc_env_lookup_block(const uint8_t *block, size_t len, const char *name, char *out,
                         size_t outsz);

/* Whether a runtime whose DOTNET_DiagnosticPorts is `ports` and whose
 * DOTNET_DefaultDiagnosticPortSuspend is `default_suspend` (either NULL when
 * unset) pauses at startup until every suspend-mode port resumed it (pure). */
int ipc_port_config_pauses(const char *ports, const char *default_suspend);

#endif
