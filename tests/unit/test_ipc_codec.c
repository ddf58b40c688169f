/* test_ipc_codec.c -- unit tests for the diagnostics IPC messages:
 * server/ipc_codec.c (exact request bytes, size limits, reply parsing: every
 * prefix of a valid reply, garbage, random bytes; ProcessInfo payloads v1/v2/v3
 * and their prefixes) and server/ipc_port.c (a diagnostic port's advertise,
 * StartupProfiler, SetEnvironmentVariable, ResumeRuntime, ProcessEnvironment's
 * reply and block, whether a runtime's configuration makes it wait).
 *
 * Build: make build/tests/test_ipc_codec && build/tests/test_ipc_codec
 * (test_ipc.c tests discovery and the I/O against a fake and a real runtime).
 */
#include "check.h"
#include "ipc.h"
#include "ipcbytes.h"
#include "utf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* made-up bytes for the fuzz loops: every test starts the sequence again */
static uint64_t g_rng;
static void rnd_reset(void) { g_rng = 0x9E3779B97F4A7C15ull; }
static uint64_t rnd(void) { return check_random(&g_rng); }

/* ---- request builders -------------------------------------------------------- */

TEST(build_attach)
{
    /* path "/a\xC3\xA9\xF0\x9F\x98\x80" = "/a" U+00E9 U+1F600 -> units 2F 61 E9 D83D DE00 0 */
    static const uint8_t expect[] = {
        'D',  'O',  'T',  'N',  'E',  'T',  '_',  'I',  'P',  'C',  '_', 'V', '1', 0, /* magic */
        63,   0,                                                                      /* size 63 */
        0x03, 0x01, 0x00, 0x00,                                             /* set, id, reserved */
        0x88, 0x13, 0x00, 0x00,                                             /* timeout 5000 */
        0x04, 0x03, 0x02, 0x01, 0x06, 0x05, 0x08, 0x07,                     /* clsid */
        0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 6,    0,    0,   0, /* 6 units incl NUL */
        0x2F, 0,    0x61, 0,    0xE9, 0,    0x3D, 0xD8, 0x00, 0xDE, 0,   0, /* UTF-16LE */
        3,    0,    0,    0,                                                /* client length */
        'x',  'y',  'z'};
    uint8_t buf[256];
    size_t n, i;
    int all_small_rejected = 1;

    memset(buf, 0xAA, sizeof(buf));
    n = ipc_build_attach(buf, sizeof(buf), 5000, k_clsid, "/a\xC3\xA9\xF0\x9F\x98\x80",
                         (const uint8_t *)"xyz", 3);
    CHECK(n == sizeof(expect), "attach: size %zu == %zu", n, sizeof(expect));
    CHECK(n == sizeof(expect) && memcmp(buf, expect, sizeof(expect)) == 0, "attach: exact bytes");
    CHECK(memcmp(buf, "DOTNET_IPC_V1", 14) == 0, "attach: magic with NUL");
    CHECK(buf[14] == 63 && buf[15] == 0, "attach: size field little-endian");
    CHECK(buf[16] == 0x03 && buf[17] == 0x01, "attach: command set 0x03 id 0x01");
    CHECK(buf[40] == 6, "attach: UTF-16 count includes the NUL");
    CHECK(buf[n] == 0xAA, "attach: nothing written past the message");

    for (i = 0; i < sizeof(expect); i++) {
        if (ipc_build_attach(buf, i, 5000, k_clsid, "/a\xC3\xA9\xF0\x9F\x98\x80",
                             (const uint8_t *)"xyz", 3) != 0)
            all_small_rejected = 0;
    }
    CHECK(all_small_rejected, "attach: every buffer smaller than the message is rejected");
    n = ipc_build_attach(buf, sizeof(expect), 5000, k_clsid, "/a\xC3\xA9\xF0\x9F\x98\x80",
                         (const uint8_t *)"xyz", 3);
    CHECK(n == sizeof(expect), "attach: buffer of exactly the message size is enough");

    /* no client data */
    n = ipc_build_attach(buf, sizeof(buf), 0, k_clsid, "/p", NULL, 0);
    CHECK(n == 20 + 4 + 16 + 4 + 6 + 4, "attach: no client data, size %zu", n);
    CHECK(n > 0 && buf[n - 4] == 0 && buf[n - 3] == 0 && buf[n - 2] == 0 && buf[n - 1] == 0,
          "attach: client length 0 is last");
}

