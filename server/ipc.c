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
 * Layout of this file: little-endian helpers, pure parsers and builders, then the
 * /proc probing, then socket I/O with a deadline.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CLOCK_BOOTTIME, strnlen, GNU strerror_r */
#endif
#include "ipc.h"
#include "utf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define IPC_STAT_MAX 4096u           /* /proc/pid/stat is a few hundred bytes */
#define IPC_STATUS_MAX (64u * 1024u) /* /proc/pid/status */
#define IPC_ENVIRON_MAX (4u * 1024u * 1024u)
#define IPC_SOCKET_PREFIX "dotnet-diagnostic-"
#define IPC_SOCKET_SUFFIX "-socket"
#define IPC_SCAN_MAX_ENTRIES 100000u /* directory entries looked at in one scan */

static const uint8_t ipc_magic[IPC_MAGIC_SIZE] = {'D', 'O', 'T', 'N', 'E', 'T', '_',
                                                  'I', 'P', 'C', '_', 'V', '1', 0};

_Static_assert(sizeof(((struct sockaddr_un *)0)->sun_path) == IPC_PATH_MAX, "sun_path size");

/* ---- little-endian access ------------------------------------------------- */

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint16_t get_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | ((uint64_t)get_u32(p + 4) << 32);
}

/* ---- error text ----------------------------------------------------------- */

static void set_err(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errsz, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || errsz == 0)
        return;
    va_start(ap, fmt);
    if (vsnprintf(err, errsz, fmt, ap) < 0)
        err[0] = '\0';
    va_end(ap);
}

/* Thread-safe strerror (GNU or XSI strerror_r). */
static const char *err_text(int e, char *buf, size_t n)
{
#if defined(_GNU_SOURCE)
    return strerror_r(e, buf, n);
#else
    if (strerror_r(e, buf, n) != 0)
        snprintf(buf, n, "errno %d", e);
    return buf;
#endif
}

/* ---- pure helpers ---------------------------------------------------------- */

int ipc_parse_stat_starttime(const char *text, size_t len, uint64_t *start_time)
{
    size_t i, close = len;
    unsigned field = 2; /* the ')' ends field 2 */

    if (text == NULL || start_time == NULL)
        return IPC_ERR_INVAL;
    for (i = len; i > 0; i--) {
        if (text[i - 1] == ')') {
            close = i - 1;
            break;
        }
    }
    if (close == len)
        return IPC_ERR_PROTO;
    i = close + 1;
    /* Fields are separated by single spaces; walk to the start of field 22. */
    while (field < 22) {
        if (i >= len || text[i] != ' ')
            return IPC_ERR_PROTO;
        i++;
        field++;
        if (field == 22)
            break;
        if (i >= len || text[i] == ' ')
            return IPC_ERR_PROTO; /* empty field: the line is not what we think */
        while (i < len && text[i] != ' ') {
            if (text[i] == '\n' || text[i] == '\0')
                return IPC_ERR_PROTO;
            i++;
        }
    }
    {
        uint64_t v = 0;
        size_t digits = 0;
        while (i < len && text[i] >= '0' && text[i] <= '9') {
            unsigned d = (unsigned)(text[i] - '0');
            if (v > (UINT64_MAX - d) / 10)
                return IPC_ERR_PROTO;
            v = v * 10 + d;
            i++;
            digits++;
        }
        if (digits == 0)
            return IPC_ERR_PROTO;
        /* Field 22 must be followed by a separator (or end of a cut text). */
        if (i < len && text[i] != ' ' && text[i] != '\n')
            return IPC_ERR_PROTO;
        *start_time = v;
    }
    return IPC_OK;
}

int ipc_environ_lookup(const char *block, size_t len, const char *name, char *out, size_t outsz)
{
    size_t namelen, pos = 0;

    if (block == NULL || name == NULL || out == NULL || outsz == 0)
        return IPC_ERR_INVAL;
    namelen = strlen(name);
    if (namelen == 0)
        return IPC_ERR_INVAL;
    out[0] = '\0';
    while (pos < len) {
        const char *entry = block + pos;
        const char *nul = memchr(entry, '\0', len - pos);
        size_t elen;
        if (nul == NULL)
            break; /* unterminated last entry (a cut read): ignore it */
        elen = (size_t)(nul - entry);
        if (elen > namelen && memcmp(entry, name, namelen) == 0 && entry[namelen] == '=') {
            size_t vlen = elen - namelen - 1;
            if (vlen + 1 > outsz)
                return IPC_ERR_INVAL;
            memcpy(out, entry + namelen + 1, vlen);
            out[vlen] = '\0';
            return 1;
        }
        pos += elen + 1;
    }
    return 0;
}

