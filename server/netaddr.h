/* netaddr.h -- the numeric addresses the server listens on (--host).
 *
 * Both listeners (HTTP in http.c, the stream in ws.c) take --host as a
 * numeric IPv4 or IPv6 address and bind exactly that address: an IPv6 socket
 * is IPV6_V6ONLY, so `--host ::` is every IPv6 address and no IPv4 one, and
 * `0.0.0.0` every IPv4 address and no IPv6 one. Names are refused (a name can
 * resolve to several addresses, or to another one tomorrow). */
#ifndef JITSCOPE_NETADDR_H
#define JITSCOPE_NETADDR_H

#include <sys/socket.h>

/* Fills *addr and *len for host:port. AF_INET or AF_INET6, or -1 when host is
 * not a numeric address. */
int netaddr_parse(const char *host, int port, struct sockaddr_storage *addr, socklen_t *len);

/* 1 for an address of the loopback network (127.0.0.0/8, ::1). */
int netaddr_is_loopback(const char *host);

/* 1 for the any-address of its family (0.0.0.0, ::). */
int netaddr_is_wildcard(const char *host);

/* A listening TCP socket bound to host:port (IPV6_V6ONLY for IPv6, SO_REUSEADDR,
 * close-on-exec), its port in *bound_port. -1 with err set. */
int netaddr_listen(const char *host, int port, int backlog, int *bound_port, char *err,
                   size_t errsz);

/* 1 when host:port can be bound now (nobody listens there), else 0. */
int netaddr_port_free(const char *host, int port);

#endif
