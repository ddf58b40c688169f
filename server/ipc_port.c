/* ipc_port.c -- the messages of a diagnostic port (see ipc_port.h).
 *
 * Written from the protocol description; facts and where they were checked:
 *  - Advertise: a runtime that connects to a port (DOTNET_DiagnosticPorts,
 *    connect mode) first sends 34 bytes: "ADVR_V1\0", its 16-byte instance
 *    cookie, its uint64 pid (in its own pid namespace), 2 unused bytes, little
 *    endian, and then waits for one command on that connection; each command
 *    consumes the connection and the runtime connects again (advertising
 *    again) at once. dotnet/diagnostics documentation/design-docs/
 *    ipc-protocol.md ("Diagnostic Ports", "Advertise Protocol"); dotnet/runtime
 *    src/native/eventpipe/ds-ipc.c (connect_port_get_ipc_poll_handle_func).
 *  - StartupProfiler 0x03/0x02: payload 16-byte CLSID, then the library path
 *    as a protocol string; refused with DS_IPC_E_INVALIDARG unless the runtime
 *    is paused at startup (suspend mode); the library is loaded like a
 *    CORECLR_PROFILER one (Initialize, no client data) once the runtime
 *    resumes. ds-profiler-protocol.c (startup_profiler_command_try_parse_payload,
 *    profiler_protocol_helper_startup_profiler).
 *  - ResumeRuntime 0x04/0x01, no payload: the paused runtime goes on once every
 *    suspend-mode port it has sent one; a no-op otherwise. ds-server.c
 *    (ds_server_resume_runtime_startup), ds-ipc.c (has_resumed_runtime).
 *  - SetEnvironmentVariable 0x04/0x03 (.NET 6 and later): two protocol
 *    strings, name then value; the runtime's own (PAL) environment, which
 *    ICorProfilerInfo11::GetEnvironmentVariable reads. ds-process-protocol.c.
 *  - ProcessEnvironment 0x04/0x02: the OK reply's payload is a uint32 count of
 *    bytes and 2 unused bytes; that many bytes follow on the connection: a
 *    uint32 count of strings, then each a protocol string "NAME=VALUE".
 *    ds-process-protocol.c (env_info_payload_flatten, env_info_stream_env_block).
 *  - Whether a runtime pauses at startup: DOTNET_DiagnosticPorts is
 *    "CONFIG[;CONFIG...]", each "ADDRESS[,TAG...]"; tags suspend|nosuspend
 *    (default suspend) and connect|listen (default connect; a listen port
 *    other than the default one is not made); the first tag of a kind
 *    counts; DOTNET_DefaultDiagnosticPortSuspend (a number, read as hex) not
 *    0 suspends the default port too. ipc-protocol.md ("Diagnostic Ports");
 *    ds-ipc.c (ds_ipc_stream_factory_configure, ds_port_builder_set_tag).
 */
#include "ipc_port.h"
#include "ipc_codec.h"
#include "utf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const uint8_t ipc_advertise_magic[8] = {'A', 'D', 'V', 'R', '_', 'V', '1', 0};

int ipc_parse_advertise(const uint8_t *buf, size_t len, ipc_advertise *out)
{
    if (!buf || !out || len != IPC_ADVERTISE_SIZE ||
        memcmp(buf, ipc_advertise_magic, sizeof(ipc_advertise_magic)) != 0)
        return IPC_ERR_PROTO;
    memcpy(out->cookie, buf + 8, IPC_GUID_SIZE);
    out->pid = (uint64_t)ipc_get_u32(buf + 24) | ((uint64_t)ipc_get_u32(buf + 28) << 32);
    return IPC_OK;
}

size_t ipc_build_bare(uint8_t *buf, size_t bufsz, uint8_t command_set, uint8_t command_id)
{
    if (!buf || bufsz < IPC_HEADER_SIZE)
        return 0;
    ipc_put_header(buf, (uint16_t)IPC_HEADER_SIZE, command_set, command_id);
    return IPC_HEADER_SIZE;
}

/* Writes a protocol string (count with the NUL, then UTF-16LE units) at
 * buf + off, within limit bytes. The offset after it, or 0 when it does not
 * fit or s is not UTF-8. */
static size_t put_string(uint8_t *buf, size_t limit, size_t off, const char *s)
{
    size_t units;

    if (limit < off + 4 + 2)
        return 0;
    units = utf8_to_utf16le(s, buf + off + 4, (limit - off - 4) / 2);
    if (units == 0 || units > UINT32_MAX)
        return 0;
    ipc_put_u32(buf + off, (uint32_t)units);
    return off + 4 + 2 * units;
}

size_t ipc_build_startup_profiler(uint8_t *buf, size_t bufsz, const uint8_t clsid[16],
                                  const char *profiler_path_utf8)
{
    size_t limit = bufsz < IPC_MAX_MESSAGE ? bufsz : IPC_MAX_MESSAGE, end;

    if (!buf || !clsid || !profiler_path_utf8 || !*profiler_path_utf8 ||
        limit < IPC_HEADER_SIZE + 16)
        return 0;
    memcpy(buf + IPC_HEADER_SIZE, clsid, 16);
    end = put_string(buf, limit, IPC_HEADER_SIZE + 16, profiler_path_utf8);
    if (end == 0)
        return 0;
    ipc_put_header(buf, (uint16_t)end, IPC_SET_PROFILER, IPC_PROFILER_STARTUP);
    return end;
}

