/* replay.c -- a native load generator that speaks the agent's wire format (proto/wire.h).
 *
 * Connects to the agent socket the way the agent does ($JITSCOPE_SOCKET, hello
 * with $JITSCOPE_TOKEN, both set by `jitscope run`), then sends JIT
 * compilations: JIT_STARTED, FUNCTION_NAME (the first time a function is
 * seen, as the agent does) and JIT_FINISHED, for --functions distinct
 * functions, at --rate compilations (= server "jit" events) per second or as
 * fast as the socket takes them (--rate 0). It never reads the socket (the
 * server's commands go unanswered, like a busy agent's).
 *
 *   replay [--rate N] [--seconds S | --count N] [--functions N] [--modules N]
 *          [--scatter] [--realistic | --distinct] [--threads N] [--name-bytes N]
 *          [--linger S] [--out PATH | --socketpair]
 *
 * Past the first --functions compilations the same functions are compiled
 * again (as Tier1): in order, or with --scatter each at a pseudo-random one of
 * them, as a service's tier-ups land all over its methods (for storage, where
 * each re-JIT rewrites that function's row and so touches a page of its own).
 *
 * --modules N (default 1) loads N modules first (MODULE_LOADED, path and
 * assembly name) and spreads the functions over them (function i in module
 * i % N), so per-module totals and module filters have something to group.
 *
 * --realistic names the functions as a real service's are named: namespaces,
 * generic types and parameter lists from pools of words (about 100-250
 * bytes), 24 methods a type, so methods of one type share their type's name;
 * otherwise names are short ("Replay.Namespace.Type7.Method1234()").
 *
 * --distinct names every function a distinct generic instantiation, as a
 * generics-heavy app's are: Namespace.Type<Namespace2.ItemN>.Method() (8
 * namespaces, 10 types, 12 method names, N the function's number: no two
 * functions share a type part), and loads a module every 200 functions (just
 * before the first of them: MODULE_LOADED among the JITs; --modules is then
 * ignored), over 8 JIT threads unless --threads says otherwise.
 *
 * --threads N (default 4, at most 64) spreads the compilations over N JIT threads.
 *
 * --linger S keeps the connection open S seconds after the last record (the
 * session stays live: a bench reads the server at rest before it ends).
 *
 * --name-bytes N (at most WIRE_MAX_STRING, 4096) pads every function's name to N
 * bytes: a peer that pushes big names, as the memory budget's test does
 * (tests/e2e/budget.test.mjs).
 *
 * --out PATH writes to a file instead (/dev/null: the generator's own ceiling);
 * --socketpair writes into a Unix socket pair drained by a second thread (the
 * ceiling with the kernel copy). The last line on stdout is
 * "replay: N jit events, R records, B bytes in T s: X records/s". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "wire.h"
#include "wire_encode.h"

#define REPLAY_BUFFER (256u * 1024u)
#define REPLAY_TICK_NS 1000000ull   /* pacing: at most 1 ms of events ahead of the clock */
#define REPLAY_THREADS 4u           /* JIT threads the compilations are spread over, by default */
#define REPLAY_DISTINCT_THREADS 8u  /* ...and with --distinct */
#define REPLAY_DISTINCT_MODULE 200u /* --distinct: functions a module */

typedef struct replay_opts {
    double rate;    /* compilations per second, 0: full speed */
    double seconds; /* how long, when count is 0 */
    double linger;  /* seconds the connection stays open after the last record */
    unsigned long count;
    unsigned long functions;
    unsigned long modules;
    unsigned long name_bytes; /* names padded to this many bytes (0: as they are) */
    const char *out;
    int socketpair;
    int scatter;           /* re-JITs at pseudo-random functions, not in order */
    int realistic;         /* names as long and as alike as a real service's */
    int distinct;          /* every name a distinct generic instantiation, a module every 200 */
    unsigned long threads; /* JIT threads (0: the mode's default) */
} replay_opts;

typedef struct replay_out {
    int fd;
    size_t used;
    uint64_t seq, records, bytes;
    uint8_t buf[REPLAY_BUFFER];
} replay_out;

static int replay_flush(replay_out *o)
{
    size_t off = 0;

    while (off < o->used) {
        ssize_t w = write(o->fd, o->buf + off, o->used - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "replay: write: %s\n", w < 0 ? strerror(errno) : "wrote nothing");
            return -1;
        }
        off += (size_t)w;
    }
    o->bytes += o->used;
    o->used = 0;
    return 0;
}

