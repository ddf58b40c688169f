/* metrics.c -- the Prometheus text exposition of jitscope's numbers (see
 * metrics.h). Version 0.0.4 of the format: # HELP and # TYPE per family, then
 * one line per series; label values escaped (backslash, quote, newline). */
#include "metrics.h"
#include "budget.h"
#include "http_deadline.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "session.h"
#include "sessions.h"
#include "store.h"
#include "textbuf.h"
#include "ws.h"

#define METRICS_MAX_BYTES (16u * 1024u * 1024u)

/* ---- HTTP requests by route class and status ---- */

static const char *const metrics_routes[] = {"api", "static", "metrics"};
#define METRICS_ROUTES (sizeof(metrics_routes) / sizeof(metrics_routes[0]))
static const int metrics_codes[] = {200, 201, 202, 204, 304, 400, 401, 403, 404,
                                    405, 409, 413, 414, 429, 431, 500, 503};
#define METRICS_CODES (sizeof(metrics_codes) / sizeof(metrics_codes[0]))
/* [route][code], the last column for any other status */
static _Atomic unsigned long long metrics_http[METRICS_ROUTES][METRICS_CODES + 1];

void metrics_count_http(const char *route_class, int status)
{
    size_t r, k;

    for (r = 0; r < METRICS_ROUTES && strcmp(metrics_routes[r], route_class) != 0; r++)
        ;
    if (r == METRICS_ROUTES)
        return;
    for (k = 0; k < METRICS_CODES && metrics_codes[k] != status; k++)
        ;
    atomic_fetch_add_explicit(&metrics_http[r][k], 1, memory_order_relaxed);
}

/* ---- helpers ---- */

