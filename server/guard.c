/* guard.c -- Host/Origin checks and the API-key comparison (see guard.h). */
#include "guard.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "netaddr.h"

static char guard_bind[64] = "127.0.0.1"; /* as a Host header writes it ([v6]) */
static int guard_http_port;
static int guard_any_host;                   /* wildcard bind with an API key */
static const char *guard_scheme = "http://"; /* what the dashboard's Origin starts with */

void guard_configure(const char *bind_host, int http_port, int api_key_required, int tls)
{
    const char *b = bind_host ? bind_host : "127.0.0.1";

    snprintf(guard_bind, sizeof(guard_bind), strchr(b, ':') ? "[%s]" : "%s", b);
    guard_http_port = http_port;
    guard_scheme = tls ? "https://" : "http://";
    /* bound to every address: clients reach us by names we cannot know; the API
     * key (required for any non-loopback bind) is what protects the server then */
    guard_any_host = api_key_required && netaddr_is_wildcard(b);
}

int guard_host_ok(const char *host, int port)
{
    const char *names[] = {"127.0.0.1", "localhost", "[::1]", guard_bind};
    char suffix[16];
    size_t i, n;

    if (!host || !*host)
        return 0;
    if (guard_any_host)
        return 1;
    snprintf(suffix, sizeof(suffix), ":%d", port);
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        n = strlen(names[i]);
        if (n && strncasecmp(host, names[i], n) == 0 &&
            (host[n] == '\0' || strcmp(host + n, suffix) == 0))
            return 1;
    }
    return 0;
}

int guard_origin_ok(const char *origin, const char *host)
{
    size_t n = strlen(guard_scheme);

    if (!origin)
        return 1; /* not a browser (curl, scripts): Host and the API key still apply */
    if (strncmp(origin, guard_scheme, n) != 0)
        return 0;
    if (guard_any_host) /* the page must come from the server the request went to */
        return host && strcasecmp(origin + n, host) == 0;
    return guard_host_ok(origin + n, guard_http_port);
}

int guard_key_ok(const char *given, const char *key)
{
    size_t i, n;
    unsigned diff = 0;

    if (!key)
        return 1;
    if (!given)
        return 0;
    n = strlen(key);
    if (strlen(given) != n)
        return 0; /* the length of the key is not a secret worth hiding */
    for (i = 0; i < n; i++)
        diff |= (unsigned char)(given[i] ^ key[i]);
    return diff == 0;
}
