/* sessions.c -- registry of sessions (see sessions.h). */
#include "sessions.h"
#include "clock.h"
#include "proc.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

static pthread_mutex_t sessions_mutex = PTHREAD_MUTEX_INITIALIZER;
static session *sessions_items[SESSIONS_MAX];
static size_t sessions_n;
static int sessions_next_id = 1;

static session *sessions_get_raw(int id);

static void (*_Atomic sessions_listener)(int session_id);
static pthread_cond_t sessions_cond;
static pthread_once_t sessions_cond_once = PTHREAD_ONCE_INIT;

static _Atomic int sessions_waiting; /* threads blocked in sessions_lock() */
static _Atomic uint64_t sessions_let_ins;

void sessions_lock(void)
{
    if (pthread_mutex_trylock(&sessions_mutex) == 0)
        return;
    sessions_waiting++;
    pthread_mutex_lock(&sessions_mutex);
    sessions_waiting--;
}

void sessions_unlock(void) { pthread_mutex_unlock(&sessions_mutex); }

uint64_t sessions_let_in_count(void) { return sessions_let_ins; }

void sessions_let_others_in(void)
{
    int64_t until;

    sessions_let_ins++;
    pthread_mutex_unlock(&sessions_mutex);
    if (sessions_waiting > 0) {
        /* a mutex lets the thread that just released it take it again at
         * once: give the waiters (ingest above all) their turn first */
        until = (int64_t)clock_mono_ns() + SESSIONS_LET_IN_NS;
        while (sessions_waiting > 0 && (int64_t)clock_mono_ns() < until)
            sched_yield();
    }
    sessions_lock();
}

static void sessions_cond_init(void)
{
    pthread_condattr_t attr;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&sessions_cond, &attr);
    pthread_condattr_destroy(&attr);
}

void sessions_changed(void)
{
    pthread_once(&sessions_cond_once, sessions_cond_init);
    pthread_cond_broadcast(&sessions_cond);
}

int sessions_wait(const struct timespec *deadline)
{
    int rc;

    pthread_once(&sessions_cond_once, sessions_cond_init);
    do
        rc = pthread_cond_timedwait(&sessions_cond, &sessions_mutex, deadline);
    while (rc == EINTR);
    return rc == ETIMEDOUT ? -1 : 0;
}

void sessions_set_listener(void (*on_change)(int session_id)) { sessions_listener = on_change; }

void sessions_notify(int session_id)
{
    void (*listener)(int) = sessions_listener;

    if (listener)
        listener(session_id);
}