size_t ipc_build_set_env(uint8_t *buf, size_t bufsz, const char *name, const char *value)
{
    size_t limit = bufsz < IPC_MAX_MESSAGE ? bufsz : IPC_MAX_MESSAGE, end;

    if (!buf || !name || !*name || !value || strchr(name, '='))
        return 0;
    end = put_string(buf, limit, IPC_HEADER_SIZE, name);
    if (end)
        end = put_string(buf, limit, end, value);
    if (end == 0)
        return 0;
    ipc_put_header(buf, (uint16_t)end, IPC_SET_PROCESS, IPC_PROCESS_SET_ENV);
    return end;
}

int ipc_parse_env_reply(const uint8_t *payload, size_t len, uint32_t *block_bytes)
{
    uint32_t n;

    if (!payload || !block_bytes || len != 6)
        return IPC_ERR_PROTO;
    n = ipc_get_u32(payload);
    if (n < 4 || n > IPC_ENV_BLOCK_MAX)
        return IPC_ERR_PROTO;
    *block_bytes = n;
    return IPC_OK;
}

/* 1 when the UTF-16LE units at p (count of them, NUL last) start with the
 * ASCII name and '='. */
static int env_name_is(const uint8_t *p, size_t count, const char *name, size_t namelen)
{
    size_t i;

    if (count < namelen + 2)
        return 0;
    for (i = 0; i < namelen; i++)
        if (ipc_get_u16(p + 2 * i) != (uint8_t)name[i])
            return 0;
    return ipc_get_u16(p + 2 * namelen) == '=';
}

int ipc_env_lookup_block(const uint8_t *block, size_t len, const char *name, char *out,
                         size_t outsz)
{
    size_t off = 4, namelen, i;
    uint32_t strings;
    int found = 0;

    if (!block || !name || !out || outsz == 0)
        return IPC_ERR_INVAL;
    out[0] = '\0';
    namelen = strlen(name);
    if (len < 4 || namelen == 0)
        return IPC_ERR_PROTO;
    strings = ipc_get_u32(block);
    if (strings > (len - 4) / 4) /* each string takes 4 bytes at least */
        return IPC_ERR_PROTO;
    for (i = 0; i < strings; i++) {
        uint32_t count;
        size_t at;
        int cut;

        if (len - off < 4)
            return IPC_ERR_PROTO;
        count = ipc_get_u32(block + off);
        at = off + 4;
        if (count > (len - at) / 2 || (count && ipc_get_u16(block + at + 2 * (count - 1)) != 0))
            return IPC_ERR_PROTO;
        if (!found && env_name_is(block + at, count, name, namelen)) {
            size_t n = utf16le_to_utf8(block + at + 2 * (namelen + 1), count - namelen - 2, out,
                                       outsz - 1, &cut);
            out[n] = '\0';
            found = 1;
        }
        off = at + 2 * (size_t)count;
    }
    return off == len ? found : IPC_ERR_PROTO;
}

/* Whether one port configuration ("ADDRESS[,TAG...]") makes the runtime
 * pause: a connect port (the default type; extra listen ports are ignored)
 * with an address, in suspend mode (the default). The first tag of each kind
 * counts (the runtime reads them last to first, the first overwriting). */
static int ipc_port_one_pauses(const char *cfg, size_t len)
{
    const char *p = cfg, *end = cfg + len;
    int have_mode = 0, suspend = 1, have_type = 0, listen = 0, parts = 0, address = 0;

    while (p <= end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t n = (size_t)((comma ? comma : end) - p);

        if (parts++ == 0) {
            address = n > 0;
        } else if (n == 7 && strncasecmp(p, "suspend", 7) == 0 && !have_mode) {
            have_mode = 1, suspend = 1;
        } else if (n == 9 && strncasecmp(p, "nosuspend", 9) == 0 && !have_mode) {
            have_mode = 1, suspend = 0;
        } else if (n == 6 && strncasecmp(p, "listen", 6) == 0 && !have_type) {
            have_type = 1, listen = 1;
        } else if (n == 7 && strncasecmp(p, "connect", 7) == 0 && !have_type) {
            have_type = 1, listen = 0;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return address && !listen && suspend;
}

int ipc_port_config_pauses(const char *ports, const char *default_suspend)
{
    const char *p = ports;

    if (default_suspend && strtoul(default_suspend, NULL, 16) != 0)
        return 1;
    while (p && *p) {
        const char *semi = strchr(p, ';');
        size_t n = semi ? (size_t)(semi - p) : strlen(p);
        if (n && ipc_port_one_pauses(p, n))
            return 1;
        p = semi ? semi + 1 : NULL;
    }
    return 0;
}
