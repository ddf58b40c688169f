/* session_kinds.h -- what each record kind does to a session: the folds,
 * replays and budget bounds that the rows of record_kinds.c point at, one
 * function per kind (or per kinds that share one), defined in the session's
 * files: the agent's records folded in session_fold.c (threads in
 * session_thread.c, the observations and their replays in
 * session_observe.c), the server's own records (logrec.h) in session_state.c,
 * the budget bounds in session_admit.c.
 *
 * A fold has record_kinds.h's record_fold_fn form: (s, r, when, now_ns, why),
 * `when` the record's time on the server's wall clock, `now_ns` the server's
 * clock; 0, or -1 with *why when the record breaks the session protocol. A
 * replay is an observation's fold beside a snapshot: it logs no events (the
 * snapshot's log has them). A budget bound is an upper bound of the bytes the
 * record adds to s's state, with what it adds (*refused_kind, enum
 * session_refused_kind) and *fixed set for a record that only ends, completes
 * or counts what s knows. Caller holds the sessions lock; nothing here is
 * called but through the table (session_apply.c). */
#ifndef JITSCOPE_SESSION_KINDS_H
#define JITSCOPE_SESSION_KINDS_H

#include <stdint.h>

#include "session.h"

/* ---- the agent's records (session_fold.c) ---- */
int session_fold_hello(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                       const char **why);
int session_fold_jit_started(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why);
int session_fold_jit_finished(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why);
int session_fold_function_name(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why);
int session_fold_module_loaded(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why);
int session_fold_module_unloaded(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                 const char **why);
int session_fold_assembly_loaded(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                 const char **why);
int session_fold_drops(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                       const char **why);
/* CATCHUP_BEGIN, PONG: taken and counted, nothing to fold */
int session_fold_nothing(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                         const char **why);
int session_fold_catchup_end(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why);
int session_fold_detach_status(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why);
int session_fold_tiers_status(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why);
int session_fold_agent_cost(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                            const char **why);
/* the pieces of a code reply (observations: also their replay) */
int session_fold_code_version(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why);
int session_fold_code_part(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                           const char **why);
int session_fold_code_end(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                          const char **why);
int session_fold_inlining(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                          const char **why);
int session_fold_code_search(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why);
int session_fold_code_range(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                            const char **why);
/* stack walks, the profile, the GC/suspension timeline (observations:
 * session_observe.c) */
int session_fold_stack_thread(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why);
int session_fold_stack_end(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                           const char **why);
int session_fold_profile_status(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                const char **why);
int session_fold_gc_started(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                            const char **why);
int session_fold_gc_finished(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why);
int session_fold_runtime_suspend(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                 const char **why);
/* exceptions (excsites.h; observations: session_observe.c) */
int session_fold_exception(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                           const char **why);
int session_replay_exception(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why);
int session_fold_exception_caught(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                  const char **why);
/* the heap after a collection (timeline.h; an observation: session_observe.c) */
int session_fold_gc_heap_stats(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why);
int session_fold_exception_counts(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                  const char **why);
int session_replay_exception_counts(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                    const char **why);
/* allocation samples (allocsites.h; observations: session_observe.c) */
int session_fold_allocation(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                            const char **why);
int session_replay_allocation(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why);

/* ---- threads (session_thread.c) ---- */
int session_fold_thread_created(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                const char **why);
int session_fold_thread_destroyed(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                  const char **why);
int session_fold_thread_os_id(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why);
int session_fold_thread_name(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why);

/* ---- replays beside a snapshot (session_observe.c) ---- */
/* a connection's walk ids start over */
int session_replay_hello(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                         const char **why);
int session_replay_stack_thread(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                const char **why);
int session_replay_stack_end(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                             const char **why);
int session_replay_profile_status(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                  const char **why);
int session_replay_gc_started(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                              const char **why);
int session_replay_gc_finished(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                               const char **why);
int session_replay_runtime_suspend(session *s, const wire_record *r, int64_t when, int64_t now_ns,
                                   const char **why);

/* ---- the server's own records read back (session_state.c): 0, or -1 for
 * a bad payload ---- */
int session_fold_profile_start(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_profile_stop(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_resumed(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_refused(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_cpu_start(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_cpu_symbol(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_cpu_thread(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_cpu_stack(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_cpu_samples(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_cpu_counts(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);
int session_fold_cpu_heat(session *s, const uint8_t *payload, uint32_t length, int64_t now_ns);

/* ---- budget bounds (session_admit.c) ---- */
uint64_t session_need_jit_started(session *s, const wire_record *r, unsigned *refused_kind,
                                  int *fixed);
uint64_t session_need_jit_finished(session *s, const wire_record *r, unsigned *refused_kind,
                                   int *fixed);
uint64_t session_need_function_name(session *s, const wire_record *r, unsigned *refused_kind,
                                    int *fixed);
/* MODULE_LOADED, ASSEMBLY_LOADED */
uint64_t session_need_module(session *s, const wire_record *r, unsigned *refused_kind, int *fixed);
uint64_t session_need_module_unloaded(session *s, const wire_record *r, unsigned *refused_kind,
                                      int *fixed);
/* THREAD_CREATED, THREAD_NAME: a row for a thread not seen live yet */
uint64_t session_need_thread_row(session *s, const wire_record *r, unsigned *refused_kind,
                                 int *fixed);
/* THREAD_DESTROYED, THREAD_OS_ID: a thread never seen */
uint64_t session_need_thread_id(session *s, const wire_record *r, unsigned *refused_kind,
                                int *fixed);
/* stack end, profile status, GC, suspension */
uint64_t session_need_observation(session *s, const wire_record *r, unsigned *refused_kind,
                                  int *fixed);
uint64_t session_need_stack_thread(session *s, const wire_record *r, unsigned *refused_kind,
                                   int *fixed);
uint64_t session_need_code_version(session *s, const wire_record *r, unsigned *refused_kind,
                                   int *fixed);
uint64_t session_need_code_part(session *s, const wire_record *r, unsigned *refused_kind,
                                int *fixed);
uint64_t session_need_code_end(session *s, const wire_record *r, unsigned *refused_kind,
                               int *fixed);
uint64_t session_need_inlining(session *s, const wire_record *r, unsigned *refused_kind,
                               int *fixed);
uint64_t session_need_code_search(session *s, const wire_record *r, unsigned *refused_kind,
                                  int *fixed);
uint64_t session_need_exception(session *s, const wire_record *r, unsigned *refused_kind,
                                int *fixed);
uint64_t session_need_exception_counts(session *s, const wire_record *r, unsigned *refused_kind,
                                       int *fixed);
uint64_t session_need_allocation(session *s, const wire_record *r, unsigned *refused_kind,
                                 int *fixed);
uint64_t session_need_code_range(session *s, const wire_record *r, unsigned *refused_kind,
                                 int *fixed);

#endif