TEST(attach_limits)
{
    uint8_t *big = malloc(70000), *client = calloc(1, 70000);
    char *path = malloc(40000);
    size_t n, base = 20 + 4 + 16 + 4 + 4, path_units;
    uint32_t clen;

    if (big == NULL || client == NULL || path == NULL) {
        CHECK(0, "limits: allocation");
        goto done;
    }
    /* "/x" path: 3 units = 6 bytes; fill client data to exactly 65535 total */
    clen = (uint32_t)(65535 - base - 6);
    n = ipc_build_attach(big, 70000, 1, k_clsid, "/x", client, clen);
    CHECK(n == 65535, "limits: message of exactly 65535 bytes accepted (%zu)", n);
    CHECK(n == 65535 && big[14] == 0xFF && big[15] == 0xFF, "limits: size field 0xFFFF");
    n = ipc_build_attach(big, 70000, 1, k_clsid, "/x", client, clen + 1);
    CHECK(n == 0, "limits: 65536 bytes rejected");
    n = ipc_build_attach(big, 70000, 1, k_clsid, "/x", client, 0xFFFFFFFFu);
    CHECK(n == 0, "limits: client length 0xFFFFFFFF rejected");

    /* a path alone too long for uint16 (32767 ASCII chars = 65536 bytes of UTF-16) */
    memset(path, 'a', 32767);
    path[0] = '/';
    path[32767] = '\0';
    n = ipc_build_attach(big, 70000, 1, k_clsid, path, NULL, 0);
    CHECK(n == 0, "limits: 32767-char path rejected");
    path_units = (65535 - base) / 2; /* units incl NUL that fit */
    path[path_units - 1] = '\0';
    n = ipc_build_attach(big, 70000, 1, k_clsid, path, NULL, 0);
    CHECK(n == base + 2 * path_units, "limits: longest path that fits accepted (%zu)", n);

    CHECK(ipc_build_attach(big, 70000, 1, k_clsid, "", NULL, 0) == 0,
          "limits: empty path rejected");
    CHECK(ipc_build_attach(big, 70000, 1, NULL, "/x", NULL, 0) == 0, "limits: NULL clsid rejected");
    CHECK(ipc_build_attach(big, 70000, 1, k_clsid, NULL, NULL, 0) == 0,
          "limits: NULL path rejected");
    CHECK(ipc_build_attach(big, 70000, 1, k_clsid, "/x", NULL, 5) == 0,
          "limits: NULL client with length rejected");
    CHECK(ipc_build_attach(NULL, 70000, 1, k_clsid, "/x", NULL, 0) == 0,
          "limits: NULL buffer rejected");

    /* invalid UTF-8 */
    {
        static const char *bad[] = {
            "/\xC0\x80", "/\xED\xA0\x80",     "/\xF5\x80\x80\x80", "/\xC3", "/\xE2\x82",
            "/\x80",     "/\xF4\x90\x80\x80", "/\xE0\x80\xAF",     "/\xFF"};
        size_t i;
        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
            CHECK(ipc_build_attach(big, 70000, 1, k_clsid, bad[i], NULL, 0) == 0,
                  "limits: invalid UTF-8 #%zu rejected", i);
    }
    {
        uint8_t u[16];
        CHECK(utf8_to_utf16le("\xF4\x8F\xBF\xBF", u, 8) == 3 && u[0] == 0xFF && u[1] == 0xDB &&
                  u[2] == 0xFF && u[3] == 0xDF,
              "utf16: U+10FFFF encodes as DBFF DFFF");
        CHECK(utf8_to_utf16le("ab", u, 2) == 0, "utf16: no room for the NUL rejected");
        CHECK(utf8_to_utf16le("ab", u, 3) == 3, "utf16: exact room accepted");
        CHECK(utf8_to_utf16le("\xF0\x9F\x98\x80", u, 2) == 0,
              "utf16: no room for a pair plus NUL rejected");
    }
done:
    free(big);
    free(client);
    free(path);
}

