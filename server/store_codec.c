/* store_codec.c -- checksums, compression and entry walking for what storage
 * keeps (see store_db.h). Log chunks are stored as they came, with an XXH3
 * checksum of what is stored; log chunks and snapshots are compressed with
 * zstd (chunks at a fast level), whose frames carry their own content
 * checksum too. */
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

int store_pack(store_packer *p, const void *bytes, size_t length, const void **out,
               size_t *out_length)
{
    size_t bound = ZSTD_compressBound(length), n;

    if (!p->cx) {
        if (!(p->cx = ZSTD_createCCtx()) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(p->cx, ZSTD_c_compressionLevel, p->level)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(p->cx, ZSTD_c_checksumFlag, 1))) {
            ZSTD_freeCCtx(p->cx);
            p->cx = NULL;
            return -1;
        }
    }
    if (bound > p->cap) {
        void *bigger = realloc(p->out, bound);
        if (!bigger)
            return -1;
        p->out = bigger;
        p->cap = bound;
    }
    n = ZSTD_compress2(p->cx, p->out, p->cap, bytes, length);
    if (ZSTD_isError(n))
        return -1;
    *out = p->out;
    *out_length = n;
    return 0;
}

void store_packer_free(store_packer *p)
{
    ZSTD_freeCCtx(p->cx);
    free(p->out);
    p->cx = NULL;
    p->out = NULL;
    p->cap = 0;
}

int store_decompress(const void *bytes, size_t length, size_t raw_length, void **buf, size_t *cap,
                     const char **why)
{
    unsigned long long size = ZSTD_getFrameContentSize(bytes, length);
    size_t n;

    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size != raw_length) {
        *why = "not what was written (its unpacked size does not match)";
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
        *why = "damaged (zstd refused it, or its checksum)";
        return -1;
    }
    return 0;
}

int store_chunk_unpack(int codec, int64_t raw_bytes, const uint8_t **bytes, size_t *length,
                       void **buf, size_t *cap, const char **why)
{
    if (codec == STORE_CODEC_RAW)
        return 0;
    if (codec != STORE_CODEC_ZSTD) {
        *why = "stored in a way this server does not know";
        return -1;
    }
    if (raw_bytes <= 0 || (uint64_t)raw_bytes > STORE_CHUNK_RAW_MAX) {
        *why = "not what was written (its unpacked size is out of bounds)";
        return -1;
    }
    if (store_decompress(*bytes, *length, (size_t)raw_bytes, buf, cap, why) != 0)
        return -1;
    *bytes = *buf;
    *length = (size_t)raw_bytes;
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