static int sessions_new_token(char out[WIRE_TOKEN_LEN + 1])
{
    unsigned char raw[WIRE_TOKEN_LEN / 2];
    static const char hex[] = "0123456789abcdef";
    size_t i;

    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
        return -1;
    for (i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[WIRE_TOKEN_LEN] = '\0';
    return 0;
}

static int sessions_has_ended(const session *s)
{
    return !s->link_id && (s->state == SESSION_EXITED || s->state == SESSION_DETACHED ||
                           s->state == SESSION_FAILED || s->state == SESSION_INTERRUPTED);
}

/* 1 when a session of root's run (not root itself) has not ended: root must
 * stay, its token is how the run's processes find their sessions. */
static int sessions_run_goes_on(const session *root)
{
    size_t i;

    for (i = 0; i < sessions_n; i++) {
        const session *s = sessions_items[i];
        if (s != root && s->root_id == root->id && !sessions_has_ended(s))
            return 1;
    }
    return 0;
}

/* When the table is full, the oldest session that has ended (exited, detached,
 * failed; no agent connected), is not `keep` and is not the root of a run that
 * goes on, makes room. 1 when one was freed. */
static int sessions_evict_ended(const session *keep)
{
    size_t i;

    for (i = 0; i < sessions_n; i++) {
        session *s = sessions_items[i];
        if (s != keep && sessions_has_ended(s) && !sessions_run_goes_on(s)) {
            sessions_remove(s->id);
            return 1;
        }
    }
    return 0;
}

int sessions_may_forget(const session *s)
{
    return sessions_has_ended(s) && !sessions_run_goes_on(s);
}

int sessions_adopt(session *s)
{
    if (s->id < 1 || s->id > SESSION_ID_MAX || sessions_get_raw(s->id) ||
        (sessions_n >= SESSIONS_MAX && !sessions_evict_ended(NULL)))
        return -1;
    sessions_items[sessions_n++] = s;
    session_budget_count(s); /* what it holds counts in the memory budget from now on */
    if (s->id >= sessions_next_id)
        sessions_next_id = s->id + 1;
    return 0;
}

/* Adds a session with the next id, making room first if the table is full
 * (never by forgetting `keep`). */
static session *sessions_insert(int mode, pid_t pid, const char *command_line, const char *token,
                                const session *keep)
{
    session *s;

    if (sessions_next_id > SESSION_ID_MAX ||
        (sessions_n >= SESSIONS_MAX && !sessions_evict_ended(keep)))
        return NULL;
    s = session_new(sessions_next_id, mode, pid, command_line, token);
    if (!s)
        return NULL;
    sessions_next_id++;
    sessions_items[sessions_n++] = s;
    session_budget_count(s); /* what it holds counts in the memory budget from now on */
    return s;
}

session *sessions_create(int mode, pid_t pid, const char *command_line)
{
    char token[WIRE_TOKEN_LEN + 1];

    return sessions_new_token(token) == 0 ? sessions_insert(mode, pid, command_line, token, NULL)
                                          : NULL;
}

session *sessions_create_child(session *root, pid_t pid, pid_t parent_pid, const char *command_line)
{
    session *s = sessions_insert(root->mode, pid, command_line, root->token, root);

    if (s) {
        s->root_id = root->id;
        s->parent_pid = parent_pid;
    }
    return s;
}

session *sessions_child_by_pid(int root_id, pid_t pid)
{
    size_t i = sessions_n;

    while (i-- > 0) {
        session *s = sessions_items[i];
        if (s->root_id == root_id && s->id != root_id && s->pid == pid && !s->persist.past)
            return s;
    }
    return NULL;
}

static session *sessions_get_raw(int id)
{
    size_t i;

    for (i = 0; i < sessions_n; i++)
        if (sessions_items[i]->id == id)
            return sessions_items[i];
    return NULL;
}

session *sessions_get(int id) { return sessions_get_raw(id); }

session *sessions_peek(int id) { return sessions_get_raw(id); }

session *sessions_by_token(const char *token, size_t length)
{
    size_t i;

    if (length != WIRE_TOKEN_LEN)
        return NULL;
    for (i = 0; i < sessions_n; i++) /* children carry their root's token */
        if (sessions_items[i]->root_id == sessions_items[i]->id &&
            !sessions_items[i]->persist.past &&
            memcmp(sessions_items[i]->token, token, WIRE_TOKEN_LEN) == 0)
            return sessions_items[i];
    return NULL;
}

session *sessions_by_pid(pid_t pid)
{
    size_t i = sessions_n;

    while (i-- > 0) {
        session *s = sessions_items[i];
        /* a stored session (interrupted ones too) was of a server before this
         * one: not this process's session, even with its pid */
        if (s->pid == pid && !s->persist.past && s->state != SESSION_EXITED &&
            s->state != SESSION_DETACHED && s->state != SESSION_FAILED &&
            s->state != SESSION_INTERRUPTED)
            return s;
    }
    return NULL;
}

size_t sessions_count(void) { return sessions_n; }
session *sessions_at(size_t index) { return index < sessions_n ? sessions_items[index] : NULL; }

void sessions_sweep(void)
{
    int64_t now = (int64_t)clock_real_ns();
    size_t i;

    sessions_lock();
    for (i = 0; i < sessions_n; i++) {
        session *s = sessions_items[i];
        /* the launched process is reaped by launch.c; the others are not ours */
        int watched = s->mode == SESSION_MODE_ATTACH || s->mode == SESSION_MODE_PORT ||
                      s->root_id != s->id || s->not_child;

        /* an ended session (exited, detached) is not watched: its threads
         * stay as they were last known */
        if (!watched || s->pid <= 0 || s->ended_ns || s->link_id || s->state == SESSION_FAILED)
            continue;
        if (proc_is_gone(s->pid)) {
            session_exited(s, now);
            sessions_notify(s->id);
        }
    }
    sessions_unlock();
}

void sessions_free_all(void)
{
    size_t i;

    for (i = 0; i < sessions_n; i++)
        session_free(sessions_items[i]);
    sessions_n = 0;
}

void sessions_pin(session *s) { s->pins++; }

void sessions_unpin(session *s)
{
    if (--s->pins == 0 && s->forgotten)
        session_free(s);
}

void sessions_remove(int id)
{
    size_t i;

    for (i = 0; i < sessions_n; i++) {
        if (sessions_items[i]->id == id) {
            if (sessions_items[i]->pins)
                sessions_items[i]->forgotten = 1; /* freed by the last sessions_unpin */
            else
                session_free(sessions_items[i]);
            memmove(&sessions_items[i], &sessions_items[i + 1],
                    (sessions_n - i - 1) * sizeof(sessions_items[0]));
            sessions_n--;
            return;
        }
    }
}
