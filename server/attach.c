/* attach.c -- attach and detach orchestration (see attach.h). */
#include "attach.h"
#include "clock.h"

#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "agentpeer.h"
#include "agentplace.h"
#include "container.h"
#include "wire.h"
#include "ipc.h"
#include "link.h"
#include "proc.h"
#include "sessions.h"
#include "userns.h"
#include "utf.h"

static pthread_mutex_t attach_busy = PTHREAD_MUTEX_INITIALIZER;

void attach_set_agent_path(const char *path) { agentplace_configure(path); }

__attribute__((format(printf, 3, 4))) static void attach_fail(attach_result *out, int status,
                                                              const char *fmt, ...)
{
    va_list ap;

    out->status = status;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof(out->message), fmt, ap);
    va_end(ap);
}

/* Waits until the session's agent said hello. 1 when it did. */
static int attach_wait_hello(int id, int timeout_ms)
{
    int waited;

    for (waited = 0; waited <= timeout_ms; waited += 20) {
        session *s;
        int live;
        sessions_lock();
        s = sessions_get(id);
        live = s && s->connected_ns != 0;
        sessions_unlock();
        if (live)
            return 1;
        usleep(20000);
    }
    return 0;
}

/* Maps an error HRESULT from AttachProfiler to a status and message. */
static void attach_explain(pid_t pid, int32_t hr, const char *library, attach_result *out)
{
    char hex[16];

    snprintf(hex, sizeof(hex), "0x%08x", (unsigned)hr);
    switch (hr) {
    case IPC_HR_PROFILER_ALREADY_ACTIVE:
        attach_fail(out, 409, "a profiler is already active in process %ld (only one per process)",
                    (long)pid);
        break;
    case IPC_HR_RUNTIME_UNINITIALIZED: /* runtime not initialised yet */
    case IPC_HR_NOT_YET_AVAILABLE: /* DS_IPC_E_NOT_YET_AVAILABLE: runtime suspended at startup */
        attach_fail(out, 503, "the runtime in process %ld is not ready yet; retry in a moment",
                    (long)pid);
        break;
    case IPC_HR_PROFILER_CANCEL_ACTIVATION: /* the agent's own refusal (agent/lifecycle.c) */
        attach_fail(out, 422,
                    "the jitscope agent declined process %ld: its runtime is older than .NET 5, "
                    "which jitscope needs (the agent's reason is on the process's stderr)",
                    (long)pid);
        break;
    case IPC_HR_MOD_NOT_FOUND:
    case IPC_HR_PROC_NOT_FOUND:
    case IPC_HR_FILE_NOT_FOUND:
        out->status = 500;
        snprintf(out->message, sizeof(out->message),
                 "the runtime could not load the agent library %s (HRESULT %s %s)", library, hex,
                 ipc_hresult_name(hr));
        break;
    default:
        out->status = 500;
        snprintf(out->message, sizeof(out->message),
                 "the runtime refused the attach: HRESULT %s %s", hex, ipc_hresult_name(hr));
    }
}

static void attach_forget(int id)
{
    sessions_lock();
    sessions_remove(id);
    sessions_unlock();
}

/* A session's program from ProcessInfo's entry assembly: its simple name
 * (a path or a .dll ending, should one come, left out). */
static void attach_program_of(const char *assembly, char *out, size_t outsz)
{
    const char *name = strrchr(assembly, '/');
    size_t n;
    int cut;

    name = name ? name + 1 : assembly;
    n = strlen(name);
    if (n > 4 && strcasecmp(name + n - 4, ".dll") == 0)
        n -= 4;
    out[utf8_sanitize(name, n, out, outsz - 1, &cut)] = '\0';
}

/* The refusal for a process that already has a jitscope agent of another
 * server: whose it is, when that server is alive (agentpeer.h). */
