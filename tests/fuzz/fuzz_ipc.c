/* fuzz_ipc.c -- libFuzzer target for the diagnostics IPC codec,
 * server/ipc_codec.c: the reply parsers (what a runtime, or anything that
 * listens on a dotnet-diagnostic-* socket, sends back) and the AttachProfiler
 * request builder.
 *
 * The whole input is parsed as a reply header and as an HRESULT reply; from
 * its second byte as a ProcessInfo payload of each version (1, 2, 3); and its
 * bytes after the first (cut at the first NUL, at most 300) are a profiler
 * path for the attach request, with the input's first byte as the client
 * data's length. Checked: the parsers' answers agree with the bytes (sizes,
 * command ids, an error reply's failure code), every string of a parsed
 * ProcessInfo is NUL-terminated inside its field and valid UTF-8, a refused
 * payload leaves the result zeroed, and an attach request built from a valid
 * path carries its size and decodes back to the same path (round trip).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "ipc_codec.h"
#include "utf.h"

static void fuzz_check_text(const char *text, size_t size)
{
    const char *end = memchr(text, '\0', size);

    FUZZ_REQUIRE(end != NULL);
    FUZZ_REQUIRE(utf8_valid(text, (size_t)(end - text)));
}

static void fuzz_replies(const uint8_t *data, size_t size)
{
    ipc_header h;
    int32_t hr = 1;
    int rc = ipc_parse_reply_header(data, size, &h);

    if (rc == IPC_OK) {
        FUZZ_REQUIRE(size >= IPC_HEADER_SIZE && h.size >= IPC_HEADER_SIZE);
        FUZZ_REQUIRE(h.command_set == IPC_SET_SERVER && h.reserved == 0);
        FUZZ_REQUIRE(h.command_id == IPC_REPLY_OK || h.command_id == IPC_REPLY_ERROR);
        FUZZ_REQUIRE(h.size == ipc_get_u16(data + 14));
    } else {
        FUZZ_REQUIRE(rc == IPC_ERR_PROTO);
    }
    rc = ipc_parse_hresult_reply(data, size, &hr);
    if (rc == IPC_OK) {
        FUZZ_REQUIRE(size == IPC_HEADER_SIZE || size == IPC_HEADER_SIZE + 4);
        FUZZ_REQUIRE(data[17] == IPC_REPLY_OK || hr < 0);
        FUZZ_REQUIRE(ipc_hresult_name(hr) != NULL);
    } else {
        FUZZ_REQUIRE(rc == IPC_ERR_PROTO && hr == 1);
    }
}

static void fuzz_process_info(const uint8_t *payload, size_t len)
{
    ipc_procinfo *info = malloc(sizeof(*info));

    FUZZ_REQUIRE(info != NULL);
    for (int version = 1; version <= 3; version++) {
        int rc = ipc_parse_process_info(payload, len, version, info);

        if (rc != IPC_OK) {
            FUZZ_REQUIRE(rc == IPC_ERR_PROTO);
            FUZZ_REQUIRE(info->version == 0 && info->pid == 0 && info->command_line[0] == '\0');
            continue;
        }
        FUZZ_REQUIRE(info->version == version);
        FUZZ_REQUIRE(version != 3 || info->info3_version >= 1);
        fuzz_check_text(info->command_line, sizeof(info->command_line));
        fuzz_check_text(info->os, sizeof(info->os));
        fuzz_check_text(info->arch, sizeof(info->arch));
        fuzz_check_text(info->entrypoint_assembly, sizeof(info->entrypoint_assembly));
        fuzz_check_text(info->runtime_version, sizeof(info->runtime_version));
        fuzz_check_text(info->runtime_rid, sizeof(info->runtime_rid));
        FUZZ_REQUIRE(version >= 2 ||
                     (info->entrypoint_assembly[0] == '\0' && info->runtime_version[0] == '\0'));
        FUZZ_REQUIRE(version == 3 || info->runtime_rid[0] == '\0');
    }
    free(info);
}

static void fuzz_attach_request(const uint8_t *data, size_t size)
{
    static const uint8_t clsid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    uint8_t *msg = malloc(IPC_MAX_MESSAGE);
    char path[301], back[1024];
    size_t plen = 0, n, units;
    uint32_t client_len;
    int cut = 0;

    FUZZ_REQUIRE(msg != NULL);
    if (size < 1) {
        free(msg);
        return;
    }
    client_len = data[0];
    while (plen + 1 < size && plen < sizeof(path) - 1 && data[plen + 1] != 0) {
        path[plen] = (char)data[plen + 1];
        plen++;
    }
    path[plen] = '\0';
    /* the client data: the input again, as many bytes as asked and there are */
    if (client_len > size)
        client_len = (uint32_t)size;
    n = ipc_build_attach(msg, IPC_MAX_MESSAGE, 30000, clsid, path, data, client_len);
    if (plen == 0 || !utf8_valid(path, plen)) {
        FUZZ_REQUIRE(n == 0);
        free(msg);
        return;
    }
    FUZZ_REQUIRE(n >= IPC_HEADER_SIZE + 4 + 16 + 4 + 2 + 4);
    FUZZ_REQUIRE(ipc_get_u16(msg + 14) == n && msg[16] == IPC_SET_PROFILER &&
                 msg[17] == IPC_PROFILER_ATTACH);
    FUZZ_REQUIRE(memcmp(msg + IPC_HEADER_SIZE + 4, clsid, 16) == 0);
    units = (size_t)msg[40] | (size_t)msg[41] << 8 | (size_t)msg[42] << 16 | (size_t)msg[43] << 24;
    FUZZ_REQUIRE(44 + 2 * units + 4 + client_len == n);
    FUZZ_REQUIRE(units >= 1 && ipc_get_u16(msg + 44 + 2 * (units - 1)) == 0);
    n = utf16le_to_utf8(msg + 44, units - 1, back, sizeof(back), &cut);
    FUZZ_REQUIRE(!cut && n == plen && memcmp(back, path, plen) == 0);
    FUZZ_REQUIRE(memcmp(msg + 44 + 2 * units + 4, data, client_len) == 0);
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_replies(data, size);
    if (size > 0)
        fuzz_process_info(data + 1, size - 1);
    fuzz_attach_request(data, size);
    return 0;
}
