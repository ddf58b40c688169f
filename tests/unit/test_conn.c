/* test_conn.c -- unit tests for the agent's way from the ring to the socket:
 * agent/emit.c encodes a record once into the ring (on the app's thread),
 * agent/conn.c's conn_forward copies that frame once into the output buffer
 * and stamps its sequence number there.
 *
 *   - what reaches the server is byte for byte what encoding each record
 *     directly with its sequence number gives (wire_encode), for fixed parts,
 *     extra bytes, UTF-8, UTF-16, bad UTF-8 and a string cut short (the
 *     truncation flag the encoder set in the ring survives the copy);
 *   - a frame that finds no room (a server that does not read) is kept: it
 *     uses no sequence number, and the numbers the server sees have no gap;
 *   - the sender's own records (conn_emit) and ring records share one
 *     sequence, in the order they were put.
 * The "server" is a Unix socket of this process (conn.c checks the peer's uid:
 * ours). Build: make build/tests/test_conn && build/tests/test_conn
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent.h"
#include "check.h"
#include "clock.h"
#include "conn.h"
#include "emit.h"
#include "wire_encode.h"

agent_state agent; /* what agent/lifecycle.c defines in the library */

static int test_listener = -1, test_peer = -1;
static char test_dir[64];

/* A listening socket at a fresh path, the agent's ring, and a connection to it. */
static int conn_fixture_up(uint64_t ring_bytes)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};

    memset(&agent, 0, sizeof(agent));
    snprintf(test_dir, sizeof(test_dir), "/tmp/jitscope-test-conn-XXXXXX");
    if (!mkdtemp(test_dir))
        return -1;
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/s", test_dir);
    memcpy(agent.socket_path, addr.sun_path, sizeof(addr.sun_path));
    test_listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (test_listener < 0 || bind(test_listener, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
        listen(test_listener, 4) != 0)
        return -1;
    if (ring_init(&agent.ring, ring_bytes) != 0)
        return -1;
    atomic_store(&agent.ring_ready, 1);
    if (conn_open() != 0)
        return -1;
    test_peer = accept(test_listener, NULL, NULL);
    return test_peer >= 0 ? 0 : -1;
}

static void conn_fixture_down(void)
{
    char path[sizeof(test_dir) + 4];

    conn_close();
    conn_set_deadline(0);
    atomic_store(&agent.ring_ready, 0);
    ring_destroy(&agent.ring);
    if (test_peer >= 0)
        close(test_peer);
    if (test_listener >= 0)
        close(test_listener);
    test_peer = test_listener = -1;
    snprintf(path, sizeof(path), "%s/s", test_dir);
    unlink(path);
    rmdir(test_dir);
}

/* Forwards every record in the ring (as the sender's drain does). Returns how
 * many went out, stopping at the first that found no room. */
static unsigned drain_ring(int *no_room)
{
    const uint8_t *rec;
    uint32_t length;
    unsigned n = 0;

    *no_room = 0;
    while ((rec = ring_peek(&agent.ring, &length)) != NULL) {
        int rc = conn_forward(rec);
        if (rc == CONN_NO_ROOM) {
            *no_room = 1;
            break;
        }
        if (rc != 0)
            break;
        ring_release(&agent.ring);
        n++;
    }
    return n;
}