static void attach_other_agent(pid_t pid, attach_result *out)
{
    char socket_path[108], url[AGENTPEER_NOTE_MAX], err[160];
    int found = agentpeer_find(pid, socket_path, sizeof(socket_path), url, sizeof(url), err,
                               sizeof(err));

    if (found == 1 && strcmp(socket_path, link_socket_path()) == 0)
        attach_fail(out, 409, "process %ld is already observed by this jitscope server", (long)pid);
    else if (found == 1 && url[0])
        attach_fail(out, 409,
                    "process %ld is already observed by the jitscope server at %s (one profiler "
                    "per process): open it there, or detach it there first",
                    (long)pid, url);
    else if (found == 1)
        attach_fail(out, 409,
                    "process %ld is already observed by another jitscope server (its agent socket "
                    "is %s; one profiler per process): detach it there first",
                    (long)pid, socket_path);
    else if (found == 0)
        attach_fail(out, 409,
                    "a jitscope agent whose server is gone is still active in process %ld; it "
                    "detaches itself once it has had no server for 60 s (a server started on its "
                    "server's data directory takes its session back meanwhile): attach again then",
                    (long)pid);
    else
        attach_fail(out, 409,
                    "a jitscope agent of another server is active in process %ld (one profiler "
                    "per process; which server is unknown: %s): detach it there, or, if that "
                    "server is gone, attach again once the agent has detached itself (after 60 "
                    "s without a server)",
                    (long)pid, err);
}

/* Who may attach to pid: the server's own user's processes, and those of a
 * container (a user namespace) its user started (userns.h). 0, or -1 with
 * out set. */
static int attach_may(pid_t pid, const userns_facts *u, attach_result *out)
{
    if (u->ours)
        return 0;
    if (!u->other)
        attach_fail(out, 403,
                    "process %ld belongs to uid %u; jitscope attaches only to processes of its "
                    "own user (and to containers its user started)",
                    (long)pid, (unsigned)u->uid);
    else if (u->owner != (uid_t)-1)
        attach_fail(out, 403,
                    "process %ld runs in a user namespace that uid %u started (it is uid %u here, "
                    "uid %ld inside): jitscope, running as uid %u, may not enter it; run jitscope "
                    "as uid %u",
                    (long)pid, (unsigned)u->owner, (unsigned)u->uid, (long)(int)u->uid_inside,
                    (unsigned)getuid(), (unsigned)u->owner);
    else
        attach_fail(out, 403,
                    "process %ld runs in a user namespace of its own (it is uid %u here, uid %ld "
                    "inside) that jitscope, running as uid %u, may not enter: run jitscope as "
                    "root, or as the user who started its container",
                    (long)pid, (unsigned)u->uid, (long)(int)u->uid_inside, (unsigned)getuid());
    return -1;
}

/* attach_check's checks; with info, the runtime's ProcessInfo too (its
 * command line empty when it did not answer), which refuses a runtime older
 * than .NET 5 before anything is loaded into it; target and u: what /proc
 * says of the process and of its user namespace. */
static int attach_probe(pid_t pid, attach_result *out, ipc_procinfo *info, ipc_target *target,
                        userns_facts *u)
{
    char err[256], path[108];
    int rc;

    memset(out, 0, sizeof(*out));
    if (pid < 1 || pid == getpid()) {
        attach_fail(out, 400, "pid %ld cannot be attached to", (long)pid);
        return -1;
    }
    rc = ipc_target_probe(pid, target, err, sizeof(err));
    if (rc == IPC_ERR_NOPROC || (rc == IPC_OK && userns_probe(pid, u, err, sizeof(err)) != 0)) {
        attach_fail(out, 404, "no process %ld is running", (long)pid);
        return -1;
    }
    if (rc == IPC_OK && attach_may(pid, u, out) != 0)
        return -1;
    if (rc == IPC_OK)
        rc = ipc_socket_path(pid, path, sizeof(path), err, sizeof(err));
    if (rc != IPC_OK) {
        attach_fail(out,
                    rc == IPC_ERR_NOPROC || rc == IPC_ERR_NOTDOTNET ? 404
                    : rc == IPC_ERR_PERM                            ? 403
                                                                    : 502,
                    "%s", err);
        return -1;
    }
    /* An agent of another server (one killed, say) is still active: the runtime
     * would refuse (one profiler per process), but only after loading the
     * library a second time, a reference it never drops: the library would
     * stay mapped after that agent leaves. Refuse here instead. */
    if (proc_has_thread(pid, WIRE_AGENT_THREAD_NAME) == 1) {
        attach_other_agent(pid, out);
        return -1;
    }
    rc = ipc_process_info(pid, info, err, sizeof(err));
    if (rc == IPC_ERR_TOO_OLD) { /* refused before the runtime loads anything */
        attach_fail(out, 422,
                    "process %ld runs a .NET runtime older than .NET 5, which jitscope needs (it "
                    "does not know the diagnostics ProcessInfo command)",
                    (long)pid);
        return -1;
    }
    if (rc != IPC_OK)
        info->command_line[0] = info->entrypoint_assembly[0] = '\0';
    return 0;
}