/* Parses an unsigned decimal that ends exactly at `end`; 0 on failure. */
static int parse_dec(const char *s, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    if (s >= end)
        return 0;
    for (; s < end; s++) {
        unsigned d;
        if (*s < '0' || *s > '9')
            return 0;
        d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

int ipc_parse_socket_name(const char *name, pid_t *pid, uint64_t *key)
{
    const size_t plen = sizeof(IPC_SOCKET_PREFIX) - 1, slen = sizeof(IPC_SOCKET_SUFFIX) - 1;
    const char *p, *end, *dash;
    size_t n;
    uint64_t vpid, vkey;

    if (name == NULL)
        return 0;
    n = strnlen(name, 256);
    if (n < plen + slen + 3 || n == 256)
        return 0;
    if (memcmp(name, IPC_SOCKET_PREFIX, plen) != 0 ||
        memcmp(name + n - slen, IPC_SOCKET_SUFFIX, slen) != 0)
        return 0;
    p = name + plen;
    end = name + n - slen;
    dash = memchr(p, '-', (size_t)(end - p));
    if (dash == NULL)
        return 0;
    if (!parse_dec(p, dash, &vpid) || !parse_dec(dash + 1, end, &vkey))
        return 0;
    if (vpid == 0 || vpid > INT_MAX)
        return 0;
    if (pid != NULL)
        *pid = (pid_t)vpid;
    if (key != NULL)
        *key = vkey;
    return 1;
}

int ipc_socket_key_ok(const ipc_target *t, uint64_t key, time_t mtime)
{
    if (t == NULL)
        return 0;
    if (key == t->start_time)
        return 1;
    if (key != 0)
        return 0;
    /* Key 0: the runtime could not read its start time. Accept the socket only
     * when it is not older than the process (2 s of slack for rounding). */
    if (t->start_realtime == 0)
        return 0;
    return mtime + 2 >= t->start_realtime;
}

static void put_header(uint8_t *buf, uint16_t size, uint8_t set, uint8_t id)
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

    put_header(buf, (uint16_t)total, IPC_SET_PROFILER, IPC_PROFILER_ATTACH);
    put_u32(buf + IPC_HEADER_SIZE, timeout_ms);
    memcpy(buf + IPC_HEADER_SIZE + 4, clsid, 16);
    put_u32(buf + IPC_HEADER_SIZE + 20, (uint32_t)units);
    off += 2 * units;
    put_u32(buf + off, client_len);
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
    put_header(buf, (uint16_t)IPC_HEADER_SIZE, IPC_SET_PROCESS, command_id);
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
    h.size = get_u16(buf + 14);
    h.command_set = buf[16];
    h.command_id = buf[17];
    h.reserved = get_u16(buf + 18);
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
        int32_t hr = (int32_t)get_u32(buf + IPC_HEADER_SIZE);
        if (h.command_id == IPC_REPLY_ERROR && hr >= 0)
            return IPC_ERR_PROTO; /* an error reply with a success code is nonsense */
        *hresult = hr;
    }
    return IPC_OK;
}

/* Reads one protocol string at *off into out (UTF-8, bounded). Lone surrogates
 * become U+FFFD; the text stops at an embedded NUL; a string too long for out is
 * cut on a character boundary and *truncated is set. */
