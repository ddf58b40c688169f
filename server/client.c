/* client.c -- minimal JSON-over-HTTP calls with libcurl (see client.h). */
#include "client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLIENT_MAX_BODY (16u * 1024u * 1024u)

typedef struct client_buffer {
    char *data;
    size_t length;
    int too_large;
} client_buffer;

static size_t client_write(char *ptr, size_t size, size_t n, void *arg)
{
    client_buffer *b = arg;
    size_t add = size * n;
    char *bigger;

    if (b->length + add > CLIENT_MAX_BODY) {
        b->too_large = 1;
        return 0;
    }
    bigger = realloc(b->data, b->length + add + 1);
    if (!bigger)
        return 0;
    memcpy(bigger + b->length, ptr, add);
    b->data = bigger;
    b->length += add;
    b->data[b->length] = '\0';
    return add;
}

long client_request(const char *method, const char *url, const char *api_key, json_t **body,
                    char *err, size_t errsz)
{
    client_buffer b = {NULL, 0, 0};
    struct curl_slist *headers = NULL;
    char auth[512];
    long status = -1;
    json_error_t jerr;
    CURLcode rc;
    CURL *c = curl_easy_init();
    const char *ca_file = getenv("JITSCOPE_CA_FILE");

    *body = NULL;
    if (!c) {
        snprintf(err, errsz, "curl_easy_init failed");
        return -1;
    }
    if (api_key) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", api_key);
        headers = curl_slist_append(headers, auth);
        if (!headers) {
            snprintf(err, errsz, "out of memory for the request headers");
            goto done;
        }
    }
    rc = curl_easy_setopt(c, CURLOPT_URL, url);
    if (rc == CURLE_OK)
        rc = curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (rc == CURLE_OK && strcmp(method, "POST") == 0)
        rc = curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
    if (rc == CURLE_OK)
        rc = curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    if (rc == CURLE_OK)
        rc = curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, client_write);
    if (rc == CURLE_OK)
        rc = curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    if (rc == CURLE_OK)
        rc = curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    if (rc == CURLE_OK)
        rc = curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (rc == CURLE_OK) /* https: a server with --tls-cert, verified as curl does */
        rc = curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    if (rc == CURLE_OK && ca_file && *ca_file) /* e.g. a self-signed server certificate */
        rc = curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
    if (rc != CURLE_OK) {
        snprintf(err, errsz, "cannot set up the request to %s: %s", url, curl_easy_strerror(rc));
        goto done;
    }
    rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        snprintf(err, errsz, "cannot reach %s: %s", url, curl_easy_strerror(rc));
        goto done;
    }
    if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK)
        status = -1;
    *body = b.data ? json_loads(b.data, 0, &jerr) : NULL;
    if (!*body) {
        snprintf(err, errsz, "%s answered HTTP %ld without JSON", url, status);
        status = -1;
    }
done:
    curl_slist_free_all(headers);
    curl_easy_cleanup(c);
    free(b.data);
    return status;
}
