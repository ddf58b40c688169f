/* main.c -- the `jitscope` command line.
 *
 * `run` starts an app under the agent and serves its session; `attach` attaches
 * to a running process and serves (or asks a running server with --server);
 * `serve` only serves; `ps` lists attachable .NET processes; `detach` asks a
 * running server to take its agent out of a process. Serving commands print
 * the dashboard URL and stop on SIGINT/SIGTERM (received with sigwait on the
 * main thread; every other thread has them blocked).
 * Exit codes: 0 ok, 1 the operation failed, 2 usage error, 3 the data directory
 * (--data) cannot be used, 4 a run --fail-on condition held (report_cli.h),
 * 127 cannot start PROGRAM; `run` whose app has ended (with --exit: always)
 * exits with the app's code, 128 + N for signal N. The help texts are
 * cli_help.c's. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "api.h"
#include "clock.h"
#include "agentplace.h"
#include "attach.h"
#include "budget.h"
#include "buildwatch.h"
#include "cli.h"
#include "cli_help.h"
#include "cpuprof.h"
#include "diagport.h"
#include "client.h"
#include "http.h"
#include "hugemem.h"
#include "linkcost.h"
#include "ipc.h"
#include "launch.h"
#include "mallocopt.h"
#include "proclist.h"
#include "procname.h"
#include "runend.h"
#include "link.h"
#include "netaddr.h"
#include "sessions.h"
#include "persist.h"
#include "store.h"
#include "symfile.h"
#include "ws.h"
#include "utf.h"

/* Directory of our own executable, for the default agent and web paths. */
static int self_dir(char *out, size_t outsz)
{
    ssize_t n = readlink("/proc/self/exe", out, outsz - 1);
    char *slash;

    if (n <= 0)
        return -1;
    out[n] = '\0';
    slash = strrchr(out, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

/* A whole decimal number in min..max, else -1 (nothing written). */
static int parse_in_range(const char *text, long min, long max, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_port(const char *text, int *port)
{
    long v;

    if (parse_in_range(text, 0, 65535, &v) != 0)
        return -1;
    *port = (int)v;
    return 0;
}

/* One argument as a shell would need it written: as it is when it holds only
 * characters no shell treats specially, else in single quotes. */
static void print_shell_word(FILE *out, const char *word)
{
    const char *p;

    if (*word && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                              "_./:=@%+,-") == strlen(word)) {
        fputs(word, out);
        return;
    }
    fputc('\'', out);
    for (p = word; *p; p++)
        if (*p == '\'')
            fputs("'\\''", out);
        else
            fputc(*p, out);
    fputc('\'', out);
}

/* `jitscope run dotnet --version`: the program came without the "--" that
 * ends jitscope's options. Says so, with the command line that has it. */
static void suggest_double_dash(int argc, char **argv, int at)
{
    int i;

    fprintf(stderr,
            "jitscope: unknown or incomplete option '%s': the program to run comes after '--'\n"
            "did you mean: jitscope",
            argv[at]);
    for (i = 1; i < argc; i++) {
        if (i == at)
            fputs(" --", stderr);
        fputc(' ', stderr);
        print_shell_word(stderr, argv[i]);
    }
    fputc('\n', stderr);
}

static int parse_options(int argc, char **argv, int start, int allow_command, int positional,
                         cli_options *o)
{
    char dir[3072];
    int i;

    memset(o, 0, sizeof(*o));
    o->http.port = 8642;
    o->ws_port = -1;
    o->http.api_key = getenv("JITSCOPE_API_KEY");
    for (i = start; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int taken = allow_command ? report_cli_option(&o->report, a, v) : 0;

        if (taken < 0) {
            return -1;
        } else if (taken) {
            i++;
        } else if (cli_is_help(a)) {
            cli_usage(stdout, argv[1]);
            exit(0);
        } else if (strcmp(a, "--") == 0 && allow_command) {
            o->command = argv + i + 1;
            break;
        } else if (strcmp(a, "--port") == 0 && v) {
            if (parse_port(v, &o->http.port) != 0) {
                fprintf(stderr, "jitscope: --port wants 0..65535, not '%s'\n", v);
                return -1;
            }
            i++;
        } else if (strcmp(a, "--ws-port") == 0 && v) {
            if (parse_port(v, &o->ws_port) != 0) {
                fprintf(stderr, "jitscope: --ws-port wants 0..65535, not '%s'\n", v);
                return -1;
            }
            i++;
        } else if (strcmp(a, "--host") == 0 && v) {
            o->http.bind_host = v, i++;
        } else if (strcmp(a, "--api-key") == 0 && v) {
            o->http.api_key = v, i++;
        } else if (strcmp(a, "--tls-cert") == 0 && v) {
            o->http.tls_cert = v, i++;
        } else if (strcmp(a, "--tls-key") == 0 && v) {
            o->http.tls_key = v, i++;
        } else if (strcmp(a, "--agent") == 0 && v) {
            o->agent_path = v, i++;
        } else if (strcmp(a, "--no-children") == 0 && allow_command) {
            o->no_children = 1;
        } else if (strcmp(a, "--exit") == 0 && allow_command) {
            o->exit_with_app = 1;
        } else if (strcmp(a, "--web") == 0 && v) {
            o->http.web_root = v, i++;
        } else if (strcmp(a, "--symbols") == 0 && v) {
            struct stat st;
            if (!realpath(v, o->symbols_buf) || stat(o->symbols_buf, &st) != 0 ||
                !S_ISDIR(st.st_mode)) {
                fprintf(stderr, "jitscope: --symbols wants a directory, not '%s'\n", v);
                return -1;
            }
            symfile_set_dir(o->symbols_buf), i++;
        } else if (strcmp(a, "--data") == 0 && v) {
            if (!*v) {
                fprintf(stderr, "jitscope: --data wants a directory or 'none'\n");
                return -1;
            }
            o->store.dir = v, i++;
        } else if (strcmp(a, "--keep-events") == 0 && v) {
            long keep;
            if (parse_in_range(v, STORE_KEEP_EVENTS_MIN, EVENTLOG_MAX, &keep) != 0) {
                fprintf(stderr, "jitscope: --keep-events wants %u..%u, not '%s'\n",
                        STORE_KEEP_EVENTS_MIN, (unsigned)EVENTLOG_MAX, v);
                return -1;
            }
            o->store.keep_events = (unsigned)keep, i++;
        } else if (strcmp(a, "--rewrite-delay") == 0) {
            fprintf(stderr, "jitscope: --rewrite-delay is no longer needed: every compilation is "
                            "stored as it comes (docs/STORAGE.md)\n");
            return -1;
        } else if (strcmp(a, "--keep") == 0 && v) {
            long keep;
            if (parse_in_range(v, 1, STORE_KEEP_MAX, &keep) != 0) {
                fprintf(stderr, "jitscope: --keep wants 1..%d, not '%s'\n", STORE_KEEP_MAX, v);
                return -1;
            }
            o->store.keep = (unsigned)keep, i++;
        } else if (strcmp(a, "--max-memory") == 0 && v) {
            if (budget_parse_size(v, &o->max_memory) != 0) {
                fprintf(stderr,
                        "jitscope: --max-memory wants bytes (at least 64M), with K, M, G or T, "
                        "or 1..100%%, not '%s'\n",
                        v);
                return -1;
            }
            i++;
        } else if (strcmp(a, "--diagnostic-port") == 0 && v) {
            o->diagnostic_port = v, i++;
        } else if (strcmp(a, "--server") == 0 && v) {
            o->server = v, i++;
        } else if (positional && !o->positional && a[0] != '-') {
            o->positional = a;
        } else if (allow_command && a[0] != '-') {
            suggest_double_dash(argc, argv, i);
            return -1;
        } else {
            fprintf(stderr, "jitscope: unknown or incomplete option '%s' (see --help)\n", a);
            return -1;
        }
    }
    if (o->http.api_key && !*o->http.api_key)
        o->http.api_key = NULL;
    if (!o->http.tls_cert != !o->http.tls_key) {
        fprintf(stderr, "jitscope: --tls-cert and --tls-key go together\n");
        return -1;
    }
    for (i = 0; o->http.tls_cert && i < 2; i++) {
        const char *file = i == 0 ? o->http.tls_cert : o->http.tls_key;
        if (access(file, R_OK) != 0) {
            fprintf(stderr, "jitscope: %s %s: %s\n", i == 0 ? "--tls-cert" : "--tls-key", file,
                    strerror(errno));
            return -1;
        }
    }
    if (self_dir(dir, sizeof(dir)) != 0) {
        fprintf(stderr, "jitscope: cannot find my own directory\n");
        return -1;
    }
    if (!o->agent_path) {
        if (snprintf(o->agent_buf, sizeof(o->agent_buf), "%.3000s/libjitscope_agent.so", dir) < 0)
            return -1;
        o->agent_path = o->agent_buf;
    } else if (o->agent_path[0] != '/' && realpath(o->agent_path, o->agent_buf)) {
        o->agent_path = o->agent_buf; /* the app may run elsewhere: absolute path */
    }
    if (!o->http.web_root) {
        if (snprintf(o->web_buf, sizeof(o->web_buf), "%.3000s/../web", dir) < 0)
            return -1;
        o->http.web_root = o->web_buf;
    }
    return 0;
}

/* The agent library must exist where this command loads it (run, attach). */
static int check_agent(const cli_options *o)
{
    if (access(o->agent_path, R_OK) != 0) {
        fprintf(stderr, "jitscope: agent library %s: %s\n", o->agent_path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Joins argv into one line for display: bounded, and valid UTF-8 (a byte that
 * is not becomes '?'), since it goes into JSON. */
static void join_command(char **argv, char *out, size_t outsz)
{
    size_t used = 0;
    int i, truncated;

    for (i = 0; argv[i] && used + 2 < outsz; i++) {
        if (i)
            out[used++] = ' ';
        used += utf8_sanitize(argv[i], strlen(argv[i]), out + used, outsz - 1 - used, &truncated);
    }
    out[used] = '\0';
}

/* PID argument: a number in 1..4194304 (the largest pid_max Linux allows);
 * whether such a process runs, and may be attached to, is attach_check's word. */
static int parse_pid(const char *text, pid_t *pid)
{
    long v;

    if (!text || parse_in_range(text, 1, 4194304, &v) != 0)
        return -1;
    *pid = (pid_t)v;
    return 0;
}

/* The host part of the URLs printed: the bound address, or loopback for a wildcard. */
static const char *url_host(const cli_options *o)
{
    static char bracketed[80];
    const char *h = o->http.bind_host ? o->http.bind_host : "127.0.0.1";

    if (netaddr_is_wildcard(h))
        return strchr(h, ':') ? "[::1]" : "127.0.0.1";
    if (!strchr(h, ':'))
        return h;
    snprintf(bracketed, sizeof(bracketed), "[%s]", h);
    return bracketed;
}

enum serve_mode { SERVE_ONLY, SERVE_RUN, SERVE_ATTACH };

static pthread_t serve_thread; /* the main thread: sigwait wakes it */

/* run --exit: the reaper recorded the app's exit; wake the main thread. */
static void serve_app_ended(void) { pthread_kill(serve_thread, SIGUSR1); }

/* Waits for a signal of set and takes it. A SIGINT or SIGTERM is told to the
 * diagnostic port before it is taken: a thread that sees it pending and one
 * that sees the word can never both miss it (diagport.h: a runtime on the
 * port is resumed without the agent from then on). */
static int serve_wait_signal(const sigset_t *set)
{
    struct pollfd p = {.fd = signalfd(-1, set, SFD_CLOEXEC), .events = POLLIN};
    sigset_t pending;
    int sig = 0;

    while (p.fd >= 0 && poll(&p, 1, -1) < 0 && errno == EINTR)
        ;
    if (p.fd >= 0)
        close(p.fd);
    if (sigpending(&pending) == 0 &&
        (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1))
        diagport_stopping();
    sigwait(set, &sig);
    return sig;
}

static int serve(cli_options *o, int mode)
{
    char err[512], line[4096];
    sigset_t stop;
    int port, ws_port = 0, sig, rc = 1, run_id = 0, code, app_code = 0, report_rc = 0;
    size_t argc;
    ws_config ws = {.bind_host = o->http.bind_host,
                    .port = o->ws_port,
                    .port_is_default = o->ws_port < 0,
                    .api_key = o->http.api_key,
                    .tls_cert = o->http.tls_cert,
                    .tls_key = o->http.tls_key};
    const char *tls = o->http.tls_cert ? "s" : "";

    /* a file that may not grow (a full disk's quota, a file size limit) is an
     * error storage reports and retries, not the end of the server */
    signal(SIGXFSZ, SIG_IGN);
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGPIPE);
    sigaddset(&stop, SIGUSR1); /* run --exit: the app has ended */
    serve_thread = pthread_self();
    rc = pthread_sigmask(SIG_BLOCK, &stop, NULL); /* before any thread starts */
    if (rc != 0) {
        fprintf(stderr, "jitscope: pthread_sigmask: %s\n", strerror(rc));
        return 1;
    }
    rc = 1;
    mallocopt_fix_thresholds();
    if (hugemem_configure(getenv("JITSCOPE_HUGEPAGES"), err, sizeof(err)) != 0 ||
        linkcost_configure(getenv("JITSCOPE_LINK_COST"), err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: %s\n", err);
        return 2; /* a usage error */
    }
    if (!o->store.dir) {
        if (store_default_dir(o->data_buf, sizeof(o->data_buf)) != 0) {
            fprintf(stderr, "jitscope: no HOME or XDG_STATE_HOME for the default data directory; "
                            "give --data DIR or --data none\n");
            return STORE_EXIT_CODE;
        }
        o->store.dir = o->data_buf;
    }
    budget_set_max(o->max_memory ? o->max_memory : budget_default());
    fprintf(stderr, "jitscope: memory for sessions: %llu MiB (--max-memory)\n",
            (unsigned long long)(budget_max() >> 20));
    if (persist_open(&o->store, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: %s\n", err);
        return STORE_EXIT_CODE;
    }
    if (persist_enabled())
        fprintf(stderr, "jitscope: sessions kept in %s/jitscope.db\n", o->store.dir);
    if (link_start(persist_enabled() ? o->store.dir : NULL, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: agent socket: %s\n", err);
        persist_close();
        return 1;
    }
    attach_set_agent_path(o->agent_path);
    /* agents in containers: places no session needs go at every sweep; those
     * of sessions to be taken back are made again, leftovers removed */
    link_on_sweep(agentplace_sweep);
    agentplace_restore();
    if (o->diagnostic_port && diagport_start(o->diagnostic_port, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: %s\n", err);
        rc = 2;
        goto done;
    }
    sessions_set_listener(ws_notify);
    /* the stream first, so /api/config is right from the first HTTP request */
    if (ws.port < 0)
        ws.port = o->http.port == 0 || o->http.port == 65535 ? 0 : o->http.port + 1;
    if (ws_start(&ws, &ws_port, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: %s\n", err);
        goto done;
    }
    api_configure(ws_port, o->http.api_key != NULL);
    if (http_start(&o->http, &port, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: %s\n", err);
        goto done;
    }
    snprintf(line, sizeof(line), "http%s://%s:%d/", tls, url_host(o), port);
    link_set_note(line); /* for a server asked to attach to one of our processes */
    if (mode == SERVE_ATTACH) {
        attach_result r;
        pid_t pid = o->attach_pid;
        attach_process(pid, &r);
        if (r.status != 201) {
            fprintf(stderr, "jitscope: attach to %d failed (%d): %s\n", (int)pid, r.status,
                    r.message);
            goto done;
        }
        fprintf(stderr, "jitscope: attached to pid %d as session %d\n", (int)pid, r.session_id);
    }
    if (mode == SERVE_RUN) {
        session *s;
        pid_t pid;

        join_command(o->command, line, sizeof(line));
        buildwatch_prepare(o->command); /* the build servers running before the app */
        /* held across the spawn: an agent's hello finds the session's pid set,
         * so the launched process is told from its children from the start */
        sessions_lock();
        s = sessions_create(SESSION_MODE_RUN, 0, line);
        if (!s) {
            sessions_unlock();
            fprintf(stderr, "jitscope: cannot create a session\n");
            goto done;
        }
        s->created_ns = (int64_t)clock_real_ns();
        for (argc = 0; o->command[argc]; argc++)
            ;
        procname_of_argv((const char *const *)o->command, argc, s->program, sizeof(s->program));
        run_id = s->id;
        if (o->exit_with_app)
            launch_on_exit(serve_app_ended);
        if (launch_app(o->command, o->agent_path, link_socket_path(), s->token, o->no_children,
                       s->id, &pid, err, sizeof(err)) != 0) {
            sessions_unlock();
            fprintf(stderr, "jitscope: %s\n", err);
            rc = 127;
            goto done;
        }
        s->pid = pid;
        sessions_unlock();
        fprintf(stderr, "jitscope: started pid %d: %s\n", (int)pid, line);
        buildwatch_start(run_id, pid);
    }
    fprintf(stderr, "jitscope: agent socket %s\n", link_socket_path());
    fprintf(stderr, "jitscope: live stream on ws%s://%s:%d/\n", tls, url_host(o), ws_port);
    printf("jitscope: dashboard at http%s://%s:%d/ (API under /api/)\n", tls, url_host(o), port);
    if (o->http.bind_host && !netaddr_is_loopback(o->http.bind_host))
        printf("jitscope: listening on %s port %d (API key required)\n", o->http.bind_host, port);
    fflush(stdout);
    sigdelset(&stop, SIGPIPE);
    if (!o->exit_with_app)
        sigdelset(&stop, SIGUSR1);
    do
        sig = serve_wait_signal(&stop);
    while (sig == SIGUSR1 && !launch_exit_code(&code)); /* only the reaper's word counts */
    if (sig == SIGUSR1) {
        fprintf(stderr, "jitscope: the app has ended (--exit): storing its session, stopping\n");
        runend_settle(run_id); /* every session of the run ended, none left live */
    } else {
        fprintf(stderr, "jitscope: %s, shutting down\n",
                sig == SIGINT ? "interrupted" : "terminated");
    }
    /* a run whose app has ended answers with the app's exit code (with --exit
     * always: an app still running is stopped below, and that is its end) */
    app_code = mode == SERVE_RUN && (o->exit_with_app || launch_exit_code(&code));
    rc = 0;
done:
    diagport_stop();    /* every runtime on the port is resumed before it closes */
    http_stop();        /* no request can start a detach any more */
    cpuprof_shutdown(); /* CPU samplers fold their last samples (the link may still answer) */
    link_stop();        /* no agent record can notify the stream any more */
    agentplace_stop();  /* nothing of jitscope stays in a container */
    ws_stop();
    launch_stop();
    buildwatch_stop(); /* its last look is in the run's session before storage's last round */
    if (run_id && report_cli_wanted(&o->report)) /* every record is in: what the run did */
        report_rc = report_cli_finish(&o->report, run_id);
    persist_close(); /* its last round writes what the sessions hold now */
    sessions_lock();
    sessions_free_all();
    sessions_unlock();
    if (app_code && launch_exit_code(&code)) {
        fprintf(stderr, "jitscope: exit code %d (the app's)\n", code);
        rc = code;
    }
    if (rc == 0 && report_rc) /* a regression (or a report not written) when all else went well */
        rc = report_rc;
    return rc;
}

int main(int argc, char **argv)
{
    attach_result refusal;
    cli_options o;
    int rc;
    const char *cmd = argc > 1 ? argv[1] : NULL;

    if (!cmd) {
        cli_usage(stderr, NULL);
        return EXIT_USAGE;
    }
    if (strcmp(cmd, "help") == 0 || cli_is_help(cmd)) {
        if (argc > 2 && !cli_is_command(argv[2])) {
            fprintf(stderr, "jitscope help: no command '%s' (see jitscope --help)\n", argv[2]);
            return EXIT_USAGE;
        }
        cli_usage(stdout, argc > 2 ? argv[2] : NULL);
        return 0;
    }
    if (cli_is_version(cmd)) {
        cli_version(stdout);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) {
        if (parse_options(argc, argv, 2, 1, 0, &o) != 0 || check_agent(&o) != 0)
            return EXIT_USAGE;
        if (!o.command || !o.command[0]) {
            fprintf(stderr, "jitscope run: give the program after '--', e.g. "
                            "jitscope run -- dotnet app.dll\n");
            return EXIT_USAGE;
        }
        if (report_cli_prepare(&o.report) != 0) /* before the app starts */
            return EXIT_USAGE;
        rc = serve(&o, SERVE_RUN);
        report_cli_free(&o.report);
        return rc;
    }
    if (strcmp(cmd, "serve") == 0) {
        if (parse_options(argc, argv, 2, 0, 0, &o) != 0 || check_agent(&o) != 0)
            return EXIT_USAGE;
        return serve(&o, SERVE_ONLY);
    }
    if (strcmp(cmd, "attach") == 0) {
        if (parse_options(argc, argv, 2, 0, 1, &o) != 0)
            return EXIT_USAGE;
        if (!o.positional) {
            fprintf(stderr, "jitscope attach: give a process id (see jitscope ps)\n");
            return EXIT_USAGE;
        }
        if (parse_pid(o.positional, &o.attach_pid) != 0) { /* before a server or a file is made */
            fprintf(stderr, "jitscope attach: '%s' is not a process id (1..4194304)\n",
                    o.positional);
            return EXIT_USAGE;
        }
        if (o.server)
            return cli_remote_attach(&o);
        if (check_agent(&o) != 0)
            return EXIT_USAGE;
        if (attach_check(o.attach_pid, &refusal) != 0) { /* before a server or a file is made */
            fprintf(stderr, "jitscope attach: %s\n", refusal.message);
            return 1;
        }
        return serve(&o, SERVE_ATTACH);
    }
    if (strcmp(cmd, "detach") == 0) {
        if (parse_options(argc, argv, 2, 0, 1, &o) != 0)
            return EXIT_USAGE;
        return cli_remote_detach(&o);
    }
    if (strcmp(cmd, "ps") == 0) {
        if (argc > 2 && cli_is_help(argv[2])) {
            cli_usage(stdout, "ps");
            return 0;
        }
        if (argc > 2) {
            fprintf(stderr, "jitscope ps: takes no arguments\n");
            return EXIT_USAGE;
        }
        return cli_ps();
    }
    fprintf(stderr, "jitscope: unknown command '%s' (see jitscope --help)\n", cmd);
    return EXIT_USAGE;
}
