/* session_thread.c -- a session's threads: one row per thread for its whole life.
 *
 * A ThreadID is the address of the runtime's thread object. The runtime frees
 * that object once the thread has ended and its managed Thread was finalized,
 * and the next thread may get the same address: with threads that come and
 * go and collections in between, hundreds of threads share a few dozen IDs.
 * So a thread is (ThreadID, OS thread id, creation), kept as one row of
 * session.threads; a row's position never changes (the API's thread_key).
 *
 * The rules, for records in the order the agent sent them (its ring keeps the
 * order in which callbacks reserved their records, and a thread's
 * THREAD_DESTROYED is reserved before its object can be freed, so before any
 * record of a later thread with the same ID):
 *   - a THREAD_DESTROYED ends its row and retires the ThreadID: any later
 *     record with that ID is about a new thread, which gets a new row;
 *   - Thread.Name is usually set before Start, so a THREAD_NAME often comes
 *     before its thread's THREAD_CREATED: it makes the row, which the
 *     THREAD_CREATED then takes over;
 *   - a record that carries the OS thread id (created, destroyed, names,
 *     stack walks) belongs to a row only if that row has the same OS id or
 *     none yet; a row with another one means the old thread's end was missed
 *     (records lost, or a time without a server): that row is ended, and a new
 *     row begins;
 *   - catch-up (enumeration) only fills in: it never revives an ended row
 *     (EnumThreads may still list a thread whose end was already sent);
 *   - a name the runtime reported (Thread.Name) wins over the OS's name of the
 *     thread (WIRE_FLAG_OS_NAME), which only fills in a row without a name.
 * Caller holds the sessions lock (session.h).
 */
#include "session_kinds.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* thread_index's value for a ThreadID whose thread has ended (retired), as
 * opposed to IDMAP_MISSING, an ID never seen */
#define SESSION_THREAD_RETIRED (IDMAP_MISSING - 1u)

session_thread *session_thread_row(session *s, uint32_t row)
{
    return row && row <= s->thread_count ? &s->threads[row - 1] : NULL;
}

static session_thread *session_thread_at(session *s, uint32_t position)
{
    return position >= SESSION_THREAD_RETIRED ? NULL : session_thread_row(s, position + 1);
}

session_thread *session_find_thread(session *s, uint64_t id)
{
    return session_thread_at(s, idmap_get(&s->thread_index, id));
}

session_thread *session_thread_match(session *s, uint64_t id, uint32_t os)
{
    session_thread *t = os ? session_thread_at(s, idmap_get(&s->thread_os_index, os)) : NULL;

    if (t && t->thread_id == id)
        return t;
    t = session_find_thread(s, id);
    return t && (!os || !t->os_thread_id || t->os_thread_id == os) ? t : NULL;
}

/* A new row for this ThreadID, alive; the ID names it from now on. */
session_thread *session_thread_append(session *s, uint64_t id)
{
    session_thread *t;

    if (grow_reserve((void **)&s->threads, &s->thread_cap, s->thread_count, sizeof(*t), 64,
                     SESSION_MAX_THREADS, GROW_KEEP) != 0 ||
        (id && idmap_put(&s->thread_index, id, (uint32_t)s->thread_count) != 0)) {
        s->capacity_drops++;
        return NULL;
    }
    t = &s->threads[s->thread_count++];
    memset(t, 0, sizeof(*t));
    t->thread_id = id;
    t->alive = 1;
    return t;
}

int session_thread_set_os(session *s, session_thread *t, uint32_t os)
{
    if (!os)
        return 0;
    t->os_thread_id = os;
    if (idmap_put(&s->thread_os_index, os, session_thread_row_of(s, t) - 1) != 0) {
        s->capacity_drops++;
        return -1;
    }
    return 0;
}

/* The thread has ended: the row stays, the ThreadID no longer names it. */
static void session_thread_end(session *s, session_thread *t, int64_t when)
{
    uint32_t position = session_thread_row_of(s, t) - 1;

    t->alive = 0;
    if (!t->ended_ns)
        t->ended_ns = when;
    t->jit_depth = 0;
    if (t->thread_id && idmap_get(&s->thread_index, t->thread_id) == position &&
        idmap_put(&s->thread_index, t->thread_id, SESSION_THREAD_RETIRED) != 0)
        s->capacity_drops++;
}

/* The row of a live record with (id, os): the matching one, else a new one
 * (a row of this ID for another OS thread is ended first: its end was
 * missed). *created tells a new row. */
static session_thread *session_thread_live(session *s, uint64_t id, uint32_t os, int64_t when,
                                           int *created)
{
    session_thread *t = session_thread_match(s, id, os), *stale;

    *created = 0;
    if (t && t->alive) {
        if (!t->os_thread_id)
            session_thread_set_os(s, t, os); /* a row made before its OS id was known */
        return t;
    }
    if ((stale = session_find_thread(s, id)) != NULL)
        session_thread_end(s, stale, when);
    if (!(t = session_thread_append(s, id)))
        return NULL;
    session_thread_set_os(s, t, os);
    *created = 1;
    return t;
}

session_thread *session_thread_for_jit(session *s, uint64_t id)
{
    session_thread *t = session_find_thread(s, id);

    return t || id == 0 ? t : session_thread_append(s, id);
}

