/* netaddr.c -- numeric listen addresses: parse, classify, bind (see netaddr.h). */
#include "netaddr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int netaddr_parse(const char *host, int port, struct sockaddr_storage *addr, socklen_t *len)
{
    struct sockaddr_in *a4 = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)addr;

    memset(addr, 0, sizeof(*addr));
    if (host && inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        *len = sizeof(*a4);
        return AF_INET;
    }
    if (host && inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*a6);
        return AF_INET6;
    }
    return -1;
}

int netaddr_is_loopback(const char *host)
{
    struct sockaddr_storage a;
    socklen_t len;
    int family = netaddr_parse(host, 0, &a, &len);

    if (family == AF_INET)
        return (ntohl(((struct sockaddr_in *)&a)->sin_addr.s_addr) >> 24) == 127;
    if (family == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&a)->sin6_addr);
    return 0;
}

int netaddr_is_wildcard(const char *host)
{
    struct sockaddr_storage a;
    socklen_t len;
    int family = netaddr_parse(host, 0, &a, &len);

    if (family == AF_INET)
        return ((struct sockaddr_in *)&a)->sin_addr.s_addr == htonl(INADDR_ANY);
    if (family == AF_INET6)
        return IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&a)->sin6_addr);
    return 0;
}

/* A socket bound to host:port, not yet listening; -1 with errno set (EINVAL: not numeric). */
static int netaddr_bind(const char *host, int port, struct sockaddr_storage *addr, socklen_t *len)
{
    int family = netaddr_parse(host, port, addr, len), fd, one = 1, saved;

    if (family < 0) {
        errno = EINVAL;
        return -1;
    }
    fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        (family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) ||
        bind(fd, (struct sockaddr *)addr, *len) != 0) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int netaddr_listen(const char *host, int port, int backlog, int *bound_port, char *err,
                   size_t errsz)
{
    struct sockaddr_storage addr;
    socklen_t len;
    int fd;

    if (netaddr_parse(host, port, &addr, &len) < 0) {
        snprintf(err, errsz, "--host must be a numeric IP address, not '%s'", host);
        return -1;
    }
    fd = netaddr_bind(host, port, &addr, &len);
    if (fd < 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        snprintf(err, errsz, "cannot listen on %s:%d: %s", host, port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *bound_port = ntohs(addr.ss_family == AF_INET ? ((struct sockaddr_in *)&addr)->sin_port
                                                  : ((struct sockaddr_in6 *)&addr)->sin6_port);
    return fd;
}

int netaddr_port_free(const char *host, int port)
{
    struct sockaddr_storage addr;
    socklen_t len;
    int fd = netaddr_bind(host, port, &addr, &len);

    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}
