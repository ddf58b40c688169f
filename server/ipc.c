/* ipc.c -- client for the .NET diagnostics IPC protocol (see ipc.h for the API).
 *
 * Written from the protocol description; facts and where they were checked:
 *  - Header: 14-byte magic "DOTNET_IPC_V1\0", uint16 size (header + payload),
 *    uint8 command set, uint8 command id, uint16 reserved = 0, little-endian.
 *    dotnet/diagnostics documentation/design-docs/ipc-protocol.md ("Headers").
 *  - Replies: set 0xFF, id 0x00 OK / 0xFF error; both generic replies carry an
 *    int32 payload (the HRESULT; S_OK on success), so they are 24 bytes.
 *    dotnet/runtime src/native/eventpipe/ds-protocol.c (ds_ipc_message_send_error,
 *    ds_ipc_message_send_success).
 *  - AttachProfiler 0x03/0x01 payload: uint32 attach timeout (ms), 16-byte CLSID,
 *    string profiler path, uint32 client-data length, client-data bytes. The runtime
 *    rejects a message whose bytes after the length exceed that length.
 *    dotnet/runtime src/native/eventpipe/ds-profiler-protocol.c
 *    (attach_profiler_command_try_parse_payload).
 *  - Strings: uint32 count of UTF-16 units including the NUL, then the units; the
 *    last unit must be 0; count 0 is allowed (empty). ds-protocol.c
 *    (ipc_message_try_parse_string_utf16_t_byte_array).
 *  - ProcessInfo 0x04/0x00: uint64 pid, 16-byte cookie, strings command line, OS,
 *    arch. ProcessInfo2 0x04/0x04 adds entrypoint assembly name and CLR product
 *    version. ds-process-protocol.c (process_info_payload_flatten,
 *    process_info_2_payload_flatten). ProcessInfo3 0x04/0x08 (ds-types.h command
 *    ids; ds-process-protocol.h adds runtime_rid): observed on .NET 10.0.12 to be
 *    uint32 version (1) first, then the ProcessInfo2 fields, then the RID string.
 *  - Socket: PAL_GetTransportName appends "dotnet-diagnostic-{pid}-{key}-socket" to
 *    GetTempPath (TMPDIR, '/' appended, default /tmp/); the disambiguation key is
 *    field 22 of /proc/pid/stat read after the last ')' (0 when unreadable).
 *    dotnet/runtime src/coreclr/pal/src/thread/process.cpp
 *    (GetProcessIdDisambiguationKey). Mode 0600 via fchmod:
 *    src/native/eventpipe/ds-ipc-pal-socket.c (ipc_socket_set_permission).
 *    A relative TMPDIR is relative to the target's working directory (observed).
 *  - HRESULT values: ds-types.h (DS_IPC_E_*), corerror (CORPROF_E_*, CORDIAGIPC_E_*).
 *  - Observed on .NET 10.0.12 (see tests/unit/test_ipc.c): AttachProfiler replies
 *    in under 1 ms; success is a 24-byte OK reply with S_OK; a missing or non-ELF
 *    library gives 0x8007007E, a library without DllGetClassObject 0x8007007F, a
 *    second profiler 0x8013136A, a runtime suspended at startup 0x8013135B.
 *
 * Layout of the client: ipc_codec.c builds and parses messages, ipc_discover.c
 * probes /proc and finds the socket, ipc_io.c does socket I/O with a deadline;
 * this file runs the commands (one request/reply per connection) with them.
 */
#include "ipc.h"
#include "ipc_codec.h"
#include "ipc_discover.h"
#include "ipc_io.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *ipc_strerror(int code)
{
    switch (code) {
    case IPC_OK: return "ok";
    case IPC_ERR_INVAL: return "invalid argument";
    case IPC_ERR_NOPROC: return "no such process";
    case IPC_ERR_NOTDOTNET: return "no .NET diagnostics socket";
    case IPC_ERR_PERM: return "permission denied";
    case IPC_ERR_IO: return "I/O error";
    case IPC_ERR_TIMEOUT: return "timed out";
    case IPC_ERR_PROTO: return "malformed reply";
    case IPC_ERR_RUNTIME: return "runtime returned an error";
    case IPC_ERR_TOO_OLD: return "runtime older than .NET 5";
    default: return "unknown error";
    }
}