static void session_thread_log(session *s, const wire_record *r, int64_t when,
                               const session_thread *t)
{
    eventlog_append(&s->events, r->type, r->flags, when, r->u.thread.thread_id, t->os_thread_id,
                    session_thread_row_of(s, t));
}

/* THREAD_CREATED from the enumeration: fills in, never revives. */
static void session_thread_listed(session *s, const wire_record *r, int64_t when)
{
    const wire_thread *w = &r->u.thread;
    session_thread *t = session_thread_match(s, w->thread_id, w->os_thread_id), *stale;

    if (t) {
        if (t->alive && !t->os_thread_id)
            session_thread_set_os(s, t, w->os_thread_id);
        if (t->alive)
            t->flags |= SESSION_THREAD_STARTED;
        return;
    }
    if (!w->os_thread_id && idmap_get(&s->thread_index, w->thread_id) == SESSION_THREAD_RETIRED)
        return; /* a retired ID without an OS id: most likely the thread that ended */
    if ((stale = session_find_thread(s, w->thread_id)) != NULL)
        session_thread_end(s, stale, when); /* another OS thread: its end was missed */
    if (!(t = session_thread_append(s, w->thread_id)))
        return;
    session_thread_set_os(s, t, w->os_thread_id);
    t->flags = WIRE_FLAG_CATCHUP | SESSION_THREAD_STARTED;
    t->created_ns = when;
    session_thread_log(s, r, when, t);
}

static void session_thread_named(session *s, const wire_record *r, int64_t when)
{
    const wire_thread *w = &r->u.thread;
    const wire_string *name = &r->strings[0];
    session_thread *t;
    int created;

    if (r->flags & (WIRE_FLAG_OS_NAME | WIRE_FLAG_CATCHUP)) {
        /* the OS's name: only for a row that has no name yet */
        t = session_thread_match(s, w->thread_id, w->os_thread_id);
        if (!t || t->name || !name->length || !(t->name = malloc((size_t)name->length + 1)))
            return;
        memcpy(t->name, name->text, name->length);
        t->name[name->length] = '\0';
        session_memory_text(s, t->name, NULL);
        t->flags |= SESSION_THREAD_OS_NAME;
        session_thread_log(s, r, when, t);
        return;
    }
    /* Thread.Name, often of a thread not started yet: then its row begins here */
    if (!(t = session_thread_live(s, w->thread_id, w->os_thread_id, when, &created)))
        return;
    session_memory_text(s, NULL, t->name);
    free(t->name);
    t->name = NULL;
    if (name->length && (t->name = malloc((size_t)name->length + 1))) {
        memcpy(t->name, name->text, name->length);
        t->name[name->length] = '\0';
        session_memory_text(s, t->name, NULL);
    }
    t->flags &= ~SESSION_THREAD_OS_NAME;
    session_thread_log(s, r, when, t);
}

/* ---- one fold per thread record kind (session_kinds.h) ---- */

int session_fold_thread_created(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                const char **why)
{
    const wire_thread *w = &r->u.thread;
    session_thread *t;
    int created;

    (void)now_ns, (void)why;
    if (w->thread_id != 0 && (r->flags & WIRE_FLAG_CATCHUP)) {
        session_thread_listed(s, r, when);
    } else if (w->thread_id != 0 &&
               (t = session_thread_live(s, w->thread_id, w->os_thread_id, when, &created))) {
        /* a row made by its name (or a JIT, or the enumeration) is taken over */
        t->flags = (t->flags & ~(uint32_t)WIRE_FLAG_CATCHUP) | SESSION_THREAD_STARTED;
        t->created_ns = when;
        session_thread_log(s, r, when, t);
    }
    session_cpu_thread_started(s); /* a running CPU profile follows it now */
    return 0;
}

int session_fold_thread_destroyed(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                  const char **why)
{
    const wire_thread *w = &r->u.thread;
    session_thread *t;

    (void)now_ns, (void)why;
    if (w->thread_id == 0)
        return 0;
    if (!(t = session_thread_match(s, w->thread_id, w->os_thread_id))) {
        /* never seen: a row all the same; a row of this ID for another OS
         * thread has ended unseen before it */
        session_thread *stale = session_find_thread(s, w->thread_id);
        if (stale)
            session_thread_end(s, stale, when);
        if (!(t = session_thread_append(s, w->thread_id)))
            return 0;
    }
    if (!t->os_thread_id)
        session_thread_set_os(s, t, w->os_thread_id);
    session_thread_end(s, t, when);
    session_thread_log(s, r, when, t);
    return 0;
}

/* Right after THREAD_CREATED, on the same thread. */
int session_fold_thread_os_id(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why)
{
    const wire_thread *w = &r->u.thread;
    session_thread *t;

    (void)when, (void)now_ns, (void)why;
    if (w->thread_id != 0) { /* (no thread: nothing to keep) */
        t = session_find_thread(s, w->thread_id);
        if (!t && !(r->flags & WIRE_FLAG_CATCHUP))
            t = session_thread_append(s, w->thread_id); /* its THREAD_CREATED was lost */
        if (t && !t->os_thread_id)
            session_thread_set_os(s, t, w->os_thread_id);
    }
    session_cpu_thread_started(s); /* a running CPU profile follows it now */
    return 0;
}

int session_fold_thread_name(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why)
{
    (void)now_ns, (void)why;
    if (r->u.thread.thread_id != 0)
        session_thread_named(s, r, when);
    return 0;
}
