/* api_export.h -- ?format=csv|json on the list routes (functions, modules,
 * threads, events): the same rows as the JSON answer, as a file to save.
 *
 * CSV follows RFC 4180: a header row of the row objects' keys, CRLF line ends,
 * a field quoted when it holds a comma, quote, CR or LF (quotes doubled);
 * numbers as JSON writes them, true/false, null as an empty field, nested
 * values as their compact JSON. Both formats carry Content-Disposition with a
 * file name: jitscope-session-ID-LIST.csv / .json.
 */
#ifndef JITSCOPE_API_EXPORT_H
#define JITSCOPE_API_EXPORT_H

#include "api_types.h"

/* The export asked for by the request: 0 none, 1 csv, 2 json; -1 for an
 * unknown format (the caller answers 400). */
int api_export_format(const api_request *req);

/* Turns a 200 reply whose JSON holds the array `list` into the export
 * `format`. Returns the status (200, or 500 when out of memory / too big). */
int api_export(api_reply *reply, int format, int session_id, const char *list);

/* The export of a 200 reply whose JSON holds rows (an array within it), the
 * caller having set reply->disposition: format 2 keeps the JSON as it is,
 * 1 replaces it with the CSV of rows. Returns 200, or 500 when out of memory
 * or over max (the reply then holds the error, no disposition). */
int api_export_rows(api_reply *reply, int format, const json_t *rows, size_t max);

/* RFC 4180 CSV of an array of objects (columns: the first object's keys, in
 * order). Malloc'd text, *length bytes; NULL when out of memory or over max. */
char *api_export_csv(const json_t *rows, size_t max, size_t *length);

#endif