/* ---- commands ---------------------------------------------------------------- */

/* One request and its reply on a connection (fd): the reply (header +
 * payload) goes to reply; a size field larger than cap is rejected without
 * reading the payload. */
static int exchange(int fd, const uint8_t *req, size_t reqlen, const struct timespec *dl,
                    uint8_t *reply, size_t cap, size_t *replylen, char *err, size_t errsz)
{
    ipc_header h;
    int rc;

    *replylen = 0;
    rc = ipc_send_all(fd, req, reqlen, dl, err, errsz);
    if (rc != IPC_OK)
        return rc;
    rc = ipc_recv_exact(fd, reply, IPC_HEADER_SIZE, dl, "reply header", err, errsz);
    if (rc != IPC_OK)
        return rc;
    rc = ipc_parse_reply_header(reply, IPC_HEADER_SIZE, &h);
    if (rc != IPC_OK) {
        ipc_set_err(err, errsz, "malformed reply header (set 0x%02x id 0x%02x size %u)", reply[16],
                    reply[17], (unsigned)ipc_get_u16(reply + 14));
        return rc;
    }
    if (h.size > cap) {
        ipc_set_err(err, errsz, "reply of %u bytes is larger than the %zu expected",
                    (unsigned)h.size, cap);
        return IPC_ERR_PROTO;
    }
    rc = ipc_recv_exact(fd, reply + IPC_HEADER_SIZE, (size_t)h.size - IPC_HEADER_SIZE, dl,
                        "reply payload", err, errsz);
    if (rc != IPC_OK)
        return rc;
    *replylen = h.size;
    return IPC_OK;
}

/* One request/reply on a fresh connection to path. */
static int transact(const char *path, const uint8_t *req, size_t reqlen, uint64_t timeout_ms,
                    uint8_t *reply, size_t cap, size_t *replylen, char *err, size_t errsz)
{
    struct timespec dl;
    int fd = -1, rc;

    *replylen = 0;
    ipc_deadline_after(&dl, timeout_ms);
    rc = ipc_connect_deadline(path, &dl, &fd, err, errsz);
    if (rc == IPC_OK)
        rc = exchange(fd, req, reqlen, &dl, reply, cap, replylen, err, errsz);
    if (fd >= 0)
        close(fd);
    return rc;
}

int ipc_attach_profiler(pid_t pid, uint32_t timeout_ms, const uint8_t clsid[16], const char *path,
                        const uint8_t *client, uint32_t clen, int32_t *hresult_out, char *err,
                        size_t errsz)
{
    char sock[IPC_PATH_MAX];
    uint8_t *req = NULL, reply[IPC_HEADER_SIZE + 4];
    size_t reqlen, replylen = 0;
    int rc;

    if (hresult_out == NULL || clsid == NULL || path == NULL) {
        ipc_set_err(err, errsz, "missing argument");
        return IPC_ERR_INVAL;
    }
    *hresult_out = IPC_HR_E_FAIL;
    req = malloc(IPC_MAX_MESSAGE);
    if (req == NULL) {
        ipc_set_err(err, errsz, "out of memory");
        return IPC_ERR_IO;
    }
    reqlen = ipc_build_attach(req, IPC_MAX_MESSAGE, timeout_ms, clsid, path, client, clen);
    if (reqlen == 0) {
        rc = IPC_ERR_INVAL;
        ipc_set_err(
            err, errsz,
            "AttachProfiler request does not fit in %u bytes, or the path is empty or not UTF-8",
            IPC_MAX_MESSAGE);
        goto fail;
    }
    rc = ipc_socket_path(pid, sock, sizeof(sock), err, errsz);
    if (rc != IPC_OK)
        goto fail;
    rc = transact(sock, req, reqlen, (uint64_t)timeout_ms + IPC_ATTACH_MARGIN_MS, reply,
                  sizeof(reply), &replylen, err, errsz);
    if (rc != IPC_OK)
        goto fail;
    rc = ipc_parse_hresult_reply(reply, replylen, hresult_out);
    if (rc != IPC_OK) {
        ipc_set_err(err, errsz, "malformed AttachProfiler reply (%zu bytes)", replylen);
        goto fail;
    }
    free(req);
    return IPC_OK;

fail:
    free(req);
    return rc;
}

