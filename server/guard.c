/* guard.c -- Host/Origin checks (see guard.h). */
#include "guard.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *guard_bind = "127.0.0.1";
static int guard_http_port;

void guard_configure(const char *bind_host, int http_port)
{
    guard_bind = bind_host ? bind_host : "127.0.0.1";
    guard_http_port = http_port;
}

int guard_host_ok(const char *host, int port)
{
    const char *names[] = {"127.0.0.1", "localhost", "[::1]", guard_bind};
    char suffix[16];
    size_t i, n;

    if (!host)
        return 0;
    snprintf(suffix, sizeof(suffix), ":%d", port);
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        n = strlen(names[i]);
        if (n && strncasecmp(host, names[i], n) == 0 &&
            (host[n] == '\0' || strcmp(host + n, suffix) == 0))
            return 1;
    }
    return 0;
}

int guard_origin_ok(const char *origin)
{
    if (!origin)
        return 1; /* not a browser (curl, scripts): Host and the API key still apply */
    if (strncmp(origin, "http://", 7) != 0)
        return 0;
    return guard_host_ok(origin + 7, guard_http_port);
}
