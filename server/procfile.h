/* procfile.h -- a whole /proc/{pid}/{name} file in memory, however long it
 * is up to a bound: /proc files have no size to ask for, so they are read
 * until their end into a buffer that doubles. Used for the maps file by
 * procmaps.c (the mappings the CPU profile and the code view name addresses
 * by); proc.c's bounded reads share its read loop. No
 * other dependency, so the fuzzers link it.
 */
#ifndef JITSCOPE_PROCFILE_H
#define JITSCOPE_PROCFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Reads /proc/{pid}/{name} into a malloc'd *text (*length bytes, not
 * NUL-terminated; NULL when not even the first 64 KiB could be had). 0 when read to its end; 1 when cut
 * short: longer than max bytes, or memory ran out (*text holds what was read
 * before); -1 with errno set when it could not be opened or read (*text
 * NULL). The caller frees *text. */
int procfile_read(pid_t pid, const char *name, size_t max, char **text, size_t *length);

/* Reads fd until its end or until buf (cap bytes) is full, again after an
 * interrupted read: 0 with *length set, or -1 with errno set. */
int procfile_fill(int fd, char *buf, size_t cap, size_t *length);

#endif
