/* sender.c -- the loop of the agent's sender thread ("jitscope-agent").
 *
 * Loop: (re)connect with back-off; on a connection send the hello, then a
 * catch-up when one is due (attach, or a reconnect after records were lost;
 * catchup.c); drain the ring, naming each function the first time this
 * connection sees it (naming.c: in JIT records and in the frames of stack
 * records) and each new thread by its OS name (osname.h); read commands (detach, ping,
 * code lookups for the server's CPU profiler (codelookup.c), and snapshot /
 * profile, which go to the walker thread, stacks.c); report drop counters. While
 * no server is connected,
 * ring records are discarded and counted, so the app never waits and memory
 * stays bounded. The socket and its bounded buffers are conn.c's; this thread is
 * the only one that uses them. Its calls into the runtime are made under the
 * runtime lock (walk.c says why); before RequestProfilerDetach the walker thread
 * is stopped and joined, so no agent thread outlives the detach.
 * A floor agent (JITSCOPE_NULL=1) runs the same loop with nothing in its ring:
 * hello, tier-source status, pong, detach; no catch-up, counters or stacks.
 */
#include <signal.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sender.h"
#include "agent.h"
#include "allocations.h"
#include "catchup.h"
#include "code.h"
#include "codelookup.h"
#include "clock.h"
#include "conn.h"
#include "mdcache.h"
#include "eventmask.h"
#include "exccount.h"
#include "names_cache.h"
#include "naming.h"
#include "osname.h"
#include "stacks.h"
#include "tiers.h"
#include "unload.h"
#include "walk.h"
#include "wire_decode.h"

#define SENDER_POLL_MS 5
#define SENDER_BACKOFF_MIN_MS 50
#define SENDER_BACKOFF_MAX_MS 2000     /* a restarted server is found within this */
#define SENDER_STABLE_NS 1000000000ull /* a connection this old resets the back-off */
#define SENDER_DROPS_EVERY_NS 500000000ull
#define SENDER_WALKER_WAIT_MS 3000            /* detach: longest wait for the walker to end */
#define SENDER_LAST_FLUSH_MS 1000ull          /* Shutdown, detach: the last records' time budget */
#define SENDER_JOIN_MS 4000                   /* Shutdown: the sender ends well within this */
#define SENDER_COUNTERS_MS 250ull             /* Shutdown, detach: the final counters' own budget */
#define SENDER_PREFAULT_BYTES (1024u * 1024u) /* ring pages mapped ahead of the producers */

static pthread_t sender_thread;
static int sender_started; /* sender_thread is joinable */

/* ---- records of the sender itself ---- */

/* Tells the server whether compilations carry their tier (tiers.h). */
static void sender_tiers_status(void)
{
    wire_tiers_status t;

    tiers_status(&t);
    conn_emit(WIRE_TIERS_STATUS, 0, clock_mono_ns(), &t, sizeof(t), NULL, 0, NULL, 0);
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
    h.parent_pid = (uint32_t)getppid();
    h.agent_flags = agent.floor ? WIRE_AGENT_FLOOR : 0;
    walk_runtime_lock();
    eventmask_get(agent.info, &h.event_mask, &h.event_mask_high);
    walk_runtime_unlock();
    conn_emit(WIRE_HELLO, 0, h.monotonic_ns, &h, sizeof(h), NULL, 0, NULL, 0);
    sender_tiers_status();
}

/* The agent's own time in JIT callbacks so far (events.c keeps it). */
static void sender_cost(void)
{
    wire_agent_cost c;
    unsigned i;

    c.callbacks = atomic_load_explicit(&agent.cost_callbacks, memory_order_relaxed);
    c.total_ns = atomic_load_explicit(&agent.cost_total_ns, memory_order_relaxed);
    for (i = 0; i < WIRE_COST_BUCKETS; i++)
        c.buckets[i] = atomic_load_explicit(&agent.cost_buckets[i], memory_order_relaxed);
    mdcache_counts(&c.metadata_direct_modules, &c.metadata_importer_opens);
    conn_emit(WIRE_AGENT_COST, 0, clock_mono_ns(), &c, sizeof(c), NULL, 0, NULL, 0);
}

