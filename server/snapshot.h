/* snapshot.h -- a session's folded state as frames, and back.
 *
 * Storage keeps a session as the log of what its agent sent (store.h). A
 * long log is slow to fold again and its frames are large, so when a session
 * ends, or its log has grown past a bound, its state is written as a snapshot
 * in the same frame format (records SNAPSHOT_*, in logrec.h's range, which no
 * agent may send): one record for the session's counters, one per module,
 * thread and function (with its name and kept compilations), the event log in
 * blocks, and the code state (code.h) in blocks. Reading back restores that state exactly, then folds the
 * rest of the log as usual. The stack snapshots, profile and GC timeline are
 * not in these records: storage keeps the frames that made them (the
 * observation frames, session_replay) beside the snapshot and they are folded
 * again, quietly (their events are in the snapshot's event log already).
 *
 * The records are fixed little-endian layouts (static asserts below): a
 * change of any of them is a new SNAPSHOT_FORMAT. The restore checks every
 * count and length (a snapshot comes from a file, and files get damaged) and
 * refuses what does not fit, never crashes. Caller holds the sessions lock or
 * owns the session privately.
 */
#ifndef JITSCOPE_SNAPSHOT_H
#define JITSCOPE_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "logrec.h"
#include "prefault.h"
#include "session.h"
#include "textbuf.h"

/* 2: SNAPSHOT_CODE records (code versions seen, inlining, ReadyToRun); 3:
 * SNAPSHOT_REFUSED; 4: SNAPSHOT_SESSION ends with when the runtime ended the
 * tier source. Formats 1 to 3 (without them) are still read. */
#define SNAPSHOT_FORMAT 4u

enum snapshot_record {
    SNAPSHOT_BEGIN = 210,    /* snapshot_begin */
    SNAPSHOT_SESSION = 211,  /* snapshot_session */
    SNAPSHOT_MODULE = 212,   /* snapshot_module; strings: path, assembly */
    SNAPSHOT_THREAD = 213,   /* snapshot_thread; string: name */
    SNAPSHOT_FUNCTION = 214, /* snapshot_function; extra: its compilation list; string: name */
    SNAPSHOT_EVENTS = 215,   /* eventlog_entry[n], consecutive seqs */
    SNAPSHOT_END = 216,      /* snapshot_begin again: the counts, to check */
    SNAPSHOT_CODE = 217,     /* code.h's state, one block per record (code_snapshot_encode) */
    SNAPSHOT_REFUSED = 218,  /* snapshot_refused (format 3, after SESSION) */
};

/* Flags of the records' frame headers. */
#define SNAPSHOT_INDEXED 0x100u  /* its ID finds it (else an older entry of a reused ID) */
#define SNAPSHOT_HAS_NAME 0x200u /* a thread's or function's name follows (may be empty) */

typedef struct snapshot_begin {
    uint32_t format;     /* SNAPSHOT_FORMAT */
    uint32_t name_bytes; /* the session's name text (a hint for reading back; 0: unknown) */
    uint64_t functions, modules, threads, events;
} snapshot_begin;

/* Encodes s's folded state (not its header, nor its observations) as
 * SNAPSHOT_* frames appended to out, with the newest max_events events (0:
 * all it keeps). 0, or -1 when out is full or out of memory. */
int snapshot_encode(const session *s, uint64_t max_events, textbuf *out);

/* Restoring, frame by frame, into a session that has only its header. */
typedef struct snapshot_reader {
    int begun, ended;
    snapshot_begin counts; /* from SNAPSHOT_BEGIN */
    uint64_t functions, modules, threads, events;
    uint64_t events_last_seq; /* from SNAPSHOT_SESSION */
    uint32_t *indexed;        /* positions of the functions their IDs find, indexed at END */
    size_t indexed_count, indexed_cap;
    prefault room; /* the room BEGIN made, populated beside the reading until END */
} snapshot_reader;

/* 1 when a frame of this type belongs to a snapshot. */
int snapshot_is_record(uint16_t type);
/* Applies one SNAPSHOT_* frame (type, flags, payload); 0, or -1 with why. */
int snapshot_apply(session *s, snapshot_reader *rd, uint16_t type, uint16_t flags,
                   const uint8_t *payload, uint32_t length, const char **why);
/* After the last frame: 0 when BEGIN and END came and the counts agree.
 * Frees what the reader holds, either way. */
int snapshot_finish(const session *s, snapshot_reader *rd, const char **why);
/* Frees what the reader holds (a read given up halfway); idempotent. */
void snapshot_reader_free(snapshot_reader *rd);

#endif