/* Appends one frame; flushes first when it might not fit. */
static int replay_frame_texts(replay_out *o, uint16_t type, const void *fixed,
                              uint32_t fixed_length, const wire_text *texts, size_t text_count)
{
    wire_frame_header h = {.type = type, .seq = ++o->seq, .time_ns = clock_mono_ns()};

    if (o->used + wire_encode_bound(fixed_length, 0, texts, text_count) > sizeof(o->buf) &&
        replay_flush(o) != 0)
        return -1;
    o->used += wire_encode(o->buf + o->used, &h, fixed, fixed_length, NULL, 0, texts, text_count);
    o->records++;
    return 0;
}

static int replay_frame(replay_out *o, uint16_t type, const void *fixed, uint32_t fixed_length,
                        const wire_text *name)
{
    return replay_frame_texts(o, type, fixed, fixed_length, name, name ? 1 : 0);
}

static uint64_t replay_module_id(unsigned long k) { return 0x5500u + (uint64_t)k * 0x100u; }

/* MODULE_LOADED of module k, with a path and an assembly name. */
static int replay_module(replay_out *o, unsigned long k)
{
    wire_module_loaded m = {.module_id = replay_module_id(k),
                            .assembly_id = 0xA500u + (uint64_t)k,
                            .base_address = 0x7e0000000000ull + (uint64_t)k * 0x100000u};
    char path[64], assembly[48];
    wire_text t[2] = {{.utf8 = path}, {.utf8 = assembly}};

    t[0].length = (size_t)snprintf(path, sizeof(path), "/bench/Replay.Module%lu.dll", k);
    t[1].length = (size_t)snprintf(assembly, sizeof(assembly), "Replay.Module%lu", k);
    return replay_frame_texts(o, WIRE_MODULE_LOADED, &m, sizeof(m), t, 2);
}

/* MODULE_LOADED for each of the --modules modules (with --distinct they come
 * among the JITs, replay_jit). */
static int replay_modules(replay_out *o, const replay_opts *opt)
{
    unsigned long k;

    for (k = 0; k < opt->modules && !opt->distinct; k++)
        if (replay_module(o, k) != 0)
            return -1;
    return 0;
}

static int replay_hello(replay_out *o, const char *token)
{
    wire_hello h;

    memset(&h, 0, sizeof(h));
    memcpy(h.magic, WIRE_MAGIC, sizeof(h.magic));
    h.version = WIRE_VERSION;
    h.pid = (uint32_t)getpid();
    h.parent_pid = (uint32_t)getppid();
    h.mode = WIRE_MODE_STARTUP;
    h.runtime_type = 2;
    h.major = 10;
    h.monotonic_ns = clock_mono_ns();
    h.realtime_ns = clock_real_ns();
    memcpy(h.token, token, WIRE_TOKEN_LEN);
    return replay_frame(o, WIRE_HELLO, &h, sizeof(h), NULL);
}

/* splitmix64's finaliser: spreads consecutive n over the whole range */
static uint64_t replay_mix(uint64_t n)
{
    n = (n ^ (n >> 30)) * 0xbf58476d1ce4e5b9ull;
    n = (n ^ (n >> 27)) * 0x94d049bb133111ebull;
    return n ^ (n >> 31);
}

/* Appends text[0..k) to out[*n..size), keeping room for the NUL. */
static void replay_append_n(char *out, size_t size, size_t *n, const char *text, size_t k)
{
    if (k > size - 1 - *n)
        k = size - 1 - *n;
    memcpy(out + *n, text, k);
    *n += k;
}

static void replay_append(char *out, size_t size, size_t *n, const char *text)
{
    replay_append_n(out, size, n, text, strlen(text));
}

/* Appends v in decimal. */
static void replay_append_number(char *out, size_t size, size_t *n, unsigned long v)
{
    char digits[24];
    size_t k = sizeof(digits) - 1;

    digits[k] = '\0';
    do
        digits[--k] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    replay_append(out, size, n, digits + k);
}

/* Function i's name as a real service's: Namespace.Type<Args>.Method(params).
 * The type's part is the same for its 24 methods, so it is formatted once per
 * type and kept (the generator must stay well ahead of the server it feeds:
 * bench/ingest.mjs measures its ceiling). */
