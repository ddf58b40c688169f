/* store.c -- opening and closing storage, the data directory and its lock
 * (see store.h). The writer thread has its own connection; reads of stored
 * sessions use a second one, one reader at a time, never under the sessions
 * lock (WAL lets the two run side by side). */
#include "store_db.h"
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t store_reader = PTHREAD_MUTEX_INITIALIZER;

static struct {
    int enabled;
    int lock_fd;
    sqlite3 *write_db, *read_db;
    char path[512];
} store = {.lock_fd = -1};

int store_default_dir(char *out, size_t outsz)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    int n;

    if (state && state[0] == '/')
        n = snprintf(out, outsz, "%s/jitscope", state);
    else if (home && home[0] == '/')
        n = snprintf(out, outsz, "%s/.local/state/jitscope", home);
    else
        return -1;
    return n > 0 && (size_t)n < outsz ? 0 : -1;
}

/* mkdir -p, 0700 for what it creates (sessions hold command lines). */
static int store_make_dir(const char *dir, char *err, size_t errsz)
{
    char path[512];
    size_t i, n = strlen(dir);

    if (n == 0 || n >= sizeof(path)) {
        snprintf(err, errsz, "data directory path is empty or too long");
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        path[i] = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errsz, "cannot create %s: %s", path, strerror(errno));
            return -1;
        }
        path[i] = i < n ? '/' : '\0';
    }
    return 0;
}

/* One server per data directory: a second one would interleave writes. */
static int store_take_lock(const char *dir, char *err, size_t errsz)
{
    char path[600], owner[32] = "";
    ssize_t got;

    snprintf(path, sizeof(path), "%s/jitscope.lock", dir);
    store.lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (store.lock_fd < 0) {
        snprintf(err, errsz, "cannot open %.300s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(store.lock_fd, LOCK_EX | LOCK_NB) != 0) {
        got = pread(store.lock_fd, owner, sizeof(owner) - 1, 0);
        owner[got > 0 ? got : 0] = '\0';
        owner[strcspn(owner, "\n")] = '\0';
        snprintf(err, errsz,
                 "another jitscope server (pid %s) uses %s; stop it, or give this one "
                 "--data DIR (another directory) or --data none (make run: DATA=DIR or "
                 "DATA=none)",
                 owner[0] ? owner : "?", dir);
        close(store.lock_fd);
        store.lock_fd = -1;
        return -1;
    }
    if (ftruncate(store.lock_fd, 0) == 0)
        dprintf(store.lock_fd, "%ld\n", (long)getpid());
    return 0;
}

static void store_release(void)
{
    pthread_mutex_lock(&store_reader); /* a reader off the sessions lock finishes first */
    sqlite3_close(store.read_db);
    store.read_db = NULL;
    pthread_mutex_unlock(&store_reader);
    sqlite3_close(store.write_db);
    store.write_db = NULL;
    if (store.lock_fd >= 0)
        close(store.lock_fd);
    store.lock_fd = -1;
}

/* SQLite counts every allocation under a process-wide mutex unless told not
 * to before its first use; jitscope never asks it for memory statistics. A
 * later call (a second store in one process: the unit tests) is refused with
 * SQLITE_MISUSE and changes nothing, which is fine either way. */
static void store_no_memstatus(void)
{
    static int done;

    if (!done) {
        done = 1;
        if (sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK)
            return; /* already initialised: allocations stay counted */
    }
}

int store_open(const store_options *o, char *err, size_t errsz)
{
    char why[400];

    if (!o->dir || strcmp(o->dir, "none") == 0)
        return 0;
    store_no_memstatus();
    if (strlen(o->dir) + sizeof("/jitscope.db") > sizeof(store.path)) {
        /* never a truncated path: that would be another file */
        snprintf(err, errsz, "storage: the data directory's path is longer than %zu bytes",
                 sizeof(store.path) - sizeof("/jitscope.db"));
        return -1;
    }
    if (store_make_dir(o->dir, why, sizeof(why)) != 0 ||
        store_take_lock(o->dir, why, sizeof(why)) != 0)
        goto fail;
    snprintf(store.path, sizeof(store.path), "%s/jitscope.db", o->dir);
    {
        /* created private: sessions hold command lines (the WAL files follow) */
        int fd = open(store.path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) {
            snprintf(why, sizeof(why), "cannot open %.300s: %s", store.path, strerror(errno));
            goto fail;
        }
        close(fd);
    }
    if (store_schema_open(store.path, STORE_SCHEMA_VERSION, &store.write_db, why, sizeof(why)) != 0)
        goto fail;
    /* a database another program holds locked: say so now, not at the first write */
    if (store_exec(store.write_db, "BEGIN IMMEDIATE; COMMIT;", why, sizeof(why)) != 0) {
        char detail[400];
        snprintf(detail, sizeof(detail), "%.200s: %.150s (is another program writing it?)",
                 store.path, why);
        snprintf(why, sizeof(why), "%s", detail);
        goto fail;
    }
    if (store_legacy_convert(store.write_db, o, why, sizeof(why)) != 0)
        goto fail;
    if (sqlite3_open_v2(store.path, &store.read_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        snprintf(why, sizeof(why), "%.300s: %s", store.path,
                 store.read_db ? sqlite3_errmsg(store.read_db) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(store.read_db, 2000);
    store_journal_init(o->journal_max);
    if (store_writer_start(store.write_db, o, why, sizeof(why)) != 0) {
        store_journal_free();
        goto fail;
    }
    store.enabled = 1;
    return 0;
fail:
    snprintf(err, errsz, "storage: %s", why);
    store_release();
    return -1;
}

void store_close(void)
{
    if (!store.enabled)
        return;
    store_writer_stop();
    store_journal_free();
    store.enabled = 0;
    store_release();
}

int store_enabled(void) { return store.enabled; }

int store_list(store_header_fn fn, void *ctx, char *err, size_t errsz)
{
    int rc;

    pthread_mutex_lock(&store_reader);
    if (!store.read_db) {
        pthread_mutex_unlock(&store_reader);
        snprintf(err, errsz, "storage is closed");
        return -1;
    }
    rc = store_read_headers(store.read_db, fn, ctx, err, errsz);
    store_cache_bound(store.read_db);
    pthread_mutex_unlock(&store_reader);
    return rc;
}

int store_read(int session_id, store_entry_fn fn, void *ctx, store_read_report *report, char *err,
               size_t errsz)
{
    int rc;

    memset(report, 0, sizeof(*report));
    pthread_mutex_lock(&store_reader);
    if (!store.read_db) {
        pthread_mutex_unlock(&store_reader);
        snprintf(err, errsz, "storage is closed");
        return -1;
    }
    rc = store_read_log(store.read_db, session_id, fn, ctx, report, err, errsz);
    store_cache_bound(store.read_db);
    pthread_mutex_unlock(&store_reader);
    return rc;
}

void store_get_stats(store_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (!store.enabled)
        return;
    store_writer_stats(out);
    out->enabled = 1;
    store_journal_stats(out);
    snprintf(out->path, sizeof(out->path), "%s", store.path);
}
