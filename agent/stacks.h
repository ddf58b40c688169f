/* stacks.h -- the agent's walker thread: stack snapshots on request and the
 * sampling profile with its suspension budget.
 *
 * The sender thread hands commands over (stacks_snapshot, stacks_profile_*);
 * the walker thread, a native pthread of ours created on the first command,
 * serves them in order and takes samples between them. Its records go into the
 * ring (walk.c); the sender names their functions and forwards them. Nothing
 * here runs on an application thread. */
#ifndef JITSCOPE_AGENT_STACKS_H
#define JITSCOPE_AGENT_STACKS_H

#include <stdint.h>

#include "wire.h"

/* HRESULT_FROM_WIN32(ERROR_BUSY): too many commands waiting, or a walker that
 * would not stop (a detach is then refused with it). */
#define STACKS_E_BUSY ((int32_t)0x800700AAu)

/* A new agent begins: snapshot ids start again from 1. */
void stacks_begin(void);

/* Sender thread. Each answers through records: a snapshot with its
 * WIRE_STACK_END (request_id echoed), a profile start with WIRE_PROFILE_STATUS
 * STARTED or REFUSED, a stop with STOPPED (nothing when no profile runs). */
void stacks_snapshot(uint64_t request_id);
void stacks_profile_start(const wire_cmd_profile_start *cmd);
void stacks_profile_stop(void);

/* Detach and Shutdown: ends a running profile (STOPPED), answers waiting
 * snapshots (E_ABORT) and joins the walker, waiting at most wait_ms. Returns 0
 * when no walker thread remains, -1 when it did not end in time. */
int stacks_stop(unsigned wait_ms);

#endif
