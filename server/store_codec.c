/* store_codec.c -- checksums, compression and entry walking for what storage
 * keeps (see store_db.h). Log chunks are stored as they came, with an XXH3
 * checksum (about 1 ms for a 20,000-method JIT storm's 5 MB); snapshots are
 * compressed with zstd, whose frames carry their own content checksum. */
#include "store_db.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>
#include <zstd.h>

#include "wire.h"

uint64_t store_checksum(const void *bytes, size_t length) { return XXH3_64bits(bytes, length); }

int store_compress(const void *bytes, size_t length, void **out, size_t *out_length)
{
    size_t bound = ZSTD_compressBound(length), n;
    ZSTD_CCtx *cx = ZSTD_createCCtx();
    void *buf = malloc(bound ? bound : 1);
    int rc = -1;

    if (!cx || !buf ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, STORE_ZSTD_LEVEL)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cx, ZSTD_c_checksumFlag, 1)))
        goto done;
    n = ZSTD_compress2(cx, buf, bound, bytes, length);
    if (ZSTD_isError(n))
        goto done;
    *out = buf;
    *out_length = n;
    buf = NULL; /* the caller's now */
    rc = 0;
done:
    ZSTD_freeCCtx(cx);
    free(buf);
    return rc;
}

int store_decompress(const void *bytes, size_t length, size_t raw_length, void **buf, size_t *cap,
                     const char **why)
{
    unsigned long long size = ZSTD_getFrameContentSize(bytes, length);
    size_t n;

    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size != raw_length) {
        *why = "a snapshot part is not what was written (its size does not match)";
        return -1;
    }
    if (raw_length > *cap) {
        void *bigger = realloc(*buf, raw_length);
        if (!bigger) {
            *why = "out of memory";
            return -1;
        }
        *buf = bigger;
        *cap = raw_length;
    }
    n = ZSTD_decompress(*buf, raw_length, bytes, length);
    if (ZSTD_isError(n) || n != raw_length) {
        *why = "a snapshot part is damaged (zstd refused it, or its checksum)";
        return -1;
    }
    return 0;
}

size_t store_frames_up_to(const uint8_t *buf, size_t length, size_t limit)
{
    size_t off = 0;

    while (off < length) {
        wire_frame_header h;
        size_t next;
        if (length - off < sizeof(h))
            return length;
        memcpy(&h, buf + off, sizeof(h));
        next = off + sizeof(h) + h.length;
        if (next > length)
            return length;
        if (off > 0 && next > limit)
            break;
        off = next;
    }
    return off;
}

int store_entries(const uint8_t *buf, size_t length, store_entry_fn fn, void *ctx, int part,
                  const char **why)
{
    size_t off = 0;

    while (off < length) {
        store_entry_header h;
        int rc;
        if (length - off < sizeof(h)) {
            *why = "an entry is cut short";
            return -1;
        }
        memcpy(&h, buf + off, sizeof(h));
        off += sizeof(h);
        if (h.length > STORE_ENTRY_MAX || h.length > length - off) {
            *why = "an entry is longer than what holds it";
            return -1;
        }
        if ((rc = fn(ctx, part, h.now_ns, buf + off, h.length)) != 0)
            return rc;
        off += h.length;
    }
    return 0;
}