static int read_string(const uint8_t *p, size_t len, size_t *off, char *out, size_t outsz,
                       int *truncated)
{
    uint32_t count;
    size_t n, base;
    int cut;

    out[0] = '\0';
    if (len - *off < 4)
        return IPC_ERR_PROTO;
    count = get_u32(p + *off);
    *off += 4;
    if (count == 0)
        return IPC_OK;
    if (count > (len - *off) / 2)
        return IPC_ERR_PROTO;
    base = *off;
    if (get_u16(p + base + 2 * ((size_t)count - 1)) != 0)
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
        out->info3_version = get_u32(payload);
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
    if ((rc = read_string(payload, len, &off, out->command_line, sizeof(out->command_line),
                          &out->truncated)) != IPC_OK ||
        (rc = read_string(payload, len, &off, out->os, sizeof(out->os), &out->truncated)) !=
            IPC_OK ||
        (rc = read_string(payload, len, &off, out->arch, sizeof(out->arch), &out->truncated)) !=
            IPC_OK)
        goto fail;
    if (version >= 2) {
        if ((rc = read_string(payload, len, &off, out->entrypoint_assembly,
                              sizeof(out->entrypoint_assembly), &out->truncated)) != IPC_OK ||
            (rc = read_string(payload, len, &off, out->runtime_version,
                              sizeof(out->runtime_version), &out->truncated)) != IPC_OK)
            goto fail;
    }
    if (version == 3) {
        rc = read_string(payload, len, &off, out->runtime_rid, sizeof(out->runtime_rid),
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
    switch ((uint32_t)hr) {
    case 0x00000000u: return "S_OK";
    case 0x80004005u: return "E_FAIL";
    case 0x80070057u: return "E_INVALIDARG";
    case 0x80070002u: return "ERROR_FILE_NOT_FOUND";
    case 0x8007007Eu: return "ERROR_MOD_NOT_FOUND";
    case 0x8007007Fu: return "ERROR_PROC_NOT_FOUND";
    case 0x8007007Au: return "ERROR_INSUFFICIENT_BUFFER";
    case 0x800000CBu: return "ERROR_ENVVAR_NOT_FOUND";
    case 0x8013135Bu: return "DS_IPC_E_NOT_YET_AVAILABLE";
    case 0x80131368u: return "CORPROF_E_PROFILER_NOT_ATTACHABLE";
    case 0x8013136Au: return "CORPROF_E_PROFILER_ALREADY_ACTIVE";
    case 0x80131371u: return "CORPROF_E_RUNTIME_UNINITIALIZED";
    case 0x80131375u: return "CORPROF_E_PROFILER_CANCEL_ACTIVATION";
    case 0x80131384u: return "CORDIAGIPC_E_BAD_ENCODING";
    case 0x80131385u: return "CORDIAGIPC_E_UNKNOWN_COMMAND";
    case 0x80131386u: return "CORDIAGIPC_E_UNKNOWN_MAGIC";
    case 0x80131387u: return "CORDIAGIPC_E_UNKNOWN_ERROR";
    case 0x80131515u: return "COR_E_NOTSUPPORTED";
    default: return "unknown HRESULT";
    }
}

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
    default: return "unknown error";
    }
}

/* ---- /proc probing --------------------------------------------------------- */