static void sender_drops(void)
{
    wire_drops d;

    if (agent.floor) /* it counts nothing */
        return;
    memset(&d, 0, sizeof(d));
    /* the losses before produced: each loss is counted after its attempt (ring.c) */
    d.dropped[WIRE_DROP_RING_FULL] = atomic_load(&agent.ring.full_drops);
    d.dropped[WIRE_DROP_TOO_LARGE] = atomic_load(&agent.ring.large_drops);
    d.dropped[WIRE_DROP_NO_SERVER] = atomic_load(&agent.no_server_drops);
    d.dropped[WIRE_DROP_NAME_FAILED] = atomic_load(&agent.name_failures);
    d.dropped[WIRE_DROP_SLOW_SERVER] = atomic_load(&agent.slow_server_drops);
    d.dropped[WIRE_DROP_NAME_LATE] = atomic_load(&agent.names_late);
    d.dropped[WIRE_DROP_SHUTDOWN] = atomic_load(&agent.shutdown_drops);
    d.produced = atomic_load(&agent.ring.reservations);
    d.ring_used = ring_used_bytes(&agent.ring);
    conn_emit(WIRE_DROPS, 0, clock_mono_ns(), &d, sizeof(d), NULL, 0, NULL, 0);
    sender_cost();
    allocations_flush_unsent();
}

/* ---- ring ---- */

/* A thread the runtime just started: its OS name too (osname.h), once (the
 * runtime follows THREAD_CREATED with THREAD_OS_ID for the same thread). */
static void sender_thread_os_name(const uint8_t *payload, uint32_t length)
{
    static uint64_t last_thread;
    static uint32_t last_os;
    wire_thread t;

    if (length < sizeof(t))
        return;
    memcpy(&t, payload, sizeof(t));
    if (t.os_thread_id == 0 || (t.thread_id == last_thread && t.os_thread_id == last_os))
        return;
    last_thread = t.thread_id;
    last_os = t.os_thread_id;
    osname_send(t.thread_id, t.os_thread_id, 0);
}

/* The drain's look-ahead: the FunctionIDs of the JIT records a few records
 * ahead of the one being sent have their look-ups (the named set, the set
 * known alive) asked of the cache while this one is named, which takes a
 * microsecond of runtime calls. Without it, each new function's two look-ups
 * miss the cache, the app's JIT having run on the other core in between.
 * sender_ahead_pos is where the look-ahead stands (the tail or a position
 * ring_read_at gave), sender_ahead_count how many records lie between the
 * tail and it. A hint only: nothing read here changes what is sent. */
#define SENDER_LOOK_AHEAD 4u
static uint64_t sender_ahead_pos;
static unsigned sender_ahead_count;