static size_t replay_realistic_name(char *out, size_t size, unsigned long i)
{
    static const char *const spaces[] = {"System.Collections.Generic",
                                         "System.Linq",
                                         "System.Text.Json.Serialization",
                                         "Microsoft.AspNetCore.Routing.Matching",
                                         "Microsoft.Extensions.DependencyInjection",
                                         "Contoso.Orders.Domain.Aggregates",
                                         "Contoso.Orders.Infrastructure.Persistence",
                                         "Contoso.Billing.Application.Handlers",
                                         "Contoso.Shipping.Api.Controllers",
                                         "Microsoft.EntityFrameworkCore.Query.Internal",
                                         "System.Threading.Tasks",
                                         "Contoso.Inventory.Services.Reservations"};
    static const char *const nouns[] = {
        "Order",   "Invoice",     "Customer", "Shipment", "Line",     "Payment", "Warehouse",
        "Catalog", "Reservation", "Session",  "Request",  "Response", "Query",   "Command"};
    static const char *const kinds[] = {"Repository", "Handler",   "Service", "Validator",
                                        "Serializer", "Converter", "Factory", "Builder",
                                        "Provider",   "Cache",     "Mapper",  "Dispatcher"};
    static const char *const verbs[] = {"Get",      "TryGet", "Create",  "Update",  "Handle",
                                        "Validate", "Map",    "Build",   "Resolve", "Apply",
                                        "Write",    "Read",   "Compute", "Dispatch"};
    static const char *const params[] = {"String",
                                         "Int32",
                                         "CancellationToken",
                                         "Guid",
                                         "DateTimeOffset",
                                         "ReadOnlySpan<byte>",
                                         "IServiceProvider",
                                         "Decimal",
                                         "Boolean",
                                         "ILogger<OrderService>"};
    static char type_text[512];
    static size_t type_length;
    static unsigned long type_cached = (unsigned long)-1;
    unsigned long type = i / 24, method = i % 24;
    uint64_t m = replay_mix(i + 7);
    size_t n, k, count = 1 + (size_t)(m % 5);

    if (type != type_cached) {
        uint64_t t = replay_mix(type + 1);
        size_t tn = 0, ts = sizeof(type_text);

        replay_append(type_text, ts, &tn, spaces[t % 12]);
        replay_append(type_text, ts, &tn, ".");
        replay_append(type_text, ts, &tn, nouns[(t >> 8) % 14]);
        replay_append(type_text, ts, &tn, kinds[(t >> 16) % 12]);
        if ((t >> 24) % 3 != 0) { /* a generic type, most of them */
            replay_append(type_text, ts, &tn, "<");
            replay_append(type_text, ts, &tn, spaces[(t >> 32) % 12]);
            replay_append(type_text, ts, &tn, ".");
            replay_append(type_text, ts, &tn, nouns[(t >> 40) % 14]);
            replay_append_number(type_text, ts, &tn, type % 50);
            replay_append(type_text, ts, &tn, ", ");
            replay_append(type_text, ts, &tn, spaces[(t >> 44) % 12]);
            replay_append(type_text, ts, &tn, ".");
            replay_append(type_text, ts, &tn, nouns[(t >> 52) % 14]);
            replay_append(type_text, ts, &tn, ">");
        }
        type_text[tn] = '\0';
        type_length = tn;
        type_cached = type;
    }
    n = 0;
    replay_append_n(out, size, &n, type_text, type_length);
    replay_append(out, size, &n, ".");
    replay_append(out, size, &n, verbs[(m >> 8) % 14]);
    replay_append(out, size, &n, nouns[(m >> 16) % 14]);
    if (method % 3)
        replay_append(out, size, &n, "Async");
    replay_append_number(out, size, &n, method);
    replay_append(out, size, &n, "(");
    for (k = 0; k < count; k++) {
        if (k)
            replay_append(out, size, &n, ", ");
        replay_append(out, size, &n, params[(m >> (24 + 4 * k)) % 10]);
    }
    replay_append(out, size, &n, ")");
    out[n] = '\0';
    return n;
}

/* Function i's name as a distinct generic instantiation:
 * Namespace.Type<Namespace2.ItemN>.Method(), N = i, so no two functions share
 * the type part (8 namespaces, 10 types, 12 method names). */