TEST(build_process_info)
{
    uint8_t buf[32];
    static const uint8_t expect[20] = {'D', 'O', 'T', 'N', 'E', 'T', '_',  'I',  'P', 'C',
                                       '_', 'V', '1', 0,   20,  0,   0x04, 0x04, 0,   0};
    CHECK(ipc_build_process_info(buf, sizeof(buf), IPC_PROCESS_INFO2) == 20 &&
              memcmp(buf, expect, 20) == 0,
          "process info: ProcessInfo2 request bytes");
    CHECK(ipc_build_process_info(buf, sizeof(buf), IPC_PROCESS_INFO) == 20 && buf[17] == 0x00,
          "process info: ProcessInfo request id 0x00");
    CHECK(ipc_build_process_info(buf, sizeof(buf), IPC_PROCESS_INFO3) == 20 && buf[17] == 0x08,
          "process info: ProcessInfo3 request id 0x08");
    CHECK(ipc_build_process_info(buf, 19, IPC_PROCESS_INFO) == 0,
          "process info: 19-byte buffer rejected");
    CHECK(ipc_build_process_info(buf, sizeof(buf), 0x02) == 0,
          "process info: other command ids rejected");
}

/* ---- reply parsing ---------------------------------------------------------------- */

/* One byte of a good reply header changed, and what that makes it. */
static const struct {
    int at;
    uint8_t byte;
    const char *what;
} bad_header[] = {
    {13, 'X', "magic without NUL"},
    {0, 'd', "wrong magic"},
    {16, 0x04, "command set other than 0xFF"},
    {17, 0x01, "id other than OK/ERROR"},
    {19, 1, "non-zero reserved"},
};

