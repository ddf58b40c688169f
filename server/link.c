/* link.c -- agent connections: accept, authenticate, frame, apply (see link.h). */
#include "link.h"
#include "clock.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "fnname.h"
#include "linkcost.h"
#include "linksock.h"
#include "persist.h"
#include "proc.h"
#include "record_kinds.h"
#include "sessions.h"
#include "wire_decode.h"
#include "wire_encode.h"

#define LINK_MAX_CONNECTIONS 64 /* agents past their hello */
#define LINK_MAX_PENDING 64     /* connections that have not said hello yet */
#define LINK_SLOTS (LINK_MAX_CONNECTIONS + LINK_MAX_PENDING)
#define LINK_HELLO_MS 2000u    /* a connection must have said hello within this */
#define LINK_ACCEPT_BURST 256  /* connections accepted per wake-up at most */
#define LINK_SEND_WAIT_MS 500u /* longest wait for an agent to take a command */
#define LINK_BUFFER (2u * (WIRE_MAX_PAYLOAD + sizeof(wire_frame_header)))

typedef struct link_conn {
    int fd;
    int link_id;
    int session_id;       /* 0 until a valid hello */
    pid_t peer_pid;       /* the agent's process, from SO_PEERCRED (0 when not visible here) */
    uint64_t accepted_ns; /* CLOCK_MONOTONIC: the hello is due LINK_HELLO_MS after this */
    size_t used;
    /* new functions its session's index took without growing, as of the last
     * consume (link_grow_index_ahead looks only when a read could need more) */
    size_t index_room;
    size_t names_room; /* the same for its name table (link_grow_names_ahead) */
    uint8_t buf[LINK_BUFFER];
} link_conn;

static int link_wake[2] = {-1, -1};
static pthread_t link_thread;
static _Atomic int link_thread_started;
static pthread_mutex_t link_mutex = PTHREAD_MUTEX_INITIALIZER; /* guards link_conns fds for send */
static link_conn *link_conns[LINK_SLOTS];
static int link_next_id = 1;
static int64_t link_room_checked;    /* when the link thread last made room in the memory budget */
static int link_pending, link_bound; /* link_conns without and with a session (link thread) */
static unsigned link_unheard;        /* closed without a hello since the last log line */
static void (*link_sweep_hook)(void);

const char *link_socket_path(void) { return linksock_path(); }

void link_set_note(const char *text) { linksock_set_note(text); }

void link_on_sweep(void (*hook)(void)) { link_sweep_hook = hook; }

static void *link_main(void *arg);

/* link_take_backlog's request to the link thread, and its answer */
static pthread_mutex_t link_backlog_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t link_backlog_cond = PTHREAD_COND_INITIALIZER;
static _Atomic unsigned link_backlog_asked;
static unsigned link_backlog_done; /* guarded by link_backlog_mutex */
static unsigned link_backlog_seen; /* the last request the link thread took (its own) */

/* Wakes the link thread (a listener added or removed). */
static void link_wake_up(void)
{
    ssize_t w = write(link_wake[1], "w", 1);
    (void)w;
}

int link_start(const char *stable_key, char *err, size_t errsz)
{
    if (linksock_start(stable_key, err, errsz) != 0)
        return -1;
    if (pipe2(link_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, errsz, "pipe2: %s", strerror(errno));
        goto fail;
    }
    linksock_set_waker(link_wake_up);
    pthread_mutex_lock(&link_backlog_mutex); /* a stopped thread's answers do not count */
    link_backlog_done = link_backlog_seen = atomic_load(&link_backlog_asked);
    pthread_mutex_unlock(&link_backlog_mutex);
    if (pthread_create(&link_thread, NULL, link_main, NULL) != 0) {
        snprintf(err, errsz, "pthread_create: link thread");
        goto fail;
    }
    link_thread_started = 1;
    return 0;
fail:
    link_stop();
    return -1;
}

/* Writes all n bytes or gives up after LINK_SEND_WAIT_MS. A command is written
 * whole or the connection is shut down: half a frame would leave the agent's
 * command stream out of step for good. Called with link_mutex held. */
