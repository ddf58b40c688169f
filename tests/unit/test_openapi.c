/* test_openapi.c -- the OpenAPI document (server/openapi.json, embedded by
 * server/openapi_doc.c) against the server: it parses; its paths and the
 * REST route table (api_route_table) name the same routes, both ways (method
 * and path template), with the routes served outside the table listed here;
 * every $ref in it resolves; every 4xx/5xx response of every operation is the
 * JSON Error body; GET /api/openapi.json serves it byte for byte.
 * Build: make build/tests/test_openapi && build/tests/test_openapi
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "check.h"
#include "openapi_doc.h"

/* Routes http.c serves itself, before the route table: documented, not in it. */
static const char *const outside_table[][2] = {
    {"GET", "/metrics"},
};

static const char *const http_methods[] = {"get",     "put",  "post",  "delete",
                                           "options", "head", "patch", "trace"};

static json_t *load_document(void)
{
    size_t length;
    const char *text = openapi_document(&length);
    json_error_t err;
    json_t *doc = json_loadb(text, length, JSON_REJECT_DUPLICATES, &err);

    if (!doc)
        printf("    server/openapi.json line %d: %s\n", err.line, err.text);
    return doc;
}

/* The JSON pointer ref ("#/components/schemas/Error") in doc, or NULL. */
static json_t *resolve(json_t *doc, const char *ref)
{
    char part[256];
    json_t *at = doc;
    const char *p;

    if (strncmp(ref, "#/", 2) != 0)
        return NULL;
    for (p = ref + 2; at && *p;) {
        size_t n = strcspn(p, "/"), i, k = 0;

        if (n >= sizeof(part))
            return NULL;
        for (i = 0; i < n; i++) { /* ~1 is '/', ~0 is '~' */
            if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1'))
                part[k++] = p[++i] == '1' ? '/' : '~';
            else
                part[k++] = p[i];
        }
        part[k] = '\0';
        at = json_object_get(at, part);
        p += n + (p[n] == '/');
    }
    return at;
}

static int in_table(const api_route *routes, size_t count, const char *method, const char *path)
{
    size_t i;

    for (i = 0; i < count; i++)
        if (strcasecmp(routes[i].method, method) == 0 && strcmp(routes[i].pattern, path) == 0)
            return 1;
    return 0;
}

static int outside(const char *method, const char *path)
{
    size_t i;

    for (i = 0; i < sizeof(outside_table) / sizeof(outside_table[0]); i++)
        if (strcasecmp(outside_table[i][0], method) == 0 && strcmp(outside_table[i][1], path) == 0)
            return 1;
    return 0;
}

TEST(document_parses)
{
    size_t length;
    const char *text = openapi_document(&length);
    json_t *doc = load_document();
    const char *version = json_string_value(json_object_get(doc, "openapi"));

    CHECK(length > 1000 && text[length] == '\0', "embedded, NUL-terminated (%zu bytes)", length);
    CHECK(doc != NULL, "the document is JSON without duplicate keys");
    CHECK(version && strncmp(version, "3.1.", 4) == 0, "OpenAPI 3.1 (%s)", version ? version : "-");
    json_decref(doc);
}

TEST(paths_match_route_table)
{
    size_t count, i, k, documented = 0;
    const api_route *routes = api_route_table(&count);
    json_t *doc = load_document(), *paths = json_object_get(doc, "paths"), *item;
    const char *path;

    CHECK(json_is_object(paths), "the document has paths");
    for (i = 0; i < count; i++) { /* served -> documented */
        char method[16];

        for (k = 0; routes[i].method[k] && k + 1 < sizeof(method); k++)
            method[k] = (char)tolower((unsigned char)routes[i].method[k]);
        method[k] = '\0';
        CHECK(json_is_object(json_object_get(json_object_get(paths, routes[i].pattern), method)),
              "%s %s is served (server/api.c) and must be in server/openapi.json", routes[i].method,
              routes[i].pattern);
    }
    for (i = 0; i < sizeof(outside_table) / sizeof(outside_table[0]); i++)
        CHECK(!in_table(routes, count, outside_table[i][0], outside_table[i][1]),
              "%s %s is listed as outside the table but is in it: drop it from outside_table",
              outside_table[i][0], outside_table[i][1]);
    json_object_foreach(paths, path, item) /* documented -> served */
    {
        for (k = 0; k < sizeof(http_methods) / sizeof(http_methods[0]); k++) {
            if (!json_object_get(item, http_methods[k]))
                continue;
            documented++;
            CHECK(in_table(routes, count, http_methods[k], path) || outside(http_methods[k], path),
                  "%s %s is in server/openapi.json but the server does not serve it",
                  http_methods[k], path);
        }
    }
    CHECK(documented == count + sizeof(outside_table) / sizeof(outside_table[0]),
          "%zu operations documented: the %zu routes of the table and the %zu outside it",
          documented, count, sizeof(outside_table) / sizeof(outside_table[0]));
    json_decref(doc);
}