TEST(replies)
{
    uint8_t buf[64];
    ipc_header h;
    int32_t hr = 0;
    size_t n, i;
    int all = 1;

    n = make_reply(buf, 0x00, 1, 0);
    CHECK(ipc_parse_reply_header(buf, n, &h) == IPC_OK && h.size == 24 && h.command_set == 0xFF &&
              h.command_id == 0x00,
          "reply: OK header parsed");
    CHECK(ipc_parse_hresult_reply(buf, n, &hr) == IPC_OK && hr == 0, "reply: OK with S_OK payload");
    for (i = 0; i < n; i++)
        if (ipc_parse_hresult_reply(buf, i, &hr) != IPC_ERR_PROTO)
            all = 0;
    CHECK(all, "reply: every prefix of an OK reply rejected");

    n = make_reply(buf, 0xFF, 1, IPC_HR_UNKNOWN_COMMAND);
    hr = 0;
    CHECK(ipc_parse_hresult_reply(buf, n, &hr) == IPC_OK && hr == IPC_HR_UNKNOWN_COMMAND,
          "reply: error reply gives 0x80131385");
    all = 1;
    for (i = 0; i < n; i++)
        if (ipc_parse_hresult_reply(buf, i, &hr) != IPC_ERR_PROTO)
            all = 0;
    CHECK(all, "reply: every prefix of an error reply rejected");
    all = 1;
    for (i = 0; i < 20; i++)
        if (ipc_parse_reply_header(buf, i, &h) != IPC_ERR_PROTO)
            all = 0;
    CHECK(all, "reply: every header prefix rejected");

    n = make_reply(buf, 0x00, 0, 0);
    hr = -1;
    CHECK(ipc_parse_hresult_reply(buf, n, &hr) == IPC_OK && hr == 0,
          "reply: bare 20-byte OK means S_OK");
    n = make_reply(buf, 0xFF, 0, 0);
    CHECK(ipc_parse_hresult_reply(buf, n, &hr) == IPC_ERR_PROTO,
          "reply: bare error header rejected");
    n = make_reply(buf, 0xFF, 1, 5);
    CHECK(ipc_parse_hresult_reply(buf, n, &hr) == IPC_ERR_PROTO,
          "reply: error reply with success code rejected");

    n = make_reply(buf, 0x00, 1, 0);
    buf[24] = 0;
    CHECK(ipc_parse_hresult_reply(buf, 25, &hr) == IPC_ERR_PROTO, "reply: trailing byte rejected");
    buf[14] = 28;
    CHECK(ipc_parse_hresult_reply(buf, 24, &hr) == IPC_ERR_PROTO,
          "reply: size field larger than data rejected");
    memset(buf + 24, 0, 4);
    CHECK(ipc_parse_hresult_reply(buf, 28, &hr) == IPC_ERR_PROTO,
          "reply: 28-byte hresult reply rejected");
    buf[14] = 19;
    CHECK(ipc_parse_reply_header(buf, 24, &h) == IPC_ERR_PROTO, "reply: size field < 20 rejected");

    for (size_t k = 0; k < sizeof(bad_header) / sizeof(bad_header[0]); k++) {
        n = make_reply(buf, 0x00, 1, 0);
        buf[bad_header[k].at] = bad_header[k].byte;
        CHECK(ipc_parse_reply_header(buf, n, &h) == IPC_ERR_PROTO, "reply: %s rejected",
              bad_header[k].what);
    }
    CHECK(ipc_parse_reply_header(NULL, 24, &h) == IPC_ERR_INVAL, "reply: NULL buffer is INVAL");

    /* random bytes and random mutations: only OK or PROTO, never a crash */
    {
        long odd = 0, accepted = 0;
        for (i = 0; i < 200000; i++) {
            size_t len = (size_t)(rnd() % 40), k;
            int rc1, rc2;
            for (k = 0; k < len; k++)
                buf[k] = (uint8_t)rnd();
            if (i % 2 == 0) {
                uint8_t id = (rnd() & 1) ? 0x00 : 0xFF;
                size_t vn = make_reply(buf, id, (int)(rnd() & 1), (int32_t)rnd());
                buf[rnd() % vn] ^= (uint8_t)(1u << (rnd() % 8));
                len = vn - (rnd() % 3 == 0 ? rnd() % vn : 0);
            }
            rc1 = ipc_parse_reply_header(buf, len, &h);
            rc2 = ipc_parse_hresult_reply(buf, len, &hr);
            if ((rc1 != IPC_OK && rc1 != IPC_ERR_PROTO) || (rc2 != IPC_OK && rc2 != IPC_ERR_PROTO))
                odd++;
            if (rc2 == IPC_OK)
                accepted++;
        }
        CHECK(odd == 0, "reply fuzz: 200000 inputs, only OK/PROTO (%ld accepted)", accepted);
    }

    CHECK(strcmp(ipc_hresult_name(IPC_HR_PROFILER_ALREADY_ACTIVE),
                 "CORPROF_E_PROFILER_ALREADY_ACTIVE") == 0,
          "hresult: 0x8013136A named");
    CHECK(strcmp(ipc_hresult_name(IPC_HR_MOD_NOT_FOUND), "ERROR_MOD_NOT_FOUND") == 0,
          "hresult: 0x8007007E named");
    CHECK(strcmp(ipc_hresult_name(0x12345678), "unknown HRESULT") == 0, "hresult: unknown value");
}

