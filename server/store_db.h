/* store_db.h -- what the storage files share among themselves (store.h is
 * the rest of the server's view): the schema, the session header's columns,
 * the writer thread and the reader. */
#ifndef JITSCOPE_STORE_DB_H
#define JITSCOPE_STORE_DB_H

#include <stddef.h>

#include <jansson.h>
#include <sqlite3.h>

#include "session.h"

struct store_options; /* store.h */

struct store_stats;

#define STORE_SCHEMA_VERSION 4
#define STORE_APPLICATION_ID 0x4a495453 /* "JITS" */

/* store_schema.c: opens path (creating it), checks that it is jitscope's
 * and not newer than this server, sets WAL and migrates it to `target`
 * (STORE_SCHEMA_VERSION; older versions only in tests). 0, or -1 and why. */
int store_schema_open(const char *path, int target, sqlite3 **out, char *err, size_t errsz);
/* One statement or script, with the error text in err. */
int store_exec(sqlite3 *db, const char *sql, char *err, size_t errsz);

/* store_header.c: the session's own fields (not its lists) as JSON, and back. */
json_t *store_header_to_json(const session *s);
void store_header_from_json(session *s, const json_t *header);

/* store_writer.c */
/* o: every field set (store_open puts in the defaults) */
int store_writer_start(sqlite3 *db, const struct store_options *o, char *err, size_t errsz);
void store_writer_stop(void); /* flushes everything first */
void store_writer_forget(int session_id);
void store_writer_kick(void);
void store_writer_stats(struct store_stats *out);

/* store.c: the reading connection, one reader at a time (taken inside the
 * sessions lock or without it, never the other way round). */
sqlite3 *store_reader_lock(void); /* NULL when storage is closed (then not locked) */
void store_reader_unlock(void);

/* store_load.c: the past sessions into the registry (header only), the
 * interrupted ones marked; and one session's content. */
int store_load_index(sqlite3 *db, char *err, size_t errsz);
int store_load_content(sqlite3 *db, session *s, char *err, size_t errsz);

#endif