static size_t replay_distinct_name(char *out, size_t size, unsigned long i)
{
    static const char *const spaces[] = {
        "System.Collections.Generic", "Contoso.Orders.Domain",
        "Contoso.Billing.Handlers",   "Microsoft.Extensions.Options",
        "Contoso.Shipping.Api",       "System.Text.Json.Serialization.Metadata",
        "Contoso.Inventory.Services", "Microsoft.EntityFrameworkCore.Query"};
    static const char *const types[] = {"List",      "Dictionary", "Repository", "Handler",
                                        "Converter", "Cache",      "Validator",  "Factory",
                                        "Pipeline",  "Channel"};
    static const char *const methods[] = {"Add",     "TryGetValue",   "Handle",  "Invoke",
                                          "Create",  "Read",          "Write",   "Validate",
                                          "Resolve", "GetEnumerator", "Dispose", "MoveNext"};
    uint64_t m = replay_mix(i + 11);
    size_t n = 0;

    replay_append(out, size, &n, spaces[m % 8]);
    replay_append(out, size, &n, ".");
    replay_append(out, size, &n, types[(m >> 8) % 10]);
    replay_append(out, size, &n, "<");
    replay_append(out, size, &n, spaces[(m >> 16) % 8]);
    replay_append(out, size, &n, ".Item");
    replay_append_number(out, size, &n, i);
    replay_append(out, size, &n, ">.");
    replay_append(out, size, &n, methods[(m >> 24) % 12]);
    replay_append(out, size, &n, "()");
    out[n] = '\0';
    return n;
}

/* Compilation n: function n the first time round (named then), afterwards
 * the functions again, in order or scattered. */
static int replay_jit(replay_out *o, unsigned long n, const replay_opts *opt)
{
    unsigned long i = n < opt->functions || !opt->scatter
                          ? n % opt->functions
                          : (unsigned long)(replay_mix(n) % opt->functions);
    unsigned long threads = opt->threads    ? opt->threads
                            : opt->distinct ? REPLAY_DISTINCT_THREADS
                                            : REPLAY_THREADS;
    uint64_t fid = 0x7f0000000000ull + (uint64_t)i * 64u, thread = 0x1000u + n % threads;
    wire_jit_started s = {.function_id = fid, .thread_id = thread, .il_size = 40};
    wire_jit_finished f = {.function_id = fid,
                           .thread_id = thread,
                           .code_start = fid * 2u,
                           .code_size = 200,
                           .il_size = 40,
                           .tier = n < opt->functions ? WIRE_TIER_0 : WIRE_TIER_1};

    unsigned long module = opt->distinct ? i / REPLAY_DISTINCT_MODULE : i % opt->modules;

    if (opt->distinct && n < opt->functions && i % REPLAY_DISTINCT_MODULE == 0 &&
        replay_module(o, module) != 0)
        return -1;
    if (replay_frame(o, WIRE_JIT_STARTED, &s, sizeof(s), NULL) != 0)
        return -1;
    if (n < opt->functions) {
        wire_function_name fn = {
            .function_id = fid, .module_id = replay_module_id(module), .token = 0x06000001u};
        char name[WIRE_MAX_STRING];
        wire_text t = {.utf8 = name};
        t.length = opt->distinct ? replay_distinct_name(name, sizeof(name), i)
                   : opt->realistic
                       ? replay_realistic_name(name, sizeof(name), i)
                       : (size_t)snprintf(name, sizeof(name),
                                          "Replay.Namespace.Type%lu.Method%lu()", i % 97, i);
        while (t.length < opt->name_bytes) /* a long name: the method's, padded */
            name[t.length++] = 'x';
        if (replay_frame(o, WIRE_FUNCTION_NAME, &fn, sizeof(fn), &t) != 0)
            return -1;
    }
    return replay_frame(o, WIRE_JIT_FINISHED, &f, sizeof(f), NULL);
}

static void *replay_drain(void *arg)
{
    static char sink[REPLAY_BUFFER];
    int fd = *(int *)arg;

    while (read(fd, sink, sizeof(sink)) > 0)
        ;
    return NULL;
}

