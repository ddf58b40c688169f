/* dpwork.c -- one runtime of the diagnostic port, taken through its commands
 * (see dpwork.h for the order and the rule that no runtime is left waiting). */
#include "dpwork.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "agentplace.h"
#include "budget.h"
#include "clock.h"
#include "container.h"
#include "proc.h"
#include "procname.h"
#include "sessions.h"
#include "utf.h"
#include "wire.h"

#define DP_NEXT_MS 3000        /* longest wait for the runtime's next connection */
#define DP_COMMAND_MS 3000     /* longest wait for a command's reply */
#define DP_ATTACH_MS 5000      /* AttachProfiler's own timeout */
#define DP_PAUSE_WAIT_MS 5000  /* StartupProfiler tried while the runtime reaches its pause */
#define DP_START_WAIT_MS 15000 /* AttachProfiler tried while the runtime is not yet running */
#define DP_HELLO_MS 10000      /* the agent's hello after its runtime was given it */

typedef struct dp_work {
    dp_runtime *r;
    int fd;      /* the connection for the next command, -1 none yet */
    int resumed; /* ResumeRuntime was answered */
    int pauses;  /* its configuration makes it wait */
    int floor;   /* JITSCOPE_NULL=1 in its environment */
    int session_id;
    char hostname[CONTAINER_HOSTNAME_MAX]; /* HOSTNAME of its environment */
    agentplace_paths place;
    ipc_procinfo info;
    char client[sizeof(WIRE_CLIENT_DATA_PREFIX) + WIRE_TOKEN_LEN + sizeof(WIRE_CLIENT_DATA_FLOOR) +
                IPC_PATH_MAX];
} dp_work;

static const struct {
    uint32_t d1;
    uint16_t d2, d3;
    uint8_t d4[8];
} dw_clsid = WIRE_CLSID_INIT;

