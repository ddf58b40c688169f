/* client.h -- the command line's HTTP client (libcurl) for talking to a
 * running jitscope server: `jitscope detach` and `jitscope attach --server`.
 * http:// or https:// (a server with --tls-cert); the server's certificate is
 * verified against the system's CAs, or the PEM file in JITSCOPE_CA_FILE. */
#ifndef JITSCOPE_CLIENT_H
#define JITSCOPE_CLIENT_H

#include <stddef.h>

#include <jansson.h>

/* Sends a request (body may be NULL) and parses the JSON answer. Returns the
 * HTTP status, or -1 with a message in err when the server cannot be reached or
 * answers something that is not JSON. */
long client_request(const char *method, const char *url, const char *api_key, json_t **body,
                    char *err, size_t errsz);

#endif