static void metrics_family(textbuf *b, const char *name, const char *type, const char *help)
{
    textbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One unlabelled value and its family. */
typedef struct metrics_scalar {
    const char *name, *type, *help;
    unsigned long long value;
} metrics_scalar;

static void metrics_scalars(textbuf *b, const metrics_scalar *rows, size_t count)
{
    size_t i;

    for (i = 0; i < count; i++) {
        metrics_family(b, rows[i].name, rows[i].type, rows[i].help);
        textbuf_printf(b, "%s %llu\n", rows[i].name, rows[i].value);
    }
}

/* A label value with \, " and newlines escaped, into out (cut to fit). */
static void metrics_escape(const char *in, char *out, size_t size)
{
    size_t o = 0;

    for (; *in && o + 3 < size; in++) {
        if (*in == '\\' || *in == '"') {
            out[o++] = '\\';
            out[o++] = *in;
        } else if (*in == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else {
            out[o++] = *in;
        }
    }
    out[o] = '\0';
}

/* The program a command line runs: the file name of its first word, or for
 * `dotnet X.dll ...` the .NET app's file name. */
static void metrics_process_name(const char *cmd, char *out, size_t size)
{
    const char *word = cmd, *end, *slash;
    size_t n;
    int dotnet;

    for (;;) {
        while (*word == ' ')
            word++;
        end = strchr(word, ' ');
        if (!end)
            end = word + strlen(word);
        for (slash = end; slash > word && slash[-1] != '/'; slash--)
            ;
        n = (size_t)(end - slash);
        dotnet = n == 6 && strncmp(slash, "dotnet", 6) == 0;
        if (!dotnet || *end == '\0') {
            snprintf(out, size, "%.*s", (int)n, slash);
            return;
        }
        word = end; /* dotnet: the next word names the app */
    }
}

static int metrics_live(const session *s)
{
    return s->state == SESSION_STARTING || s->state == SESSION_LIVE ||
           s->state == SESSION_DISCONNECTED || s->state == SESSION_DETACHING;
}

/* ---- per-session families ---- */

typedef struct metrics_family_def {
    const char *name, *type, *help;
    double (*value)(const session *s);
} metrics_family_def;

static double m_jits(const session *s) { return (double)s->jit_compilations; }
static double m_jit_time(const session *s) { return (double)s->jit_time_total_ns / 1e9; }
static double m_functions(const session *s) { return (double)s->functions_jitted; }
static double m_modules(const session *s) { return (double)s->module_count; }
static double m_records(const session *s) { return (double)s->records; }
static double m_gaps(const session *s) { return (double)s->seq_gaps; }
static double m_backlog(const session *s) { return (double)s->drops.ring_used; }
static double m_held(const session *s) { return (double)s->budget.held; }

static double m_threads(const session *s)
{
    size_t i, alive = 0;

    for (i = 0; i < s->thread_count; i++)
        alive += s->threads[i].alive != 0;
    return (double)alive;
}

static const metrics_family_def metrics_session_families[] = {
    {"jitscope_session_jit_compilations_total", "counter", "JIT compilations seen live.", m_jits},
    {"jitscope_session_jit_time_seconds_total", "counter", "Time spent in those compilations.",
     m_jit_time},
    {"jitscope_session_functions", "gauge", "Distinct functions JIT-compiled.", m_functions},
    {"jitscope_session_modules", "gauge", "Modules loaded.", m_modules},
    {"jitscope_session_threads", "gauge", "Managed threads alive.", m_threads},
    {"jitscope_session_records_total", "counter", "Records received from the agent.", m_records},
    {"jitscope_session_sequence_gaps_total", "counter",
     "Records the agent numbered but did not deliver (its slow_server drops).", m_gaps},
    {"jitscope_session_ring_backlog_bytes", "gauge",
     "Bytes waiting in the agent's ring when it last reported.", m_backlog},
    {"jitscope_session_memory_held_bytes", "gauge",
     "What the session holds, as the memory budget (--max-memory) counts it.", m_held},
};

static const char *const metrics_drop_causes[WIRE_DROP_REASONS] = {
    "ring_full", "too_large", "no_server", "name_failed", "slow_server", "name_late", "shutdown"};

typedef struct metrics_labels {
    /* session="1",pid="2",process="x"; in a container also
     * container_id="64 hex" (when its cgroup has one),container_hostname="h",
     * container_pid="1" */
    char text[900];
} metrics_labels;

static void metrics_session_labels(const session *s, metrics_labels *l)
{
    char name[256], escaped[520], host[2 * CONTAINER_HOSTNAME_MAX + 1];
    int n;

    metrics_process_name(s->command_line ? s->command_line : "", name, sizeof(name));
    metrics_escape(name, escaped, sizeof(escaped));
    n = snprintf(l->text, sizeof(l->text), "session=\"%d\",pid=\"%d\",process=\"%s\"", s->id,
                 (int)s->pid, escaped);
    if (!s->container.in_container || n < 0 || (size_t)n >= sizeof(l->text))
        return;
    metrics_escape(s->container.hostname, host, sizeof(host));
    snprintf(l->text + n, sizeof(l->text) - (size_t)n,
             "%s%s%s,container_hostname=\"%s\",container_pid=\"%d\"",
             s->container.id[0] ? ",container_id=\"" : "", s->container.id,
             s->container.id[0] ? "\"" : "", host, (int)s->container.pid);
}

/* Writes one session's samples of a family; arg is the family's own. */
typedef void (*metrics_sampler)(textbuf *b, const session *s, const metrics_labels *l,
                                const void *arg);

/* Calls sample for every live session (the only ones /metrics labels, so the
 * label sets stay bounded), with its labels. */
static void metrics_each_live(textbuf *b, metrics_sampler sample, const void *arg)
{
    size_t n = sessions_count(), i;

    for (i = 0; i < n; i++) {
        const session *s = sessions_at(i);
        metrics_labels l;
        if (!metrics_live(s))
            continue;
        metrics_session_labels(s, &l);
        sample(b, s, &l, arg);
    }
}

static void metrics_family_sample(textbuf *b, const session *s, const metrics_labels *l,
                                  const void *arg)
{
    const metrics_family_def *d = arg;

    textbuf_printf(b, "%s{%s} %.9g\n", d->name, l->text, d->value(s));
}

static void metrics_drops(textbuf *b, const session *s, const metrics_labels *l, const void *arg)
{
    unsigned k;

    (void)arg;
    for (k = 0; k < WIRE_DROP_REASONS; k++)
        textbuf_printf(b, "jitscope_session_agent_drops_total{%s,cause=\"%s\"} %llu\n", l->text,
                       metrics_drop_causes[k], (unsigned long long)s->drops.dropped[k]);
}

/* Records the server did not fold in, by why (session.h: records_refused). */
static void metrics_refused(textbuf *b, const session *s, const metrics_labels *l, const void *arg)
{
    (void)arg;
    textbuf_printf(b, "jitscope_session_records_refused_total{%s,reason=\"inconsistent\"} %llu\n",
                   l->text, (unsigned long long)s->records_refused);
    textbuf_printf(b, "jitscope_session_records_refused_total{%s,reason=\"memory\"} %llu\n",
                   l->text, (unsigned long long)s->budget.refused_records);
}

#define METRICS_EXCEPTION_TYPES 256u /* types labelled per session; the rest as type="(other)" */

/* Exceptions thrown, by type: each type's sites summed (its first site's
 * place says whether it is among the first METRICS_EXCEPTION_TYPES). */
static void metrics_exceptions(textbuf *b, const session *s, const metrics_labels *l,
                               const void *arg)
{
    const exc_state *x = s->exceptions;
    unsigned long long other = 0;
    uint32_t i, j, types = 0;
    char type[512];

    (void)arg;
    for (i = 0; x && i < x->count; i++) {
        unsigned long long n = 0;
        for (j = 0; j < i && strcmp(x->sites[j].type, x->sites[i].type) != 0; j++)
            ;
        if (j < i)
            continue; /* counted with its type's first site */
        for (j = i; j < x->count; j++)
            if (strcmp(x->sites[j].type, x->sites[i].type) == 0)
                n += x->sites[j].count;
        if (types++ >= METRICS_EXCEPTION_TYPES) {
            other += n;
            continue;
        }
        metrics_escape(x->sites[i].type, type, sizeof(type));
        textbuf_printf(b, "jitscope_session_exceptions_total{%s,type=\"%s\"} %llu\n", l->text, type,
                       n);
    }
    if (other || (x && x->sites_dropped))
        textbuf_printf(b, "jitscope_session_exceptions_total{%s,type=\"(other)\"} %llu\n", l->text,
                       other + (unsigned long long)(x ? x->sites_dropped : 0));
}

/* Allocation samples (received and counted but not sent) and the bytes
 * they are estimated to stand for (allocsites.h), once a session has any. */
static void metrics_allocations(textbuf *b, const session *s, const metrics_labels *l,
                                const void *arg)
{
    const alloc_state *a = s->allocations;

    if (!a)
        return;
    if (arg) /* the bytes */
        textbuf_printf(b, "jitscope_session_allocated_bytes_estimated{%s} %.0f\n", l->text,
                       a->bytes * alloc_scale(a));
    else
        textbuf_printf(b, "jitscope_session_allocation_samples_total{%s} %llu\n", l->text,
                       (unsigned long long)(a->samples + a->unsent));
}

/* The agent's own time per JIT callback as a Prometheus histogram: its
 * buckets are cumulative here, upper bounds in seconds (wire.h). */
static void metrics_agent_cost(textbuf *b, const session *s, const metrics_labels *l,
                               const void *arg)
{
    const wire_agent_cost *c = &s->agent_cost;
    unsigned long long seen = 0;
    unsigned i;

    (void)arg;
    for (i = 0; i + 1 < WIRE_COST_BUCKETS; i++) {
        double upper_ns = i + 1 < WIRE_COST_LINEAR
                              ? (double)(i + 1) * WIRE_COST_STEP_NS
                              : (double)(WIRE_COST_LINEAR * WIRE_COST_STEP_NS) *
                                    (double)(1ull << (i + 1 - WIRE_COST_LINEAR));
        seen += c->buckets[i];
        textbuf_printf(b,
                       "jitscope_session_agent_jit_callback_seconds_bucket{%s,le=\"%.9g\"} %llu\n",
                       l->text, upper_ns / 1e9, seen);
    }
    seen += c->buckets[WIRE_COST_BUCKETS - 1];
    textbuf_printf(b, "jitscope_session_agent_jit_callback_seconds_bucket{%s,le=\"+Inf\"} %llu\n",
                   l->text, seen);
    textbuf_printf(b, "jitscope_session_agent_jit_callback_seconds_sum{%s} %.9g\n", l->text,
                   (double)c->total_ns / 1e9);
    textbuf_printf(b, "jitscope_session_agent_jit_callback_seconds_count{%s} %llu\n", l->text,
                   seen);
}

static void metrics_sessions(textbuf *b)
{
    size_t n = sessions_count(), i, f, k;
    static const session_state states[] = {
        SESSION_STARTING, SESSION_LIVE,   SESSION_DISCONNECTED, SESSION_DETACHING,
        SESSION_DETACHED, SESSION_EXITED, SESSION_FAILED,       SESSION_INTERRUPTED};
    size_t by_state[sizeof(states) / sizeof(states[0])] = {0};

    for (i = 0; i < n; i++)
        for (k = 0; k < sizeof(states) / sizeof(states[0]); k++)
            by_state[k] += sessions_at(i)->state == states[k];
    metrics_family(b, "jitscope_memory_budget_bytes", "gauge",
                   "--max-memory: what all sessions may hold.");
    textbuf_printf(b, "jitscope_memory_budget_bytes %llu\n", (unsigned long long)budget_max());
    metrics_family(b, "jitscope_memory_held_bytes", "gauge", "What all sessions hold.");
    textbuf_printf(b, "jitscope_memory_held_bytes %llu\n", (unsigned long long)budget_held());
    metrics_family(b, "jitscope_sessions", "gauge", "Sessions the server keeps, by state.");
    for (k = 0; k < sizeof(states) / sizeof(states[0]); k++)
        textbuf_printf(b, "jitscope_sessions{state=\"%s\"} %zu\n", session_state_name(states[k]),
                       by_state[k]);
    for (f = 0; f < sizeof(metrics_session_families) / sizeof(metrics_session_families[0]); f++) {
        const metrics_family_def *d = &metrics_session_families[f];
        metrics_family(b, d->name, d->type, d->help);
        metrics_each_live(b, metrics_family_sample, d);
    }
    metrics_family(b, "jitscope_session_agent_drops_total", "counter",
                   "What the agent lost, by cause (records, or for name_* function names).");
    metrics_each_live(b, metrics_drops, NULL);
    metrics_family(b, "jitscope_session_records_refused_total", "counter",
                   "Agent records not folded in: inconsistent (impossible for the agent's ring "
                   "and sequence numbers), memory (over the session's share of --max-memory).");
    metrics_each_live(b, metrics_refused, NULL);
    metrics_family(b, "jitscope_session_agent_jit_callback_seconds", "histogram",
                   "The agent's own time inside each JIT callback on the app's threads.");
    metrics_each_live(b, metrics_agent_cost, NULL);
    metrics_family(b, "jitscope_session_exceptions_total", "counter",
                   "Managed exceptions thrown, by type (the first 256 types of a session; the "
                   "rest, and those of sites past its 4,096, as type=\"(other)\").");
    metrics_each_live(b, metrics_exceptions, NULL);
    metrics_family(b, "jitscope_session_allocation_samples_total", "counter",
                   "The runtime's allocation samples while allocations are on (sent by the agent "
                   "and counted but not sent past its rate).");
    metrics_each_live(b, metrics_allocations, NULL);
    metrics_family(b, "jitscope_session_allocated_bytes_estimated", "counter",
                   "Bytes allocated as the allocation samples estimate them (docs/RUNTIME.md, "
                   "\"Allocations\").");
    metrics_each_live(b, metrics_allocations, "bytes");
}

/* Storage (--data) once it is on: what waits for the disk and what was lost. */
static void metrics_storage_totals(textbuf *b, const store_stats *st)
{
    const metrics_scalar rows[] = {
        {"jitscope_storage_backlog_bytes", "gauge",
         "Log bytes and snapshots waiting for the writer.", st->backlog},
        {"jitscope_storage_lost_bytes_total", "counter",
         "Log bytes dropped because the writer was behind (the log breaks there until the "
         "session's next snapshot).",
         st->lost},
        {"jitscope_storage_logged_bytes_total", "counter",
         "Bytes of agent and server records handed to storage.", st->bytes_logged},
        {"jitscope_storage_written_bytes_total", "counter",
         "Bytes written into the database (log chunks, compressed snapshots).", st->bytes_written},
        {"jitscope_storage_snapshots_total", "counter",
         "Snapshots written (a session's log compacted).", st->snapshots},
        {"jitscope_storage_write_errors_total", "counter",
         "Write rounds the database refused (tried again).", st->write_errors},
        {"jitscope_storage_write_error", "gauge",
         "1 while the last write round failed, 0 once a round committed again.",
         st->last_error[0] != '\0'},
        {"jitscope_storage_commits_total", "counter", "Transactions committed.", st->commits},
        {"jitscope_storage_sessions", "gauge", "Sessions in the database.", st->sessions_stored},
    };

    metrics_scalars(b, rows, sizeof(rows) / sizeof(rows[0]));
}

static void metrics_storage(textbuf *b)
{
    store_stats st;

    store_get_stats(&st);
    metrics_family(b, "jitscope_storage_enabled", "gauge", "1 when sessions are kept on disk.");
    textbuf_printf(b, "jitscope_storage_enabled %d\n", st.enabled);
    if (st.enabled)
        metrics_storage_totals(b, &st);
}

/* HTTP connections the server closed (http_deadline.h), by why. */
static void metrics_http_closed(textbuf *b)
{
    static const char *const reasons[HTTP_CLOSED_KINDS] = {
        [HTTP_CLOSED_IDLE] = "idle",
        [HTTP_CLOSED_INCOMPLETE] = "incomplete",
        [HTTP_CLOSED_UNTRUSTED] = "untrusted",
    };
    unsigned long counts[HTTP_CLOSED_KINDS];
    int k;

    http_deadline_closed(counts);
    metrics_family(b, "jitscope_http_connections_closed_total", "counter",
                   "HTTP connections the server closed: idle (sent nothing of a request within "
                   "the deadline), incomplete (a request begun and not whole within it), "
                   "untrusted (the oldest without the key, over the cap).");
    for (k = 0; k < HTTP_CLOSED_KINDS; k++)
        textbuf_printf(b, "jitscope_http_connections_closed_total{reason=\"%s\"} %lu\n", reasons[k],
                       counts[k]);
}

char *metrics_render(size_t *length)
{
    textbuf b;
    size_t r, k;

    textbuf_init(&b, METRICS_MAX_BYTES);
    sessions_lock();
    metrics_sessions(&b);
    sessions_unlock();
    metrics_storage(&b);
    metrics_family(&b, "jitscope_websocket_clients", "gauge", "WebSocket clients connected.");
    textbuf_printf(&b, "jitscope_websocket_clients %d\n", ws_client_count());
    metrics_family(&b, "jitscope_http_requests_total", "counter",
                   "HTTP responses sent, by route class and status code.");
    for (r = 0; r < METRICS_ROUTES; r++) {
        for (k = 0; k <= METRICS_CODES; k++) {
            unsigned long long v = atomic_load_explicit(&metrics_http[r][k], memory_order_relaxed);
            if (!v)
                continue;
            if (k < METRICS_CODES)
                textbuf_printf(&b, "jitscope_http_requests_total{route=\"%s\",code=\"%d\"} %llu\n",
                               metrics_routes[r], metrics_codes[k], v);
            else
                textbuf_printf(&b,
                               "jitscope_http_requests_total{route=\"%s\",code=\"other\"} %llu\n",
                               metrics_routes[r], v);
        }
    }
    metrics_http_closed(&b);
    if (b.overflow) {
        textbuf_free(&b);
        return NULL;
    }
    return textbuf_take(&b, length);
}