static void sender_look_ahead(uint64_t tail)
{
    const uint8_t *rec;
    uint32_t length;

    if (sender_ahead_pos <= tail) { /* caught up, or records went without the drain */
        sender_ahead_pos = tail;
        sender_ahead_count = 0;
    }
    while (sender_ahead_count < SENDER_LOOK_AHEAD &&
           (rec = ring_read_at(&agent.ring, &sender_ahead_pos, &length)) != NULL) {
        wire_frame_header h;
        uint64_t fid;

        sender_ahead_count++;
        if (length < sizeof(h) + sizeof(fid))
            continue;
        memcpy(&h, rec, sizeof(h));
        if ((h.type != WIRE_JIT_STARTED && h.type != WIRE_JIT_FINISHED) ||
            (h.flags & WIRE_FLAG_DYNAMIC))
            continue;
        memcpy(&fid, rec + sizeof(h), sizeof(fid));
        naming_prefetch(fid);
        code_prefetch(fid);
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
        uint64_t pos = ring_tail(&agent.ring); /* where this record sits */
        wire_frame_header h;

        memcpy(&h, rec, sizeof(h));
        naming_passed(pos); /* unloads fenced before this record: their IDs are forgotten */
        if (!conn_connected()) {
            atomic_fetch_add_explicit(&agent.no_server_drops, 1, memory_order_relaxed);
        } else {
            int rc = 0;
            sender_look_ahead(pos);
            if (h.type == WIRE_JIT_STARTED || h.type == WIRE_JIT_FINISHED) {
                uint64_t fid;
                memcpy(&fid, rec + sizeof(h), sizeof(fid));
                if (!(h.flags & WIRE_FLAG_DYNAMIC)) /* named on the JIT thread (events.c) */
                    rc = naming_function(fid, NAMING_HAS_METADATA, 0, pos);
            } else if (h.type == WIRE_FUNCTION_NAME && h.length >= sizeof(uint64_t)) {
                uint64_t fid; /* a dynamic method named on its JIT thread */
                memcpy(&fid, rec + sizeof(h), sizeof(fid));
                naming_note(fid);
            } else if (h.type == WIRE_STACK_THREAD) {
                rc = naming_stack_frames(rec + sizeof(h), h.length, pos);
            } else if (h.type == WIRE_INLINING || h.type == WIRE_CODE_SEARCH) {
                rc = naming_record_functions(h.type, h.flags, rec + sizeof(h), h.length, pos);
            } else if (h.type == WIRE_EXCEPTION || h.type == WIRE_EXCEPTION_CAUGHT ||
                       h.type == WIRE_ALLOCATION) {
                rc = naming_exception_functions(h.type, rec + sizeof(h), h.length, pos);
            }
            if (rc == 0)
                rc = conn_forward(rec); /* encoded once (emit.c): copied, its number stamped */
            if (rc == 0 && (h.type == WIRE_THREAD_CREATED || h.type == WIRE_THREAD_OS_ID))
                sender_thread_os_name(rec + sizeof(h), h.length);
            if (rc == 0)
                code_note_record(rec, length, pos); /* proof of life for code requests */
            /* a server that does not read: the record stays in the ring, and the
             * app's threads count what no longer fits there */
            if (rc == CONN_NO_ROOM)
                break;
            if (rc != 0 && !conn_connected())
                atomic_fetch_add_explicit(&agent.no_server_drops, 1, memory_order_relaxed);
        }
        ring_release(&agent.ring);
        if (sender_ahead_count)
            sender_ahead_count--; /* the record just released was one of them */
        taken++;
    }
    return taken;
}

/* Discards what the ring holds, counted in *counter (never hidden). */
static void sender_discard(_Atomic uint64_t *counter)
{
    uint32_t length;

    while (ring_peek(&agent.ring, &length) != NULL) {
        atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
        ring_release(&agent.ring);
    }
}

/* Shutdown, detach: what could not be sent in time is counted, not hidden. */
static void sender_discard_rest(void) { sender_discard(&agent.shutdown_drops); }

/* Shutdown: the final counters (with the drops just counted) get a budget of
 * their own, so a server that is slow but reads learns what was lost. */
static void sender_last_counters(void)
{
    conn_set_deadline(clock_mono_ns() + SENDER_COUNTERS_MS * 1000000ull);
    exccount_flush();
    sender_drops();
    conn_flush(1);
}

/* Asks the runtime for no callbacks (1) or for all of ours again (0), under
 * the runtime lock like every call of this thread. Returns 0, or -1 (then
 * nothing changed, and the agent simply keeps its callbacks). */
static int sender_quiet(int quiet)
{
    HRESULT hr;

    walk_runtime_lock();
    hr = eventmask_set(agent.info, quiet);
    walk_runtime_unlock();
    return SUCCEEDED(hr) ? 0 : -1;
}

/* Sends the ring's records until it is empty, the connection is gone or the
 * CLOCK_MONOTONIC deadline passed (conn.c's waits end there too). */
static void sender_drain_until(uint64_t deadline)
{
    conn_set_deadline(deadline);
    while (conn_connected() && clock_mono_ns() < deadline && sender_drain(4096) > 0)
        ;
}

/* ---- commands from the server ---- */

/* Asks the runtime to unload us, with the walker already stopped: the tier
 * source's EventPipe session is closed first (no EventPipe callback may come
 * once the runtime may unload us) and reopened if the runtime refuses. On
 * success sets agent.detach_requested; the caller's thread must then leave. */
