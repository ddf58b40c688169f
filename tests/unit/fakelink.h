/* fakelink.h -- the jitscope server's end of the agent's socket, as the
 * test_sidebyside_* binaries play it beside the fake CoreCLR (fakeclr.h).
 *
 * One listening Unix socket in a private directory (its path in sock_path,
 * for JITSCOPE_SOCKET and attach client data); each agent connection a conn
 * whose frames are read with the wire.h structs: the sequence numbers checked
 * as they come, every FUNCTION_NAME remembered and its text checked against
 * the fake's "M_<token>". Commands are written as the server writes them.
 * Nothing here checks: a read returns 1, 0 on EOF or -1 on timeout, and the
 * tests say what it means.
 */
#ifndef JITSCOPE_TEST_FAKELINK_H
#define JITSCOPE_TEST_FAKELINK_H

#include <stddef.h>
#include <stdint.h>

#include "fakeclr.h"
#include "wire.h"

typedef struct conn {
    int fd;
    uint64_t next_seq;   /* the seq the next frame must carry */
    unsigned seq_errors; /* frames whose seq was not next_seq */
    unsigned frames;
    unsigned bad_length;    /* frames longer than WIRE_MAX_PAYLOAD */
    wire_frame_header last; /* the last frame read */
    uint32_t last_length;
    uint8_t last_payload[WIRE_MAX_PAYLOAD];
    uint64_t named[8192]; /* FunctionIDs named by a FUNCTION_NAME so far */
    unsigned nnamed;
    unsigned bad_names; /* FUNCTION_NAMEs whose text is not the fake's name */
} conn;

extern char sock_path[128]; /* where the agent connects (fakelink_listen) */

/* Listens on sock_path in a new mkdtemp directory; 0, or -1 with the reason
 * in err. Once per process: later calls return 0 at once. */
int fakelink_listen(char *err, size_t size);
/* Closes the socket and removes its directory (at the end of the process). */
void fakelink_close(void);

/* Accepts one agent connection within timeout_ms; its fd, -1 if none came. */
int accept_agent(int timeout_ms);
/* Starts conn c on a connection the agent makes within timeout_ms, and
 * reads its first frame (the hello). 0, or -1 when none came. */
int conn_accept(conn *c, int timeout_ms);
/* One frame into c->last / c->last_payload. 1, 0 on EOF, -1 on timeout. */
int conn_read(conn *c, int timeout_ms);
/* Skips frames until one of `type`. 1, 0 on EOF, -1 on timeout. */
int conn_wait_type(conn *c, uint16_t type, int timeout_ms);
/* Whether a FUNCTION_NAME for fid came on c. */
int conn_was_named(const conn *c, uint64_t fid);

/* Reads frames until EOF. Remembers the last DETACH_STATUS states seen, in order. */
typedef struct tail_info {
    int eof; /* 1 when recv returned 0 */
    unsigned frames;
    double seconds;     /* time to EOF */
    uint16_t last_type; /* type of the last frame before EOF (0: none) */
    uint32_t status_states[8];
    int32_t status_hresults[8];
    unsigned statuses;
    unsigned profile_stopped; /* PROFILE_STATUS STOPPED records */
} tail_info;

/* Reads frames until EOF, at most timeout_ms; with 0, only what is already
 * buffered (EOF is then seen only if the agent had closed before the call).
 * Accumulates into *t (the caller zeroes it). */
void conn_read_to_eof(conn *c, int timeout_ms, tail_info *t);

/* A command frame of `type` on fd; 0, or -1 when it could not be written. */
int send_command(int fd, uint16_t type, const void *payload, uint32_t length);
/* Ping the agent: 1 when the matching PONG came back within timeout_ms. */
int ping(conn *c, uint64_t cookie, int timeout_ms);
int send_snapshot(conn *c, uint64_t request_id);
int send_profile(conn *c, uint32_t hz, uint32_t budget, uint32_t duration_ms);
int send_profile_stop(conn *c);

/* One snapshot or sample as the server sees it. */
typedef struct snap_read {
    wire_stack_end end;
    uint64_t end_time;
    unsigned nthreads;
    wire_stack_thread threads[FAKE_MAX_THREADS + 1];
    uint64_t thread_time[FAKE_MAX_THREADS + 1];
    wire_stack_frame frames[FAKE_MAX_THREADS + 1][WIRE_STACK_MAX_FRAMES];
    unsigned unnamed;     /* managed frames with no FUNCTION_NAME before their record */
    unsigned bad_records; /* STACK_THREAD whose length does not match its frame_count */
    unsigned statuses;    /* PROFILE_STATUS records met on the way */
    wire_profile_status status;
} snap_read;

/* Reads until the STACK_END of kind `kind` and (snapshots) `request_id`,
 * keeping that walk's STACK_THREAD records. 1, or -1 on timeout / EOF. */
int read_snapshot(conn *c, uint32_t kind, uint64_t request_id, snap_read *s, int timeout_ms);
/* Reads until a PROFILE_STATUS in `state`; samples seen on the way are counted. */
int read_status(conn *c, uint32_t state, wire_profile_status *out, unsigned *samples,
                int timeout_ms);

#endif
