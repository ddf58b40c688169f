/* ipc_codec.c -- the diagnostics IPC message codec (see ipc_codec.h).
 *
 * Pure and bounded: request builders (header, AttachProfiler, ProcessInfo) and
 * reply parsers (header, HRESULT reply, ProcessInfo payloads), plus the names of
 * the HRESULTs the runtime sends. No I/O; everything parsed here came from the
 * runtime and is treated as hostile. Strings go through proto/utf.c. The wire
 * facts and their sources are listed at the top of ipc.c.
 */
#include "ipc_codec.h"
#include "utf.h"

#include <string.h>

static const uint8_t ipc_magic[IPC_MAGIC_SIZE] = {'D', 'O', 'T', 'N', 'E', 'T', '_',
                                                  'I', 'P', 'C', '_', 'V', '1', 0};

/* ---- little-endian access ------------------------------------------------- */

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void ipc_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

uint16_t ipc_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

uint32_t ipc_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)ipc_get_u32(p) | ((uint64_t)ipc_get_u32(p + 4) << 32);
}

void ipc_put_header(uint8_t *buf, uint16_t size, uint8_t set, uint8_t id)
{
    memcpy(buf, ipc_magic, IPC_MAGIC_SIZE);
    put_u16(buf + 14, size);
    buf[16] = set;
    buf[17] = id;
    put_u16(buf + 18, 0);
}

size_t ipc_build_attach(uint8_t *buf, size_t bufsz, uint32_t timeout_ms, const uint8_t clsid[16],
                        const char *profiler_path_utf8, const uint8_t *client_data,
                        uint32_t client_len)
{
    size_t limit, off, units, total;

    if (buf == NULL || clsid == NULL || profiler_path_utf8 == NULL || profiler_path_utf8[0] == '\0')
        return 0;
    if (client_len > 0 && client_data == NULL)
        return 0;
    limit = bufsz < IPC_MAX_MESSAGE ? bufsz : IPC_MAX_MESSAGE;
    /* header, timeout, clsid, path count, (path), client length, (client) */
    off = IPC_HEADER_SIZE + 4 + 16 + 4;
    if (limit < off + 2 + 4)
        return 0;
    units = utf8_to_utf16le(profiler_path_utf8, buf + off, (limit - off - 4) / 2);
    if (units == 0 || units > UINT32_MAX)
        return 0;
    total = off + 2 * units + 4;
    if ((size_t)client_len > limit - total)
        return 0;
    total += client_len;

    ipc_put_header(buf, (uint16_t)total, IPC_SET_PROFILER, IPC_PROFILER_ATTACH);
    ipc_put_u32(buf + IPC_HEADER_SIZE, timeout_ms);
    memcpy(buf + IPC_HEADER_SIZE + 4, clsid, 16);
    ipc_put_u32(buf + IPC_HEADER_SIZE + 20, (uint32_t)units);
    off += 2 * units;
    ipc_put_u32(buf + off, client_len);
    off += 4;
    if (client_len > 0)
        memcpy(buf + off, client_data, client_len);
    return total;
}

size_t ipc_build_process_info(uint8_t *buf, size_t bufsz, uint8_t command_id)
{
    if (buf == NULL || bufsz < IPC_HEADER_SIZE)
        return 0;
    if (command_id != IPC_PROCESS_INFO && command_id != IPC_PROCESS_INFO2 &&
        command_id != IPC_PROCESS_INFO3)
        return 0;
    ipc_put_header(buf, (uint16_t)IPC_HEADER_SIZE, IPC_SET_PROCESS, command_id);
    return IPC_HEADER_SIZE;
}

int ipc_parse_reply_header(const uint8_t *buf, size_t len, ipc_header *out)
{
    ipc_header h;

    if (buf == NULL || out == NULL)
        return IPC_ERR_INVAL;
    if (len < IPC_HEADER_SIZE)
        return IPC_ERR_PROTO;
    if (memcmp(buf, ipc_magic, IPC_MAGIC_SIZE) != 0)
        return IPC_ERR_PROTO;
    memcpy(h.magic, buf, IPC_MAGIC_SIZE);
    h.size = ipc_get_u16(buf + 14);
    h.command_set = buf[16];
    h.command_id = buf[17];
    h.reserved = ipc_get_u16(buf + 18);
    if (h.size < IPC_HEADER_SIZE || h.command_set != IPC_SET_SERVER || h.reserved != 0)
        return IPC_ERR_PROTO;
    if (h.command_id != IPC_REPLY_OK && h.command_id != IPC_REPLY_ERROR)
        return IPC_ERR_PROTO;
    *out = h;
    return IPC_OK;
}

int ipc_parse_hresult_reply(const uint8_t *buf, size_t len, int32_t *hresult)
{
    ipc_header h;
    int rc;

    if (buf == NULL || hresult == NULL)
        return IPC_ERR_INVAL;
    rc = ipc_parse_reply_header(buf, len, &h);
    if (rc != IPC_OK)
        return rc;
    if (h.size != len)
        return IPC_ERR_PROTO;
    if (h.size == IPC_HEADER_SIZE) {
        if (h.command_id != IPC_REPLY_OK)
            return IPC_ERR_PROTO; /* an error reply must say which error */
        *hresult = IPC_HR_S_OK;
        return IPC_OK;
    }
    if (h.size != IPC_HEADER_SIZE + 4)
        return IPC_ERR_PROTO;
    {
        int32_t hr = (int32_t)ipc_get_u32(buf + IPC_HEADER_SIZE);
        if (h.command_id == IPC_REPLY_ERROR && hr >= 0)
            return IPC_ERR_PROTO; /* an error reply with a success code is nonsense */
        *hresult = hr;
    }
    return IPC_OK;
}

