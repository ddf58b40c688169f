/* sender.c -- the agent's one thread: connection, catch-up, draining, commands.
 *
 * Loop: (re)connect with back-off; on a connection send the hello, then a
 * catch-up when one is due (attach, or a reconnect after records were lost);
 * drain the ring into a bounded output buffer, resolving each function's name
 * the first time it is seen (in JIT records and in the frames of stack records);
 * read commands (detach, ping, and snapshot / profile, which go to the walker
 * thread, stacks.c); report drop counters. While no server is connected, ring
 * records are discarded and counted, so the app never waits and memory stays
 * bounded. Only this thread calls send/recv. Its calls into the runtime are made
 * under the runtime lock (walk.c says why); before RequestProfilerDetach the
 * walker thread is stopped and joined, so no agent thread outlives the detach.
 */
#include <errno.h>
#include <signal.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "agent.h"
#include "emit.h"
#include "idmap.h"
#include "stacks.h"
#include "utf.h"
#include "walk.h"
#include "wire_decode.h"

#define SENDER_OUT_BYTES (256u * 1024u)
#define SENDER_IN_BYTES 4096u
#define SENDER_POLL_MS 5
#define SENDER_BACKOFF_MIN_MS 50
#define SENDER_BACKOFF_MAX_MS 10000
#define SENDER_STABLE_NS 1000000000ull         /* a connection this old resets the back-off */
#define SENDER_DROPS_EVERY_NS 500000000ull
#define SENDER_NAMED_MAX (4u * 1024u * 1024u) /* functions remembered as named */
#define SENDER_FLUSH_WAIT_MS 2000             /* longest wait for a slow server */
#define SENDER_ORPHAN_NS 10000000000ull       /* attach mode: detach after 10 s alone */
#define SENDER_WALKER_WAIT_MS 3000            /* detach: longest wait for the walker to end */

static uint8_t sender_out[SENDER_OUT_BYTES];
static size_t sender_out_used;
static uint8_t sender_in[SENDER_IN_BYTES];
static size_t sender_in_used;
static uint64_t sender_seq;
static idmap sender_named;              /* FunctionIDs named on this connection */

static void sender_sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void sender_disconnect(void)
{
    if (agent.fd >= 0) {
        close(agent.fd);
        stacks_profile_stop(); /* the server that asked for it is gone */
    }
    agent.fd = -1;
    sender_out_used = 0;
    sender_in_used = 0;
}

/* Writes the output buffer; waits (bounded) when the server is slow.
 * Returns 0, or -1 when the connection is gone. */
