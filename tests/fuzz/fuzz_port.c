/* fuzz_port.c -- libFuzzer target for what a peer of the diagnostic port
 * sends (server/ipc_port.c): its advertise, ProcessEnvironment's reply and
 * environment block, and the DOTNET_DiagnosticPorts value read from that
 * block; and the requests built from a peer's words (SetEnvironmentVariable's
 * value, StartupProfiler's path).
 *
 * The whole input is an advertise, a reply payload, an environment block
 * (looked up for a name that is in it, when it has one, and for one that is
 * not), and, cut at its first NUL, a DiagnosticPorts value with each
 * DefaultDiagnosticPortSuspend; its bytes after the first NUL are a value to
 * set and a path. Checked: an advertise is accepted only at its size and
 * magic; a block whose lookup succeeds is whole (every string NUL-terminated,
 * the count matching) and the value found is UTF-8 and NUL-terminated in its
 * buffer; a request built from a UTF-8 value or path decodes back to it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "ipc_codec.h"
#include "ipc_port.h"
#include "utf.h"

static void fuzz_advertise(const uint8_t *data, size_t size)
{
    ipc_advertise a;
    int rc = ipc_parse_advertise(data, size, &a);

    FUZZ_REQUIRE(rc == IPC_OK || rc == IPC_ERR_PROTO);
    if (rc == IPC_OK)
        FUZZ_REQUIRE(size == IPC_ADVERTISE_SIZE && memcmp(data, "ADVR_V1", 8) == 0 &&
                     memcmp(a.cookie, data + 8, 16) == 0);
}

static void fuzz_environment(const uint8_t *data, size_t size)
{
    char value[64], name[32];
    uint32_t bytes = 0;
    size_t i, n = 0;
    int rc;

    rc = ipc_parse_env_reply(data, size, &bytes);
    FUZZ_REQUIRE(rc == IPC_ERR_PROTO || (size == 6 && bytes >= 4 && bytes <= IPC_ENV_BLOCK_MAX));
    /* a name the block may hold: the first string's text up to '=' */
    if (size > 10)
        for (i = 8; i + 1 < size && n + 1 < sizeof(name) && data[i] > ' ' && data[i] < 0x7f &&
                    data[i] != '=' && data[i + 1] == 0;
             i += 2)
            name[n++] = (char)data[i];
    name[n] = '\0';
    for (int k = 0; k < 2; k++) {
        const char *look = k == 0 && n ? name : "NOT_THERE";
        memset(value, 'x', sizeof(value));
        rc = ipc_env_lookup_block(data, size, look, value, sizeof(value));
        FUZZ_REQUIRE(rc == 0 || rc == 1 || rc == IPC_ERR_PROTO);
        if (rc == 1) {
            const char *end = memchr(value, '\0', sizeof(value));
            FUZZ_REQUIRE(end && utf8_valid(value, (size_t)(end - value)));
        }
        if (rc >= 0) /* whole: every string's count fits, the last ends where the block does */
            FUZZ_REQUIRE(size >= 4);
    }
}

static void fuzz_requests(const uint8_t *data, size_t size)
{
    static const uint8_t clsid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const uint8_t *nul = memchr(data, 0, size);
    char text[400], back[1600], ports[200];
    size_t len, n, units;
    uint8_t *msg;
    int cut = 0;

    /* before the first NUL: a DiagnosticPorts value (any bytes) */
    len = nul ? (size_t)(nul - data) : size;
    if (len >= sizeof(ports))
        len = sizeof(ports) - 1;
    memcpy(ports, data, len);
    ports[len] = '\0';
    FUZZ_REQUIRE(ipc_port_config_pauses(ports, NULL) == 0 ||
                 ipc_port_config_pauses(ports, NULL) == 1);
    FUZZ_REQUIRE(ipc_port_config_pauses(ports, "0") == ipc_port_config_pauses(ports, NULL));
    FUZZ_REQUIRE(ipc_port_config_pauses(ports, "1") == 1);
    if (!nul)
        return;
    /* after it: a value and a path */
    len = size - (size_t)(nul - data) - 1;
    if (len >= sizeof(text))
        len = sizeof(text) - 1;
    memcpy(text, nul + 1, len);
    text[len] = '\0';
    len = strlen(text);
    msg = malloc(IPC_MAX_MESSAGE);
    FUZZ_REQUIRE(msg != NULL);
    n = ipc_build_set_env(msg, IPC_MAX_MESSAGE, "JITSCOPE_AGENT", text);
    FUZZ_REQUIRE((n == 0) == !utf8_valid(text, len));
    if (n) {
        size_t at = IPC_HEADER_SIZE + 4 + 2 * 15;
        FUZZ_REQUIRE(ipc_get_u16(msg + 14) == n && msg[16] == 4 && msg[17] == 3);
        units = ipc_get_u32(msg + at);
        FUZZ_REQUIRE(at + 4 + 2 * units == n && units >= 1);
        n = utf16le_to_utf8(msg + at + 4, units - 1, back, sizeof(back), &cut);
        FUZZ_REQUIRE(!cut && n == len && memcmp(back, text, len) == 0);
    }
    n = ipc_build_startup_profiler(msg, IPC_MAX_MESSAGE, clsid, text);
    FUZZ_REQUIRE((n == 0) == (len == 0 || !utf8_valid(text, len)));
    if (n) {
        units = ipc_get_u32(msg + IPC_HEADER_SIZE + 16);
        FUZZ_REQUIRE(IPC_HEADER_SIZE + 16 + 4 + 2 * units == n &&
                     memcmp(msg + IPC_HEADER_SIZE, clsid, 16) == 0);
        n = utf16le_to_utf8(msg + IPC_HEADER_SIZE + 20, units - 1, back, sizeof(back), &cut);
        FUZZ_REQUIRE(!cut && n == len && memcmp(back, text, len) == 0);
    }
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_advertise(data, size);
    fuzz_environment(data, size);
    fuzz_requests(data, size);
    return 0;
}
