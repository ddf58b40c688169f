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
 * The protocol facts and their sources are listed at the top of ipc.c.
 */
#ifndef JITSCOPE_IPC_H
#define JITSCOPE_IPC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Return codes (IPC_OK or a negative IPC_ERR_*). */
#define IPC_OK 0
#define IPC_ERR_INVAL (-1)     /* bad argument, or a request that does not fit */
#define IPC_ERR_NOPROC (-2)    /* no such process */
#define IPC_ERR_NOTDOTNET (-3) /* no diagnostics socket: not .NET, IPC disabled, or stale */
#define IPC_ERR_PERM (-4)      /* socket or /proc entry belongs to another user */
#define IPC_ERR_IO (-5)        /* a system call failed, or the runtime hung up */
#define IPC_ERR_TIMEOUT (-6)   /* the deadline passed before the reply was complete */
#define IPC_ERR_PROTO (-7)     /* the reply is malformed (bad magic, sizes, strings) */
#define IPC_ERR_RUNTIME (-8)   /* the runtime answered with an error HRESULT */

/* Wire constants. */
#define IPC_HEADER_SIZE 20u
#define IPC_MAGIC_SIZE 14u     /* "DOTNET_IPC_V1" and its NUL */
#define IPC_MAX_MESSAGE 65535u /* the size field is a uint16 */
#define IPC_GUID_SIZE 16u

#define IPC_SET_PROFILER 0x03u
#define IPC_PROFILER_ATTACH 0x01u
#define IPC_SET_PROCESS 0x04u
#define IPC_PROCESS_INFO 0x00u
#define IPC_PROCESS_INFO2 0x04u
#define IPC_PROCESS_INFO3 0x08u
#define IPC_SET_SERVER 0xFFu
#define IPC_REPLY_OK 0x00u
#define IPC_REPLY_ERROR 0xFFu

/* HRESULTs the runtime is known to send back (names in ipc_hresult_name). */
#define IPC_HR_S_OK ((int32_t)0)
#define IPC_HR_E_FAIL ((int32_t)0x80004005u)
#define IPC_HR_E_INVALIDARG ((int32_t)0x80070057u)
#define IPC_HR_FILE_NOT_FOUND ((int32_t)0x80070002u) /* HRESULT_FROM_WIN32(ERROR_FILE_NOT_FOUND) */
#define IPC_HR_MOD_NOT_FOUND ((int32_t)0x8007007Eu)  /* HRESULT_FROM_WIN32(ERROR_MOD_NOT_FOUND) */
#define IPC_HR_PROC_NOT_FOUND ((int32_t)0x8007007Fu) /* no DllGetClassObject export */
#define IPC_HR_INSUFFICIENT_BUFFER ((int32_t)0x8007007Au)
#define IPC_HR_ENVVAR_NOT_FOUND ((int32_t)0x800000CBu)
#define IPC_HR_NOT_YET_AVAILABLE ((int32_t)0x8013135Bu) /* DS_IPC_E_NOT_YET_AVAILABLE */
#define IPC_HR_PROFILER_NOT_ATTACHABLE ((int32_t)0x80131368u)
#define IPC_HR_PROFILER_ALREADY_ACTIVE ((int32_t)0x8013136Au)
#define IPC_HR_RUNTIME_UNINITIALIZED ((int32_t)0x80131371u)
#define IPC_HR_PROFILER_CANCEL_ACTIVATION ((int32_t)0x80131375u)
#define IPC_HR_BAD_ENCODING ((int32_t)0x80131384u)
#define IPC_HR_UNKNOWN_COMMAND ((int32_t)0x80131385u)
#define IPC_HR_UNKNOWN_MAGIC ((int32_t)0x80131386u)
#define IPC_HR_UNKNOWN_ERROR ((int32_t)0x80131387u)
#define IPC_HR_NOTSUPPORTED ((int32_t)0x80131515u)

/* Sizes of the text fields of ipc_procinfo (bytes, including the NUL). */
#define IPC_CMDLINE_MAX 4096u
#define IPC_FIELD_MAX 256u

/* Longest socket path: sizeof(sockaddr_un.sun_path) is 108, including the NUL. */
#define IPC_PATH_MAX 108u

/* Default deadline for ProcessInfo, and the margin added to an attach timeout. */
#define IPC_DEFAULT_TIMEOUT_MS 5000u
/* ProcessInfo: a live runtime answers in well under a millisecond; a stopped
 * (SIGSTOP, debugger) one never does, and a listing must not wait 5 s for each. */
#define IPC_INFO_TIMEOUT_MS 500u
#define IPC_ATTACH_MARGIN_MS 5000u

typedef struct ipc_header {
    uint8_t magic[IPC_MAGIC_SIZE];
    uint16_t size; /* header + payload */
    uint8_t command_set;
    uint8_t command_id;
    uint16_t reserved;
} ipc_header;

/* What ProcessInfo (version 1), ProcessInfo2 (2) and ProcessInfo3 (3) return.
 * (Named ipc_procinfo because ipc_process_info is the function that fetches it.)
 * Strings are UTF-8, always NUL-terminated, cut on a character boundary when too
 * long (then `truncated` is set); fields a version does not carry are empty. */