/* One ProcessInfo request on an already resolved socket path (sock), or on a
 * diagnostic port's connection (fd >= 0; sock NULL). */
static int query_info(const char *sock, int fd, uint8_t command_id, ipc_procinfo *out,
                      int32_t *hresult_out, char *err, size_t errsz)
{
    uint8_t req[IPC_HEADER_SIZE], *reply = NULL;
    size_t replylen = 0;
    struct timespec dl;
    int rc, version;

    version = command_id == IPC_PROCESS_INFO ? 1 : command_id == IPC_PROCESS_INFO2 ? 2 : 3;
    if (ipc_build_process_info(req, sizeof(req), command_id) == 0) {
        ipc_set_err(err, errsz, "unknown ProcessInfo command 0x%02x", command_id);
        return IPC_ERR_INVAL;
    }
    reply = malloc(IPC_MAX_MESSAGE);
    if (reply == NULL) {
        ipc_set_err(err, errsz, "out of memory");
        return IPC_ERR_IO;
    }
    ipc_deadline_after(&dl, IPC_INFO_TIMEOUT_MS);
    rc = sock ? transact(sock, req, sizeof(req), IPC_INFO_TIMEOUT_MS, reply, IPC_MAX_MESSAGE,
                         &replylen, err, errsz)
              : exchange(fd, req, sizeof(req), &dl, reply, IPC_MAX_MESSAGE, &replylen, err, errsz);
    if (rc != IPC_OK)
        goto fail;
    if (reply[17] == IPC_REPLY_ERROR) {
        int32_t hr = 0;
        rc = ipc_parse_hresult_reply(reply, replylen, &hr);
        if (rc != IPC_OK) {
            ipc_set_err(err, errsz, "malformed error reply (%zu bytes)", replylen);
            goto fail;
        }
        if (hresult_out != NULL)
            *hresult_out = hr;
        rc = IPC_ERR_RUNTIME;
        ipc_set_err(err, errsz, "ProcessInfo 0x04/0x%02x: runtime error 0x%08x (%s)", command_id,
                    (unsigned)hr, ipc_hresult_name(hr));
        goto fail;
    }
    rc = ipc_parse_process_info(reply + IPC_HEADER_SIZE, replylen - IPC_HEADER_SIZE, version, out);
    if (rc != IPC_OK) {
        ipc_set_err(err, errsz, "malformed ProcessInfo%d payload (%zu bytes)", version,
                    replylen - IPC_HEADER_SIZE);
        goto fail;
    }
    free(reply);
    return IPC_OK;

fail:
    free(reply);
    return rc;
}

static int query_info_at(const char *sock, uint8_t command_id, ipc_procinfo *out,
                         int32_t *hresult_out, char *err, size_t errsz)
{
    return query_info(sock, -1, command_id, out, hresult_out, err, errsz);
}

int ipc_query_process_info(pid_t pid, uint8_t command_id, ipc_procinfo *out, int32_t *hresult_out,
                           char *err, size_t errsz)
{
    char sock[IPC_PATH_MAX];
    int rc;

    if (out == NULL) {
        ipc_set_err(err, errsz, "missing output");
        return IPC_ERR_INVAL;
    }
    memset(out, 0, sizeof(*out));
    rc = ipc_socket_path(pid, sock, sizeof(sock), err, errsz);
    if (rc != IPC_OK)
        return rc;
    return query_info_at(sock, command_id, out, hresult_out, err, errsz);
}

int ipc_process_info_at(const char *socket_path, ipc_procinfo *out, char *err, size_t errsz)
{
    int32_t hr = 0;
    int rc;

    if (out == NULL) {
        ipc_set_err(err, errsz, "missing output");
        return IPC_ERR_INVAL;
    }
    memset(out, 0, sizeof(*out));
    rc = query_info_at(socket_path, IPC_PROCESS_INFO2, out, &hr, err, errsz);
    if (rc == IPC_ERR_RUNTIME && hr == IPC_HR_UNKNOWN_COMMAND) /* .NET 5 */
        rc = query_info_at(socket_path, IPC_PROCESS_INFO, out, &hr, err, errsz);
    if (rc == IPC_ERR_RUNTIME && hr == IPC_HR_UNKNOWN_COMMAND) { /* .NET Core 3.1 and older */
        ipc_set_err(err, errsz,
                    "the runtime does not know the diagnostics ProcessInfo command: it is older "
                    "than .NET 5, which jitscope needs");
        rc = IPC_ERR_TOO_OLD;
    }
    return rc;
}