static int sender_flush(int wait)
{
    size_t off = 0;
    int waited = 0;

    while (off < sender_out_used && agent.fd >= 0) {
        ssize_t n = send(agent.fd, sender_out + off, sender_out_used - off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait &&
            waited < SENDER_FLUSH_WAIT_MS) {
            struct pollfd p = {.fd = agent.fd, .events = POLLOUT};
            poll(&p, 1, 10);
            waited += 10;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            break;
        sender_disconnect();
        return -1;
    }
    memmove(sender_out, sender_out + off, sender_out_used - off);
    sender_out_used -= off;
    return 0;
}

/* Room for `need` bytes in the output buffer, flushing (with waiting) if needed. */
static int sender_room(size_t need)
{
    if (SENDER_OUT_BYTES - sender_out_used >= need)
        return 0;
    if (sender_flush(1) != 0)
        return -1;
    return SENDER_OUT_BYTES - sender_out_used >= need ? 0 : -1;
}

void sender_emit(uint16_t type, uint16_t flags, uint64_t time_ns, const void *fixed,
                 uint32_t fixed_length, const char *s1, size_t n1, const char *s2, size_t n2)
{
    wire_frame_header h = {.type = type, .flags = flags, .time_ns = time_ns};
    wire_text strings[2] = {{.utf8 = s1, .length = n1}, {.utf8 = s2, .length = n2}};
    unsigned count = s2 ? 2 : s1 ? 1 : 0;
    size_t need = wire_encode_bound(fixed_length, 0, strings, count);

    if (agent.fd < 0 || sender_room(need) != 0)
        return;
    h.seq = ++sender_seq;
    sender_out_used += wire_encode(sender_out + sender_out_used, &h, fixed, fixed_length, NULL, 0,
                                   strings, count);
}

/* ---- functions already named on this connection ---- */

/* Returns 1 when id was not in the set (and adds it, if there is room). */
static int sender_named_add(uint64_t id)
{
    if (id == 0 || idmap_get(&sender_named, id) != IDMAP_MISSING)
        return 0;
    if (sender_named.count < SENDER_NAMED_MAX)
        (void)idmap_put(&sender_named, id, 1); /* out of memory: it is named again later */
    return 1; /* a full set names again; the server keeps the first name */
}

static void sender_named_reset(void)
{
    idmap_free(&sender_named);
}

static int sender_resolve(uint64_t function_id, char *name, size_t size, wire_function_name *f)
{
    int rc;

    walk_runtime_lock();
    rc = names_resolve(agent.info, function_id, name, size, &f->module_id, &f->token);
    walk_runtime_unlock();
    return rc;
}

/* Catch-up and stack frames do not say whether a function is dynamic. */
static int sender_is_dynamic(uint64_t function_id)
{
    BOOL dynamic = FALSE;

    return SUCCEEDED(agent.info->lpVtbl->IsFunctionDynamic(agent.info, function_id, &dynamic)) &&
           dynamic;
}

void sender_emit_function_name(uint64_t function_id, int dynamic, uint16_t flags)
{
    static char name[2048];
    wire_function_name fixed = {.function_id = function_id};
    size_t n;

    if (!sender_named_add(function_id))
        return;
    if ((dynamic || sender_is_dynamic(function_id)) &&
        names_dynamic(agent.info, function_id, name, sizeof(name)) == 0) {
        n = strlen(name);
        flags |= WIRE_FLAG_DYNAMIC;
    } else if (!dynamic && sender_resolve(function_id, name, sizeof(name), &fixed) == 0) {
        n = strlen(name);
    } else {
        atomic_fetch_add_explicit(&agent.name_failures, 1, memory_order_relaxed);
        n = (size_t)snprintf(name, sizeof(name), "(unknown function 0x%llx)",
                             (unsigned long long)function_id);
    }
    sender_emit(WIRE_FUNCTION_NAME, flags, clock_mono_ns(), &fixed, sizeof(fixed), name, n, NULL, 0);
}

/* ---- connection ---- */

static int sender_connect(void)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd;

    memcpy(addr.sun_path, agent.socket_path, sizeof(addr.sun_path));
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void sender_hello(void)
{
    wire_hello h;

    memset(&h, 0, sizeof(h));
    memcpy(h.magic, WIRE_MAGIC, 8);
    h.version = WIRE_VERSION;
    h.pid = (uint32_t)getpid();
    h.mode = (uint32_t)agent.mode;
    h.runtime_type = agent.runtime_type;
    h.clr_instance_id = agent.clr_instance_id;
    h.major = agent.major, h.minor = agent.minor, h.build = agent.build, h.qfe = agent.qfe;
    h.monotonic_ns = clock_mono_ns();
    h.realtime_ns = clock_real_ns();
    memcpy(h.token, agent.token, WIRE_TOKEN_LEN);
    h.ring_bytes = (uint32_t)agent.ring.capacity;
    sender_seq = 0;
    sender_emit(WIRE_HELLO, 0, h.monotonic_ns, &h, sizeof(h), NULL, 0, NULL, 0);
}

static void sender_drops(void)
{
    wire_drops d;

    memset(&d, 0, sizeof(d));
    d.dropped[WIRE_DROP_RING_FULL] = atomic_load(&agent.ring.full_drops);
    d.dropped[WIRE_DROP_TOO_LARGE] = atomic_load(&agent.ring.large_drops);
    d.dropped[WIRE_DROP_NO_SERVER] = atomic_load(&agent.no_server_drops);
    d.dropped[WIRE_DROP_NAME_FAILED] = atomic_load(&agent.name_failures);
    d.produced = atomic_load(&agent.ring.reservations);
    d.ring_used = ring_used_bytes(&agent.ring);
    sender_emit(WIRE_DROPS, 0, clock_mono_ns(), &d, sizeof(d), NULL, 0, NULL, 0);
}

/* ---- ring ---- */

/* Names every FunctionID in a WIRE_STACK_THREAD payload (native frames have 0). */
static void sender_name_frames(const uint8_t *payload, uint32_t length)
{
    wire_stack_thread t;
    wire_stack_frame f;
    uint32_t i, n;

    if (length < sizeof(t))
        return;
    memcpy(&t, payload, sizeof(t));
    n = (length - (uint32_t)sizeof(t)) / (uint32_t)sizeof(f);
    if (t.frame_count < n)
        n = t.frame_count;
    for (i = 0; i < n && agent.fd >= 0; i++) {
        memcpy(&f, payload + sizeof(t) + (size_t)i * sizeof(f), sizeof(f));
        if (f.function_id)
            sender_emit_function_name(f.function_id, 0, 0);
    }
}

/* Moves up to `budget` ring records to the output (or discards them while
 * disconnected). Returns how many were taken. */
static unsigned sender_drain(unsigned budget)
{
    unsigned taken = 0;
    uint32_t length;
    const uint8_t *rec;

    while (taken < budget && (rec = ring_peek(&agent.ring, &length)) != NULL) {
        wire_frame_header h;

        memcpy(&h, rec, sizeof(h));
        if (agent.fd < 0) {
            atomic_fetch_add_explicit(&agent.no_server_drops, 1, memory_order_relaxed);
        } else {
            if (h.type == WIRE_JIT_STARTED || h.type == WIRE_JIT_FINISHED) {
                uint64_t fid;
                memcpy(&fid, rec + sizeof(h), sizeof(fid));
                if (!(h.flags & WIRE_FLAG_DYNAMIC)) /* named on the JIT thread (events.c) */
                    sender_emit_function_name(fid, 0, 0);
            } else if (h.type == WIRE_STACK_THREAD) {
                sender_name_frames(rec + sizeof(h), h.length);
            }
            sender_emit(h.type, h.flags, h.time_ns, rec + sizeof(h), h.length, NULL, 0, NULL, 0);
        }
        ring_release(&agent.ring);
        taken++;
    }
    return taken;
}

/* ---- commands from the server ---- */

/* Returns 1 when the thread must leave the library now (detach requested). */
static int sender_detach(uint32_t expected_ms)
{
    wire_detach_status status;
    HRESULT hr = S_OK;

    /* sampling stops and the walker is joined first: once the runtime may
     * unload us, no thread of ours may be left in the library */
    if (stacks_stop(SENDER_WALKER_WAIT_MS) != 0)
        hr = STACKS_E_BUSY;
    while (sender_drain(4096) > 0)
        ;
    sender_drops();
    sender_flush(1);
    if (SUCCEEDED(hr)) {
        walk_runtime_lock();
        hr = agent.info->lpVtbl->RequestProfilerDetach(agent.info, expected_ms);
        walk_runtime_unlock();
    }
    status.state = FAILED(hr) ? WIRE_DETACH_REFUSED : WIRE_DETACH_REQUESTED;
    status.hresult = hr;
    sender_emit(WIRE_DETACH_STATUS, 0, clock_mono_ns(), &status, sizeof(status), NULL, 0, NULL, 0);
    sender_flush(1);
    if (FAILED(hr))
        return 0;
    atomic_store(&agent.detach_requested, 1);
    return 1;
}

/* Reads and runs commands. Returns 1 when the thread must leave (detach). */
static int sender_commands(void)
{
    ssize_t n = recv(agent.fd, sender_in + sender_in_used, sizeof(sender_in) - sender_in_used,
                     MSG_DONTWAIT);
    size_t off = 0;
    int leave = 0;

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        sender_disconnect();
        return 0;
    }
    if (n > 0)
        sender_in_used += (size_t)n;
    while (!leave) {
        wire_command cmd;
        size_t used;
        const char *why = NULL;
        int rc = wire_decode_command(sender_in + off, sender_in_used - off, &cmd, &used, &why);

        if (rc == WIRE_DECODE_NEED_MORE)
            break;
        if (rc != WIRE_DECODE_OK) { /* not our server */
            fprintf(stderr, "jitscope agent: bad command from the server (%s); disconnecting\n", why);
            sender_disconnect();
            return 0;
        }
        off += used;
        switch (cmd.type) {
        case WIRE_CMD_DETACH:
            leave = sender_detach(cmd.u.detach.expected_ms > 60000 ? 60000 : cmd.u.detach.expected_ms);
            break;
        case WIRE_CMD_PING:
            while (sender_drain(4096) > 0) /* a pong means: all before it was sent */
                ;
            sender_emit(WIRE_PONG, 0, clock_mono_ns(), &cmd.u.ping, sizeof(cmd.u.ping), NULL, 0,
                        NULL, 0);
            break;
        case WIRE_CMD_SNAPSHOT:
            stacks_snapshot(cmd.u.snapshot.request_id);
            break;
        case WIRE_CMD_PROFILE_START:
            stacks_profile_start(&cmd.u.profile_start);
            break;
        case WIRE_CMD_PROFILE_STOP:
            stacks_profile_stop();
            break;
        default: /* unknown commands are ignored: a newer server may know more */
            break;
        }
    }
    if (agent.fd >= 0) {
        memmove(sender_in, sender_in + off, sender_in_used - off);
        sender_in_used -= off;
    }
    return leave;
}

