/* cli_help.c -- what `jitscope` says about itself: the help of each command and
 * --version.
 *
 * One table of options, each with the commands it applies to, prints both the
 * global help (`jitscope --help`: every command and every option) and a
 * command's own (`jitscope run --help`: its usage, what it does, only its
 * options, the exit codes it can give). The texts go out with fputs, never as a
 * printf format, so a '%' is printed as it is written. main.c parses the
 * options (cli.h); report_cli.c checks run's report options. */
#include "cli_help.h"

#include <string.h>

#include "version.h"

enum {
    CLI_RUN = 1u << 0,
    CLI_ATTACH = 1u << 1,
    CLI_DETACH = 1u << 2,
    CLI_PS = 1u << 3,
    CLI_SERVE = 1u << 4,
    CLI_SERVING = CLI_RUN | CLI_ATTACH | CLI_SERVE, /* the commands that start a server */
    CLI_ALL = CLI_RUN | CLI_ATTACH | CLI_DETACH | CLI_PS | CLI_SERVE,
};

typedef struct cli_command {
    const char *name;
    unsigned bit;
    const char *synopsis; /* the global help's line, the words after "  " */
    const char *usage;    /* its own help: usage line and what it does */
    const char *exits;    /* its exit codes */
} cli_command;

static const cli_command cli_commands[] = {
    {"run", CLI_RUN,
     "run [OPTIONS] -- PROGRAM [ARGS...]  start PROGRAM with the jitscope agent loaded\n"
     "                                      and serve its session (keeps serving after it\n"
     "                                      exits, unless --exit)\n",
     "usage: jitscope run [OPTIONS] -- PROGRAM [ARGS...]\n"
     "\n"
     "Starts PROGRAM with the jitscope agent loaded and serves its session, and one\n"
     "session for each .NET process it starts (unless --no-children). The program\n"
     "comes after '--'. Without --exit it keeps serving after PROGRAM has ended,\n"
     "until Ctrl-C or SIGTERM.\n"
     "\n"
     "  jitscope run -- dotnet app.dll\n"
     "  jitscope run --exit --report jit.json -- dotnet test\n"
     "  jitscope run --exit --report jit.md --baseline main.json \\\n"
     "      --fail-on 'jit_time>+20%' -- dotnet test\n",
     "exit codes: PROGRAM's own once it has ended (128 + N when signal N killed it;\n"
     "0 when jitscope was stopped while it still ran, without --exit), 1 jitscope\n"
     "failed (also: a report could not be written), 2 usage error (also: a bad\n"
     "--baseline file or --fail-on condition, checked before PROGRAM starts),\n"
     "3 the data directory cannot be used, 4 a --fail-on condition held (PROGRAM\n"
     "itself exited 0), 127 PROGRAM could not be started\n"},
    {"attach", CLI_ATTACH,
     "attach PID [OPTIONS]                attach to a running .NET process and serve its\n"
     "                                      session (with --server URL: ask that server)\n",
     "usage: jitscope attach PID [OPTIONS]\n"
     "\n"
     "Attaches to the running .NET process PID (one of yours: see jitscope ps) and\n"
     "serves its session until Ctrl-C or SIGTERM; with --server URL, asks that\n"
     "running server to attach instead. The process is checked before anything\n"
     "starts.\n",
     "exit codes: 0 ok, 1 the attach failed (no such process, not a .NET process,\n"
     "another user's, already observed by another jitscope), 2 usage error,\n"
     "3 the data directory cannot be used\n"},
    {"detach", CLI_DETACH,
     "detach SESSION|PID [--server URL]   take the agent out of a process again\n",
     "usage: jitscope detach SESSION|PID [--server URL] [--api-key KEY]\n"
     "\n"
     "Asks a running jitscope server to take its agent out of a process: by session\n"
     "id, or by the process id of a live session. Waits until the runtime has\n"
     "unloaded the agent (at most 30 s).\n",
     "exit codes: 0 detached, 1 the server refused or could not be reached, 2 usage\n"
     "error\n"},
    {"ps", CLI_PS,
     "ps                                  list the .NET processes you may attach to\n",
     "usage: jitscope ps\n"
     "\n"
     "Lists the .NET processes of your user that have a diagnostics socket: pid,\n"
     "runtime version, entry assembly, whether the jitscope agent is loaded, and\n"
     "the command line.\n",
     "exit codes: 0 ok, 1 /proc cannot be read, 2 usage error\n"},
    {"serve", CLI_SERVE, "serve [OPTIONS]                     serve the API and dashboard only\n",
     "usage: jitscope serve [OPTIONS]\n"
     "\n"
     "Serves the REST API, the live stream and the dashboard, with the sessions\n"
     "kept in storage; attach to processes from the dashboard or the API.\n",
     "exit codes: 0 ok, 1 the server could not start, 2 usage error, 3 the data\n"
     "directory cannot be used\n"},
};

typedef struct cli_option {
    unsigned commands;
    const char *text; /* its lines, as the help prints them */
} cli_option;