int attach_check(pid_t pid, attach_result *out)
{
    ipc_procinfo *info = calloc(1, sizeof(*info));
    ipc_target target;
    userns_facts u;
    int rc;

    if (!info) {
        memset(out, 0, sizeof(*out));
        attach_fail(out, 503, "out of memory");
        return -1;
    }
    rc = attach_probe(pid, out, info, &target, &u);
    free(info);
    return rc;
}

/* The agent said nothing: why that may be, when /proc says the process runs
 * under a seccomp filter (what a container's profile installs), appended to
 * out's message. */
static void attach_seccomp_note(pid_t pid, attach_result *out)
{
    char buf[4096], *line;
    size_t len = 0, used = strlen(out->message);
    int mode = 0, filters = 0;

    if (proc_read(pid, "status", buf, sizeof(buf) - 1, &len) != 0)
        return;
    buf[len] = '\0';
    if ((line = strstr(buf, "\nSeccomp:")))
        mode = (int)strtol(line + 9, NULL, 10);
    if ((line = strstr(buf, "\nSeccomp_filters:")))
        filters = (int)strtol(line + 17, NULL, 10);
    if (mode == 2)
        snprintf(out->message + used, sizeof(out->message) - used,
                 "; process %ld runs under %d seccomp filter(s) (Seccomp: 2 in /proc/%ld/status), "
                 "which may forbid what the agent needs (socket and connect to its Unix socket): "
                 "allow them in the container's seccomp profile",
                 (long)pid, filters, (long)pid);
}

