/* store_types.h -- the types storage's public interface (store.h) and its
 * files among themselves (store_db.h) share: options, statistics, a header
 * row, the callbacks of a read, and the constants they go with. */
#ifndef JITSCOPE_STORE_TYPES_H
#define JITSCOPE_STORE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#define STORE_EXIT_CODE 3           /* jitscope's exit code when its data directory is unusable */
#define STORE_TICK_MS 250           /* the writer commits at least this often while there is work */
#define STORE_KEEP_DEFAULT 100      /* ended sessions kept (--keep) */
#define STORE_KEEP_MAX 200          /* under SESSIONS_MAX, so live sessions find room */
#define STORE_KEEP_EVENTS_MIN 1000u /* --keep-events bounds; the most is EVENTLOG_MAX */
#define STORE_JOURNAL_MAX (256u << 20) /* bytes waiting for the writer, all sessions */

typedef struct store_options {
    const char *dir;      /* NULL or "none": storage off */
    unsigned keep;        /* ended sessions kept (0: the default): the caller applies it */
    unsigned keep_events; /* newest events kept per session (0: all memory keeps) */
    size_t journal_max;   /* 0: STORE_JOURNAL_MAX (tests make it small) */
    /* 1 for the frame types storage keeps beside a snapshot (observations) */
    int (*observation)(uint16_t frame_type);
} store_options;

/* What storage is doing, for /api/config, /metrics and the dashboard. */
typedef struct store_stats {
    int enabled;
    char path[512];   /* the database file */
    uint64_t rounds;  /* the writer's rounds done (a round with nothing to write commits nothing) */
    uint64_t commits; /* transactions committed */
    uint64_t chunks;  /* log chunks written */
    uint64_t snapshots;       /* snapshots written (compactions) */
    uint64_t bytes_logged;    /* log bytes handed over */
    uint64_t bytes_written;   /* bytes written into the database (logs and compressed snapshots) */
    uint64_t backlog;         /* bytes waiting for the writer */
    uint64_t lost;            /* bytes dropped: the journal was full (the log is broken there) */
    uint64_t write_errors;    /* rounds the database refused (retried) */
    int64_t last_commit_ns;   /* wall clock */
    uint64_t sessions_stored; /* sessions in the database */
    char last_error[256];     /* the latest write error, until a round succeeds again */
    int64_t last_error_ns;    /* when it came (kept after recovery) */
    uint64_t cache_bytes;     /* the writer's page cache after its last round */
} store_stats;

/* One session's header row, as store_list gives it and store_put_header takes it. */
typedef struct store_header {
    int id;
    const char *state;                        /* session_state_name() */
    const char *header;                       /* JSON object: the session's own fields */
    const char *summary;                      /* JSON object: its list entry */
    int64_t created_ns, ended_ns, updated_ns; /* wall clock; ended 0 while not ended */
    int has_log;                              /* list: the session has stored content */
} store_header;

typedef int (*store_header_fn)(void *ctx, const store_header *h);

/* The parts of a session's content, in the order store_read delivers them. */
enum store_part { STORE_PART_SNAPSHOT = 1, STORE_PART_OBSERVATION = 2, STORE_PART_LOG = 3 };
/* What reading a session back delivered, and what it could not (store.h, store_read). */
typedef struct store_read_report {
    uint32_t parts, parts_read, parts_damaged;    /* the snapshot's (state, observations) */
    uint64_t chunks, chunks_read, chunks_damaged; /* the log's after the snapshot */
    uint64_t bytes_unread;                        /* of the parts and chunks not delivered */
} store_read_report;
typedef int (*store_entry_fn)(void *ctx, int part, int64_t now_ns, const uint8_t *bytes,
                              size_t length);

#endif