TEST(process_info_payloads)
{
    static ipc_procinfo pi;
    static wbuf w;
    int v;

    for (v = 1; v <= 3; v++) {
        size_t i;
        int all = 1;
        make_info(&w, v);
        CHECK(ipc_parse_process_info(w.b, w.n, v, &pi) == IPC_OK, "info v%d: parsed (%zu bytes)", v,
              w.n);
        CHECK(pi.pid == 4242 && pi.cookie[0] == 0xC0 && pi.cookie[15] == 0xCF,
              "info v%d: pid and cookie", v);
        CHECK(strcmp(pi.command_line, "/bin \xC3\xA9\xF0\x9F\x98\x80\xEF\xBF\xBDz") == 0,
              "info v%d: command line UTF-8, pair joined, lone surrogate -> U+FFFD", v);
        CHECK(strcmp(pi.os, "Linux") == 0 && strcmp(pi.arch, "x64") == 0, "info v%d: os and arch",
              v);
        if (v >= 2)
            CHECK(strcmp(pi.entrypoint_assembly, "app") == 0 &&
                      strcmp(pi.runtime_version, "10.0.12") == 0,
                  "info v%d: entrypoint and runtime version", v);
        else
            CHECK(pi.entrypoint_assembly[0] == 0 && pi.runtime_version[0] == 0,
                  "info v1: v2 fields empty");
        if (v == 3)
            CHECK(strcmp(pi.runtime_rid, "linux-x64") == 0 && pi.info3_version == 1,
                  "info v3: rid and version");
        CHECK(pi.truncated == 0 && pi.version == v, "info v%d: not truncated", v);
        for (i = 0; i < w.n; i++)
            if (ipc_parse_process_info(w.b, i, v, &pi) != IPC_ERR_PROTO)
                all = 0;
        CHECK(all, "info v%d: every prefix (0..%zu) rejected", v, w.n - 1);
        CHECK(pi.pid == 0 && pi.os[0] == 0, "info v%d: output cleared after a rejection", v);
        w.b[w.n++] = 0;
        CHECK(ipc_parse_process_info(w.b, w.n, v, &pi) == IPC_ERR_PROTO,
              "info v%d: trailing byte rejected", v);
    }
    /* v2 payload read as v1 has trailing strings: rejected; v1 read as v2 is short */
    make_info(&w, 2);
    CHECK(ipc_parse_process_info(w.b, w.n, 1, &pi) == IPC_ERR_PROTO,
          "info: v2 payload as v1 rejected");
    make_info(&w, 1);
    CHECK(ipc_parse_process_info(w.b, w.n, 2, &pi) == IPC_ERR_PROTO,
          "info: v1 payload as v2 rejected");
    CHECK(ipc_parse_process_info(w.b, w.n, 4, &pi) == IPC_ERR_INVAL, "info: version 4 is INVAL");
    /* later ProcessInfo3 versions may append fields */
    make_info(&w, 3);
    w.b[0] = 2;
    w_str(&w, "future");
    CHECK(ipc_parse_process_info(w.b, w.n, 3, &pi) == IPC_OK && pi.info3_version == 2,
          "info v3: version 2 with an extra field accepted");
    make_info(&w, 3);
    w.b[0] = 0;
    CHECK(ipc_parse_process_info(w.b, w.n, 3, &pi) == IPC_ERR_PROTO, "info v3: version 0 rejected");

    /* hostile string counts */
    {
        size_t cmd_off = 8 + 16;
        make_info(&w, 1);
        w.b[cmd_off] = 0xFF;
        w.b[cmd_off + 1] = 0xFF;
        w.b[cmd_off + 2] = 0xFF;
        w.b[cmd_off + 3] = 0xFF;
        CHECK(ipc_parse_process_info(w.b, w.n, 1, &pi) == IPC_ERR_PROTO,
              "info: count 0xFFFFFFFF rejected");
        make_info(&w, 1);
        w.b[cmd_off + 3] = 0x80;
        CHECK(ipc_parse_process_info(w.b, w.n, 1, &pi) == IPC_ERR_PROTO,
              "info: count with top bit rejected");
        make_info(&w, 1);
        w.b[cmd_off + 4 + 2 * 10] = 'q'; /* the command line's terminating unit */
        CHECK(ipc_parse_process_info(w.b, w.n, 1, &pi) == IPC_ERR_PROTO,
              "info: string without NUL rejected");
    }
    /* empty strings (count 0) and an embedded NUL */
    {
        static const uint16_t emb[] = {'a', 0, 'b', 0};
        int i;
        w.n = 0;
        w_u64(&w, 1);
        for (i = 0; i < 16; i++)
            w.b[w.n++] = 0;
        w_units(&w, emb, 4);
        w_u32(&w, 0);
        w_u32(&w, 0);
        CHECK(ipc_parse_process_info(w.b, w.n, 1, &pi) == IPC_OK &&
                  strcmp(pi.command_line, "a") == 0 && pi.os[0] == 0 && pi.arch[0] == 0,
              "info: count-0 strings empty, text stops at an embedded NUL");
    }
    /* a command line longer than the field: cut on a character boundary */
    {
        static uint16_t longcmd[3001];
        int i;
        size_t len;
        for (i = 0; i < 3000; i++)
            longcmd[i] = 0x20AC; /* euro sign: 3 bytes of UTF-8 */
        longcmd[3000] = 0;
        w.n = 0;
        w_u64(&w, 1);
        for (i = 0; i < 16; i++)
            w.b[w.n++] = 0;
        w_units(&w, longcmd, 3001);
        w_str(&w, "Linux");
        w_str(&w, "x64");
        CHECK(ipc_parse_process_info(w.b, w.n, 1, &pi) == IPC_OK, "info: long command line parsed");
        len = strlen(pi.command_line);
        CHECK(pi.truncated == 1 && len == 4095 && len % 3 == 0,
              "info: cut to %zu bytes on a boundary, flagged", len);
        CHECK(strcmp(pi.os, "Linux") == 0, "info: fields after a cut string still parsed");
    }
    /* fuzz: random mutations of a valid v2 payload */
    {
        long odd = 0, accepted = 0, k;
        static wbuf m;
        make_info(&w, 2);
        for (k = 0; k < 100000; k++) {
            int flips = 1 + (int)(rnd() % 4), f;
            int rc;
            size_t j;
            m = w;
            for (f = 0; f < flips; f++)
                m.b[rnd() % m.n] = (uint8_t)rnd();
            if (rnd() % 4 == 0)
                m.n = (size_t)(rnd() % (m.n + 1));
            rc = ipc_parse_process_info(m.b, m.n, (int)(1 + rnd() % 3), &pi);
            if (rc != IPC_OK && rc != IPC_ERR_PROTO)
                odd++;
            if (rc == IPC_OK) {
                accepted++;
                for (j = 0; j < sizeof(pi.command_line); j++)
                    if (pi.command_line[j] == 0)
                        break;
                if (j == sizeof(pi.command_line))
                    odd++;
            }
        }
        CHECK(odd == 0,
              "info fuzz: 100000 mutations, only OK/PROTO, strings terminated (%ld accepted)",
              accepted);
    }
}