static int link_write_whole(int fd, int link_id, const uint8_t *p, size_t n)
{
    size_t off = 0;
    uint64_t deadline = clock_mono_ns() + LINK_SEND_WAIT_MS * 1000000ull;

    while (off < n) {
        ssize_t w = send(fd, p + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        uint64_t now;
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};

        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            break;
        now = clock_mono_ns();
        if (now >= deadline)
            break;
        poll(&pfd, 1, (int)((deadline - now) / 1000000ull) + 1);
    }
    if (off == n)
        return 0;
    if (off > 0) {
        fprintf(stderr,
                "jitscope: agent link %d took only %zu of %zu bytes of a command; closing it\n",
                link_id, off, n);
        shutdown(fd, SHUT_RDWR); /* the link thread sees it and closes the session's link */
    }
    return -1;
}

int link_send(int link_id, uint16_t type, const void *payload, uint32_t length)
{
    uint8_t frame[sizeof(wire_frame_header) + WIRE_MAX_COMMAND];
    wire_frame_header h = {.type = type};
    size_t size;
    int rc = -1, i;

    if (length > WIRE_MAX_COMMAND)
        return -1;
    size = wire_encode(frame, &h, payload, length, NULL, 0, NULL, 0);
    pthread_mutex_lock(&link_mutex);
    for (i = 0; i < LINK_SLOTS; i++) {
        link_conn *c = link_conns[i];
        if (c && c->link_id == link_id) {
            rc = link_write_whole(c->fd, link_id, frame, size);
            break;
        }
    }
    pthread_mutex_unlock(&link_mutex);
    return rc;
}

static void link_close(int slot, const char *why)
{
    link_conn *c = link_conns[slot];

    if (c->session_id) {
        session *s;
        linkcost_report(stderr, c->link_id);
        sessions_lock();
        s = sessions_get(c->session_id);
        if (s && s->link_id == c->link_id) {
            session_link_lost(s, (int64_t)clock_real_ns());
            sessions_changed(); /* a request waiting for this agent gives up */
        }
        sessions_unlock();
        link_bound--;
    } else {
        link_pending--;
    }
    if (why)
        fprintf(stderr, "jitscope: agent connection %d closed: %s\n", c->link_id, why);
    pthread_mutex_lock(&link_mutex);
    link_conns[slot] = NULL;
    pthread_mutex_unlock(&link_mutex);
    close(c->fd);
    free(c);
}

/* Closes a connection that has not said hello, without a line of its own:
 * a flood of them is counted and logged once (link_check_hellos). */
static void link_close_unheard(int slot)
{
    link_close(slot, NULL);
    link_unheard++;
}

/* The slot of the oldest connection without a hello, or -1. */
static int link_oldest_pending(void)
{
    int i, oldest = -1;

    for (i = 0; i < LINK_SLOTS; i++) {
        link_conn *c = link_conns[i];
        if (c && !c->session_id && (oldest < 0 || c->accepted_ns < link_conns[oldest]->accepted_ns))
            oldest = i;
    }
    return oldest;
}

/* Accepts one connection; 0 when there was one, -1 when the backlog is empty.
 * A connection is pending until its hello binds it to a session (link_bind):
 * it has LINK_HELLO_MS for that, and at most LINK_MAX_PENDING are pending at
 * once; a new one beyond that closes the oldest pending one, so connections
 * that say nothing can never keep a real agent out (an agent says hello at
 * once and is never the oldest for long). Agents past their hello have their
 * own LINK_MAX_CONNECTIONS. A peer must be of our uid, or of the uid the
 * listener (listen_fd, `handle` in linksock.h) welcomes: an agent in a
 * container whose user is another on this side. */
