/* main.c -- the `jitscope` command line: run, serve (and their options).
 *
 * `run` starts an app under the agent and serves its session; `serve` only
 * serves. Both print the dashboard URL, keep serving after the app exits, and
 * stop on SIGINT/SIGTERM (received with sigwait on the main thread; every
 * other thread has them blocked). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "http.h"
#include "launch.h"
#include "link.h"
#include "sessions.h"

#define EXIT_USAGE 2

typedef struct cli_options {
    http_config http;
    const char *agent_path;
    char agent_buf[PATH_MAX];
    char web_buf[PATH_MAX];
    char **command;        /* run: argv after "--" */
} cli_options;

static void usage(FILE *out)
{
    fputs("usage: jitscope COMMAND [OPTIONS]\n"
          "\n"
          "Live JIT, module and thread diagnostics for .NET processes.\n"
          "\n"
          "commands:\n"
          "  run [OPTIONS] -- PROGRAM [ARGS...]  start PROGRAM with the jitscope agent loaded\n"
          "                                      and serve its session (keeps serving after it exits)\n"
          "  serve [OPTIONS]                     serve the API and dashboard only\n"
          "  help                                this text\n"
          "\n"
          "options:\n"
          "  --port N        HTTP port (default 8642; 0 picks a free one)\n"
          "  --host ADDR     bind address (default 127.0.0.1; others need --api-key)\n"
          "  --api-key KEY   require 'Authorization: Bearer KEY' on the API (or JITSCOPE_API_KEY)\n"
          "  --agent PATH    agent library (default: libjitscope_agent.so next to jitscope)\n"
          "  --web DIR       dashboard files (default: ../web from jitscope's directory)\n"
          "  -h, --help      this text\n",
          out);
}

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

static int parse_port(const char *text, int *port)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0 || v > 65535)
        return -1;
    *port = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, int start, int allow_command, cli_options *o)
{
    char dir[3072];
    int i;

    memset(o, 0, sizeof(*o));
    o->http.port = 8642;
    o->http.api_key = getenv("JITSCOPE_API_KEY");
    for (i = start; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
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
        } else if (strcmp(a, "--host") == 0 && v) {
            o->http.bind_host = v, i++;
        } else if (strcmp(a, "--api-key") == 0 && v) {
            o->http.api_key = v, i++;
        } else if (strcmp(a, "--agent") == 0 && v) {
            o->agent_path = v, i++;
        } else if (strcmp(a, "--web") == 0 && v) {
            o->http.web_root = v, i++;
        } else {
            fprintf(stderr, "jitscope: unknown or incomplete option '%s' (see --help)\n", a);
            return -1;
        }
    }
    if (o->http.api_key && !*o->http.api_key)
        o->http.api_key = NULL;
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
    if (access(o->agent_path, R_OK) != 0) {
        fprintf(stderr, "jitscope: agent library %s: %s\n", o->agent_path, strerror(errno));
        return -1;
    }
    return 0;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Joins argv into one line for display (bounded). */
static void join_command(char **argv, char *out, size_t outsz)
{
    size_t used = 0;
    int i;

    out[0] = '\0';
    for (i = 0; argv[i] && used + 1 < outsz; i++) {
        int n = snprintf(out + used, outsz - used, "%s%s", i ? " " : "", argv[i]);
        if (n < 0)
            break;
        used += (size_t)n < outsz - used ? (size_t)n : outsz - used - 1;
    }
}

static int serve(cli_options *o, int launch)
{
    char err[512], line[4096];
    sigset_t stop;
    int port, sig, rc = 1;

    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* before any thread starts */
    if (link_start(err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: agent socket: %s\n", err);
        return 1;
    }
    if (http_start(&o->http, &port, err, sizeof(err)) != 0) {
        fprintf(stderr, "jitscope: %s\n", err);
        goto done;
    }
    if (launch) {
        session *s;
        pid_t pid;
        char token[WIRE_TOKEN_LEN + 1];
        int id;

        join_command(o->command, line, sizeof(line));
        sessions_lock();
        s = sessions_create(SESSION_MODE_RUN, 0, line);
        if (s) {
            s->created_ns = now_ns();
            memcpy(token, s->token, sizeof(token));
            id = s->id;
        }
        sessions_unlock();
        if (!s) {
            fprintf(stderr, "jitscope: cannot create a session\n");
            goto done;
        }
        if (launch_app(o->command, o->agent_path, link_socket_path(), token, id, &pid, err,
                       sizeof(err)) != 0) {
            fprintf(stderr, "jitscope: %s\n", err);
            rc = 127;
            goto done;
        }
        sessions_lock();
        s->pid = pid;
        sessions_unlock();
        fprintf(stderr, "jitscope: started pid %d: %s\n", (int)pid, line);
    }
    fprintf(stderr, "jitscope: agent socket %s\n", link_socket_path());
    printf("jitscope: dashboard at http://127.0.0.1:%d/ (API under /api/)\n", port);
    if (o->http.bind_host && !http_is_loopback(o->http.bind_host))
        printf("jitscope: also listening on %s:%d (API key required)\n", o->http.bind_host, port);
    fflush(stdout);
    sigdelset(&stop, SIGPIPE);
    sigwait(&stop, &sig);
    fprintf(stderr, "jitscope: %s, shutting down\n", sig == SIGINT ? "interrupted" : "terminated");
    rc = 0;
done:
    http_stop();
    launch_stop();
    link_stop();
    sessions_lock();
    sessions_free_all();
    sessions_unlock();
    return rc;
}

int main(int argc, char **argv)
{
    cli_options o;
    const char *cmd = argc > 1 ? argv[1] : NULL;

    if (!cmd) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) {
        if (parse_options(argc, argv, 2, 1, &o) != 0)
            return EXIT_USAGE;
        if (!o.command || !o.command[0]) {
            fprintf(stderr, "jitscope run: give the program after '--', e.g. "
                            "jitscope run -- dotnet app.dll\n");
            return EXIT_USAGE;
        }
        return serve(&o, 1);
    }
    if (strcmp(cmd, "serve") == 0) {
        if (parse_options(argc, argv, 2, 0, &o) != 0)
            return EXIT_USAGE;
        return serve(&o, 0);
    }
    fprintf(stderr, "jitscope: unknown command '%s' (see jitscope --help)\n", cmd);
    return EXIT_USAGE;
}