/* Reads one protocol string at *off into out (UTF-8, bounded). Lone surrogates
 * become U+FFFD; the text stops at an embedded NUL; a string too long for out is
 * cut on a character boundary and *truncated is set. */
int ipc_read_string(const uint8_t *p, size_t len, size_t *off, char *out, size_t outsz,
                    int *truncated)
{
    uint32_t count;
    size_t n, base;
    int cut;

    out[0] = '\0';
    if (len - *off < 4)
        return IPC_ERR_PROTO;
    count = ipc_get_u32(p + *off);
    *off += 4;
    if (count == 0)
        return IPC_OK;
    if (count > (len - *off) / 2)
        return IPC_ERR_PROTO;
    base = *off;
    if (ipc_get_u16(p + base + 2 * ((size_t)count - 1)) != 0)
        return IPC_ERR_PROTO;
    n = utf16le_to_utf8(p + base, (size_t)count - 1, out, outsz - 1, &cut);
    out[n] = '\0';
    if (cut)
        *truncated = 1;
    *off = base + 2 * (size_t)count;
    return IPC_OK;
}

int ipc_parse_process_info(const uint8_t *payload, size_t len, int version, ipc_procinfo *out)
{
    size_t off = 0;
    int rc = IPC_ERR_PROTO, exact = 1;

    if (out == NULL)
        return IPC_ERR_INVAL;
    memset(out, 0, sizeof(*out));
    if (payload == NULL || version < 1 || version > 3)
        return IPC_ERR_INVAL;
    out->version = version;
    if (version == 3) {
        if (len < 4)
            goto fail;
        out->info3_version = ipc_get_u32(payload);
        off = 4;
        if (out->info3_version < 1)
            goto fail;
        exact = out->info3_version == 1; /* later versions may append fields */
    }
    if (len - off < 8 + IPC_GUID_SIZE)
        goto fail;
    out->pid = get_u64(payload + off);
    memcpy(out->cookie, payload + off + 8, IPC_GUID_SIZE);
    off += 8 + IPC_GUID_SIZE;
    if ((rc = ipc_read_string(payload, len, &off, out->command_line, sizeof(out->command_line),
                              &out->truncated)) != IPC_OK ||
        (rc = ipc_read_string(payload, len, &off, out->os, sizeof(out->os), &out->truncated)) !=
            IPC_OK ||
        (rc = ipc_read_string(payload, len, &off, out->arch, sizeof(out->arch), &out->truncated)) !=
            IPC_OK)
        goto fail;
    if (version >= 2) {
        if ((rc = ipc_read_string(payload, len, &off, out->entrypoint_assembly,
                                  sizeof(out->entrypoint_assembly), &out->truncated)) != IPC_OK ||
            (rc = ipc_read_string(payload, len, &off, out->runtime_version,
                                  sizeof(out->runtime_version), &out->truncated)) != IPC_OK)
            goto fail;
    }
    if (version == 3) {
        rc = ipc_read_string(payload, len, &off, out->runtime_rid, sizeof(out->runtime_rid),
                             &out->truncated);
        if (rc != IPC_OK)
            goto fail;
    }
    rc = IPC_ERR_PROTO;
    if (exact && off != len)
        goto fail; /* trailing bytes the runtime never sends */
    return IPC_OK;

fail:
    memset(out, 0, sizeof(*out));
    return rc;
}

const char *ipc_hresult_name(int32_t hr)
{
    switch (hr) {
    case IPC_HR_S_OK: return "S_OK";
    case IPC_HR_E_FAIL: return "E_FAIL";
    case IPC_HR_E_INVALIDARG: return "E_INVALIDARG";
    case IPC_HR_FILE_NOT_FOUND: return "ERROR_FILE_NOT_FOUND";
    case IPC_HR_MOD_NOT_FOUND: return "ERROR_MOD_NOT_FOUND";
    case IPC_HR_PROC_NOT_FOUND: return "ERROR_PROC_NOT_FOUND";
    case IPC_HR_INSUFFICIENT_BUFFER: return "ERROR_INSUFFICIENT_BUFFER";
    case IPC_HR_ENVVAR_NOT_FOUND: return "ERROR_ENVVAR_NOT_FOUND";
    case IPC_HR_NOT_YET_AVAILABLE: return "DS_IPC_E_NOT_YET_AVAILABLE";
    case IPC_HR_PROFILER_NOT_ATTACHABLE: return "CORPROF_E_PROFILER_NOT_ATTACHABLE";
    case IPC_HR_PROFILER_ALREADY_ACTIVE: return "CORPROF_E_PROFILER_ALREADY_ACTIVE";
    case IPC_HR_RUNTIME_UNINITIALIZED: return "CORPROF_E_RUNTIME_UNINITIALIZED";
    case IPC_HR_PROFILER_CANCEL_ACTIVATION: return "CORPROF_E_PROFILER_CANCEL_ACTIVATION";
    case IPC_HR_BAD_ENCODING: return "CORDIAGIPC_E_BAD_ENCODING";
    case IPC_HR_UNKNOWN_COMMAND: return "CORDIAGIPC_E_UNKNOWN_COMMAND";
    case IPC_HR_UNKNOWN_MAGIC: return "CORDIAGIPC_E_UNKNOWN_MAGIC";
    case IPC_HR_UNKNOWN_ERROR: return "CORDIAGIPC_E_UNKNOWN_ERROR";
    case IPC_HR_NOTSUPPORTED: return "COR_E_NOTSUPPORTED";
    default: return "unknown HRESULT";
    }
}
