/* ipcbytes.h -- diagnostics IPC messages as the runtime writes them, for the
 * IPC tests (test_ipc_codec.c, test_ipc.c): a byte buffer and its little-endian
 * and protocol-string writers, a ProcessInfo payload of each version, a
 * reply header, and the CLSID the requests carry. */
#ifndef JITSCOPE_TEST_IPCBYTES_H
#define JITSCOPE_TEST_IPCBYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* CLSID {01020304-0506-0708-090A-0B0C0D0E0F10} in memory layout */
static const uint8_t k_clsid[16] = {0x04, 0x03, 0x02, 0x01, 0x06, 0x05, 0x08, 0x07,
                                    0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10};

typedef struct wbuf {
    uint8_t b[16384];
    size_t n;
} wbuf;

static inline void w_u32(wbuf *w, uint32_t v)
{
    w->b[w->n++] = (uint8_t)v;
    w->b[w->n++] = (uint8_t)(v >> 8);
    w->b[w->n++] = (uint8_t)(v >> 16);
    w->b[w->n++] = (uint8_t)(v >> 24);
}

static inline void w_u64(wbuf *w, uint64_t v)
{
    w_u32(w, (uint32_t)v);
    w_u32(w, (uint32_t)(v >> 32));
}

/* ASCII/BMP string as a protocol string; units of 0 means count 0 (empty). */
static inline void w_units(wbuf *w, const uint16_t *u, size_t count)
{
    size_t i;
    w_u32(w, (uint32_t)count);
    for (i = 0; i < count; i++) {
        w->b[w->n++] = (uint8_t)u[i];
        w->b[w->n++] = (uint8_t)(u[i] >> 8);
    }
}

static inline void w_str(wbuf *w, const char *s)
{
    uint16_t u[1024];
    size_t i, n = strlen(s);
    for (i = 0; i < n; i++)
        u[i] = (uint8_t)s[i];
    u[n] = 0;
    w_units(w, u, n + 1);
}

static inline void make_info(wbuf *w, int version)
{
    static const uint16_t cmd[] = {'/', 'b', 'i', 'n', ' ', 0x00E9, 0xD83D, 0xDE00, 0xD800, 'z', 0};
    int i;
    w->n = 0;
    if (version == 3)
        w_u32(w, 1);
    w_u64(w, 4242);
    for (i = 0; i < 16; i++)
        w->b[w->n++] = (uint8_t)(0xC0 + i);
    w_units(w, cmd, sizeof(cmd) / sizeof(cmd[0]));
    w_str(w, "Linux");
    w_str(w, "x64");
    if (version >= 2) {
        w_str(w, "app");
        w_str(w, "10.0.12");
    }
    if (version == 3)
        w_str(w, "linux-x64");
}

/* A reply header with set 0xFF and this id, and an HRESULT when with_hr. */
static inline size_t make_reply(uint8_t *buf, uint8_t id, int with_hr, int32_t hr)
{
    memcpy(buf, "DOTNET_IPC_V1", 14);
    buf[14] = with_hr ? 24 : 20;
    buf[15] = 0;
    buf[16] = 0xFF;
    buf[17] = id;
    buf[18] = buf[19] = 0;
    if (with_hr) {
        uint32_t u = (uint32_t)hr;
        buf[20] = (uint8_t)u;
        buf[21] = (uint8_t)(u >> 8);
        buf[22] = (uint8_t)(u >> 16);
        buf[23] = (uint8_t)(u >> 24);
    }
    return with_hr ? 24 : 20;
}

#endif