static int link_accept(int listen_fd, int handle)
{
    struct ucred cred = {.uid = (uid_t)-1};
    socklen_t len = sizeof(cred);
    link_conn *c;
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), i;

    if (fd < 0)
        return errno == EINTR || errno == ECONNABORTED ? 0 : -1;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
        !linksock_peer_ok(handle, cred.uid)) {
        fprintf(stderr, "jitscope: refused agent connection from uid %d (not ours)\n",
                (int)cred.uid);
        close(fd);
        return 0;
    }
    if (link_pending >= LINK_MAX_PENDING)
        link_close_unheard(link_oldest_pending());
    for (i = 0; i < LINK_SLOTS && link_conns[i]; i++)
        ;
    if (i == LINK_SLOTS || !(c = calloc(1, sizeof(*c)))) {
        fprintf(stderr, "jitscope: refused agent connection: out of memory\n");
        close(fd);
        return 0;
    }
    c->fd = fd;
    c->peer_pid = cred.pid;
    c->link_id = link_next_id++;
    c->accepted_ns = clock_mono_ns();
    pthread_mutex_lock(&link_mutex);
    link_conns[i] = c;
    pthread_mutex_unlock(&link_mutex);
    link_pending++;
    return 0;
}

/* Closes the connections whose hello is overdue, and logs how many went
 * unheard. Returns the milliseconds until the next hello is due (at most max_ms). */
static int link_check_hellos(int max_ms)
{
    uint64_t now = clock_mono_ns(), due = LINK_HELLO_MS * 1000000ull;
    int i, wait_ms = max_ms;

    for (i = 0; i < LINK_SLOTS; i++) {
        link_conn *c = link_conns[i];
        int left_ms;
        if (!c || c->session_id)
            continue;
        if (now - c->accepted_ns >= due) {
            link_close_unheard(i);
            continue;
        }
        left_ms = (int)((c->accepted_ns + due - now) / 1000000ull) + 1;
        if (left_ms < wait_ms)
            wait_ms = left_ms;
    }
    if (link_unheard) {
        fprintf(stderr,
                "jitscope: closed %u agent connection(s) that sent no hello within %u ms, or "
                "were the oldest of more than %d without one\n",
                link_unheard, LINK_HELLO_MS, LINK_MAX_PENDING);
        link_unheard = 0;
    }
    return wait_ms;
}

/* A process of root's run other than the launched one: its own session under
 * root (created on its first connection, found again when its agent
 * reconnects). Its parent comes from /proc, the hello's word only when /proc
 * no longer has the process. */
static session *link_child_session(session *root, pid_t pid, const wire_hello *h, const char **why)
{
    session *s = sessions_child_by_pid(root->id, pid);
    char command_line[1024];
    pid_t parent;

    if (s && !s->link_id && s->state != SESSION_EXITED && s->state != SESSION_DETACHED)
        return s;
    if (s && s->link_id) {
        *why = "that process's session already has an agent connection";
        return NULL;
    }
    parent = proc_parent_pid(pid);
    if (!parent)
        parent = session_pid_from_agent(h->parent_pid);
    proc_command_line(pid, command_line, sizeof(command_line));
    s = sessions_create_child(root, pid, parent, command_line);
    if (!s) {
        *why = "no room for another session";
        return NULL;
    }
    proc_program_name(pid, s->program, sizeof(s->program));
    s->created_ns = (int64_t)clock_real_ns();
    fprintf(stderr, "jitscope: pid %d (child of %d) joined session %d as session %d\n", (int)pid,
            (int)parent, root->id, s->id);
    return s;
}

/* Binds a connection to a session: the token in its hello names the run or
 * the attach; the agent's own pid (the kernel's word, SO_PEERCRED) picks the
 * session within a run, so the launched process keeps its session whichever
 * of its children connects first. */
