/* api_export.c -- CSV and JSON file exports of the list routes (see api_export.h). */
#include "api_export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textbuf.h"

#define API_EXPORT_MAX_BYTES (256u * 1024u * 1024u)

int api_export_format(const api_request *req)
{
    const char *f = req->arg(req->ctx, "format");

    if (!f)
        return 0;
    if (strcmp(f, "csv") == 0)
        return 1;
    if (strcmp(f, "json") == 0)
        return 2;
    return -1;
}

/* One field: quoted only when it must be (RFC 4180, 2.6-2.7). */
static void api_export_field(textbuf *b, const char *text, size_t n)
{
    size_t i, from = 0;

    if (!memchr(text, ',', n) && !memchr(text, '"', n) && !memchr(text, '\r', n) &&
        !memchr(text, '\n', n)) {
        textbuf_add(b, text, n);
        return;
    }
    textbuf_add(b, "\"", 1);
    for (i = 0; i < n; i++) {
        if (text[i] == '"') {
            textbuf_add(b, text + from, i + 1 - from); /* the quote itself... */
            textbuf_add(b, "\"", 1);                   /* ...doubled */
            from = i + 1;
        }
    }
    textbuf_add(b, text + from, n - from);
    textbuf_add(b, "\"", 1);
}

static void api_export_value(textbuf *b, const json_t *v)
{
    char *text;

    if (!v || json_is_null(v))
        return;
    if (json_is_string(v)) {
        api_export_field(b, json_string_value(v), json_string_length(v));
        return;
    }
    text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text) {
        b->overflow = 1;
        return;
    }
    api_export_field(b, text, strlen(text));
    free(text);
}

char *api_export_csv(const json_t *rows, size_t max, size_t *length)
{
    const json_t *first = json_array_get(rows, 0), *row;
    const char *key;
    json_t *value;
    textbuf b;
    size_t i, k, columns = 0;
    const char **names = NULL;

    textbuf_init(&b, max);
    if (json_is_object(first)) {
        names = malloc(json_object_size(first) * sizeof(*names) + 1);
        if (!names)
            return NULL;
        json_object_foreach((json_t *)first, key, value)
        {
            (void)value;
            names[columns++] = key;
        }
    }
    for (k = 0; k < columns; k++) {
        if (k)
            textbuf_add(&b, ",", 1);
        api_export_field(&b, names[k], strlen(names[k]));
    }
    textbuf_add(&b, "\r\n", 2);
    json_array_foreach(rows, i, row)
    {
        for (k = 0; k < columns; k++) {
            if (k)
                textbuf_add(&b, ",", 1);
            api_export_value(&b, json_object_get(row, names[k]));
        }
        textbuf_add(&b, "\r\n", 2);
    }
    free(names);
    if (b.overflow) {
        textbuf_free(&b);
        return NULL;
    }
    return textbuf_take(&b, length);
}

int api_export_rows(api_reply *reply, int format, const json_t *rows, size_t max)
{
    size_t length = 0;
    char *text;

    if (format == 2)
        return 200; /* the JSON answer as it is, saved as a file */
    text = api_export_csv(rows, max, &length);
    if (!text) {
        json_decref(reply->json);
        reply->json = api_error("the export does not fit in memory");
        reply->disposition[0] = '\0';
        return 500;
    }
    json_decref(reply->json);
    reply->json = NULL;
    reply->text = text;
    reply->text_length = length;
    reply->content_type = "text/csv; charset=utf-8";
    return 200;
}

int api_export(api_reply *reply, int format, int session_id, const char *list)
{
    const char *ext = format == 1 ? "csv" : "json";

    snprintf(reply->disposition, sizeof(reply->disposition),
             "attachment; filename=\"jitscope-session-%d-%s.%s\"", session_id, list, ext);
    return api_export_rows(reply, format, json_object_get(reply->json, list), API_EXPORT_MAX_BYTES);
}