/* ---- the thread ---- */

static void *sender_main(void *arg)
{
    unsigned backoff = SENDER_BACKOFF_MIN_MS;
    uint64_t next_try = 0, last_drops = 0, lost_since = 0, dropped_seen = 0, connected_at = 0;
    int ever_connected = 0;

    (void)arg;
    pthread_setname_np(pthread_self(), "jitscope-agent");
    for (;;) {
        uint64_t now = clock_mono_ns();
        struct pollfd p;

        if (atomic_load(&agent.stopping))
            break;
        if (agent.fd < 0) {
            if (now >= next_try) {
                /* every attempt pushes the next one back, also a successful one: a
                 * server that closes at once (wrong token, session taken) must not
                 * make us spin; the back-off resets once a connection has lasted */
                agent.fd = sender_connect();
                next_try = now + (uint64_t)backoff * 1000000u;
                backoff = backoff * 2 > SENDER_BACKOFF_MAX_MS ? SENDER_BACKOFF_MAX_MS : backoff * 2;
                if (agent.fd >= 0) {
                    uint64_t dropped = atomic_load(&agent.no_server_drops);
                    sender_named_reset();
                    sender_hello();
                    /* startup mode: a reconnect after records were lost needs a catch-up */
                    if (ever_connected || dropped != dropped_seen)
                        atomic_store(&agent.catchup_requested, 1);
                    dropped_seen = dropped;
                    ever_connected = 1;
                    connected_at = now;
                }
            }
            if (agent.fd < 0) {
                if (!lost_since)
                    lost_since = now;
                /* attach mode: the server that attached us is gone (or never came):
                 * nobody will come back for us, so leave the process */
                if (agent.mode == WIRE_MODE_ATTACH && now - lost_since > SENDER_ORPHAN_NS &&
                    stacks_stop(SENDER_WALKER_WAIT_MS) == 0) {
                    HRESULT hr;
                    walk_runtime_lock();
                    hr = agent.info->lpVtbl->RequestProfilerDetach(agent.info, 0);
                    walk_runtime_unlock();
                    if (SUCCEEDED(hr)) {
                        atomic_store(&agent.detach_requested, 1);
                        return NULL;
                    }
                    lost_since = now; /* refused: try again later */
                }
                sender_drain(1u << 20);
                sender_sleep_ms(10);
                continue;
            }
        }
        if (connected_at && now - connected_at > SENDER_STABLE_NS) {
            connected_at = 0; /* a connection that lasted: a fresh start for the next loss */
            backoff = SENDER_BACKOFF_MIN_MS;
            next_try = 0;
            lost_since = 0;
        }
        if (atomic_exchange(&agent.catchup_requested, 0))
            catchup_run();
        p = (struct pollfd){.fd = agent.fd, .events = POLLIN};
        if (poll(&p, 1, SENDER_POLL_MS) > 0 && sender_commands())
            return NULL; /* detach: leave the library at once */
        if (agent.fd < 0)
            continue;
        sender_drain(8192);
        if (now - last_drops >= SENDER_DROPS_EVERY_NS) {
            sender_drops();
            last_drops = now;
        }
        sender_flush(0);
    }
    /* Shutdown: send what is left, within bounds */
    if (agent.fd >= 0) {
        while (sender_drain(8192) > 0 && agent.fd >= 0)
            ;
        sender_drops();
        sender_flush(1);
    }
    sender_disconnect();
    return NULL;
}