static session *link_bind(link_conn *c, const wire_record *r, const char **why)
{
    session *root, *s;
    pid_t pid;

    if (r->type != WIRE_HELLO) {
        *why = "first record is not a hello";
        return NULL;
    }
    root = sessions_by_token(r->u.hello.token, WIRE_TOKEN_LEN);
    if (!root) {
        *why = "hello names no session of this server (bad token)";
        return NULL;
    }
    pid = c->peer_pid; /* 0 when the agent's pid is not visible here: the hello's is
                          of another namespace, so the run's own session takes it */
    if (root->mode != SESSION_MODE_RUN || pid == root->pid || pid <= 0)
        s = root;
    else
        s = link_child_session(root, pid, &r->u.hello, why);
    if (!s)
        return NULL;
    if (s->link_id) {
        *why = "session already has an agent connection";
        return NULL;
    }
    if (link_bound >= LINK_MAX_CONNECTIONS) {
        *why = "too many agent connections";
        return NULL;
    }
    if (!s->parent_pid && s->pid > 0)
        s->parent_pid = proc_parent_pid(s->pid);  /* the hello's is the agent's word */
    persist_resumed(s, (int64_t)clock_real_ns()); /* a session of a server before this one */
    s->link_id = c->link_id;
    session_budget_connected(s, 1); /* it shares the memory budget from now on */
    c->session_id = s->id;
    link_pending--;
    link_bound++;
    return s;
}

/* The function the next frame (if it is whole and about one function) looks
 * up: its index slot is fetched while this frame is applied. Only a hint: the
 * frame is checked when its turn comes. */
static void link_prefetch_next(const session *s, const uint8_t *p, size_t n)
{
    wire_frame_header h;
    uint64_t id;

    if (n < sizeof(h) + sizeof(id))
        return;
    memcpy(&h, p, sizeof(h));
    if (!(record_kind_flags(h.type) & RECORD_KIND_FUNCTION_FIRST))
        return;
    memcpy(&id, p + sizeof(h), sizeof(id));
    idindex_prefetch(&s->function_index, id);
}

/* The frame at p[0..n) decoded into r, when it is whole and valid: its size,
 * else 0 (it is decoded again at its turn, and refused then). */
static size_t link_decode_ahead(const uint8_t *p, size_t n, wire_record *r)
{
    wire_frame f;
    size_t used = 0;
    const char *why = NULL;

    if (wire_decode_frame(p, n, &f, &used, &why) != WIRE_DECODE_OK ||
        wire_decode_record(&f, r, &why) != WIRE_DECODE_OK)
        return 0;
    return used;
}

/* The fewest bytes a frame that names a new function takes (a header and a
 * FunctionID): what the buffer holds, divided by this, bounds the new
 * functions one consume can add. */
#define LINK_NEW_FUNCTION_MIN_BYTES (sizeof(wire_frame_header) + sizeof(uint64_t))
/* Below this capacity an index grows in well under a millisecond: in the lock. */
#define LINK_GROW_AHEAD_MIN (64u * 1024u)

static _Atomic unsigned long link_grown_ahead; /* link_index_grown_ahead's count */

unsigned long link_index_grown_ahead(void) { return link_grown_ahead; }

static _Atomic unsigned long link_names_grown; /* link_names_grown_ahead's count */

unsigned long link_names_grown_ahead(void) { return link_names_grown; }

/* Grows the session's function index, when the frames waiting could make it
 * grow, with most of the work outside the sessions lock: its slots are
 * copied under the lock (a few ms at a million functions), re-slotted into a
 * table twice the size without it (15-30 ms, what a query waited for), and
 * the table put in place under the lock again if the index is still the one
 * copied (the link thread is its only writer; else the copy is dropped and
 * the index grows in the lock as before). */
static void link_grow_index_ahead(const link_conn *c)
{
    idindex_slot *copy = NULL, *bigger;
    size_t cap = 0, capacity = 0, count = 0;
    const idindex_slot *copied_from = NULL;
    session *s;

    if (!c->session_id || c->used / LINK_NEW_FUNCTION_MIN_BYTES < c->index_room)
        return; /* the index has room for whatever these frames name */
    sessions_lock();
    s = sessions_get(c->session_id);
    if (s)
        cap = idindex_room_for(&s->function_index, c->used / LINK_NEW_FUNCTION_MIN_BYTES);
    if (cap >= LINK_GROW_AHEAD_MIN && s->function_index.capacity &&
        (copy = malloc(s->function_index.capacity * sizeof(*copy)))) {
        capacity = s->function_index.capacity, count = s->function_index.count;
        copied_from = s->function_index.slots;
        memcpy(copy, copied_from, capacity * sizeof(*copy));
        sessions_pin(s);
    }
    sessions_unlock();
    if (!copy)
        return;
    bigger = idindex_reslotted(copy, capacity, cap);
    free(copy);
    sessions_lock();
    if (bigger && s->function_index.slots == copied_from &&
        s->function_index.capacity == capacity && s->function_index.count == count) {
        idindex_install(&s->function_index, bigger, cap);
        link_grown_ahead++;
    } else
        free(bigger);
    sessions_unpin(s);
    sessions_unlock();
}