/* Reads at most cap bytes of a file into buf. 0, or -1 with errno set. */
static int read_bounded(const char *path, char *buf, size_t cap, size_t *len)
{
    int fd, saved;
    size_t n = 0;

    *len = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            goto fail;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    *len = n;
    return 0;

fail:
    saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* Reads /proc/pid/environ into a heap buffer of at most IPC_ENVIRON_MAX bytes. */
static int read_environ(pid_t pid, char **out, size_t *len)
{
    char path[64];
    char *buf = NULL;
    size_t cap = 16u * 1024u, n = 0;
    int fd = -1, saved;

    *out = NULL;
    *len = 0;
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    buf = malloc(cap);
    if (buf == NULL) {
        errno = ENOMEM;
        goto fail;
    }
    for (;;) {
        ssize_t r;
        if (n == cap) {
            char *bigger;
            if (cap >= IPC_ENVIRON_MAX)
                break; /* bounded: the rest is not looked at */
            bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                errno = ENOMEM;
                goto fail;
            }
            buf = bigger;
            cap *= 2;
        }
        r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            goto fail;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    *out = buf;
    *len = n;
    return 0;

fail:
    saved = errno;
    free(buf);
    if (fd >= 0)
        close(fd);
    errno = saved;
    return -1;
}

/* Innermost pid from the NSpid line of /proc/pid/status; pid itself when absent. */
static pid_t read_ns_pid(pid_t pid)
{
    char path[64];
    char *buf;
    size_t len = 0;
    pid_t result = pid;
    const char *line;

    buf = malloc(IPC_STATUS_MAX);
    if (buf == NULL)
        return pid;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if (read_bounded(path, buf, IPC_STATUS_MAX, &len) != 0)
        goto done;
    line = buf;
    while ((size_t)(line - buf) < len) {
        size_t rest = len - (size_t)(line - buf);
        const char *eol = memchr(line, '\n', rest);
        size_t llen = eol ? (size_t)(eol - line) : rest;
        if (llen > 6 && memcmp(line, "NSpid:", 6) == 0) {
            const char *q = line + llen, *start;
            uint64_t v;
            while (q > line + 6 && (q[-1] == ' ' || q[-1] == '\t'))
                q--;
            start = q;
            while (start > line + 6 && start[-1] >= '0' && start[-1] <= '9')
                start--;
            if (parse_dec(start, q, &v) && v > 0 && v <= INT_MAX)
                result = (pid_t)v;
            break;
        }
        if (eol == NULL)
            break;
        line = eol + 1;
    }
done:
    free(buf);
    return result;
}

/* Wall-clock start of a process from its start time in clock ticks since boot. */
static time_t start_realtime(uint64_t ticks)
{
    struct timespec real, boot;
    long hz = sysconf(_SC_CLK_TCK);
    double up, started;

    if (hz <= 0 || clock_gettime(CLOCK_REALTIME, &real) != 0 ||
        clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return 0;
    up = (double)boot.tv_sec + (double)boot.tv_nsec / 1e9;
    started = (double)ticks / (double)hz;
    if (started > up)
        started = up;
    return real.tv_sec - (time_t)(up - started);
}

/* 1 when pid lives in another mount namespace than we do (0 when unknown). */
static int other_mount_ns(pid_t pid)
{
    char path[64];
    struct stat self, other;
    snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
    if (stat("/proc/self/ns/mnt", &self) != 0 || stat(path, &other) != 0)
        return 0;
    return self.st_dev != other.st_dev || self.st_ino != other.st_ino;
}

/* Appends s to buf (NUL-terminated, size sz). 0, or -1 when it does not fit. */
static int append(char *buf, size_t sz, const char *s)
{
    size_t have = strnlen(buf, sz), add = strlen(s);
    if (have >= sz || add >= sz - have)
        return -1;
    memcpy(buf + have, s, add + 1);
    return 0;
}

int ipc_target_probe(pid_t pid, ipc_target *t, char *err, size_t errsz)
{
    char path[64], stat_text[IPC_STAT_MAX], tmpdir[PATH_MAX], cwd[PATH_MAX], ebuf[128];
    char *env = NULL;
    size_t len = 0, envlen = 0;
    struct stat st;
    int rc = IPC_ERR_IO, found = 0;

    if (t == NULL || pid <= 0) {
        set_err(err, errsz, "invalid pid %d", (int)pid);
        return IPC_ERR_INVAL;
    }
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    snprintf(path, sizeof(path), "/proc/%d", (int)pid);
    if (stat(path, &st) != 0) {
        rc = errno == ENOENT ? IPC_ERR_NOPROC : IPC_ERR_IO;
        set_err(err, errsz, "stat(%s): %s", path, err_text(errno, ebuf, sizeof(ebuf)));
        goto fail;
    }
    t->uid = st.st_uid;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if (read_bounded(path, stat_text, sizeof(stat_text), &len) != 0) {
        rc = errno == ENOENT || errno == ESRCH ? IPC_ERR_NOPROC : IPC_ERR_IO;
        set_err(err, errsz, "read(%s): %s", path, err_text(errno, ebuf, sizeof(ebuf)));
        goto fail;
    }
    if (ipc_parse_stat_starttime(stat_text, len, &t->start_time) != IPC_OK) {
        rc = IPC_ERR_IO;
        set_err(err, errsz, "%s: cannot parse the start time", path);
        goto fail;
    }
    t->start_realtime = start_realtime(t->start_time);
    t->ns_pid = read_ns_pid(pid);

    /* The target's TMPDIR, as the runtime's GetTempPath sees it. */
    tmpdir[0] = '\0';
    if (read_environ(pid, &env, &envlen) == 0) {
        t->env_readable = 1;
        found = ipc_environ_lookup(env, envlen, "TMPDIR", tmpdir, sizeof(tmpdir));
        if (found < 0) {
            rc = IPC_ERR_NOTDOTNET;
            set_err(err, errsz, "pid %d: TMPDIR is too long for a socket path", (int)pid);
            goto fail;
        }
    } else if (errno == ENOENT || errno == ESRCH) {
        rc = IPC_ERR_NOPROC;
        set_err(err, errsz, "pid %d exited", (int)pid);
        goto fail;
    }
    if (tmpdir[0] == '\0')
        memcpy(tmpdir, "/tmp/", sizeof("/tmp/"));

    t->dir[0] = '\0';
    if (other_mount_ns(pid)) {
        t->foreign_root = 1;
        snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
        if (append(t->dir, sizeof(t->dir), path) != 0)
            goto toolong;
    }
    if (tmpdir[0] != '/') {
        /* Relative TMPDIR: relative to the target's working directory. */
        ssize_t r;
        snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
        r = readlink(path, cwd, sizeof(cwd) - 1);
        if (r < 0) {
            rc = errno == EACCES || errno == EPERM ? IPC_ERR_PERM : IPC_ERR_IO;
            set_err(err, errsz, "readlink(%s) for relative TMPDIR \"%s\": %s", path, tmpdir,
                    err_text(errno, ebuf, sizeof(ebuf)));
            goto fail;
        }
        cwd[r] = '\0';
        if (append(t->dir, sizeof(t->dir), cwd) != 0 || append(t->dir, sizeof(t->dir), "/") != 0)
            goto toolong;
    }
    if (append(t->dir, sizeof(t->dir), tmpdir) != 0)
        goto toolong;
    len = strlen(t->dir);
    if (len == 0 || t->dir[len - 1] != '/') {
        if (append(t->dir, sizeof(t->dir), "/") != 0)
            goto toolong;
    }
    free(env);
    return IPC_OK;

toolong:
    rc = IPC_ERR_NOTDOTNET;
    set_err(err, errsz, "pid %d: socket directory is too long for a Unix socket path", (int)pid);
fail:
    free(env);
    return rc;
}

/* Best socket for t in t->dir. 1 found (path, st filled), 0 none, <0 error. */
static int scan_dir_for(const ipc_target *t, char *out, size_t outsz, struct stat *st_out,
                        char *err, size_t errsz)
{
    DIR *d;
    struct dirent *de;
    char ebuf[128], best[IPC_PATH_MAX];
    struct stat best_st;
    int best_exact = 0, have = 0;
    unsigned seen = 0;

    d = opendir(t->dir);
    if (d == NULL) {
        int e = errno;
        set_err(err, errsz, "opendir(%s): %s", t->dir, err_text(e, ebuf, sizeof(ebuf)));
        if (e == EACCES || e == EPERM)
            return IPC_ERR_PERM;
        return e == ENOENT || e == ENOTDIR ? 0 : IPC_ERR_IO;
    }
    memset(&best_st, 0, sizeof(best_st));
    while ((de = readdir(d)) != NULL && seen++ < IPC_SCAN_MAX_ENTRIES) {
        pid_t p;
        uint64_t key;
        struct stat st;
        char cand[IPC_PATH_MAX];
        int exact;

        if (!ipc_parse_socket_name(de->d_name, &p, &key) || p != t->ns_pid)
            continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        if (!ipc_socket_key_ok(t, key, st.st_mtime)) {
            /* Not provably this process's: keep only as a last resort (newest). */
            if (st.st_mtime + 2 < t->start_realtime)
                continue; /* older than the process: a stale socket of a previous pid */
        }
        exact = key == t->start_time;
        cand[0] = '\0';
        if (append(cand, sizeof(cand), t->dir) != 0 || append(cand, sizeof(cand), de->d_name) != 0)
            continue;
        if (!have || (exact && !best_exact) ||
            (exact == best_exact && st.st_mtime > best_st.st_mtime)) {
            memcpy(best, cand, sizeof(best));
            best_st = st;
            best_exact = exact;
            have = 1;
        }
    }
    closedir(d);
    if (!have)
        return 0;
    if (strlen(best) >= outsz)
        return IPC_ERR_INVAL;
    memcpy(out, best, strlen(best) + 1);
    *st_out = best_st;
    return 1;
}

int ipc_socket_path(pid_t pid, char *out, size_t outsz, char *err, size_t errsz)
{
    ipc_target t;
    char name[96], path[IPC_PATH_MAX];
    struct stat st;
    int rc, n;

    if (out == NULL || outsz == 0) {
        set_err(err, errsz, "no output buffer");
        return IPC_ERR_INVAL;
    }
    out[0] = '\0';
    rc = ipc_target_probe(pid, &t, err, errsz);
    if (rc != IPC_OK)
        return rc;

    n = snprintf(name, sizeof(name), IPC_SOCKET_PREFIX "%d-%llu" IPC_SOCKET_SUFFIX, (int)t.ns_pid,
                 (unsigned long long)t.start_time);
    if (n < 0 || (size_t)n >= sizeof(name))
        return IPC_ERR_INVAL;
    path[0] = '\0';
    if (append(path, sizeof(path), t.dir) == 0 && append(path, sizeof(path), name) == 0 &&
        lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        rc = 1;
    } else {
        rc = scan_dir_for(&t, path, sizeof(path), &st, err, errsz);
        if (rc < 0)
            return rc;
    }
    if (rc == 0) {
        if (!t.env_readable && t.uid != geteuid() && geteuid() != 0) {
            set_err(err, errsz, "pid %d belongs to uid %u and its environment is unreadable",
                    (int)pid, (unsigned)t.uid);
            return IPC_ERR_PERM;
        }
        set_err(err, errsz,
                "no %s%d-*%s in %s (not a .NET process, or diagnostics disabled with "
                "DOTNET_EnableDiagnostics=0)",
                IPC_SOCKET_PREFIX, (int)t.ns_pid, IPC_SOCKET_SUFFIX, t.dir);
        return IPC_ERR_NOTDOTNET;
    }
    if (strlen(path) >= outsz) {
        set_err(err, errsz, "output buffer too small for %s", path);
        return IPC_ERR_INVAL;
    }
    memcpy(out, path, strlen(path) + 1);
    if (st.st_uid != geteuid() && geteuid() != 0) {
        set_err(err, errsz, "%s belongs to uid %u (we are uid %u)", path, (unsigned)st.st_uid,
                (unsigned)geteuid());
        return IPC_ERR_PERM;
    }
    return IPC_OK;
}

/* ---- socket I/O with a deadline ---------------------------------------------- */

static void deadline_after(struct timespec *dl, uint64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, dl);
    dl->tv_sec += (time_t)(ms / 1000u);
    dl->tv_nsec += (long)(ms % 1000u) * 1000000L;
    if (dl->tv_nsec >= 1000000000L) {
        dl->tv_sec++;
        dl->tv_nsec -= 1000000000L;
    }
}

/* Milliseconds left before dl (0 when passed), capped to fit poll(). */
static int ms_left(const struct timespec *dl)
{
    struct timespec now;
    int64_t ms;
    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (int64_t)(dl->tv_sec - now.tv_sec) * 1000 + (dl->tv_nsec - now.tv_nsec) / 1000000;
    if (ms <= 0)
        return 0;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Waits for `events` on fd until dl. IPC_OK, IPC_ERR_TIMEOUT or IPC_ERR_IO. */
static int wait_fd(int fd, short events, const struct timespec *dl, const char *what, char *err,
                   size_t errsz)
{
    char ebuf[128];
    for (;;) {
        struct pollfd pfd;
        int left = ms_left(dl), r;
        if (left == 0) {
            set_err(err, errsz, "%s: timed out", what);
            return IPC_ERR_TIMEOUT;
        }
        pfd.fd = fd;
        pfd.events = events;
        pfd.revents = 0;
        r = poll(&pfd, 1, left);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            set_err(err, errsz, "poll(%s): %s", what, err_text(errno, ebuf, sizeof(ebuf)));
            return IPC_ERR_IO;
        }
        if (r > 0)
            return IPC_OK; /* readiness or error: the next call reports which */
    }
}

static int connect_deadline(const char *path, const struct timespec *dl, int *fd_out, char *err,
                            size_t errsz)
{
    struct sockaddr_un addr;
    char ebuf[128];
    size_t plen = strlen(path);
    int fd, rc;

    *fd_out = -1;
    if (plen >= sizeof(addr.sun_path)) {
        set_err(err, errsz, "socket path too long: %s", path);
        return IPC_ERR_INVAL;
    }
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, path, plen + 1);

    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        set_err(err, errsz, "socket(AF_UNIX): %s", err_text(errno, ebuf, sizeof(ebuf)));
        return IPC_ERR_IO;
    }
    for (;;) {
        int e;
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
            break;
        e = errno;
        if (e == EINTR)
            continue;
        if (e == EAGAIN) {
            /* Listen backlog full: the runtime's server thread is busy. Retry. */
            struct timespec pause = {0, 10 * 1000 * 1000};
            if (ms_left(dl) == 0) {
                set_err(err, errsz, "connect(%s): backlog full until the deadline", path);
                rc = IPC_ERR_TIMEOUT;
                goto fail;
            }
            nanosleep(&pause, NULL);
            continue;
        }
        if (e == EINPROGRESS) {
            int soerr = 0;
            socklen_t sl = sizeof(soerr);
            rc = wait_fd(fd, POLLOUT, dl, "connect", err, errsz);
            if (rc != IPC_OK)
                goto fail;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
                soerr = errno;
            if (soerr == 0)
                break;
            e = soerr;
        }
        set_err(err, errsz, "connect(%s): %s", path, err_text(e, ebuf, sizeof(ebuf)));
        if (e == EACCES || e == EPERM)
            rc = IPC_ERR_PERM;
        else if (e == ECONNREFUSED || e == ENOENT)
            rc = IPC_ERR_NOTDOTNET; /* stale socket: nobody listens any more */
        else
            rc = IPC_ERR_IO;
        goto fail;
    }
    *fd_out = fd;
    return IPC_OK;

