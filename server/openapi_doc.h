/* openapi_doc.h -- the OpenAPI 3.1 description of the HTTP API
 * (server/openapi.json), embedded in the binary at build time and served at
 * GET /api/openapi.json. tests/unit/test_openapi.c compares its paths with the
 * route table; tests/e2e/openapi.mjs validates the e2e tests' responses
 * against it. */
#ifndef JITSCOPE_OPENAPI_DOC_H
#define JITSCOPE_OPENAPI_DOC_H

#include <stddef.h>

/* The document's bytes (NUL-terminated) and their length without the NUL. */
const char *openapi_document(size_t *length);

#endif