static const cli_option cli_options[] = {
    {CLI_SERVING, "  --port N        HTTP port (default 8642; 0 picks a free one)\n"},
    {CLI_SERVING,
     "  --ws-port N     live-stream WebSocket port (default: HTTP port + 1, or a free one\n"
     "                  when that is taken; 0 picks one)\n"},
    {CLI_SERVING,
     "  --host ADDR     the one numeric IPv4/IPv6 address both ports listen on (default\n"
     "                  127.0.0.1; 0.0.0.0 or :: for every address of that family);\n"
     "                  anything but loopback needs --api-key, and should have TLS\n"},
    {CLI_SERVING | CLI_DETACH,
     "  --api-key KEY   require 'Authorization: Bearer KEY' on the API (or JITSCOPE_API_KEY);\n"
     "                  with --server: the key sent to that server\n"},
    {CLI_SERVING, "  --tls-cert FILE serve HTTPS and wss:// with this PEM certificate (chain)...\n"
                  "  --tls-key FILE  ...and this PEM private key (both or neither)\n"},
    {CLI_RUN | CLI_ATTACH | CLI_SERVE,
     "  --agent PATH    agent library (default: libjitscope_agent.so next to jitscope)\n"},
    {CLI_RUN, "  --no-children   profile only PROGRAM, not the .NET processes it starts\n"},
    {CLI_RUN,
     "  --exit          once PROGRAM has ended and its session is stored, stop and\n"
     "                  exit with PROGRAM's exit code (128 + N when signal N killed it)\n"},
    {CLI_RUN,
     "  --report FILE   when jitscope stops, write what the run did (per process: JITs,\n"
     "                  JIT time, the slowest JITs, ReadyToRun use, drops): FILE.json\n"
     "                  or FILE.md by its name, or json:FILE / md:FILE (e.g.\n"
     "                  md:$GITHUB_STEP_SUMMARY); twice for both (docs/API.md, Reports)\n"},
    {CLI_RUN, "  --baseline FILE compare with the JSON report of an earlier run\n"},
    {CLI_RUN, "  --fail-on COND  exit 4 when a condition holds: [SCOPE:]METRIC OP THRESHOLD,\n"
              "                  e.g. 'jit_time>+20%' (20% over the baseline), 'jit_time>2s',\n"
              "                  'testhost:jit_count>+500'; several: comma-separated or\n"
              "                  --fail-on again (docs/API.md, Reports)\n"},
    {CLI_SERVING,
     "  --web DIR       dashboard files (default: ../web from jitscope's directory)\n"},
    {CLI_SERVING,
     "  --symbols DIR   also look for portable PDBs (NAME.pdb) in DIR, for the source\n"
     "                  view (besides the .pdb beside each assembly, or embedded)\n"},
    {CLI_SERVING, "  --data DIR      keep sessions in DIR/jitscope.db across restarts (default\n"
                  "                  $XDG_STATE_HOME/jitscope, else ~/.local/state/jitscope);\n"
                  "                  --data none keeps them in memory only\n"},
    {CLI_SERVING, "  --keep N        sessions kept in storage, oldest ended ones go first (default "
                  "100,\n"
                  "                  at most 200)\n"},
    {CLI_SERVING, "  --keep-events N newest events kept in storage per session (default and most\n"
                  "                  1048576, what memory keeps; at least 1000)\n"},
    {CLI_SERVING,
     "  --max-memory SIZE  memory for what sessions hold, shared by the connected ones\n"
     "                  (bytes, or with K, M, G, T: 512M, 2G; or N% of the machine's\n"
     "                  memory; default 25%, at least 64M); a session over its share\n"
     "                  refuses new functions and names, and counts them\n"},
    {CLI_SERVING,
     "  --diagnostic-port PATH[=APPPATH]\n"
     "                  listen on PATH as a diagnostic port: runtimes started with\n"
     "                  DOTNET_DiagnosticPorts=APPPATH (APPPATH: where the app sees PATH,\n"
     "                  by default PATH) connect and are observed, suspend: from Main on\n"},
    {CLI_ATTACH | CLI_DETACH,
     "  --server URL    a running jitscope server (default http://127.0.0.1:8642; an\n"
     "                  https:// one's certificate is checked against the system's CAs,\n"
     "                  or the PEM file in JITSCOPE_CA_FILE)\n"},
    {CLI_ALL, "  -h, --help      this text\n"},
};

#define CLI_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const cli_command *cli_find(const char *name)
{
    size_t i;

    for (i = 0; name && i < CLI_COUNT(cli_commands); i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

int cli_is_help(const char *arg)
{
    return arg && (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0);
}

int cli_is_version(const char *arg)
{
    return arg && (strcmp(arg, "--version") == 0 || strcmp(arg, "version") == 0);
}

int cli_is_command(const char *name) { return cli_find(name) != NULL; }

static void cli_print_options(FILE *out, unsigned commands)
{
    size_t i;

    fputs("\noptions:\n", out);
    for (i = 0; i < CLI_COUNT(cli_options); i++)
        if (cli_options[i].commands & commands)
            fputs(cli_options[i].text, out);
}

void cli_usage(FILE *out, const char *command)
{
    const cli_command *c = cli_find(command);
    size_t i;

    if (c) {
        fputs(c->usage, out);
        if (c->bit != CLI_PS)
            cli_print_options(out, c->bit);
        fputs("\n", out);
        fputs(c->exits, out);
        return;
    }
    fputs("usage: jitscope COMMAND [OPTIONS]\n"
          "\n"
          "Live JIT, module and thread diagnostics for .NET processes.\n"
          "\n"
          "commands:\n",
          out);
    for (i = 0; i < CLI_COUNT(cli_commands); i++) {
        fputs("  ", out);
        fputs(cli_commands[i].synopsis, out);
    }
    fputs("  help [COMMAND]                      this text, or COMMAND's own (also COMMAND "
          "--help)\n"
          "  version                             jitscope's version (also --version)\n",
          out);
    cli_print_options(out, CLI_ALL);
    fputs("\nexit codes: 0 ok, 1 the operation failed, 2 usage error, 3 the data directory\n"
          "cannot be used, 4 a run --fail-on condition held, 127 run could not start its\n"
          "program; run answers with its program's exit code once it has ended\n",
          out);
}

void cli_version(FILE *out) { fputs("jitscope " JITSCOPE_VERSION "\n", out); }
