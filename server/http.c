/* http.c -- libmicrohttpd daemon: checks, dispatch to api.c, static web files. */
#include "http.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "guard.h"
#include "metrics.h"
#include "http_deadline.h"
#include "http_unescape.h"
#include "netaddr.h"

#define HTTP_MAX_BODY API_MAX_BODY /* request bodies kept; larger ones get 413 */
#define HTTP_MAX_FILE (8u * 1024u * 1024u)
/* Capacity: connections are cheap (epoll, a lazily touched 32 KiB pool each),
 * so many idle or slow clients cannot fill it; the whole-request deadline
 * (http_deadline.h) frees what slow clients hold. Every local client is
 * 127.0.0.1, so the per-address limit only matters for remote binds. */
#define HTTP_MAX_CONNECTIONS 2048u
#define HTTP_MAX_PER_IP 1536u
#define HTTP_THREADS 4u /* an attach may block one for seconds */
#define HTTP_IDLE_SECONDS 30u
#define HTTP_CONNECTION_MEMORY (32u * 1024u)
#define HTTP_MAX_PEM (1024 * 1024) /* a certificate chain or key file larger than this is refused */

static struct MHD_Daemon *http_daemon;
static http_config http_cfg;
static int http_port;
static char *http_tls_cert, *http_tls_key; /* the PEM files' text, for the daemon's lifetime */

typedef struct http_upload {
    size_t length;            /* body bytes seen */
    char body[HTTP_MAX_BODY]; /* the first HTTP_MAX_BODY of them */
} http_upload;

static int http_key_ok(struct MHD_Connection *c)
{
    const char *auth;

    if (!http_cfg.api_key)
        return 1;
    auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!auth || strncmp(auth, "Bearer ", 7) != 0)
        return 0;
    return guard_key_ok(auth + 7, http_cfg.api_key);
}

/* The route class of the request this thread is answering, for /metrics:
 * set by http_handle before anything is sent. */
static _Thread_local const char *http_route_class = "static";

static const char *http_classify(const char *url)
{
    if (strcmp(url, "/metrics") == 0)
        return "metrics";
    return strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0 ? "api" : "static";
}

static enum MHD_Result http_send(struct MHD_Connection *c, int status, const char *type,
                                 const char *disposition, void *data, size_t length)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(length, data, MHD_RESPMEM_MUST_FREE);
    enum MHD_Result ok;

    metrics_count_http(http_route_class, status);
    if (!r) {
        free(data);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (disposition && *disposition)
        MHD_add_response_header(r, "Content-Disposition", disposition);
    if (status == 401) /* a client without the key keeps no connection open */
        MHD_add_response_header(r, "Connection", "close");
    ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result http_send_json(struct MHD_Connection *c, int status, json_t *body,
                                      const char *disposition)
{
    char *text = json_dumps(body, JSON_COMPACT);

    json_decref(body);
    if (!text)
        return MHD_NO;
    return http_send(c, status, "application/json", disposition, text, strlen(text));
}

static enum MHD_Result http_error(struct MHD_Connection *c, int status, const char *message)
{
    return http_send_json(c, status, api_error(message), NULL);
}

static const char *http_content_type(const char *path)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
    };
    const char *dot = strrchr(path, '.');
    size_t i;

    for (i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* Serves a file below web_root; the URL may use only [A-Za-z0-9._-/] and no "..". */
static enum MHD_Result http_static(struct MHD_Connection *c, const char *url)
{
    char path[1024];
    struct stat st;
    const char *p;
    char *data = NULL;
    ssize_t got = 0;
    int fd;

    if (strcmp(url, "/") == 0)
        url = "/index.html";
    for (p = url; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-' || *p == '/'))
            return http_error(c, 404, "no such file");
    }
    if (strstr(url, "..") || strstr(url, "/.") ||
        snprintf(path, sizeof(path), "%s%s", http_cfg.web_root, url) >= (int)sizeof(path))
        return http_error(c, 404, "no such file");
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > HTTP_MAX_FILE) {
        if (fd >= 0)
            close(fd);
        return http_error(c, 404, "no such file");
    }
    data = malloc((size_t)st.st_size + 1);
    while (data && got < st.st_size) {
        ssize_t n = read(fd, data + got, (size_t)(st.st_size - got));
        if (n <= 0)
            break;
        got += n;
    }
    close(fd);
    if (!data || got != st.st_size) {
        free(data);
        return http_error(c, 500, "cannot read file");
    }
    return http_send(c, 200, http_content_type(path), NULL, data, (size_t)got);
}