fail:
    close(fd);
    return rc;
}

static int send_all(int fd, const uint8_t *p, size_t n, const struct timespec *dl, char *err,
                    size_t errsz)
{
    char ebuf[128];
    size_t done = 0;
    while (done < n) {
        ssize_t r = send(fd, p + done, n - done, MSG_NOSIGNAL);
        if (r > 0) {
            done += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int rc = wait_fd(fd, POLLOUT, dl, "send", err, errsz);
            if (rc != IPC_OK)
                return rc;
            continue;
        }
        set_err(err, errsz, "send: %s (after %zu of %zu bytes)",
                r < 0 ? err_text(errno, ebuf, sizeof(ebuf)) : "no progress", done, n);
        return IPC_ERR_IO;
    }
    return IPC_OK;
}

static int recv_exact(int fd, uint8_t *p, size_t n, const struct timespec *dl, const char *what,
                      char *err, size_t errsz)
{
    char ebuf[128];
    size_t done = 0;
    while (done < n) {
        ssize_t r = recv(fd, p + done, n - done, 0);
        if (r > 0) {
            done += (size_t)r;
            continue;
        }
        if (r == 0) {
            set_err(err, errsz,
                    "recv(%s): the runtime closed the connection after %zu of %zu bytes", what,
                    done, n);
            return IPC_ERR_IO;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int rc = wait_fd(fd, POLLIN, dl, what, err, errsz);
            if (rc != IPC_OK)
                return rc;
            continue;
        }
        set_err(err, errsz, "recv(%s): %s", what, err_text(errno, ebuf, sizeof(ebuf)));
        return IPC_ERR_IO;
    }
    return IPC_OK;
}

