/* budget.h -- the server-wide memory budget for what sessions hold
 * (--max-memory SIZE; docs/API.md, "Memory budget").
 *
 * Every session accounts what it holds (functions, names, modules, threads,
 * the event log, stacks, profile, timeline, and its log and snapshot while
 * they wait for the storage writer: session.c, session_memory_sync) into one
 * total. A session connected to an
 * agent may grow while both hold:
 *   - the total stays within the budget, and
 *   - the session stays within its share: budget / (connected sessions + 1),
 *     one share always kept for a session yet to come, so peers that flood
 *     the server together cannot take what a newcomer needs.
 * A record that would break either is refused whole (session.c) and counted
 * by what it would have added. Ended sessions count in the total; when it is
 * full, the oldest ended ones give their memory back (sessions.c).
 * All of it runs under the sessions lock (sessions.h), except the size
 * parser and the default, which are pure. */
#ifndef JITSCOPE_BUDGET_H
#define JITSCOPE_BUDGET_H

#include <stdint.h>

/* The default budget: a quarter of the machine's memory (MemTotal in
 * /proc/meminfo), at least BUDGET_MIN; 1 GiB when it cannot be read. */
#define BUDGET_MIN (64ull << 20)
uint64_t budget_default(void);
/* --max-memory's SIZE: a number of bytes with an optional binary suffix (K,
 * M, G, T: KiB...; "512M", "2G"), or a percentage of the machine's memory
 * ("25%", 1..100). 0 and *out (at least BUDGET_MIN), or -1. */
int budget_parse_size(const char *text, uint64_t *out);

/* The budget in force (the default until set). */
void budget_set_max(uint64_t bytes);
uint64_t budget_max(void);

/* ---- under the sessions lock ---- */
/* What all sessions hold, changed by a session's own accounting. */
void budget_held_change(int64_t delta);
uint64_t budget_held(void);
/* Sessions connected to an agent, changed as links are bound and lost. */
void budget_live_change(int delta);
unsigned budget_live(void);
/* What waits for the storage writer, per session (a copy of what it holds,
 * on its way to disk): storage's user says how to ask (persist.c); 0 for
 * every session until then. A session counts it in what it holds
 * (session.c), so a flood is held to the writer's pace within its share. */
typedef uint64_t (*budget_unwritten_fn)(int session_id);
void budget_set_unwritten(budget_unwritten_fn fn);
uint64_t budget_unwritten(int session_id);
int budget_counts_unwritten(void); /* 1 once it is set (storage is on) */
/* One connected session's share: budget / (connected sessions + 1). */
uint64_t budget_share(void);
/* 1 when a connected session holding `held` may take `need` more bytes. */
int budget_allows(uint64_t held, uint64_t need);
/* 1 when the total alone leaves no room for `need` (the share might). */
int budget_total_full(uint64_t need);

#endif
