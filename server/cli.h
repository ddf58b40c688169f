/* cli.h -- the `jitscope` command line's options, and its commands that do
 * not serve: `ps` (cli_remote.c lists the processes), `attach --server` and
 * `detach` (cli_remote.c asks a running server). main.c parses the options
 * and runs the serving commands. */
#ifndef JITSCOPE_CLI_H
#define JITSCOPE_CLI_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "http.h"
#include "persist.h"
#include "report_cli.h"

#define EXIT_USAGE 2

typedef struct cli_options {
    http_config http;
    const char *agent_path;
    char agent_buf[PATH_MAX];
    char web_buf[PATH_MAX];
    char **command;         /* run: argv after "--" */
    const char *positional; /* attach: PID; detach: SESSION or PID */
    pid_t attach_pid;       /* attach: the PID, checked before anything starts */
    const char *server;     /* attach/detach: URL of a running server */
    int ws_port;            /* -1: HTTP port + 1 (0 when the HTTP port is 0) */
    int no_children;        /* run: keep the agent out of the app's child processes */
    int exit_with_app;      /* run --exit: stop once the app has ended, with its exit code */
    persist_options store;  /* --data DIR|none, --keep N, --keep-events N */
    char data_buf[PATH_MAX];
    char symbols_buf[PATH_MAX];  /* --symbols DIR, made absolute (symfile.h) */
    uint64_t max_memory;         /* --max-memory, 0: the default (budget.h) */
    const char *diagnostic_port; /* --diagnostic-port PATH[=APPPATH] (diagport.h) */
    report_cli report;           /* run: --report, --baseline, --fail-on (report_cli.h) */
} cli_options;

/* jitscope ps: 0, or 1 when /proc cannot be scanned. */
int cli_ps(void);
/* jitscope attach PID --server URL, jitscope detach SESSION|PID [--server URL]:
 * the exit code. */
int cli_remote_attach(cli_options *o);
int cli_remote_detach(cli_options *o);

#endif
