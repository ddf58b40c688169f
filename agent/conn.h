/* conn.h -- the agent's connection to the server and its bounded buffers.
 *
 * Sender thread only (sender.c, naming.c, catchup.c): the one place that holds
 * the socket. conn_emit frames a record with the next sequence number into a
 * fixed output buffer (CONN_OUT_BYTES), conn_forward copies a frame already
 * encoded (a ring record) there and stamps its number; conn_flush writes it
 * out, waiting at
 * most CONN_FLUSH_WAIT_MS for a slow server. Commands from the server are read
 * into a fixed input buffer (CONN_IN_BYTES) that sender.c decodes. Any send or
 * receive failure closes the connection; every function is then a no-op until
 * conn_open succeeds again, so callers need not check after each record.
 *
 * A server that does not read: one wait of CONN_FLUSH_WAIT_MS that moves no
 * byte marks the connection stalled, and until a byte moves again nothing waits
 * (a stalled server costs one wait, not one per record). Records of the ring
 * then stay in the ring (conn_forward: the app's threads see it full and
 * count their drops); the sender's own records that find no room (catch-up,
 * counters) are dropped, counted in agent.slow_server_drops, and their sequence
 * numbers used anyway, so the server sees the gap where each one was.
 */
#ifndef JITSCOPE_CONN_H
#define JITSCOPE_CONN_H

#include <stddef.h>
#include <stdint.h>

#define CONN_OUT_BYTES (256u * 1024u)
#define CONN_IN_BYTES 4096u
#define CONN_FLUSH_WAIT_MS 2000 /* longest wait for a slow server */

/* Connects to agent.socket_path (non-blocking socket); sequence numbers start
 * again from 1. Returns 0, or -1 when no server listens. */
int conn_open(void);

/* Closes the socket and empties both buffers. Harmless when not connected.
 * The sender sees conn_connected() turn 0 and decides what that means. */
void conn_close(void);

/* 1 while a connection is open. */
int conn_connected(void);

/* Frames one record (fixed part and up to two UTF-8 strings) into the output
 * buffer with the next sequence number, flushing with a bounded wait when it is
 * full. Returns 0, or -1 when it was dropped: not connected (nothing counted:
 * the caller counts its own), or the server does not read (counted, and its
 * sequence number used). */
int conn_emit(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
              uint32_t fixed_length, const char *s1, size_t n1, const char *s2, size_t n2);

/* conn_emit_or_keep's answer when there is no room: nothing was used, the
 * caller keeps its record and tries again later. */
#define CONN_NO_ROOM 1

/* As conn_emit, but a record that finds no room is not dropped: returns
 * CONN_NO_ROOM and uses no sequence number. */
int conn_emit_or_keep(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                      uint32_t fixed_length, const char *s1, size_t n1, const char *s2, size_t n2);

/* A complete frame encoded elsewhere (a ring record, emit.c: every header
 * field but seq set, its length the payload's) into the output buffer: one
 * copy, the next sequence number stamped into it there. Returns 0,
 * CONN_NO_ROOM when the output has no room (nothing used: the record stays in
 * the ring), or -1 when not connected. */
int conn_forward(const uint8_t *frame);

/* Writes the output buffer; with `wait`, waits (bounded) while the server is
 * slow. Returns 0, or -1 when the connection is gone (it is then closed). */
int conn_flush(int wait);

/* Waits in conn_flush end at this CLOCK_MONOTONIC time (0: no deadline);
 * Shutdown and ProfilerDetachSucceeded bound their last flush with it. */
void conn_set_deadline(uint64_t deadline_ns);

/* Called about every 10 ms while conn_flush waits for a slow server, so the
 * sender thread keeps serving what cannot wait (module unload fences). */
void conn_set_wait_hook(void (*hook)(void));

/* Reads what the server sent into the input buffer without waiting. Returns 0,
 * or -1 when the server closed the connection or it failed (it is then closed). */
int conn_receive(void);

/* The unconsumed input: *length bytes at the returned address (0 after a close). */
const uint8_t *conn_input(size_t *length);

/* Drops the first n bytes of the input (commands decoded and run). */
void conn_consume(size_t n);

/* The socket, for poll(); -1 when not connected. */
int conn_fd(void);

#endif
