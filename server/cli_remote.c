/* cli_remote.c -- the commands of the `jitscope` command line that do not
 * serve (see cli.h): `ps` lists the .NET processes this user may attach to,
 * with their runtimes and containers (proclist.h); `attach --server` and
 * `detach` ask a running server over its REST API (client.h). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "client.h"
#include "proclist.h"

/* 1 when the jitscope agent is mapped in the process. */
static int agent_loaded(pid_t pid)
{
    char path[64], line[512];
    FILE *f;
    int found = 0;

    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    f = fopen(path, "r");
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, "libjitscope_agent") != NULL;
    fclose(f);
    return found;
}

int cli_ps(void)
{
    proclist procs;
    size_t i;

    if (proclist_build(&procs) < 0) {
        fprintf(stderr, "jitscope ps: cannot scan /proc\n");
        return 1;
    }
    printf("%-8s %-10s %-24s %-8s %-12s %-20s %-6s %s\n", "PID", "RUNTIME", "ENTRY ASSEMBLY",
           "AGENT", "CONTAINER", "HOSTNAME", "CPID", "COMMAND");
    for (i = 0; i < procs.count; i++) {
        const proclist_item *p = &procs.items[i];
        const container_facts *c = &p->container;
        char cpid[16] = "-";

        if (c->in_container)
            snprintf(cpid, sizeof(cpid), "%d", (int)c->pid);
        printf("%-8d %-10s %-24.24s %-8s %-12.12s %-20.20s %-6s %s\n", (int)p->pid,
               p->info_ok ? p->info.runtime_version : "?",
               p->info_ok ? p->info.entrypoint_assembly : "?",
               agent_loaded(p->pid) ? "loaded" : "-", c->in_container && c->id[0] ? c->id : "-",
               c->in_container && c->hostname[0] ? c->hostname : "-", cpid,
               p->info_ok ? p->info.command_line : p->error);
    }
    if (procs.count == 0)
        fprintf(stderr, "jitscope ps: no .NET processes of this user with a diagnostics socket\n");
    if (procs.truncated)
        fprintf(stderr, "jitscope ps: only the first %u processes are listed\n", PROCLIST_MAX);
    proclist_free(&procs);
    return 0;
}

/* The "error" of a JSON answer, never NULL. */
static const char *error_of(json_t *body)
{
    const char *e = json_string_value(json_object_get(body, "error"));
    return e ? e : "unknown error";
}

static const char *server_url(const cli_options *o)
{
    return o->server ? o->server : "http://127.0.0.1:8642";
}

int cli_remote_attach(cli_options *o)
{
    char url[1024], err[512];
    json_t *body;
    pid_t pid = o->attach_pid; /* checked by the caller */
    long status;

    snprintf(url, sizeof(url), "%s/api/processes/%d/attach", server_url(o), (int)pid);
    status = client_request("POST", url, o->http.api_key, &body, err, sizeof(err));
    if (status < 0) {
        fprintf(stderr, "jitscope attach: %s\n", err);
        return 1;
    }
    if (status != 201) {
        fprintf(stderr, "jitscope attach: %s (HTTP %ld)\n", error_of(body), status);
        json_decref(body);
        return 1;
    }
    printf("attached to pid %d: session %lld\n", (int)pid,
           (long long)json_integer_value(json_object_get(json_object_get(body, "session"), "id")));
    json_decref(body);
    return 0;
}

/* Finds the session a SESSION|PID argument names on the server: a session id
 * first, else the newest session of that pid that has a live agent. */
static int remote_find_session(const cli_options *o, long wanted, char *err, size_t errsz)
{
    char url[1024];
    json_t *body, *list, *s;
    long status;
    size_t i;
    int found = -1;

    snprintf(url, sizeof(url), "%s/api/sessions", server_url(o));
    status = client_request("GET", url, o->http.api_key, &body, err, errsz);
    if (status != 200) {
        if (status > 0)
            snprintf(err, errsz, "server answered HTTP %ld", status);
        json_decref(body);
        return -1;
    }
    list = json_object_get(body, "sessions");
    json_array_foreach(list, i, s)
    {
        if (json_integer_value(json_object_get(s, "id")) == wanted)
            found = (int)wanted;
    }
    json_array_foreach(list, i, s)
    {
        const char *state = json_string_value(json_object_get(s, "state"));
        if (found < 0 && json_integer_value(json_object_get(s, "pid")) == wanted && state &&
            strcmp(state, "live") == 0)
            found = (int)json_integer_value(json_object_get(s, "id"));
    }
    json_decref(body);
    if (found < 0)
        snprintf(err, errsz, "no session %ld and no live session of pid %ld on %s", wanted, wanted,
                 server_url(o));
    return found;
}

int cli_remote_detach(cli_options *o)
{
    char url[1024], err[512];
    json_t *body;
    long status, wanted;
    char *end;
    int id, waited;

    errno = 0;
    wanted = o->positional ? strtol(o->positional, &end, 10) : 0;
    if (!o->positional || errno || *end || wanted <= 0) {
        fprintf(stderr, "jitscope detach: give a session id or a process id\n");
        return EXIT_USAGE;
    }
    id = remote_find_session(o, wanted, err, sizeof(err));
    if (id < 0) {
        fprintf(stderr, "jitscope detach: %s\n", err);
        return 1;
    }
    snprintf(url, sizeof(url), "%s/api/sessions/%d/detach", server_url(o), id);
    status = client_request("POST", url, o->http.api_key, &body, err, sizeof(err));
    if (status != 202) {
        fprintf(stderr, "jitscope detach: %s\n", status < 0 ? err : error_of(body));
        json_decref(body);
        return 1;
    }
    json_decref(body);
    snprintf(url, sizeof(url), "%s/api/sessions/%d", server_url(o), id);
    for (waited = 0; waited < 30000; waited += 100) {
        const char *state;
        usleep(100000);
        if (client_request("GET", url, o->http.api_key, &body, err, sizeof(err)) != 200) {
            json_decref(body);
            continue;
        }
        state = json_string_value(json_object_get(body, "state"));
        if (state && strcmp(state, "detached") == 0) {
            printf(
                "session %d detached in %.1f ms\n", id,
                json_number_value(json_object_get(json_object_get(body, "detach"), "duration_ms")));
            json_decref(body);
            return 0;
        }
        if (state && strcmp(state, "detaching") != 0) {
            fprintf(stderr, "jitscope detach: session %d is %s: %s\n", id, state, error_of(body));
            json_decref(body);
            return 1;
        }
        json_decref(body);
    }
    fprintf(stderr, "jitscope detach: session %d still detaching after 30 s\n", id);
    return 1;
}