static HRESULT sender_request_detach(uint32_t expected_ms)
{
    static const _Atomic int never = 0;
    int tiers_were_on = tiers_running();
    HRESULT hr;

    if (tiers_were_on) /* (no thread for a source that is off) */
        tiers_switch(agent.info, 0);
    walk_runtime_lock();
    /* the last look-ups allowed: names of whatever the ring still holds are
     * read now, and the final drain (sender_detach_succeeded) uses them */
    naming_prepare(ring_head(&agent.ring), 0, &never);
    names_cache_release(); /* the importers it kept (released again if refused: refilled) */
    hr = agent.info->lpVtbl->RequestProfilerDetach(agent.info, expected_ms);
    walk_runtime_unlock();
    if (SUCCEEDED(hr)) {
        atomic_store(&agent.detach_requested, 1);
    } else if (tiers_were_on) {
        tiers_switch(agent.info, 1); /* refused: the agent stays, and so do tiers */
        if (conn_connected())
            sender_tiers_status();
    }
    return hr;
}

/* Returns 1 when the thread must leave the library now (detach requested). */
static int sender_detach(uint32_t expected_ms)
{
    wire_detach_status status;
    HRESULT hr = S_OK;

    /* sampling stops and the walker is joined first: once the runtime may
     * unload us, no thread of ours may be left in the library */
    if (stacks_stop(SENDER_WALKER_WAIT_MS) != 0)
        hr = STACKS_E_BUSY;
    sender_drain_until(clock_mono_ns() + SENDER_LAST_FLUSH_MS * 1000000ull);
    conn_set_deadline(0);
    sender_drops();
    conn_flush(1);
    if (SUCCEEDED(hr))
        hr = sender_request_detach(expected_ms);
    status.state = FAILED(hr) ? WIRE_DETACH_REFUSED : WIRE_DETACH_REQUESTED;
    status.hresult = hr;
    conn_emit(WIRE_DETACH_STATUS, 0, clock_mono_ns(), &status, sizeof(status), NULL, 0, NULL, 0);
    conn_flush(1);
    return SUCCEEDED(hr);
}

/* Reads and runs commands. Returns 1 when the thread must leave (detach). */
static int sender_commands(void)
{
    size_t off = 0, length;
    int leave = 0;

    if (conn_receive() != 0)
        return 0;
    while (!leave) {
        wire_command cmd;
        size_t used;
        const char *why = NULL;
        /* the input is looked up again each time: a command may close the connection */
        const uint8_t *in = conn_input(&length);
        int rc;

        if (!conn_connected() || off > length) /* closed by the last command: input reset */
            return leave;
        rc = wire_decode_command(in + off, length - off, &cmd, &used, &why);

        if (rc == WIRE_DECODE_NEED_MORE)
            break;
        if (rc != WIRE_DECODE_OK) { /* not our server */
            fprintf(stderr, "jitscope agent: bad command from the server (%s); disconnecting\n",
                    why);
            conn_close();
            return 0;
        }
        off += used;
        switch (cmd.type) {
        case WIRE_CMD_DETACH:
            leave = sender_detach(cmd.u.detach.expected_ms > 60000 ? 60000
                                                                   : cmd.u.detach.expected_ms);
            break;
        case WIRE_CMD_PING:
            while (sender_drain(4096) > 0) /* a pong means: all before it was sent */
                ;
            conn_emit(WIRE_PONG, 0, clock_mono_ns(), &cmd.u.ping, sizeof(cmd.u.ping), NULL, 0, NULL,
                      0);
            break;
        case WIRE_CMD_SNAPSHOT: /* the floor walks nothing (the server does not ask it) */
            if (!agent.floor)
                stacks_snapshot(cmd.u.snapshot.request_id);
            break;
        case WIRE_CMD_PROFILE_START:
            if (!agent.floor)
                stacks_profile_start(&cmd.u.profile_start);
            break;
        case WIRE_CMD_PROFILE_STOP: stacks_profile_stop(); break;
        case WIRE_CMD_TIERS:
            tiers_switch(agent.info, cmd.u.tiers.enabled != 0);
            sender_tiers_status();
            break;
        case WIRE_CMD_EXCEPTIONS:
            tiers_switch_exceptions(agent.info, cmd.u.exceptions.enabled != 0);
            break;
        case WIRE_CMD_ALLOCATIONS:
            tiers_switch_allocations(agent.info, cmd.u.allocations.enabled != 0);
            break;
        case WIRE_CMD_CODE: /* the floor reads none (it names no function to ask about) */
            if (!agent.floor)
                code_request(&cmd.u.code);
            break;
        case WIRE_CMD_CODE_LOOKUP: /* nor for a floor: the server refuses its CPU profiles */
            if (!agent.floor)
                codelookup_answer(&cmd.u.code_lookup);
            break;
        default: /* unknown commands are ignored: a newer server may know more */ break;
        }
    }
    if (conn_connected())
        conn_consume(off);
    return leave;
}