/* One request/reply on a fresh connection. The reply (header + payload) goes to
 * reply; a size field larger than cap is rejected without reading the payload. */
static int transact(const char *path, const uint8_t *req, size_t reqlen, uint64_t timeout_ms,
                    uint8_t *reply, size_t cap, size_t *replylen, char *err, size_t errsz)
{
    struct timespec dl;
    ipc_header h;
    int fd = -1, rc;

    *replylen = 0;
    deadline_after(&dl, timeout_ms);
    rc = connect_deadline(path, &dl, &fd, err, errsz);
    if (rc != IPC_OK)
        goto fail;
    rc = send_all(fd, req, reqlen, &dl, err, errsz);
    if (rc != IPC_OK)
        goto fail;
    rc = recv_exact(fd, reply, IPC_HEADER_SIZE, &dl, "reply header", err, errsz);
    if (rc != IPC_OK)
        goto fail;
    rc = ipc_parse_reply_header(reply, IPC_HEADER_SIZE, &h);
    if (rc != IPC_OK) {
        set_err(err, errsz, "malformed reply header (set 0x%02x id 0x%02x size %u)", reply[16],
                reply[17], (unsigned)get_u16(reply + 14));
        goto fail;
    }
    if (h.size > cap) {
        rc = IPC_ERR_PROTO;
        set_err(err, errsz, "reply of %u bytes is larger than the %zu expected", (unsigned)h.size,
                cap);
        goto fail;
    }
    rc = recv_exact(fd, reply + IPC_HEADER_SIZE, (size_t)h.size - IPC_HEADER_SIZE, &dl,
                    "reply payload", err, errsz);
    if (rc != IPC_OK)
        goto fail;
    *replylen = h.size;
    close(fd);
    return IPC_OK;

fail:
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
        set_err(err, errsz, "missing argument");
        return IPC_ERR_INVAL;
    }
    *hresult_out = IPC_HR_E_FAIL;
    req = malloc(IPC_MAX_MESSAGE);
    if (req == NULL) {
        set_err(err, errsz, "out of memory");
        return IPC_ERR_IO;
    }
    reqlen = ipc_build_attach(req, IPC_MAX_MESSAGE, timeout_ms, clsid, path, client, clen);
    if (reqlen == 0) {
        rc = IPC_ERR_INVAL;
        set_err(
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
        set_err(err, errsz, "malformed AttachProfiler reply (%zu bytes)", replylen);
        goto fail;
    }
    free(req);
    return IPC_OK;

fail:
    free(req);
    return rc;
}