/* ---- a diagnostic port's messages (ipc_port.c) ---------------------------------------- */

static size_t make_advertise(uint8_t *b, uint64_t pid)
{
    static const uint8_t magic[8] = {'A', 'D', 'V', 'R', '_', 'V', '1', 0};
    int i;

    memcpy(b, magic, 8);
    for (i = 0; i < 16; i++)
        b[8 + i] = (uint8_t)(0xA0 + i);
    for (i = 0; i < 8; i++)
        b[24 + i] = (uint8_t)(pid >> (8 * i));
    b[32] = b[33] = 0;
    return IPC_ADVERTISE_SIZE;
}

TEST(port_advertise)
{
    uint8_t b[64];
    ipc_advertise a;
    size_t n = make_advertise(b, 0x0102030405060708ull), i;
    int all = 1;

    CHECK(ipc_parse_advertise(b, n, &a) == IPC_OK, "advertise: parsed");
    CHECK(a.pid == 0x0102030405060708ull && a.cookie[0] == 0xA0 && a.cookie[15] == 0xAF,
          "advertise: pid and cookie");
    for (i = 0; i < n; i++)
        all &= ipc_parse_advertise(b, i, &a) == IPC_ERR_PROTO;
    CHECK(all, "advertise: every shorter prefix refused");
    CHECK(ipc_parse_advertise(b, n + 1, &a) == IPC_ERR_PROTO, "advertise: longer refused");
    b[6] = '2';
    CHECK(ipc_parse_advertise(b, n, &a) == IPC_ERR_PROTO, "advertise: another magic refused");
    for (i = 0; i < 2000; i++) { /* made-up bytes: never read past them */
        size_t k, len = rnd() % 40;
        for (k = 0; k < len; k++)
            b[k] = (uint8_t)rnd();
        ipc_parse_advertise(b, len, &a);
    }
}

/* 1 when the n bytes at p are the protocol string of ascii s. */
static int is_string(const uint8_t *p, size_t n, const char *s)
{
    size_t k, len = strlen(s);

    if (n != 4 + 2 * (len + 1) || p[0] != len + 1 || p[1] || p[2] || p[3])
        return 0;
    for (k = 0; k <= len; k++)
        if (p[4 + 2 * k] != (uint8_t)(k < len ? s[k] : 0) || p[5 + 2 * k] != 0)
            return 0;
    return 1;
}