/* The same for the session's name table (strpool.h), when the frames waiting
 * could make it grow: a type part new to a table of a million strings made it
 * grow in the lock, 30 ms of re-slotting at 2M slots that a query waited for
 * (the distinct replay, bench/distinct.mjs). */
static void link_grow_names_ahead(const link_conn *c)
{
    strpool_slot *copy = NULL, *bigger;
    size_t cap = 0, capacity = 0, count = 0, more = c->used / LINK_NEW_FUNCTION_MIN_BYTES;
    const strpool_slot *copied_from = NULL;
    session *s;

    if (!c->session_id || more < c->names_room)
        return; /* the table has room for whatever these frames name */
    sessions_lock();
    s = sessions_get(c->session_id);
    if (s)
        cap = strpool_room_for(&s->names, more);
    if (cap >= LINK_GROW_AHEAD_MIN && s->names.capacity &&
        (copy = malloc(s->names.capacity * sizeof(*copy)))) {
        capacity = s->names.capacity, count = s->names.count;
        copied_from = s->names.slots;
        memcpy(copy, copied_from, capacity * sizeof(*copy));
        sessions_pin(s);
    }
    sessions_unlock();
    if (!copy)
        return;
    bigger = strpool_reslotted(copy, capacity, cap);
    free(copy);
    sessions_lock();
    if (bigger && s->names.slots == copied_from && s->names.capacity == capacity &&
        s->names.count == count) {
        strpool_install(&s->names, bigger, cap);
        link_names_grown++;
    } else
        free(bigger);
    sessions_unpin(s);
    sessions_unlock();
}

/* Applies every complete frame in the buffer. Returns NULL or why the stream is bad. */
static const char *link_consume(link_conn *c)
{
    const char *why = NULL;
    size_t off = 0;
    int64_t now = (int64_t)clock_real_ns();
    session *s = NULL;
    /* c->buf[run..logged) was folded and goes into the session's log as it
     * came; a refused frame is left out (the runs before it go first) */
    size_t run = 0, logged = 0;
    uint64_t consumed = linkcost_start_whole(), journal, decode;
    uint64_t records = 0;
    /* each frame is decoded once, a frame ahead of its turn, so that what it
     * will look up is fetched while the one before is applied */
    wire_record ahead[2];
    size_t ahead_used = 0; /* the size of the frame decoded into ahead[next], 0: none */
    int next = 0;

    sessions_lock();
    /* ended sessions give memory back before live ones are refused (a look
     * at most every 100 ms: it walks the registry) */
    if (budget_held() > budget_max() - budget_max() / 32 && now - link_room_checked > 100000000) {
        link_room_checked = now;
        persist_make_room();
    }
    while (!why) {
        wire_frame f;
        wire_record *r = &ahead[next];
        size_t used = ahead_used;
        int rc;
        size_t start = off;

        next ^= 1; /* ahead[next]: where the frame after this one is decoded */
        decode = linkcost_sample() ? linkcost_start() : 0;
        if (!ahead_used) { /* not decoded ahead (the first, or one that was not whole) */
            rc = wire_decode_frame(c->buf + off, c->used - off, &f, &used, &why);
            if (rc != WIRE_DECODE_OK)
                break;
            if (wire_decode_record(&f, r, &why) != WIRE_DECODE_OK) {
                off += used;
                break;
            }
        }
        off += used;
        ahead_used = link_decode_ahead(c->buf + off, c->used - off, &ahead[next]);
        linkcost_add(LINKCOST_DECODE, decode);
        records++;
        s = c->session_id ? sessions_get(c->session_id) : link_bind(c, r, &why);
        if (!s) {
            why = why ? why : "session vanished";
            break;
        }
        link_prefetch_next(s, c->buf + off, c->used - off);
        if (ahead_used && ahead[next].type == WIRE_FUNCTION_NAME && ahead[next].string_count)
            fnname_prefetch(&s->names, (const char *)ahead[next].strings[0].text,
                            ahead[next].strings[0].length);
        s->bytes += used;
        rc = session_apply(s, r, now, &why);
        if (rc < 0)
            break;
        if (rc == SESSION_REFUSED) { /* not folded: not in its log (what it moved is, later) */
            journal = linkcost_start_whole();
            if (start > run)
                persist_frames(s, now, c->buf + run, start - run);
            linkcost_add(LINKCOST_JOURNAL, journal);
            run = off;
            continue;
        }
        logged = off;
    }
    linkcost_end_batch();
    journal = linkcost_start_whole();
    if (s && logged > run) /* what was folded goes into its log, as it came */
        persist_frames(s, now, c->buf + run, logged - run);
    linkcost_add(LINKCOST_JOURNAL, journal);
    if (s && logged)
        sessions_changed(); /* wakes requests waiting for a record (POST /stacks) */
    if (s) {
        c->index_room = idindex_room(&s->function_index);
        c->names_room = s->names.capacity * 3 / 4 > s->names.count
                            ? s->names.capacity * 3 / 4 - s->names.count
                            : 0;
        strpool_hint_clear(&s->names); /* the buffer moves below */
    }
    sessions_unlock();
    memmove(c->buf, c->buf + off, c->used - off);
    c->used -= off;
    linkcost_records(records);
    linkcost_add(LINKCOST_CONSUME, consumed);
    return why;
}

