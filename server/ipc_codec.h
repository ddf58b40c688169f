/* ipc_codec.h -- the diagnostics IPC message codec: request builders and reply
 * parsers (see the protocol summary in ipc.h and its sources in ipc.c).
 *
 * Pure, bounded functions with no I/O: everything that comes back from the
 * runtime is treated as hostile, so they can be unit-tested and fuzzed. ipc.c
 * puts their output on a socket (through ipc_io.h); callers reach them through
 * ipc.h. Strings are converted by proto/utf.c.
 */
#ifndef JITSCOPE_IPC_CODEC_H
#define JITSCOPE_IPC_CODEC_H

#include "ipc_types.h"

#include <stddef.h>
#include <stdint.h>

/* Request builders. Return the message size, or 0 when it does not fit in
 * bufsz / in a uint16, or when an argument is invalid. clsid is 16 bytes in
 * memory (GUID) layout: Data1 LE u32, Data2 LE u16, Data3 LE u16, Data4[8]. */
size_t ipc_build_attach(uint8_t *buf, size_t bufsz, uint32_t timeout_ms, const uint8_t clsid[16],
                        const char *profiler_path_utf8, const uint8_t *client_data,
                        uint32_t client_len);
size_t ipc_build_process_info(uint8_t *buf, size_t bufsz, uint8_t command_id);

/* Reply parsers; never read past len. ipc_parse_reply_header checks the first
 * IPC_HEADER_SIZE bytes: magic, size >= 20, command set 0xFF, id OK or ERROR,
 * reserved 0. ipc_parse_hresult_reply takes a whole reply (len must equal its
 * size field): header plus an int32 HRESULT, or a bare OK header (S_OK). */
int ipc_parse_reply_header(const uint8_t *buf, size_t len, ipc_header *out);
int ipc_parse_hresult_reply(const uint8_t *buf, size_t len, int32_t *hresult);

/* Parses the payload of an OK reply to ProcessInfo (version 1), ProcessInfo2 (2)
 * or ProcessInfo3 (3). IPC_OK, IPC_ERR_PROTO, or IPC_ERR_INVAL (bad version). */
int ipc_parse_process_info(const uint8_t *payload, size_t len, int version, ipc_procinfo *out);

/* Name of a known HRESULT ("CORPROF_E_PROFILER_ALREADY_ACTIVE"), else "unknown HRESULT". */
const char *ipc_hresult_name(int32_t hr);

/* Internal (for ipc.c and ipc_port.c): the little-endian uint16 and uint32 at
 * p (a header's size field is at offset 14); a uint32 written at p; a header
 * written at buf; one protocol string read at *off (moved past it) into out
 * as UTF-8, cut on a character boundary to fit outsz (then *truncated is
 * set), IPC_OK or IPC_ERR_PROTO. */
uint16_t ipc_get_u16(const uint8_t *p);
uint32_t ipc_get_u32(const uint8_t *p);
void ipc_put_u32(uint8_t *p, uint32_t v);
void ipc_put_header(uint8_t *buf, uint16_t size, uint8_t set, uint8_t id);
int ipc_read_string(const uint8_t *p, size_t len, size_t *off, char *out, size_t outsz,
                    int *truncated);

#endif