TEST(port_requests)
{
    static uint8_t b[IPC_MAX_MESSAGE + 16];
    static char big[40000];
    size_t n;

    n = ipc_build_bare(b, sizeof(b), IPC_SET_PROCESS, IPC_PROCESS_RESUME);
    CHECK(n == IPC_HEADER_SIZE && memcmp(b, "DOTNET_IPC_V1", 14) == 0 && b[14] == 20 &&
              b[15] == 0 && b[16] == 4 && b[17] == 1 && b[18] == 0 && b[19] == 0,
          "ResumeRuntime: a bare header 0x04/0x01");
    CHECK(ipc_build_bare(b, 19, IPC_SET_PROCESS, IPC_PROCESS_RESUME) == 0, "bare: no room");

    n = ipc_build_startup_profiler(b, sizeof(b), k_clsid, "/x/a.so");
    CHECK(n == 20 + 16 + 4 + 2 * 8 && b[14] == n && b[16] == 3 && b[17] == 2,
          "StartupProfiler: 0x03/0x02, %zu bytes", n);
    CHECK(memcmp(b + 20, k_clsid, 16) == 0 && is_string(b + 36, n - 36, "/x/a.so"),
          "StartupProfiler: the CLSID, then the path");
    CHECK(ipc_build_startup_profiler(b, sizeof(b), k_clsid, "") == 0, "StartupProfiler: no path");
    CHECK(ipc_build_startup_profiler(b, 40, k_clsid, "/x/a.so") == 0, "StartupProfiler: no room");
    memset(big, 'a', sizeof(big) - 1);
    CHECK(ipc_build_startup_profiler(b, sizeof(b), k_clsid, big) == 0,
          "StartupProfiler: over 65535 bytes refused");
    CHECK(ipc_build_startup_profiler(b, sizeof(b), k_clsid, "\xff\xfe") == 0,
          "StartupProfiler: a path that is not UTF-8 refused");

    n = ipc_build_set_env(b, sizeof(b), "JITSCOPE_AGENT", "jitscope1 t /s");
    CHECK(n > 20 && b[14] == (uint8_t)n && b[16] == 4 && b[17] == 3,
          "SetEnvironmentVariable: 0x04/0x03");
    CHECK(is_string(b + 20, 4 + 2 * 15, "JITSCOPE_AGENT") &&
              is_string(b + 20 + 4 + 2 * 15, n - 20 - 4 - 2 * 15, "jitscope1 t /s"),
          "SetEnvironmentVariable: name, then value");
    CHECK(ipc_build_set_env(b, sizeof(b), "A=B", "x") == 0 &&
              ipc_build_set_env(b, sizeof(b), "", "x") == 0,
          "SetEnvironmentVariable: a name with '=' or none refused");
    n = ipc_build_set_env(b, sizeof(b), "A", "");
    CHECK(n == 20 + 8 + 6 && is_string(b + 28, 6, ""), "SetEnvironmentVariable: an empty value");
}

/* An environment block of the given strings. */
static void make_env(wbuf *w, const char *const *vars, size_t n)
{
    size_t i;

    w->n = 0;
    w_u32(w, (uint32_t)n);
    for (i = 0; i < n; i++)
        w_str(w, vars[i]);
}