int ipc_process_info(pid_t pid, ipc_procinfo *out, char *err, size_t errsz)
{
    char sock[IPC_PATH_MAX];
    int rc = ipc_socket_path(pid, sock, sizeof(sock), err, errsz);

    return rc == IPC_OK ? ipc_process_info_at(sock, out, err, errsz) : rc;
}

/* ---- on a diagnostic port's connection --------------------------------------- */

int ipc_port_command(int fd, const uint8_t *req, size_t reqlen, uint32_t timeout_ms,
                     int32_t *hresult_out, char *err, size_t errsz)
{
    uint8_t reply[IPC_HEADER_SIZE + 4];
    size_t replylen = 0;
    struct timespec dl;
    int rc;

    *hresult_out = IPC_HR_E_FAIL;
    ipc_deadline_after(&dl, timeout_ms);
    rc = exchange(fd, req, reqlen, &dl, reply, sizeof(reply), &replylen, err, errsz);
    if (rc != IPC_OK)
        return rc;
    rc = ipc_parse_hresult_reply(reply, replylen, hresult_out);
    if (rc != IPC_OK)
        ipc_set_err(err, errsz, "malformed reply to command 0x%02x/0x%02x (%zu bytes)", req[16],
                    req[17], replylen);
    return rc;
}

int ipc_port_process_info(int fd, uint8_t command_id, ipc_procinfo *out, int32_t *hresult_out,
                          char *err, size_t errsz)
{
    memset(out, 0, sizeof(*out));
    return query_info(NULL, fd, command_id, out, hresult_out, err, errsz);
}

int ipc_port_environment(int fd, uint32_t timeout_ms, uint8_t **block_out, size_t *len_out,
                         int32_t *hresult_out, char *err, size_t errsz)
{
    uint8_t req[IPC_HEADER_SIZE], reply[IPC_HEADER_SIZE + 6], *block;
    size_t replylen = 0;
    uint32_t bytes = 0;
    struct timespec dl;
    int rc;

    *block_out = NULL;
    *len_out = 0;
    *hresult_out = IPC_HR_S_OK;
    ipc_build_bare(req, sizeof(req), IPC_SET_PROCESS, IPC_PROCESS_ENVIRONMENT);
    ipc_deadline_after(&dl, timeout_ms);
    rc = exchange(fd, req, sizeof(req), &dl, reply, sizeof(reply), &replylen, err, errsz);
    if (rc != IPC_OK)
        return rc;
    if (reply[17] == IPC_REPLY_ERROR) {
        if (ipc_parse_hresult_reply(reply, replylen, hresult_out) != IPC_OK) {
            ipc_set_err(err, errsz, "malformed error reply (%zu bytes)", replylen);
            return IPC_ERR_PROTO;
        }
        ipc_set_err(err, errsz, "ProcessEnvironment: runtime error 0x%08x (%s)",
                    (unsigned)*hresult_out, ipc_hresult_name(*hresult_out));
        return IPC_ERR_RUNTIME;
    }
    if (ipc_parse_env_reply(reply + IPC_HEADER_SIZE, replylen - IPC_HEADER_SIZE, &bytes) !=
        IPC_OK) {
        ipc_set_err(err, errsz, "malformed ProcessEnvironment reply (%zu bytes)", replylen);
        return IPC_ERR_PROTO;
    }
    block = malloc(bytes);
    if (!block) {
        ipc_set_err(err, errsz, "out of memory");
        return IPC_ERR_IO;
    }
    rc = ipc_recv_exact(fd, block, bytes, &dl, "environment block", err, errsz);
    if (rc != IPC_OK) {
        free(block);
        return rc;
    }
    *block_out = block;
    *len_out = bytes;
    return IPC_OK;
}