#define LINK_READS_PER_WAKE 8 /* reads of a busy connection per wake-up at most */

/* Reads and applies what the agent sent. A read that filled the buffer is
 * followed by another (up to LINK_READS_PER_WAKE): a busy agent costs one
 * poll per several buffers, not one per buffer. */
static void link_read(int slot)
{
    link_conn *c = link_conns[slot];
    int reads, applied = 0;

    for (reads = 0; reads < LINK_READS_PER_WAKE; reads++) {
        size_t room = sizeof(c->buf) - c->used;
        const char *why;
        ssize_t n = read(c->fd, c->buf + c->used, room);
        int err = n < 0 ? errno : 0;

        if (n == 0 || (n < 0 && err != EAGAIN && err != EINTR)) {
            if (applied && c->session_id) /* what came before the end was applied */
                sessions_notify(c->session_id);
            link_close(slot, n < 0 ? strerror(err) : c->session_id ? NULL : "closed before hello");
            return;
        }
        if (n < 0)
            break;
        c->used += (size_t)n;
        link_grow_index_ahead(c);
        link_grow_names_ahead(c);
        why = link_consume(c);
        if (why) {
            link_close(slot, why);
            return;
        }
        applied = 1;
        if ((size_t)n < room) /* the socket is empty for now */
            break;
    }
    if (applied && c->session_id)
        sessions_notify(c->session_id);
}

/* link_take_backlog's work, on the link thread: every connection waiting in
 * a listener's backlog accepted, and what waits on each without a hello yet
 * read (an ended process's agent wrote all it will before it ended). */
static void link_backlog_take(const struct pollfd *listen_fds, const int *handles, int listeners)
{
    unsigned asked = atomic_load(&link_backlog_asked);
    int i, k;

    if (asked == link_backlog_seen)
        return;
    link_backlog_seen = asked;
    for (i = 0; i < listeners; i++)
        for (k = 0; k < LINK_ACCEPT_BURST; k++)
            if (link_accept(listen_fds[i].fd, handles[i]) != 0)
                break; /* EAGAIN: the backlog is empty */
    for (i = 0; i < LINK_SLOTS; i++)
        if (link_conns[i] && !link_conns[i]->session_id)
            link_read(i);
    pthread_mutex_lock(&link_backlog_mutex);
    link_backlog_done = asked;
    pthread_cond_broadcast(&link_backlog_cond);
    pthread_mutex_unlock(&link_backlog_mutex);
}