/* Every {"$ref": "#/..."} below v resolves in doc; returns how many refs were seen. */
static int refs_resolve(json_t *doc, json_t *v, int *bad)
{
    int seen = 0;

    if (json_is_object(v)) {
        const char *key;
        json_t *child;

        json_object_foreach(v, key, child)
        {
            if (strcmp(key, "$ref") == 0 && json_is_string(child)) {
                seen++;
                if (!resolve(doc, json_string_value(child))) {
                    printf("    unresolved $ref %s\n", json_string_value(child));
                    (*bad)++;
                }
            } else {
                seen += refs_resolve(doc, child, bad);
            }
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *child;

        json_array_foreach(v, i, child) seen += refs_resolve(doc, child, bad);
    }
    return seen;
}

TEST(refs_resolve_and_errors_are_error_bodies)
{
    json_t *doc = load_document(), *item, *op;
    const char *path, *method;
    int bad = 0, refs = refs_resolve(doc, doc, &bad), errors = 0, wrong = 0;

    CHECK(refs > 50 && bad == 0, "%d $refs, %d do not resolve", refs, bad);
    json_object_foreach(json_object_get(doc, "paths"), path, item)
    {
        json_object_foreach(item, method, op)
        {
            const char *status;
            json_t *resp;

            json_object_foreach(json_object_get(op, "responses"), status, resp)
            {
                const char *ref = json_string_value(json_object_get(resp, "$ref"));
                json_t *schema;

                if (strtol(status, NULL, 10) < 400)
                    continue;
                errors++;
                if (ref)
                    resp = resolve(doc, ref);
                schema = json_object_get(
                    json_object_get(json_object_get(resp, "content"), "application/json"),
                    "schema");
                if (!schema || json_object_size(json_object_get(resp, "content")) != 1 ||
                    !json_is_string(json_object_get(schema, "$ref")) ||
                    strcmp(json_string_value(json_object_get(schema, "$ref")),
                           "#/components/schemas/Error") != 0) {
                    printf("    %s %s %s is not the JSON Error body\n", method, path, status);
                    wrong++;
                }
            }
        }
    }
    CHECK(errors > 50 && wrong == 0, "%d error responses documented, %d not as Error", errors,
          wrong);
    json_decref(doc);
}

TEST(served_at_its_route)
{
    size_t length;
    const char *text = openapi_document(&length);
    static const char *const methods[] = {"GET", "HEAD"};
    api_request req = {NULL, "/api/openapi.json", NULL, NULL, NULL, 0};
    api_reply reply;
    size_t i;
    int status;

    for (i = 0; i < 2; i++) {
        req.method = methods[i];
        status = api_handle(&req, &reply);
        CHECK(status == 200 && reply.text && reply.text_length == length &&
                  memcmp(reply.text, text, length) == 0 && reply.content_type &&
                  strcmp(reply.content_type, "application/json") == 0,
              "%s /api/openapi.json: 200, application/json, the embedded bytes (%d)", methods[i],
              status);
        free(reply.text);
        json_decref(reply.json);
    }
    req.method = "POST";
    status = api_handle(&req, &reply);
    CHECK(status == 405 && json_is_string(json_object_get(reply.json, "error")),
          "POST /api/openapi.json: 405 with a JSON error (%d)", status);
    free(reply.text);
    json_decref(reply.json);
}

static const check_test tests[] = {
    TEST_ENTRY(document_parses),
    TEST_ENTRY(paths_match_route_table),
    TEST_ENTRY(refs_resolve_and_errors_are_error_bodies),
    TEST_ENTRY(served_at_its_route),
    TEST_END,
};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
