/* ipc_types.h -- what every part of the diagnostics IPC client shares: the
 * IPC_* return codes, the wire constants and known HRESULTs, and the types
 * ipc_header, ipc_procinfo and ipc_target. Definitions only, so that the codec
 * (ipc_codec.h), discovery (ipc_discover.h), I/O (ipc_io.h) and the commands
 * (ipc.h) all depend on it and not on each other. Callers include ipc.h. */
#ifndef JITSCOPE_IPC_TYPES_H
#define JITSCOPE_IPC_TYPES_H

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
#define IPC_ERR_TOO_OLD (-9)   /* the runtime knows no ProcessInfo: older than .NET 5 */

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

#endif