/* Reads exactly n bytes the agent sent. */
static int read_exactly(uint8_t *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = recv(test_peer, buf + got, n - got, 0);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* One record as a test writes it: the arguments of emit_record_at. */
typedef struct test_record {
    uint16_t type, flags;
    uint64_t time_ns;
    const void *fixed;
    uint32_t fixed_length;
    const void *extra;
    uint32_t extra_length;
    wire_text strings[2];
    unsigned string_count;
} test_record;

static int emit_test_record(const test_record *r)
{
    return emit_record_at(r->type, r->flags, r->time_ns, r->fixed, r->fixed_length, r->extra,
                          r->extra_length, r->strings, r->string_count);
}

/* The frame encoding r directly with sequence number seq makes, into buf. */
static size_t encode_directly(uint8_t *buf, const test_record *r, uint64_t seq)
{
    wire_frame_header h = {.type = r->type, .flags = r->flags, .seq = seq, .time_ns = r->time_ns};
    return wire_encode(buf, &h, r->fixed, r->fixed_length, r->extra, r->extra_length, r->strings,
                       r->string_count);
}

#define TEST_LONG (WIRE_MAX_STRING + 100u)

TEST(forwarded_frames_are_the_direct_encoding)
{
    static char long_text[TEST_LONG];
    static uint8_t want[64 * 1024], got[64 * 1024];
    static const uint16_t utf16[] = {'L', 0x00e9, 'o', 0xd83d, 0xde00, '!'};
    const char bad_utf8[] = {'a', (char)0xff, 'b', (char)0xc3};
    const uint64_t fixed[3] = {0x7f0011223344ull, 42, 0xdeadbeefcafef00dull};
    const uint8_t extra[5] = {1, 2, 3, 4, 5};
    test_record records[] = {
        {.type = WIRE_JIT_FINISHED, .time_ns = 1000, .fixed = fixed, .fixed_length = sizeof(fixed)},
        {.type = WIRE_FUNCTION_NAME,
         .flags = WIRE_FLAG_CATCHUP,
         .time_ns = 2000,
         .fixed = fixed,
         .fixed_length = 16,
         .strings = {{.utf8 = "Ns.Type.Method(int)", .length = 19}},
         .string_count = 1},
        {.type = WIRE_THREAD_NAME,
         .time_ns = 3000,
         .fixed = fixed,
         .fixed_length = 8,
         .strings = {{.utf16 = utf16, .length = 6}, {.utf8 = bad_utf8, .length = 4}},
         .string_count = 2},
        {.type = WIRE_MODULE_LOADED,
         .flags = WIRE_FLAG_DYNAMIC,
         .time_ns = 4000,
         .fixed = fixed,
         .fixed_length = 24,
         .extra = extra,
         .extra_length = sizeof(extra),
         .strings = {{.utf8 = long_text, .length = TEST_LONG}},
         .string_count = 1},
        {.type = WIRE_THREAD_DESTROYED, .time_ns = 5000, .fixed = fixed, .fixed_length = 8},
    };
    const unsigned count = sizeof(records) / sizeof(records[0]);
    size_t want_bytes = 0;
    unsigned i, sent;
    int no_room;

    memset(long_text, 'x', sizeof(long_text));
    if (!CHECK(conn_fixture_up(64 * 1024) == 0, "a connection to a socket of ours (errno %d)",
               errno))
        goto out;
    for (i = 0; i < count; i++) {
        CHECK(emit_test_record(&records[i]) == 0, "record %u into the ring", i);
        want_bytes += encode_directly(want + want_bytes, &records[i], i + 1);
    }
    sent = drain_ring(&no_room);
    CHECK(sent == count && !no_room, "all %u forwarded (%u)", count, sent);
    CHECK(conn_flush(1) == 0, "flushed");
    if (!CHECK(read_exactly(got, want_bytes) == 0, "%zu bytes at the server", want_bytes))
        goto out;
    CHECK(memcmp(got, want, want_bytes) == 0,
          "the frames are byte for byte each record encoded directly with seq 1..%u", count);
    {
        wire_frame_header h;
        size_t at = 0;
        for (i = 0; i < 3; i++) {
            memcpy(&h, got + at, sizeof(h));
            at += sizeof(h) + h.length;
        }
        memcpy(&h, got + at, sizeof(h));
        CHECK((h.flags & WIRE_FLAG_TRUNCATED) && (h.flags & WIRE_FLAG_DYNAMIC) && h.seq == 4,
              "the cut string's flag, set in the ring, is on the wire (flags 0x%x seq %llu)",
              (unsigned)h.flags, (unsigned long long)h.seq);
    }
out:
    conn_fixture_down();
}

/* The server side of a_frame_without_room...: reads frames until `want`
 * arrived or the connection closed, counting those whose number is not the
 * one after the last. */
typedef struct test_reader {
    unsigned want, frames, gaps;
} test_reader;

static void *read_frames(void *arg)
{
    static uint8_t buf[64 * 1024];
    test_reader *t = arg;
    uint64_t expect = 1;
    size_t used = 0, at;
    wire_frame_header h;

    while (t->frames < t->want) {
        ssize_t r = recv(test_peer, buf + used, sizeof(buf) - used, 0);
        if (r <= 0)
            break;
        used += (size_t)r;
        for (at = 0; used - at >= sizeof(h); at += sizeof(h) + h.length) {
            memcpy(&h, buf + at, sizeof(h));
            if (used - at < sizeof(h) + h.length)
                break;
            t->gaps += h.seq != expect;
            expect = h.seq + 1;
            t->frames++;
        }
        memmove(buf, buf + at, used - at);
        used -= at;
    }
    return NULL;
}

TEST(a_frame_without_room_is_kept_and_uses_no_number)
{
    static uint8_t payload[8 * 1024];
    const unsigned count = 256; /* 2 MiB: more than the socket and the output buffer take */
    test_reader reader = {.want = count};
    unsigned forwarded, i;
    int size = 4096, no_room = 0, reading = 0;
    pthread_t thread;

    if (!CHECK(conn_fixture_up(4u * 1024u * 1024u) == 0, "a connection (errno %d)", errno))
        goto out;
    /* small socket buffers: the output buffer fills while nobody reads */
    setsockopt(test_peer, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    setsockopt(conn_fd(), SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    conn_set_deadline(clock_mono_ns()); /* a wait for the slow server ends at once */
    memset(payload, 0x5a, sizeof(payload));
    for (i = 0; i < count; i++)
        CHECK(emit_record_at(WIRE_STACK_THREAD, 0, i, payload, sizeof(payload), NULL, 0, NULL, 0) ==
                  0,
              "record %u into the ring", i);
    forwarded = drain_ring(&no_room);
    CHECK(no_room && forwarded > 0 && forwarded < count,
          "some went out, then one found no room and stayed in the ring (%u forwarded)", forwarded);
    CHECK(conn_connected(), "a server that does not read is still connected");
    /* the server reads now: the kept record goes out next, with the next number */
    conn_set_deadline(0);
    reading = pthread_create(&thread, NULL, read_frames, &reader) == 0;
    if (!CHECK(reading, "a reader thread"))
        goto out;
    while (forwarded < count && conn_connected())
        forwarded += drain_ring(&no_room);
    CHECK(conn_flush(1) == 0, "flushed");
    pthread_join(thread, NULL);
    CHECK(reader.frames == count && reader.gaps == 0,
          "%u frames numbered 1..%u without a gap (%u frames, %u gaps)", count, count,
          reader.frames, reader.gaps);
    CHECK(atomic_load(&agent.slow_server_drops) == 0, "nothing counted as dropped");
out:
    conn_fixture_down();
}

TEST(own_records_and_ring_records_share_one_sequence)
{
    const uint64_t fixed[2] = {7, 8};
    uint8_t got[1024];
    wire_frame_header h;
    size_t at = 0, want = 0;
    int no_room, i;

    if (!CHECK(conn_fixture_up(64 * 1024) == 0, "a connection (errno %d)", errno))
        goto out;
    CHECK(emit_record_at(WIRE_JIT_STARTED, 0, 10, fixed, 16, NULL, 0, NULL, 0) == 0, "ring 1");
    CHECK(drain_ring(&no_room) == 1, "forwarded");
    CHECK(conn_emit(WIRE_DROPS, 0, 11, fixed, 16, "own", 3, NULL, 0) == 0, "the sender's own");
    CHECK(emit_record_at(WIRE_JIT_FINISHED, 0, 12, fixed, 16, NULL, 0, NULL, 0) == 0, "ring 2");
    CHECK(drain_ring(&no_room) == 1, "forwarded");
    CHECK(conn_flush(1) == 0, "flushed");
    want = 3 * sizeof(h) + 16 + (16 + 2 + 3) + 16;
    if (!CHECK(read_exactly(got, want) == 0, "%zu bytes at the server", want))
        goto out;
    for (i = 1; i <= 3; i++) {
        memcpy(&h, got + at, sizeof(h));
        CHECK(h.seq == (uint64_t)i && h.time_ns == (uint64_t)(9 + i), "frame %d is seq %d (%llu)",
              i, i, (unsigned long long)h.seq);
        at += sizeof(h) + h.length;
    }
out:
    conn_fixture_down();
}

static const check_test tests[] = {
    TEST_ENTRY(forwarded_frames_are_the_direct_encoding),
    TEST_ENTRY(a_frame_without_room_is_kept_and_uses_no_number),
    TEST_ENTRY(own_records_and_ring_records_share_one_sequence),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