static int replay_connect(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int fd;

    if (!path || strlen(path) >= sizeof(addr.sun_path)) {
        fprintf(stderr, "replay: no usable %s (run me under `jitscope run`)\n", WIRE_ENV_SOCKET);
        return -1;
    }
    memcpy(addr.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        fprintf(stderr, "replay: connect %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static int replay_parse(int argc, char **argv, replay_opts *o)
{
    int i;

    *o = (replay_opts){.rate = 0, .seconds = 5, .functions = 10000, .modules = 1};
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(a, "--socketpair") == 0) {
            o->socketpair = 1;
            continue;
        }
        if (strcmp(a, "--realistic") == 0) {
            o->realistic = 1;
            continue;
        }
        if (strcmp(a, "--distinct") == 0) {
            o->distinct = 1;
            continue;
        }
        if (strcmp(a, "--scatter") == 0) {
            o->scatter = 1;
            continue;
        }
        if (!v)
            goto bad;
        i++;
        if (strcmp(a, "--out") == 0) {
            o->out = v;
            continue;
        }
        errno = 0;
        if (strcmp(a, "--rate") == 0)
            o->rate = strtod(v, &end);
        else if (strcmp(a, "--seconds") == 0)
            o->seconds = strtod(v, &end);
        else if (strcmp(a, "--count") == 0)
            o->count = strtoul(v, &end, 10);
        else if (strcmp(a, "--functions") == 0)
            o->functions = strtoul(v, &end, 10);
        else if (strcmp(a, "--modules") == 0)
            o->modules = strtoul(v, &end, 10);
        else if (strcmp(a, "--linger") == 0)
            o->linger = strtod(v, &end);
        else if (strcmp(a, "--threads") == 0)
            o->threads = strtoul(v, &end, 10);
        else if (strcmp(a, "--name-bytes") == 0)
            o->name_bytes = strtoul(v, &end, 10);
        else
            goto bad;
        if (errno || !end || *end || o->rate < 0 || o->seconds <= 0 || o->linger < 0 ||
            o->linger > 3600 || o->functions == 0 || o->modules == 0 || o->modules > 4096 ||
            o->threads > 64 || o->name_bytes > WIRE_MAX_STRING)
            goto bad;
    }
    return 0;
bad:
    fprintf(stderr,
            "usage: replay [--rate JITS_PER_S] [--seconds S | --count N] [--functions N] "
            "[--modules N] [--scatter] [--realistic | --distinct] [--threads N] [--name-bytes N] "
            "[--out PATH | --socketpair]\n");
    return -1;
}

int main(int argc, char **argv)
{
    static replay_out o;
    replay_opts opt;
    pthread_t drain;
    int pair[2] = {-1, -1}, draining = 0, rc = 1;
    const char *token = getenv(WIRE_ENV_TOKEN);
    uint64_t start, end_ns, now;
    unsigned long n = 0;
    double secs;

    if (replay_parse(argc, argv, &opt) != 0)
        return 2;
    signal(SIGPIPE, SIG_IGN);
    if (opt.out) {
        o.fd = open(opt.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (o.fd < 0)
            fprintf(stderr, "replay: open %s: %s\n", opt.out, strerror(errno));
    } else if (opt.socketpair) {
        o.fd = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0 ? pair[0] : -1;
        draining = o.fd >= 0 && pthread_create(&drain, NULL, replay_drain, &pair[1]) == 0;
        if (!draining)
            o.fd = -1;
    } else {
        o.fd = replay_connect(getenv(WIRE_ENV_SOCKET));
    }
    if (o.fd < 0)
        return 1;
    if (!token || strlen(token) != WIRE_TOKEN_LEN)
        token = "00000000000000000000000000000000"; /* --out / --socketpair: any */
    if (replay_hello(&o, token) != 0 || replay_modules(&o, &opt) != 0)
        goto done;
    start = clock_mono_ns();
    end_ns = start + (uint64_t)(opt.seconds * 1e9);
    for (;;) {
        unsigned long due;
        now = clock_mono_ns();
        if (opt.count ? n >= opt.count : now >= end_ns)
            break;
        due = opt.rate > 0 ? (unsigned long)((double)(now - start) * opt.rate / 1e9) + 1 : n + 256;
        if (opt.count && due > opt.count)
            due = opt.count;
        if (n >= due) { /* ahead of the rate: send what we have, wait a tick */
            struct timespec tick = {0, (long)REPLAY_TICK_NS};
            if (replay_flush(&o) != 0)
                goto done;
            nanosleep(&tick, NULL);
            continue;
        }
        while (n < due)
            if (replay_jit(&o, n++, &opt) != 0)
                goto done;
    }
    if (replay_flush(&o) != 0)
        goto done;
    secs = (double)(clock_mono_ns() - start) / 1e9;
    printf("replay: %lu jit events, %llu records, %llu bytes in %.3f s: %.0f records/s\n", n,
           (unsigned long long)o.records, (unsigned long long)o.bytes, secs,
           (double)o.records / (secs > 0 ? secs : 1e-9));
    fflush(stdout);
    if (opt.linger > 0) {
        struct timespec rest = {(time_t)opt.linger,
                                (long)((opt.linger - (double)(time_t)opt.linger) * 1e9)};
        nanosleep(&rest, NULL);
    }
    rc = 0;
done:
    close(o.fd);
    if (draining)
        pthread_join(drain, NULL);
    if (pair[1] >= 0)
        close(pair[1]);
    return rc;
}