int sender_start(void)
{
    sigset_t all, old;
    int rc;

    agent.fd = -1;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the app's signals are not ours to handle */
    rc = pthread_create(&agent.sender, NULL, sender_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return -1;
    agent.sender_started = 1;
    return 0;
}

void sender_stop(void)
{
    struct timespec deadline;

    if (!agent.sender_started)
        return;
    atomic_store(&agent.stopping, 1);
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 3;
    if (pthread_timedjoin_np(agent.sender, NULL, &deadline) == 0)
        agent.sender_started = 0;
}

void sender_detach_succeeded(void)
{
    wire_detach_status status = {WIRE_DETACH_SUCCEEDED, 0};

    if (agent.sender_started) {
        pthread_join(agent.sender, NULL); /* it returned right after RequestProfilerDetach */
        agent.sender_started = 0;
    }
    if (agent.fd >= 0) {
        while (sender_drain(8192) > 0 && agent.fd >= 0)
            ;
        sender_drops();
        sender_emit(WIRE_DETACH_STATUS, 0, clock_mono_ns(), &status, sizeof(status), NULL, 0,
                    NULL, 0);
        sender_flush(1);
    }
    sender_disconnect();
    atomic_store(&agent.ring_ready, 0);
    ring_destroy(&agent.ring);
    sender_named_reset();
}