static void *link_main(void *arg)
{
    int64_t last_sweep = 0;
    int wait_ms = 500;

    (void)arg;
    pthread_setname_np(pthread_self(), "jitscope-link"); /* for top, perf and bench/ */
    linkcost_thread = 1;
    for (;;) {
        struct pollfd fds[1 + LINKSOCK_MAX + LINK_SLOTS];
        int slots[1 + LINKSOCK_MAX + LINK_SLOTS], handles[LINKSOCK_MAX], n, i, listeners;
        char wake[16];
        ssize_t got;

        fds[0] = (struct pollfd){.fd = link_wake[0], .events = POLLIN};
        listeners = (int)linksock_poll_set(fds + 1, handles, LINKSOCK_MAX);
        n = 1 + listeners;
        for (i = 0; i < LINK_SLOTS; i++) {
            if (link_conns[i]) {
                slots[n] = i;
                fds[n++] = (struct pollfd){.fd = link_conns[i]->fd, .events = POLLIN};
            }
        }
        if (poll(fds, (nfds_t)n, wait_ms) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if ((int64_t)clock_real_ns() - last_sweep > 500000000) {
            sessions_sweep();
            persist_sweep();
            linksock_check();
            if (link_sweep_hook)
                link_sweep_hook(); /* agentplace.c: places no session needs any more go */
            last_sweep = (int64_t)clock_real_ns();
        }
        /* 'x' stops the thread; 'w' only wakes it (a listener came or went) */
        if (fds[0].revents && (got = read(link_wake[0], wake, sizeof(wake))) > 0 &&
            memchr(wake, 'x', (size_t)got))
            break;
        for (i = 1 + listeners; i < n; i++)
            if (fds[i].revents)
                link_read(slots[i]);
        /* the whole backlog (up to a burst): a flood of silent peers is taken
         * in, and pushed out, faster than it can fill the backlog for an agent */
        for (i = 0; i < listeners; i++) {
            int k;
            for (k = 0; (fds[1 + i].revents & POLLIN) && k < LINK_ACCEPT_BURST; k++)
                if (link_accept(fds[1 + i].fd, handles[i]) != 0)
                    break;
        }
        link_backlog_take(fds + 1, handles, listeners);
        wait_ms = link_check_hellos(500);
    }
    pthread_mutex_lock(&link_backlog_mutex); /* nobody waits for a thread that is gone */
    link_backlog_done = UINT_MAX;
    pthread_cond_broadcast(&link_backlog_cond);
    pthread_mutex_unlock(&link_backlog_mutex);
    return NULL;
}

unsigned link_take_backlog(int max_ms)
{
    struct timespec deadline;
    unsigned asked, taken;

    if (!link_thread_started)
        return 0;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += max_ms / 1000;
    deadline.tv_nsec += (long)(max_ms % 1000) * 1000000l;
    if (deadline.tv_nsec >= 1000000000l)
        deadline.tv_sec++, deadline.tv_nsec -= 1000000000l;
    asked = atomic_fetch_add(&link_backlog_asked, 1u) + 1u;
    link_wake_up();
    pthread_mutex_lock(&link_backlog_mutex);
    while (link_backlog_done < asked &&
           pthread_cond_timedwait(&link_backlog_cond, &link_backlog_mutex, &deadline) == 0)
        ;
    taken = link_backlog_done >= asked;
    pthread_mutex_unlock(&link_backlog_mutex);
    return taken;
}

void link_stop(void)
{
    int i;

    if (link_thread_started) {
        ssize_t w = write(link_wake[1], "x", 1);
        (void)w;
        pthread_join(link_thread, NULL);
        link_thread_started = 0;
    }
    for (i = 0; i < LINK_SLOTS; i++)
        if (link_conns[i])
            link_close(i, NULL);
    linksock_set_waker(NULL);
    linksock_stop();
    for (i = 0; i < 2; i++) {
        if (link_wake[i] >= 0)
            close(link_wake[i]);
        link_wake[i] = -1;
    }
}