void attach_process(pid_t pid, attach_result *out)
{
    uint8_t client[sizeof(WIRE_CLIENT_DATA_PREFIX) + WIRE_TOKEN_LEN +
                   sizeof(WIRE_CLIENT_DATA_FLOOR) + 110];
    const char *floor = getenv(WIRE_ENV_NULL); /* JITSCOPE_NULL=1: attach a floor agent */
    static const struct {
        uint32_t d1;
        uint16_t d2, d3;
        uint8_t d4[8];
    } clsid = WIRE_CLSID_INIT;
    char err[256];
    ipc_procinfo *info = NULL;
    ipc_target target;
    userns_facts u;
    agentplace_paths paths = {0};
    container_facts where;
    session *s;
    int32_t hr = 0;
    int rc, id, n, status;

    memset(out, 0, sizeof(*out));
    if (pid < 1 || pid == getpid()) {
        attach_fail(out, 400, "pid %ld cannot be attached to", (long)pid);
        return;
    }
    if (pthread_mutex_trylock(&attach_busy) != 0) {
        attach_fail(out, 429, "another attach is in progress; retry (pid %ld)", (long)pid);
        return;
    }
    sessions_lock();
    s = sessions_by_pid(pid);
    if (s && (s->state == SESSION_LIVE || s->state == SESSION_STARTING ||
              s->state == SESSION_DETACHING)) {
        out->status = 409;
        snprintf(out->message, sizeof(out->message),
                 "process %ld is already attached by jitscope session %d", (long)pid, s->id);
        sessions_unlock();
        goto done;
    }
    if (s && s->persist.resumable) { /* its agent, of the server before, comes back to us */
        attach_fail(out, 409,
                    "process %ld's agent is still in it, from before this server's restart; "
                    "session %d takes it back when it reconnects (within seconds)",
                    (long)pid, s->id);
        sessions_unlock();
        goto done;
    }
    sessions_unlock();
    info = calloc(1, sizeof(*info));
    if (!info) {
        attach_fail(out, 503, "out of memory");
        goto done;
    }
    if (attach_probe(pid, out, info, &target, &u) != 0) {
        free(info);
        goto done;
    }
    /* where the process finds the agent: the server's files, or a place in
     * its container's temp directory (agentplace.h) */
    if (agentplace_take(pid, &target, &u, &paths, &status, out->message, sizeof(out->message)) !=
        0) {
        out->status = status;
        free(info);
        goto done;
    }
    container_probe(pid, &where);
    sessions_lock();
    s = sessions_create(SESSION_MODE_ATTACH, pid, info->command_line);
    if (s) {
        id = s->id;
        /* the runtime's word on its entry assembly, else the arguments' */
        if (info->entrypoint_assembly[0])
            attach_program_of(info->entrypoint_assembly, s->program, sizeof(s->program));
        else
            proc_program_name(pid, s->program, sizeof(s->program));
        s->created_ns = (int64_t)clock_real_ns();
        s->container = where;
        s->place_id = paths.place;
        n = snprintf((char *)client, sizeof(client), "%s%s %s%s", WIRE_CLIENT_DATA_PREFIX, s->token,
                     floor && strcmp(floor, "1") == 0 ? WIRE_CLIENT_DATA_FLOOR : "", paths.socket);
    }
    sessions_unlock();
    agentplace_unpin(paths.place); /* its session holds it now (the sweep sees it) */
    free(info);
    if (!s || n <= 0 || (size_t)n >= sizeof(client)) {
        attach_fail(out, 503, "cannot create a session for pid %ld", (long)pid);
        goto done;
    }

    rc = ipc_attach_profiler(pid, ATTACH_RUNTIME_TIMEOUT_MS, (const uint8_t *)&clsid, paths.library,
                             client, (uint32_t)n, &hr, err, sizeof(err));
    if ((rc == IPC_OK && hr == 0) || rc == IPC_ERR_TIMEOUT) {
        /* a late reply (timeout) may still mean the attach happened: confirm by
         * waiting for the agent's hello before answering either way */
        int late = rc == IPC_ERR_TIMEOUT;
        if (attach_wait_hello(id, late ? ATTACH_HELLO_TIMEOUT_MS / 2 : ATTACH_HELLO_TIMEOUT_MS)) {
            out->status = 201;
            out->session_id = id;
            snprintf(out->message, sizeof(out->message), "%s",
                     late ? "attached (the runtime's reply was late)" : "attached");
            goto done;
        }
        attach_forget(id);
        attach_fail(
            out, 504,
            late ? "attach to process %ld timed out; confirmed that no jitscope agent connected"
                 : "the agent loaded in process %ld but never connected to jitscope; it detaches "
                   "itself once it has had no server for 60 s",
            (long)pid);
        attach_seccomp_note(pid, out);
        goto done;
    }
    attach_forget(id);
    if (rc == IPC_OK || rc == IPC_ERR_RUNTIME) {
        attach_explain(pid, hr, paths.library, out);
    } else {
        out->status = rc == IPC_ERR_NOPROC ? 404 : rc == IPC_ERR_PERM ? 403 : 502;
        snprintf(out->message, sizeof(out->message), "%s", err);
    }
done:
    pthread_mutex_unlock(&attach_busy);
}

int detach_session(int session_id, char *message, size_t size)
{
    wire_cmd_detach cmd = {.expected_ms = DETACH_EXPECTED_MS};
    session *s;
    int link_id;

    sessions_lock();
    s = sessions_get(session_id);
    if (!s) {
        sessions_unlock();
        snprintf(message, size, "no such session");
        return 404;
    }
    if (s->state != SESSION_LIVE || !s->link_id) {
        snprintf(message, size, "session %d is %s: there is no live agent to detach", session_id,
                 session_state_name(s->state));
        sessions_unlock();
        return 409;
    }
    link_id = s->link_id;
    session_detach_sent(s, (int64_t)clock_real_ns());
    sessions_unlock();
    if (link_send(link_id, WIRE_CMD_DETACH, &cmd, sizeof(cmd)) != 0) {
        sessions_lock();
        if ((s = sessions_get(session_id)))
            session_detach_unsent(s);
        sessions_unlock();
        snprintf(message, size, "could not send the detach command to the agent");
        return 502;
    }
    sessions_notify(session_id);
    snprintf(message, size, "detach requested");
    return 202;
}
