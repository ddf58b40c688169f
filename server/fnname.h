/* fnname.h -- a function's name held in two parts: its type's ("Ns.Type<Args>."),
 * interned once in the session's string pool and shared by all the type's
 * methods, and its own ("Method(params)"), so that a service's long generic
 * type names are not held once per method (docs/ARCHITECTURE.md, Server
 * memory).
 *
 * A function's name is one record in the pool: FNNAME_HEAD_BYTES bytes that
 * encode the address of its type's part (7 bits a byte, each with its high
 * bit set, so the record has no NUL inside and can itself be interned), then
 * its own part and a NUL. Where the name is cut does not change what it
 * reads: the parts joined are the name as it came, byte for byte; the cut is
 * only where sharing pays (fnname_split). Records and parts never move
 * (strpool.h), so readers may keep them as the session's names. */
#ifndef JITSCOPE_FNNAME_H
#define JITSCOPE_FNNAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "strpool.h"

#define FNNAME_HEAD_BYTES 7u /* the encoded address of the type's part */
#define FNNAME_MIN_HEAD 16u  /* a shorter type's part stays in the record */
#define FNNAME_MAX 65535u    /* longest name held, both parts */

typedef struct fnname {
    const char *head; /* the type's part, "" when none */
    const char *tail; /* the rest, NUL-terminated */
} fnname;

/* Where text[0..length) is cut: the length of its type's part (up to and
 * including the last '.' outside <>, () and [], read from the end; the two
 * dots of ".ctor" kept together), or 0 when it has none worth sharing. */
size_t fnname_split(const char *text, size_t length);

/* The type's part of the name text[0..length) that fnname_store will look up
 * next, fetched ahead (strpool_prefetch). */
void fnname_prefetch(strpool *p, const char *text, size_t length);

/* Stores text[0..length) in p as a name record. intern: an equal record is
 * used again (dynamic methods, renamed with the same few names); else a new
 * one is added. NULL when the pool is out of room or length > FNNAME_MAX. */
const char *fnname_store(strpool *p, const char *text, size_t length, int intern);

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "fnname_parts reads a record as such");
_Static_assert(FNNAME_HEAD_BYTES == 7, "fnname_parts decodes 7 bytes");

/* A record's two parts: its first 8 bytes in one load (a record has at least
 * its 7 and a NUL), byte i's low 7 bits moved to bits 7i.. of the address
 * (i < FNNAME_HEAD_BYTES, written out). */
static inline fnname fnname_parts(const char *record)
{
    uint64_t w, address;

    memcpy(&w, record, sizeof(w));
    address = (w & 0x7full) | ((w >> 1) & (0x7full << 7)) | ((w >> 2) & (0x7full << 14)) |
              ((w >> 3) & (0x7full << 21)) | ((w >> 4) & (0x7full << 28)) |
              ((w >> 5) & (0x7full << 35)) | ((w >> 6) & (0x7full << 42));
    return (fnname){.head = address ? (const char *)(uintptr_t)address : "",
                    .tail = record + FNNAME_HEAD_BYTES};
}

/* The name's length in bytes. */
size_t fnname_length(const char *record);
/* Writes the name into out[0..size) (size > 0), cut to fit and NUL-terminated;
 * returns its whole length, as snprintf does. */
size_t fnname_copy(const char *record, char *out, size_t size);
/* A malloc'ed copy of the name; NULL out of memory. */
char *fnname_dup(const char *record);
/* strcmp of two records' names. */
int fnname_cmp(const char *a, const char *b);
/* The same where either may be NULL (no name: ordered as ""). */
int fnname_order(const char *x, const char *y);
/* A name's first 16 bytes as two big-endian numbers, 0 after its end (NULL:
 * 0, as ""): two names whose numbers differ are in that order, so a sort
 * compares the names themselves only on ties. */
void fnname_prefix(const char *record, uint64_t prefix[2]);
/* The same of a pool string (a type part: a record's prefix when it has one). */
void fnname_text_prefix(const char *text, uint64_t prefix[2]);

#endif
