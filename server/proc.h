/* proc.h -- what /proc says about one process: a bounded read of any of its
 * files, its parent, whether it is gone, its command line. Used where the
 * server places an agent's process in a tree (link.c), watches processes it
 * did not start (sessions_sweep), and probes a target (ipc_discover.c).
 *
 * The parser comes first so that the unit tests can feed it text. Thread-safe.
 */
#ifndef JITSCOPE_PROC_H
#define JITSCOPE_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where field `field` (3 or more: after the command name) of a
 * /proc/{pid}/stat text starts, in *at. Fields are separated by single
 * spaces; the command name (field 2) may hold spaces and ')', so the last ')'
 * ends it. 0, or -1 when the text is not such a line up to that field. */
int proc_stat_field(const char *text, size_t len, unsigned field, size_t *at);
/* A decimal field (start time is 22), followed by a space, a newline or the
 * end of the text. 0, or -1. */
int proc_stat_number(const char *text, size_t len, unsigned field, uint64_t *out);

/* State letter (field 3) and parent pid (field 4) from the text of
 * /proc/{pid}/stat, whose comm field may hold spaces and ')'. The text need
 * not be NUL-terminated. 0, or -1 when the text is not a stat line. */
int proc_parse_stat(const char *text, size_t len, char *state, pid_t *ppid);

/* Reads at most cap bytes of /proc/{pid}/{name} into buf. 0 with *len set,
 * or -1 with errno set. */
int proc_read(pid_t pid, const char *name, char *buf, size_t cap, size_t *len);

/* The parent pid of pid, or 0 when /proc cannot tell (process gone). */
pid_t proc_parent_pid(pid_t pid);

/* The start time of pid (field 22 of its stat: clock ticks after boot), which
 * tells it from a later process given the same pid; 0 when it cannot be read. */
uint64_t proc_start_time(pid_t pid);

/* 1 when pid no longer runs: no such process, or a zombie waiting to be reaped. */
int proc_is_gone(pid_t pid);

/* 1 when one of pid's threads is named comm (/proc/{pid}/task/{tid}/comm,
 * at most 15 bytes), 0 when none is (or pid is gone), -1 when /proc cannot
 * list its threads. */
int proc_has_thread(pid_t pid, const char *comm);

/* The command line of pid (its first 4 KiB), arguments joined by spaces, bytes
 * that are not UTF-8 replaced by '?', cut to outsz - 1 bytes on a character
 * boundary, into out. 0, or -1 with out empty when it cannot be read. */
int proc_command_line(pid_t pid, char *out, size_t outsz);

/* What pid runs, in a word (procname.h: "testhost", "MSBuild", "dotnet build"),
 * from its arguments in /proc (the first 4 KiB). 0, or -1 with out empty. */
int proc_program_name(pid_t pid, char *out, size_t outsz);

#endif