/* ---- the thread ---- */

static void *sender_loop(void)
{
    unsigned backoff = SENDER_BACKOFF_MIN_MS;
    uint64_t next_try = 0, last_drops = 0, lost_since = 0, dropped_seen = 0, connected_at = 0;
    int ever_connected = 0, linked = 0; /* linked: connected at the last look */
    /* the tier source was switched off because there is no server: without one
     * every record is discarded, so the runtime's MethodLoad events (about 12%
     * of a JIT-heavy run) would be paid for nothing; on again at (re)connect */
    int tiers_paused = 0;
    /* without a server every record would be discarded: the agent asks for no
     * callbacks at all meanwhile (eventmask.h), so the app runs as without it;
     * the next connection gets a catch-up that says how long that lasted */
    uint64_t quiet_since = 0; /* 0: callbacks on */
    uint32_t quiet_ms = 0;

    for (;;) {
        uint64_t now = clock_mono_ns();
        struct pollfd p;

        if (atomic_load(&agent.stopping))
            break;
        unload_service();
        if (!conn_connected()) {
            if (linked) { /* the connection went (conn.c closed it) */
                linked = 0;
                stacks_profile_stop(); /* the server that asked for a profile is gone */
            }
            if (now >= next_try) {
                /* every attempt pushes the next one back, also a successful one: a
                 * server that closes at once (wrong token, session taken) must not
                 * make us spin; the back-off resets once a connection has lasted */
                int opened;
                if (quiet_since) /* what is left from before is stale (unloads went unseen) */
                    sender_discard(&agent.no_server_drops);
                opened = conn_open() == 0;
                next_try = now + (uint64_t)backoff * 1000000u;
                backoff = backoff * 2 > SENDER_BACKOFF_MAX_MS ? SENDER_BACKOFF_MAX_MS : backoff * 2;
                if (opened) {
                    uint64_t dropped = atomic_load(&agent.no_server_drops);
                    if (quiet_since && sender_quiet(0) == 0) { /* live again, then catch up */
                        uint64_t ms = (now - quiet_since) / 1000000u;
                        quiet_ms = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
                        quiet_since = 0;
                        atomic_store(&agent.catchup_requested, 1);
                    }
                    if (tiers_paused) { /* before the hello, which reports the tier source */
                        tiers_switch(agent.info, 1);
                        tiers_paused = 0;
                    }
                    naming_reset();
                    code_forget();
                    sender_hello();
                    /* startup mode: a reconnect after records were lost needs a catch-up */
                    if (ever_connected || dropped != dropped_seen)
                        atomic_store(&agent.catchup_requested, 1);
                    dropped_seen = dropped;
                    ever_connected = 1;
                    linked = 1;
                    connected_at = now;
                }
            }
            if (!conn_connected()) {
                if (!lost_since)
                    lost_since = now;
                if (!tiers_paused && tiers_running()) {
                    tiers_switch(agent.info, 0);
                    tiers_paused = 1;
                }
                if (!quiet_since && sender_quiet(1) == 0)
                    quiet_since = now;
                /* the server is gone (or never came). A server started again on
                 * the same data directory binds the same socket and takes the
                 * session back; else nobody comes back for us (and children such
                 * as build servers may live on for minutes after their `run`).
                 * Leave the process after a bounded time. */
                if (now - lost_since > agent.give_up_ns &&
                    stacks_stop(SENDER_WALKER_WAIT_MS) == 0) {
                    if (SUCCEEDED(sender_request_detach(0)))
                        return NULL;
                    lost_since = now; /* refused: try again later */
                }
                sender_drain(1u << 20);
                clock_sleep_ns(10 * 1000000ull);
                continue;
            }
        }
        if (connected_at && now - connected_at > SENDER_STABLE_NS) {
            connected_at = 0; /* a connection that lasted: a fresh start for the next loss */
            backoff = SENDER_BACKOFF_MIN_MS;
            next_try = 0;
            lost_since = 0;
        }
        if (atomic_exchange(&agent.catchup_requested, 0) && !agent.floor) {
            catchup_run(quiet_ms);
            quiet_ms = 0;
        }
        p = (struct pollfd){.fd = conn_fd(), .events = POLLIN};
        if (poll(&p, 1, SENDER_POLL_MS) > 0 && sender_commands())
            return NULL; /* detach: leave the library at once */
        if (!conn_connected())
            continue;
        sender_drain(8192);
        exccount_flush(); /* the exceptions counted, not sent one by one */
        if (!agent.floor) /* the floor's ring stays empty */
            ring_prefault(&agent.ring, SENDER_PREFAULT_BYTES);
        if (now - last_drops >= SENDER_DROPS_EVERY_NS) {
            sender_drops();
            last_drops = now;
        }
        conn_flush(0);
    }
    /* Shutdown: send what is left within SENDER_LAST_FLUSH_MS, count the rest */
    if (conn_connected()) {
        uint64_t deadline = clock_mono_ns() + SENDER_LAST_FLUSH_MS * 1000000ull;
        sender_drain_until(deadline);
        sender_discard_rest();
        sender_last_counters();
    }
    conn_close();
    return NULL;
}