/* One ProcessInfo request on an already resolved socket path. */
static int query_info_at(const char *sock, uint8_t command_id, ipc_procinfo *out,
                         int32_t *hresult_out, char *err, size_t errsz)
{
    uint8_t req[IPC_HEADER_SIZE], *reply = NULL;
    size_t replylen = 0;
    int rc, version;

    version = command_id == IPC_PROCESS_INFO ? 1 : command_id == IPC_PROCESS_INFO2 ? 2 : 3;
    if (ipc_build_process_info(req, sizeof(req), command_id) == 0) {
        set_err(err, errsz, "unknown ProcessInfo command 0x%02x", command_id);
        return IPC_ERR_INVAL;
    }
    reply = malloc(IPC_MAX_MESSAGE);
    if (reply == NULL) {
        set_err(err, errsz, "out of memory");
        return IPC_ERR_IO;
    }
    rc = transact(sock, req, sizeof(req), IPC_INFO_TIMEOUT_MS, reply, IPC_MAX_MESSAGE, &replylen,
                  err, errsz);
    if (rc != IPC_OK)
        goto fail;
    if (reply[17] == IPC_REPLY_ERROR) {
        int32_t hr = 0;
        rc = ipc_parse_hresult_reply(reply, replylen, &hr);
        if (rc != IPC_OK) {
            set_err(err, errsz, "malformed error reply (%zu bytes)", replylen);
            goto fail;
        }
        if (hresult_out != NULL)
            *hresult_out = hr;
        rc = IPC_ERR_RUNTIME;
        set_err(err, errsz, "ProcessInfo 0x04/0x%02x: runtime error 0x%08x (%s)", command_id,
                (unsigned)hr, ipc_hresult_name(hr));
        goto fail;
    }
    rc = ipc_parse_process_info(reply + IPC_HEADER_SIZE, replylen - IPC_HEADER_SIZE, version, out);
    if (rc != IPC_OK) {
        set_err(err, errsz, "malformed ProcessInfo%d payload (%zu bytes)", version,
                replylen - IPC_HEADER_SIZE);
        goto fail;
    }
    free(reply);
    return IPC_OK;

fail:
    free(reply);
    return rc;
}