TEST(port_environment)
{
    static const char *const vars[] = {"PATH=/usr/bin", "JITSCOPE_AGENTX=no",
                                       "JITSCOPE_AGENT=jitscope1 t /s", "EMPTY="};
    static wbuf w;
    uint8_t reply[6] = {0x10, 0, 0, 0, 0, 0};
    char out[64];
    uint32_t bytes = 0;
    size_t i;
    int all = 1;

    CHECK(ipc_parse_env_reply(reply, 6, &bytes) == IPC_OK && bytes == 16, "env reply: its count");
    CHECK(ipc_parse_env_reply(reply, 5, &bytes) == IPC_ERR_PROTO, "env reply: short refused");
    reply[0] = 2;
    CHECK(ipc_parse_env_reply(reply, 6, &bytes) == IPC_ERR_PROTO, "env reply: under 4 bytes");
    reply[0] = 0, reply[3] = 0x7f;
    CHECK(ipc_parse_env_reply(reply, 6, &bytes) == IPC_ERR_PROTO, "env reply: over the bound");

    make_env(&w, vars, 4);
    CHECK(ipc_env_lookup_block(w.b, w.n, "JITSCOPE_AGENT", out, sizeof(out)) == 1 &&
              strcmp(out, "jitscope1 t /s") == 0,
          "env: found, not confused with a longer name before it");
    CHECK(ipc_env_lookup_block(w.b, w.n, "EMPTY", out, sizeof(out)) == 1 && out[0] == '\0',
          "env: an empty value");
    CHECK(ipc_env_lookup_block(w.b, w.n, "NOPE", out, sizeof(out)) == 0, "env: absent");
    CHECK(ipc_env_lookup_block(w.b, w.n, "PATH", out, 5) == 1 && strcmp(out, "/usr") == 0,
          "env: a value cut to fit");
    for (i = 0; i < w.n; i++)
        all &= ipc_env_lookup_block(w.b, i, "PATH", out, sizeof(out)) == IPC_ERR_PROTO;
    CHECK(all, "env: every shorter prefix refused, even after the name was found");
    w.b[w.n - 2] = 'x'; /* the last string loses its NUL */
    CHECK(ipc_env_lookup_block(w.b, w.n, "PATH", out, sizeof(out)) == IPC_ERR_PROTO,
          "env: a string without its NUL refused");
    make_env(&w, vars, 4);
    w.b[0] = 200;
    CHECK(ipc_env_lookup_block(w.b, w.n, "PATH", out, sizeof(out)) == IPC_ERR_PROTO,
          "env: more strings than bytes refused");
    for (i = 0; i < 3000; i++) { /* made-up blocks: never read past them */
        size_t k, len = rnd() % 200;
        for (k = 0; k < len; k++)
            w.b[k] = (uint8_t)(rnd() % 4 ? rnd() % 8 : rnd());
        ipc_env_lookup_block(w.b, len, "A", out, sizeof(out));
    }
}

TEST(port_config_pauses)
{
    static const struct {
        const char *ports, *suspend;
        int pauses;
    } cases[] = {
        {NULL, NULL, 0},
        {"/p.sock", NULL, 1}, /* suspend is the default */
        {"/p.sock,nosuspend", NULL, 0},
        {"/p.sock,NOSUSPEND", NULL, 0},
        {"/p.sock,nosuspend,suspend", NULL, 0}, /* the first tag of a kind counts */
        {"/p.sock,suspend,nosuspend", NULL, 1},
        {"/a,nosuspend;/b", NULL, 1},
        {"/a,nosuspend;/b,nosuspend", NULL, 0},
        {"/a,listen", NULL, 0}, /* extra listen ports are not made */
        {"/a,connect,suspend", NULL, 1},
        {",suspend", NULL, 0},          /* no address: ignored */
        {"nosuspend,connect", NULL, 1}, /* a port named "nosuspend", suspend */
        {";;", NULL, 0},
        {NULL, "1", 1},
        {NULL, "0", 0},
        {"/a,nosuspend", "A", 1}, /* read as hex */
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK(ipc_port_config_pauses(cases[i].ports, cases[i].suspend) == cases[i].pauses,
              "DiagnosticPorts=%s DefaultDiagnosticPortSuspend=%s: %s",
              cases[i].ports ? cases[i].ports : "(unset)",
              cases[i].suspend ? cases[i].suspend : "(unset)",
              cases[i].pauses ? "pauses" : "does not pause");
}

static const check_test tests[] = {
    TEST_ENTRY(build_attach),          TEST_ENTRY(attach_limits),
    TEST_ENTRY(build_process_info),    TEST_ENTRY(replies),
    TEST_ENTRY(process_info_payloads), TEST_ENTRY(port_advertise),
    TEST_ENTRY(port_requests),         TEST_ENTRY(port_environment),
    TEST_ENTRY(port_config_pauses),    TEST_END,
};

int main(int argc, char **argv) { return check_main_each(argc, argv, tests, rnd_reset, NULL); }