static void *sender_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), WIRE_AGENT_THREAD_NAME);
    conn_set_wait_hook(unload_service); /* a slow server must not hold an unload up */
    sender_loop();
    unload_sender_gone(); /* from now on no unload waits for this thread */
    return NULL;
}

int sender_start(void)
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the app's signals are not ours to handle */
    atomic_store(&agent.sender_running, 1);
    rc = pthread_create(&sender_thread, NULL, sender_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        atomic_store(&agent.sender_running, 0);
        return -1;
    }
    sender_started = 1;
    return 0;
}

void sender_stop(void)
{
    struct timespec deadline;

    if (!sender_started)
        return;
    atomic_store(&agent.stopping, 1);
    deadline = clock_deadline_ms(CLOCK_REALTIME, SENDER_JOIN_MS);
    if (pthread_timedjoin_np(sender_thread, NULL, &deadline) == 0)
        sender_started = 0;
    else /* every wait of the sender is bounded well below: a bug if seen */
        fprintf(stderr, "jitscope agent: the sender thread did not end within %d ms of Shutdown\n",
                SENDER_JOIN_MS);
}

void sender_detach_succeeded(void)
{
    wire_detach_status status = {WIRE_DETACH_SUCCEEDED, 0};

    if (sender_started) {
        pthread_join(sender_thread, NULL); /* it returned right after RequestProfilerDetach */
        sender_started = 0;
    }
    /* the runtime's own thread, inside the callback: bounded, and no call into
     * the runtime any more (names come from what sender_request_detach read) */
    if (conn_connected()) {
        sender_drain_until(clock_mono_ns() + SENDER_LAST_FLUSH_MS * 1000000ull);
        sender_discard_rest();
        conn_set_deadline(clock_mono_ns() + SENDER_COUNTERS_MS * 1000000ull);
        sender_drops();
        conn_emit(WIRE_DETACH_STATUS, 0, clock_mono_ns(), &status, sizeof(status), NULL, 0, NULL,
                  0);
        conn_flush(1);
    }
    conn_close();
    conn_set_deadline(0);
    atomic_store(&agent.ring_ready, 0);
    ring_destroy(&agent.ring);
    /* the runtime unloads the library after a detach: what is left on the heap
     * now stays in the app for good, once per attach */
    naming_free_all();
    code_forget();
}