/* GET /metrics: Prometheus's text format (metrics.h); the API key applies. */
static enum MHD_Result http_metrics(struct MHD_Connection *c, int is_get)
{
    size_t length = 0;
    char *text;

    if (!is_get)
        return http_error(c, 405, "method not allowed");
    if (!http_key_ok(c))
        return http_error(c, 401, "missing or wrong API key (Authorization: Bearer KEY)");
    text = metrics_render(&length);
    if (!text)
        return http_error(c, 500, "out of memory");
    return http_send(c, 200, "text/plain; version=0.0.4; charset=utf-8", NULL, text, length);
}

/* libmicrohttpd's unescape callback: its own decoding, except for percent-
 * encoded digits and NULs (http_unescape.h). */
static size_t http_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls, (void)c;
    return http_unescape_text(s);
}

/* The API and /metrics need the key (when there is one); the dashboard's files do not. */
static int http_needs_key(const char *url)
{
    return strcmp(url, "/metrics") == 0 || strncmp(url, "/api/", 5) == 0 ||
           strcmp(url, "/api") == 0;
}

static const char *http_arg(void *ctx, const char *name)
{
    return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result http_handle(void *cls, struct MHD_Connection *c, const char *url,
                                   const char *method, const char *version, const char *upload_data,
                                   size_t *upload_size, void **state)
{
    http_upload *up = *state;
    int is_get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    api_request req = {method, url, http_arg, c, NULL, 0};
    api_reply reply;
    const char *host;
    int status;

    (void)cls, (void)version;
    http_route_class = http_classify(url);
    host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
    if (!up) { /* first call: the headers are in, the body (if any) not yet */
        const char *declared = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        up = calloc(1, sizeof(*up));
        if (!up)
            return MHD_NO;
        *state = up;
        /* refusals are answered now, before any body is read: a client without
         * the key holds no connection while it sends (or fails to send) one */
        if (!guard_host_ok(host, http_port)) {
            http_deadline_request_in(c, 0);
            return http_error(c, 403, "Host header does not name this server");
        }
        if (http_needs_key(url) && !http_key_ok(c)) {
            http_deadline_request_in(c, 0);
            return http_error(c, 401, "missing or wrong API key (Authorization: Bearer KEY)");
        }
        if (declared && strtoull(declared, NULL, 10) > HTTP_MAX_BODY) {
            http_deadline_request_in(c, 0); /* answered now: the body is never read */
            return http_error(c, 413, "request body too large");
        }
        return MHD_YES;
    }
    if (*upload_size) {
        if (up->length < sizeof(up->body)) {
            size_t keep = *upload_size < sizeof(up->body) - up->length
                              ? *upload_size
                              : sizeof(up->body) - up->length;
            memcpy(up->body + up->length, upload_data, keep);
        }
        up->length += *upload_size; /* counted on, so an oversized body gets 413 */
        *upload_size = 0;
        return MHD_YES;
    }
    /* the whole request is in: its deadline is met; the connection counts as
     * trusted once it has shown the key (any request, when there is none) */
    http_deadline_request_in(c, http_key_ok(c));
    if (up->length > HTTP_MAX_BODY)
        return http_error(c, 413, "request body too large");
    if (strcmp(url, "/metrics") == 0)
        return http_metrics(c, is_get);
    if (!http_needs_key(url)) {
        if (!is_get)
            return http_error(c, 405, "method not allowed");
        return http_static(c, url);
    }
    if (!is_get &&
        !guard_origin_ok(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"), host))
        return http_error(c, 403, "cross-origin request refused");
    req.body = up->length ? up->body : NULL;
    req.body_length = up->length;
    status = api_handle(&req, &reply);
    if (reply.text) {
        json_decref(reply.json);
        return http_send(c, status, reply.content_type ? reply.content_type : "text/plain",
                         reply.disposition, reply.text, reply.text_length);
    }
    return http_send_json(c, status, reply.json, reply.disposition);
}

static void http_done(void *cls, struct MHD_Connection *c, void **state,
                      enum MHD_RequestTerminationCode code)
{
    (void)cls, (void)code;
    http_deadline_response_out(c); /* a next request on this connection has its own deadline */
    free(*state);
    *state = NULL;
}

/* Reads a PEM file (certificate chain or key) whole, NUL-terminated, as
 * libmicrohttpd wants it. NULL with err set. */
static char *http_read_pem(const char *path, const char *what, char *err, size_t errsz)
{
    struct stat st;
    char *text = NULL;
    ssize_t got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        snprintf(err, errsz, "%s %s: %s", what, path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > HTTP_MAX_PEM) {
        snprintf(err, errsz, "%s %s: not a regular file of at most 1 MiB", what, path);
        goto fail;
    }
    if (!(text = malloc((size_t)st.st_size + 1))) {
        snprintf(err, errsz, "%s %s: out of memory", what, path);
        goto fail;
    }
    while (got < st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)(st.st_size - got));
        if (n <= 0) {
            snprintf(err, errsz, "%s %s: %s", what, path, n < 0 ? strerror(errno) : "short read");
            goto fail;
        }
        got += n;
    }
    text[got] = '\0';
    close(fd);
    return text;
fail:
    free(text);
    close(fd);
    return NULL;
}

/* Forgets the key's text (it is a secret) and the certificate's. */
static void http_tls_free(void)
{
    if (http_tls_key)
        explicit_bzero(http_tls_key, strlen(http_tls_key));
    free(http_tls_key);
    free(http_tls_cert);
    http_tls_key = http_tls_cert = NULL;
}

int http_start(const http_config *config, int *bound_port, char *err, size_t errsz)
{
    struct MHD_OptionItem tls[3] = {{MHD_OPTION_END, 0, NULL}};
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    int fd;

    http_cfg = *config;
    if (!http_cfg.bind_host)
        http_cfg.bind_host = "127.0.0.1";
    if (!netaddr_is_loopback(http_cfg.bind_host) && (!http_cfg.api_key || !*http_cfg.api_key)) {
        snprintf(err, errsz, "binding %s (not loopback) requires an API key (--api-key)",
                 http_cfg.bind_host);
        return -1;
    }
    if (http_cfg.tls_cert) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            snprintf(err, errsz, "this libmicrohttpd was built without TLS (--tls-cert)");
            return -1;
        }
        if (!(http_tls_cert = http_read_pem(http_cfg.tls_cert, "--tls-cert", err, errsz)) ||
            !(http_tls_key = http_read_pem(http_cfg.tls_key, "--tls-key", err, errsz))) {
            http_tls_free();
            return -1;
        }
        tls[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, http_tls_cert};
        tls[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, http_tls_key};
        flags |= MHD_USE_TLS;
    } else if (!netaddr_is_loopback(http_cfg.bind_host)) {
        fprintf(stderr,
                "jitscope: warning: listening on %s without TLS: the API key and everything the "
                "server shows cross the network in clear (give --tls-cert FILE --tls-key FILE)\n",
                http_cfg.bind_host);
    }
    /* the port (also when 0 was asked for) is known before the daemon's threads
     * start, so no request ever sees an unconfigured guard */
    fd = netaddr_listen(http_cfg.bind_host, config->port, 256, &http_port, err, errsz);
    if (fd < 0) {
        http_tls_free();
        return -1;
    }
    guard_configure(http_cfg.bind_host, http_port, http_cfg.api_key != NULL,
                    http_cfg.tls_cert != NULL);
    if (http_deadline_start(http_cfg.tls_cert != NULL, err, errsz) != 0) {
        close(fd);
        http_tls_free();
        return -1;
    }
    http_daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, http_handle, NULL, MHD_OPTION_LISTEN_SOCKET, fd,
        MHD_OPTION_THREAD_POOL_SIZE, HTTP_THREADS, MHD_OPTION_CONNECTION_LIMIT,
        HTTP_MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTP_MAX_PER_IP,
        MHD_OPTION_CONNECTION_TIMEOUT, HTTP_IDLE_SECONDS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)HTTP_CONNECTION_MEMORY, MHD_OPTION_NOTIFY_COMPLETED, http_done, NULL,
        MHD_OPTION_NOTIFY_CONNECTION, http_deadline_notify, NULL, MHD_OPTION_URI_LOG_CALLBACK,
        http_deadline_request_line, NULL, MHD_OPTION_UNESCAPE_CALLBACK, http_unescape, NULL,
        MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
    if (!http_daemon) {
        snprintf(err, errsz, "libmicrohttpd could not start on %s:%d%s", http_cfg.bind_host,
                 http_port,
                 http_cfg.tls_cert ? " (is --tls-key the key of --tls-cert, both PEM?)" : "");
        close(fd);
        http_deadline_stop();
        http_tls_free();
        return -1;
    }
    *bound_port = http_port;
    return 0;
}

void http_stop(void)
{
    if (http_daemon)
        MHD_stop_daemon(http_daemon);
    http_daemon = NULL;
    http_deadline_stop();
    http_tls_free();
}
