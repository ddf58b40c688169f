/* wirefix.h -- the fixture of the test_wire_* binaries (proto/wire_decode.c,
 * proto/wire_encode.c): frames built by hand from the proto/wire.h structs
 * and strings (u16 byte count + UTF-8), one valid sample of every record type,
 * and the decoder run on one frame.
 *
 * A sample is a record type's fixed part and strings; build_frame puts one
 * in an allocation of exactly the frame's size, so that ASan sees any
 * overread. The hello sample is records.h's rec_hello (the one hello
 * builder of the tests). Nothing here checks: the tests say what a result
 * means.
 */
#ifndef JITSCOPE_TEST_WIREFIX_H
#define JITSCOPE_TEST_WIREFIX_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"
#include "wire_decode.h"

typedef struct sample {
    const char *what;
    uint16_t type, flags;
    const void *fixed;
    size_t fixed_len;
    unsigned nstrings;
    const char *str[2];
    size_t str_len[2];
} sample;

#define HDR sizeof(wire_frame_header)

/* The fixed parts of some of the samples, which the tests look into. */
extern const wire_drops s_drops;
extern const wire_cmd_ping s_pong;
extern const wire_stack_end s_stack_end;
extern const wire_profile_status s_profile_status;
extern const wire_gc_finished s_gc_finished;
extern const wire_agent_cost s_agent_cost;
extern const wire_code_version_info s_code_version;
extern const wire_code_end s_code_end;
extern const wire_code_search s_code_search;
extern const wire_code_range s_code_range;
extern const wire_exception s_exception;
extern const wire_exception_caught s_exception_caught;
/* a thread of a snapshot with two frames (a managed one, a native run) */
typedef struct sample_stack_thread {
    wire_stack_thread t;
    wire_stack_frame f[2];
} sample_stack_thread;
extern const sample_stack_thread s_stack_thread;
/* a code part: one IL-to-native map entry */
typedef struct sample_code_part {
    wire_code_part p;
    wire_code_map_entry e;
} sample_code_part;
extern const sample_code_part s_code_part;

/* One valid sample of every record type, in type order (samples[0] the
 * hello, samples[4] a module_loaded with its path and assembly name), made
 * by make_samples (before the tests). */
#define N_SAMPLES 35
extern sample samples[N_SAMPLES];
void make_samples(void);

/* Writes header + fixed + strings at out (which must be big enough); the header
 * length is the payload actually written plus `extra_len` (may be negative to
 * lie about it). Returns bytes written. */
size_t build_frame_ex(uint8_t *out, const sample *s, uint64_t seq, long extra_len);
/* The bytes s's frame takes. */
size_t frame_size(const sample *s);
/* The frame in its own allocation of exactly its size (the caller frees it). */
uint8_t *build_frame(const sample *s, uint64_t seq, size_t *len);
/* n bytes of p in an allocation of their own (at least 1 byte). */
uint8_t *copy_of(const uint8_t *p, size_t n);

/* Decodes a whole single-frame buffer into a record; returns the record
 * decoder's result (or the frame decoder's when that is not OK). */
int decode_one(const uint8_t *buf, size_t len, wire_record *rec, const char **why);
/* 1 when the buffer decodes as BAD with a reason given. */
int bad_with_reason(const uint8_t *buf, size_t len);
/* The record types the decoder knows, as a bit set (bit t for type t), and
 * how many (*count). Types 1..WIRE_RECORD_TYPE_MAX may have gaps. */
uint64_t known_record_types(unsigned *count);
/* Decodes one frame of `type` whose payload is bytes[0..n), in an allocation of
 * exactly the frame's size placed at an odd address (frames are read with
 * memcpy, so UBSan must see no misaligned access); with keep, the allocation
 * is handed to the caller (the record points into it). BAD without a reason
 * is 99, a failure of its own. */
int decode_payload_keep(uint16_t type, const void *bytes, size_t n, wire_record *r, uint8_t **keep);
int decode_payload(uint16_t type, const void *bytes, size_t n, wire_record *r);

#endif