/* Sets the runtime's outcome and reason, and logs it. */
__attribute__((format(printf, 3, 4))) static void dw_note(dp_work *w, int outcome, const char *fmt,
                                                          ...)
{
    char text[DP_REASON_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    dpconn_lock();
    w->r->outcome = outcome;
    snprintf(w->r->reason, sizeof(w->r->reason), "%s", text);
    dpconn_unlock();
    fprintf(stderr, "jitscope: diagnostic port: runtime %llu%s: %s\n",
            (unsigned long long)w->r->pid_inside, w->r->pid ? "" : " (not visible here)", text);
}

/* The connection for the next command (the runtime connects again after
 * each one). 0, or -1 when none came (it exited, or the server stops). */
static int dw_take(dp_work *w)
{
    if (w->fd < 0)
        w->fd = dpconn_next(w->r, DP_NEXT_MS);
    return w->fd >= 0 ? 0 : -1;
}

static void dw_used(dp_work *w)
{
    close(w->fd);
    w->fd = -1;
}

/* One command whose reply is an HRESULT, on the next connection. IPC_OK with
 * *hr, or an IPC_ERR_*. */
static int dw_command(dp_work *w, const uint8_t *req, size_t len, uint32_t timeout_ms, int32_t *hr)
{
    char err[256];
    int rc;

    *hr = IPC_HR_E_FAIL;
    if (dw_take(w) != 0)
        return IPC_ERR_TIMEOUT;
    rc = ipc_port_command(w->fd, req, len, timeout_ms, hr, err, sizeof(err));
    dw_used(w);
    return rc;
}

/* ResumeRuntime: the first command on the next connection. 0 once answered. */
static int dw_resume(dp_work *w)
{
    uint8_t req[IPC_HEADER_SIZE];
    int32_t hr;
    double ms;

    if (w->resumed)
        return 0;
    ipc_build_bare(req, sizeof(req), IPC_SET_PROCESS, IPC_PROCESS_RESUME);
    if (dw_command(w, req, sizeof(req), DP_COMMAND_MS, &hr) != IPC_OK || hr < 0)
        return -1;
    w->resumed = 1;
    ms = (double)((int64_t)clock_mono_ns() - w->r->first_ns) / 1e6;
    dpconn_lock();
    w->r->resumed_ms = ms;
    dpconn_unlock();
    fprintf(stderr,
            "jitscope: diagnostic port: runtime %llu resumed %.1f ms after its first "
            "connection\n",
            (unsigned long long)w->r->pid_inside, ms);
    return 0;
}

/* Says why the runtime goes on without the agent, then resumes it. */
__attribute__((format(printf, 2, 3))) static void dw_refuse(dp_work *w, const char *fmt, ...)
{
    char text[DP_REASON_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    dw_note(w, DP_REFUSED, "%s", text);
    dw_resume(w);
}

/* 1 when a session of this server already has the runtime (its agent, after
 * this server's restart, comes back on its own). */
static int dw_known(dp_work *w)
{
    size_t i, n;
    int known = 0;

    sessions_lock();
    n = sessions_count();
    for (i = 0; i < n && !known; i++) {
        const session *s = sessions_at(i);
        known = s->via_port && !s->persist.past &&
                memcmp(s->runtime_cookie, w->r->cookie, IPC_GUID_SIZE) == 0 &&
                (s->state == SESSION_STARTING || s->state == SESSION_LIVE ||
                 s->state == SESSION_DISCONNECTED || s->state == SESSION_DETACHING);
        if (known)
            w->session_id = s->id;
    }
    sessions_unlock();
    return known;
}

/* Whether the budget leaves a new session its share (budget.h). */
static int dw_budget_room(void)
{
    int room;

    sessions_lock();
    room = !budget_total_full(DP_SESSION_ROOM) &&
           budget_max() / ((uint64_t)budget_live() + 2) >= DP_SESSION_ROOM;
    sessions_unlock();
    return room;
}

/* ProcessInfo2, else ProcessInfo (.NET 5 knows no ProcessInfo2). 0, 1 when
 * the runtime is too old (it knows neither), -1 on a failure (err set). */
static int dw_info(dp_work *w, char *err, size_t errsz)
{
    static const uint8_t ids[] = {IPC_PROCESS_INFO2, IPC_PROCESS_INFO};
    size_t i;

    for (i = 0; i < sizeof(ids); i++) {
        int32_t hr = 0;
        int rc;
        if (dw_take(w) != 0)
            return snprintf(err, errsz, "it did not connect again"), -1;
        rc = ipc_port_process_info(w->fd, ids[i], &w->info, &hr, err, errsz);
        dw_used(w);
        if (rc != IPC_ERR_RUNTIME || hr != IPC_HR_UNKNOWN_COMMAND)
            return rc == IPC_OK ? 0 : -1;
    }
    return 1;
}

/* A variable of its environment block (the DOTNET_ name, else COMPlus_). */
static int dw_env(const uint8_t *block, size_t len, const char *name, char *out, size_t outsz)
{
    char full[96];

    snprintf(full, sizeof(full), "DOTNET_%s", name);
    if (ipc_env_lookup_block(block, len, full, out, outsz) == 1)
        return 1;
    snprintf(full, sizeof(full), "COMPlus_%s", name);
    return ipc_env_lookup_block(block, len, full, out, outsz) == 1;
}

/* ProcessEnvironment: whether it waits, and why it must be refused. 0 (go
 * on), 1 (refused: why says so), -1 on a failure (why says so). */
static int dw_environment(dp_work *w, char *why, size_t whysz)
{
    char ports[1024] = "", suspend[32] = "", value[256], clsid[64] = "";
    uint8_t *block = NULL;
    size_t len = 0;
    int32_t hr = 0;
    int rc, has_ports, has_suspend;

    if (dw_take(w) != 0)
        return snprintf(why, whysz, "it did not connect again"), -1;
    rc = ipc_port_environment(w->fd, DP_COMMAND_MS, &block, &len, &hr, why, whysz);
    dw_used(w);
    if (rc != IPC_OK)
        return -1;
    rc = 0;
    if (ipc_env_lookup_block(block, len, "CORECLR_ENABLE_PROFILING", value, sizeof(value)) == 1 &&
        strtoul(value, NULL, 16) != 0) {
        ipc_env_lookup_block(block, len, "CORECLR_PROFILER", clsid, sizeof(clsid));
        if (strcasecmp(clsid, WIRE_CLSID_STRING) == 0)
            snprintf(why, whysz,
                     "it runs under `jitscope run` (CORECLR_PROFILER is jitscope's): "
                     "its agent reports to that server");
        else
            snprintf(why, whysz,
                     "another profiler is set to load at its startup (CORECLR_ENABLE_PROFILING=1, "
                     "CORECLR_PROFILER=%s), and a process takes one profiler",
                     clsid);
        rc = 1;
    }
    if (!rc && dw_env(block, len, "EnableDiagnostics_Profiler", value, sizeof(value)) &&
        strtoul(value, NULL, 16) == 0) {
        snprintf(why, whysz, "profiling is disabled in it (EnableDiagnostics_Profiler=%s)", value);
        rc = 1;
    }
    has_ports = dw_env(block, len, "DiagnosticPorts", ports, sizeof(ports));
    has_suspend = dw_env(block, len, "DefaultDiagnosticPortSuspend", suspend, sizeof(suspend));
    w->pauses = ipc_port_config_pauses(has_ports ? ports : NULL, has_suspend ? suspend : NULL);
    w->floor = ipc_env_lookup_block(block, len, WIRE_ENV_NULL, value, sizeof(value)) == 1 &&
               strcmp(value, "1") == 0;
    if (ipc_env_lookup_block(block, len, "HOSTNAME", w->hostname, sizeof(w->hostname)) != 1)
        w->hostname[0] = '\0';
    free(block);
    return rc;
}

/* The runtime's session, made before the agent is given (its token is in the
 * agent's settings). 0, or -1. */
static int dw_session(dp_work *w)
{
    container_facts where;
    const char *cmd = w->info.command_line;
    session *s;
    int n = -1;

    memset(&where, 0, sizeof(where));
    if (w->r->pid > 0) {
        container_probe(w->r->pid, &where);
        /* at its pause the runtime knows only its host's path: /proc has all */
        if (proc_command_line(w->r->pid, w->info.command_line, sizeof(w->info.command_line)) != 0)
            w->info.command_line[0] = '\0';
    } else { /* not visible here: a sidecar's neighbour; what its runtime said */
        where.in_container = 1;
        where.pid = (pid_t)w->r->pid_inside;
        where.uid = -1;
        snprintf(where.hostname, sizeof(where.hostname), "%s", w->hostname);
    }
    sessions_lock();
    s = sessions_create(w->pauses ? SESSION_MODE_PORT : SESSION_MODE_ATTACH, w->r->pid, cmd);
    if (s) {
        w->session_id = s->id;
        s->created_ns = (int64_t)clock_real_ns();
        s->via_port = 1;
        s->pid_hidden = w->r->pid <= 0;
        memcpy(s->runtime_cookie, w->r->cookie, IPC_GUID_SIZE);
        s->container = where;
        s->place_id = w->place.place;
        if (w->r->pid <= 0 || proc_program_name(w->r->pid, s->program, sizeof(s->program)) != 0)
            procname_of_args(cmd, strlen(cmd), ' ', s->program, sizeof(s->program));
        n = snprintf(w->client, sizeof(w->client), "%s%s %s%s", WIRE_CLIENT_DATA_PREFIX, s->token,
                     w->floor ? WIRE_CLIENT_DATA_FLOOR : "", w->place.socket);
    }
    sessions_unlock();
    if (!s || n < 0 || (size_t)n >= sizeof(w->client))
        return -1;
    dpconn_lock();
    w->r->session_id = w->session_id;
    dpconn_unlock();
    return 0;
}

/* Sleeps ms (a backoff between tries). */
static void dw_sleep_ms(unsigned ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

/* A waiting runtime: the agent's settings, the agent as its startup
 * profiler, then ResumeRuntime. 0 (its agent is coming), 1 (it could not be
 * given: resumed, the caller attaches it instead), -1 (failed; why). */
static int dw_startup(dp_work *w, char *why, size_t whysz)
{
    uint8_t req[IPC_MAX_MESSAGE];
    int64_t deadline = (int64_t)clock_mono_ns() + (int64_t)DP_PAUSE_WAIT_MS * 1000000;
    size_t len = ipc_build_set_env(req, sizeof(req), WIRE_ENV_PORT_AGENT, w->client);
    unsigned backoff = 1;
    int32_t hr;
    int rc = dw_command(w, req, len, DP_COMMAND_MS, &hr);

    if (rc == IPC_OK && hr == IPC_HR_UNKNOWN_COMMAND)
        return 1; /* .NET 5: no SetEnvironmentVariable; attached after it starts */
    if (rc != IPC_OK || hr < 0)
        return snprintf(why, whysz, "SetEnvironmentVariable failed (%s, 0x%08x)", ipc_strerror(rc),
                        (unsigned)hr),
               -1;
    len = ipc_build_startup_profiler(req, sizeof(req), (const uint8_t *)&dw_clsid,
                                     w->place.library);
    for (;;) {
        if (dpconn_stopping())
            return snprintf(why, whysz, "the jitscope server is stopping"), -1;
        rc = dw_command(w, req, len, DP_COMMAND_MS, &hr);
        /* E_INVALIDARG: its diagnostics server connected before its main
         * thread reached the pause; it does in a moment */
        if (rc != IPC_OK || hr != IPC_HR_E_INVALIDARG || (int64_t)clock_mono_ns() > deadline)
            break;
        dw_sleep_ms(backoff);
        backoff = backoff < 32 ? backoff * 2 : 32;
    }
    if (rc == IPC_OK && hr == IPC_HR_E_INVALIDARG)
        return 1; /* it never paused: attached instead */
    if (rc != IPC_OK || hr < 0)
        return snprintf(why, whysz, "StartupProfiler failed (%s, 0x%08x %s)", ipc_strerror(rc),
                        (unsigned)hr, ipc_hresult_name(hr)),
               -1;
    if (dw_resume(w) != 0)
        return snprintf(why, whysz, "ResumeRuntime was not answered"), -1;
    return 0;
}

/* A runtime that does not wait (or no longer): AttachProfiler, tried again
 * while it is not yet running. 0, or -1 (why). */
static int dw_attach(dp_work *w, char *why, size_t whysz)
{
    uint8_t req[IPC_MAX_MESSAGE];
    int64_t deadline = (int64_t)clock_mono_ns() + (int64_t)DP_START_WAIT_MS * 1000000;
    size_t len = ipc_build_attach(req, sizeof(req), DP_ATTACH_MS, (const uint8_t *)&dw_clsid,
                                  w->place.library, (const uint8_t *)w->client,
                                  (uint32_t)strlen(w->client));
    unsigned backoff = 5;
    int32_t hr;
    int rc;

    for (;;) {
        if (dpconn_stopping())
            return snprintf(why, whysz, "the jitscope server is stopping"), -1;
        rc = dw_command(w, req, len, DP_ATTACH_MS + DP_COMMAND_MS, &hr);
        if (rc != IPC_OK ||
            (hr != IPC_HR_NOT_YET_AVAILABLE && hr != IPC_HR_RUNTIME_UNINITIALIZED) ||
            (int64_t)clock_mono_ns() > deadline)
            break;
        dw_sleep_ms(backoff);
        backoff = backoff < 100 ? backoff * 2 : 100;
    }
    if (rc != IPC_OK || hr != 0)
        return snprintf(why, whysz, "AttachProfiler failed (%s, 0x%08x %s)", ipc_strerror(rc),
                        (unsigned)hr, ipc_hresult_name(hr)),
               -1;
    return 0;
}

/* 1 once the session's agent said hello within DP_HELLO_MS. */
static int dw_hello(dp_work *w)
{
    int waited;

    for (waited = 0; waited <= DP_HELLO_MS && !dpconn_stopping(); waited += 20) {
        session *s;
        int live;
        sessions_lock();
        s = sessions_get(w->session_id);
        live = s && s->connected_ns != 0;
        sessions_unlock();
        if (live)
            return 1;
        dw_sleep_ms(20);
    }
    return 0;
}

static void dw_forget_session(dp_work *w)
{
    sessions_lock();
    sessions_remove(w->session_id);
    sessions_unlock();
    w->session_id = 0;
}

/* A runtime the server cannot see, once it runs its app: ProcessInfo2 again
 * (its command line and entry assembly are whole only after startup), for its
 * session's command line and program. */
static void dw_program(dp_work *w)
{
    const char *name;
    session *s;
    char err[128], *line;
    size_t n;

    if (dw_info(w, err, sizeof(err)) != 0 || !w->info.command_line[0])
        return;
    name = w->info.entrypoint_assembly;
    n = strlen(name);
    sessions_lock();
    if ((s = sessions_get(w->session_id))) {
        if ((line = strdup(w->info.command_line))) {
            free(s->command_line);
            s->command_line = line;
        }
        if (n > 4 && strcasecmp(name + n - 4, ".dll") == 0)
            n -= 4;
        if (n)
            snprintf(s->program, sizeof(s->program), "%.*s", (int)n, name);
    }
    sessions_unlock();
}

/* Everything between the first connection and the held one. */
static void dw_run(dp_work *w)
{
    char why[DP_REASON_MAX], msg[512];
    int status, rc, cut;

    if (dw_known(w)) { /* its agent, of this server's before a restart, comes back */
        dpconn_lock();
        w->r->session_id = w->session_id;
        dpconn_unlock();
        dw_note(w, DP_KNOWN, "the runtime of session %d: its agent reconnects by itself",
                w->session_id);
        dw_resume(w); /* a no-op, unless a server stopped between its commands */
        return;
    }
    if (dpconn_stopping()) {
        dw_refuse(w, "the jitscope server is stopping: it goes on without the agent");
        return;
    }
    if (w->r->uid != getuid() && w->r->uid != dp_cfg.trusted_uid) {
        dw_refuse(w,
                  "its user (uid %u) is neither jitscope's (uid %u) nor the owner of the port's "
                  "directory",
                  (unsigned)w->r->uid, (unsigned)getuid());
        return;
    }
    if (w->r->pid > 0 && proc_has_thread(w->r->pid, WIRE_AGENT_THREAD_NAME) == 1) {
        /* another server's agent (or one whose server is gone): a second load
         * would stay mapped for good (docs/RUNTIME.md, "Detaching") */
        dw_refuse(w, "a jitscope agent of another server is active in it (one profiler per "
                     "process)");
        return;
    }
    if (!dw_budget_room()) {
        dw_refuse(w,
                  "jitscope's memory budget (--max-memory %llu MiB) leaves no share of %llu MiB "
                  "for another session",
                  (unsigned long long)(budget_max() >> 20),
                  (unsigned long long)(DP_SESSION_ROOM >> 20));
        return;
    }
    if (agentplace_take_dir(dp_cfg.host_dir, dp_cfg.app_dir, dp_cfg.trusted_uid, dp_cfg.trusted_gid,
                            &w->place, &status, msg, sizeof(msg)) != 0) {
        dw_refuse(w, "the agent cannot be placed beside the port: %s", msg);
        return;
    }
    rc = dw_info(w, why, sizeof(why));
    if (rc == 1 ||
        (rc == 0 && w->info.runtime_version[0] && strtol(w->info.runtime_version, NULL, 10) < 5))
        dw_refuse(w, "its runtime (%s) is older than .NET 5, which jitscope needs",
                  w->info.runtime_version[0] ? w->info.runtime_version : "no ProcessInfo");
    else if (rc < 0)
        dw_note(w, DP_FAILED, "ProcessInfo: %s", why);
    else if ((rc = dw_environment(w, why, sizeof(why))) > 0)
        dw_refuse(w, "%s", why);
    else if (rc < 0)
        dw_note(w, DP_FAILED, "ProcessEnvironment: %s", why);
    else if (dpconn_stopping())
        dw_refuse(w, "the jitscope server is stopping: it goes on without the agent");
    else if (dw_session(w) != 0)
        dw_refuse(w, "no room for another session");
    else
        rc = 2;
    if (rc != 2) {
        agentplace_unpin(w->place.place);
        return;
    }
    dpconn_lock();
    snprintf(w->r->runtime_version, sizeof(w->r->runtime_version), "%.63s",
             w->info.runtime_version);
    w->r->command_line[utf8_sanitize(w->info.command_line, strlen(w->info.command_line),
                                     w->r->command_line, sizeof(w->r->command_line) - 1, &cut)] =
        '\0';
    w->r->suspended = w->pauses;
    dpconn_unlock();
    agentplace_unpin(w->place.place); /* its session holds it now */
    rc = w->pauses ? dw_startup(w, why, sizeof(why)) : 1;
    if (rc == 1) {
        dw_resume(w);
        rc = dw_attach(w, why, sizeof(why));
        if (rc == 0 && w->pauses) { /* it waited, but the agent could only be attached */
            session *s;
            sessions_lock();
            if ((s = sessions_get(w->session_id)))
                s->mode = SESSION_MODE_ATTACH;
            sessions_unlock();
            w->pauses = 0;
        }
    }
    if (rc != 0) {
        dw_forget_session(w);
        dw_note(w, DP_FAILED, "%s", why);
        return;
    }
    dw_resume(w);
    if (!dw_hello(w)) {
        dw_forget_session(w);
        dw_note(w, DP_FAILED, "its agent never connected to jitscope");
        return;
    }
    if (w->r->pid <= 0)
        dw_program(w); /* it runs its app by now: what it is, in its own words */
    dw_note(w, w->pauses && w->resumed ? DP_STARTUP : DP_ATTACHED, "session %d: %s", w->session_id,
            w->pauses ? "the agent was its startup profiler" : "the agent was attached");
}

void *dpwork_main(void *arg)
{
    dp_work *w = calloc(1, sizeof(*w));
    dp_runtime *r = arg;

    pthread_setname_np(pthread_self(), "jitscope-portrt");
    if (w) {
        w->r = r;
        w->fd = -1;
        dw_run(w);
        dw_resume(w); /* whatever happened: never left waiting */
        if (w->fd < 0 && !dpconn_stopping())
            w->fd = dpconn_next(r, DP_NEXT_MS);
        if (w->fd >= 0) /* nothing more to say on it: held, idle */
            dpconn_hold(r, w->fd);
        free(w);
    }
    dpconn_lock();
    r->worker = 0;
    dpconn_unlock();
    dpconn_signal();
    return NULL;
}