typedef struct ipc_procinfo {
    int version;                   /* 1, 2 or 3: which command answered */
    int truncated;                 /* non-zero when some string was cut to fit */
    uint64_t pid;                  /* in the target's pid namespace */
    uint8_t cookie[IPC_GUID_SIZE]; /* runtime instance cookie, wire order */
    uint32_t info3_version;        /* ProcessInfo3 only: the payload's own version field */
    char command_line[IPC_CMDLINE_MAX];
    char os[IPC_FIELD_MAX];
    char arch[IPC_FIELD_MAX];
    char entrypoint_assembly[IPC_FIELD_MAX]; /* version >= 2 */
    char runtime_version[IPC_FIELD_MAX];     /* version >= 2, e.g. "10.0.0-..." */
    char runtime_rid[IPC_FIELD_MAX];         /* version 3, e.g. "linux-x64" */
} ipc_procinfo;

/* What we learn about a target from /proc, before looking for its socket. */
typedef struct ipc_target {
    pid_t pid;              /* as seen from here */
    pid_t ns_pid;           /* as seen by the target (innermost pid namespace) */
    uid_t uid;              /* owner of /proc/{pid} */
    uint64_t start_time;    /* field 22 of /proc/{pid}/stat, clock ticks since boot */
    time_t start_realtime;  /* the same as wall-clock seconds, 0 when unknown */
    int env_readable;       /* 0: /proc/{pid}/environ was unreadable, TMPDIR assumed /tmp */
    int foreign_root;       /* 1: other mount namespace, dir is under /proc/{pid}/root */
    char dir[IPC_PATH_MAX]; /* socket directory as reachable from here, ends with '/' */
} ipc_target;

/* ---- pure helpers (no I/O) ------------------------------------------------ */

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

/* Request builders. Return the message size, or 0 when it does not fit in
 * bufsz / in a uint16, or when an argument is invalid. clsid is 16 bytes in
 * memory (GUID) layout: Data1 LE u32, Data2 LE u16, Data3 LE u16, Data4[8]. */
size_t ipc_build_attach(uint8_t *buf, size_t bufsz, uint32_t timeout_ms, const uint8_t clsid[16],
                        const char *profiler_path_utf8, const uint8_t *client_data,
                        uint32_t client_len);
size_t ipc_build_process_info(uint8_t *buf, size_t bufsz, uint8_t command_id);

/* Reply parsers; never read past len. ipc_parse_reply_header checks the first
 * IPC_HEADER_SIZE bytes: magic, size >= 20, command set 0xFF, id OK or ERROR,
 * reserved 0. ipc_parse_hresult_reply takes a whole reply (len must equal its
 * size field): header plus an int32 HRESULT, or a bare OK header (S_OK). */
int ipc_parse_reply_header(const uint8_t *buf, size_t len, ipc_header *out);
int ipc_parse_hresult_reply(const uint8_t *buf, size_t len, int32_t *hresult);

/* Parses the payload of an OK reply to ProcessInfo (version 1), ProcessInfo2 (2)
 * or ProcessInfo3 (3). IPC_OK, IPC_ERR_PROTO, or IPC_ERR_INVAL (bad version). */
int ipc_parse_process_info(const uint8_t *payload, size_t len, int version, ipc_procinfo *out);

/* Name of a known HRESULT ("CORPROF_E_PROFILER_ALREADY_ACTIVE"), else "unknown HRESULT". */
const char *ipc_hresult_name(int32_t hr);

/* Short text for an IPC_* return code. */
const char *ipc_strerror(int code);

/* ---- I/O ------------------------------------------------------------------ */

/* Reads /proc/{pid}: owner, start time, pid namespace, socket directory. */
int ipc_target_probe(pid_t pid, ipc_target *t, char *err, size_t errsz);

/* Finds the diagnostics socket of pid (see the top of this file); when the
 * expected name is missing, scans the directory for dotnet-diagnostic-{pid}-*
 * and takes the one whose key matches, else the newest not older than the
 * process. IPC_OK, IPC_ERR_NOPROC, IPC_ERR_NOTDOTNET, IPC_ERR_PERM, IPC_ERR_IO. */
int ipc_socket_path(pid_t pid, char *out, size_t outsz, char *err, size_t errsz);

/* Sends AttachProfiler and waits at most timeout_ms + IPC_ATTACH_MARGIN_MS.
 * IPC_OK means the runtime replied: *hresult_out is its verdict (S_OK or an
 * error such as IPC_HR_PROFILER_ALREADY_ACTIVE). Otherwise an IPC_ERR_* with a
 * message naming the failing step in err. */
int ipc_attach_profiler(pid_t pid, uint32_t timeout_ms, const uint8_t clsid[16], const char *path,
                        const uint8_t *client, uint32_t clen, int32_t *hresult_out, char *err,
                        size_t errsz);

/* ProcessInfo2, falling back to ProcessInfo when the runtime does not know it. */
int ipc_process_info(pid_t pid, ipc_procinfo *out, char *err, size_t errsz);

/* One ProcessInfo request of the given command id (IPC_PROCESS_INFO, _INFO2 or
 * _INFO3). An error reply gives IPC_ERR_RUNTIME with the HRESULT in *hresult_out
 * (may be NULL). */
int ipc_query_process_info(pid_t pid, uint8_t command_id, ipc_procinfo *out, int32_t *hresult_out,
                           char *err, size_t errsz);

#endif