int ipc_query_process_info(pid_t pid, uint8_t command_id, ipc_procinfo *out, int32_t *hresult_out,
                           char *err, size_t errsz)
{
    char sock[IPC_PATH_MAX];
    int rc;

    if (out == NULL) {
        set_err(err, errsz, "missing output");
        return IPC_ERR_INVAL;
    }
    memset(out, 0, sizeof(*out));
    rc = ipc_socket_path(pid, sock, sizeof(sock), err, errsz);
    if (rc != IPC_OK)
        return rc;
    return query_info_at(sock, command_id, out, hresult_out, err, errsz);
}

int ipc_process_info(pid_t pid, ipc_procinfo *out, char *err, size_t errsz)
{
    char sock[IPC_PATH_MAX];
    int32_t hr = 0;
    int rc;

    if (out == NULL) {
        set_err(err, errsz, "missing output");
        return IPC_ERR_INVAL;
    }
    memset(out, 0, sizeof(*out));
    rc = ipc_socket_path(pid, sock, sizeof(sock), err, errsz);
    if (rc != IPC_OK)
        return rc;
    rc = query_info_at(sock, IPC_PROCESS_INFO2, out, &hr, err, errsz);
    if (rc == IPC_ERR_RUNTIME && hr == IPC_HR_UNKNOWN_COMMAND)
        rc = query_info_at(sock, IPC_PROCESS_INFO, out, &hr, err, errsz); /* .NET 5 */
    return rc;
}
