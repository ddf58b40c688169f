/* catchup.h -- what the process already has, for a server that arrives late.
 *
 * Called by the sender loop (sender.c) when a catch-up is due: after
 * ProfilerAttachComplete, or after a reconnect that lost records or followed
 * a quiet time (no callbacks while there was no server). The records
 * go out through conn_emit (conn.h) and names through naming.h; catch-up knows
 * nothing of the sender.
 */
#ifndef JITSCOPE_CATCHUP_H
#define JITSCOPE_CATCHUP_H

#include <stdint.h>

/* Sends CATCHUP_BEGIN, every module, thread and JITed function the runtime
 * lists (WIRE_FLAG_CATCHUP), then CATCHUP_END with the counts and quiet_ms
 * (how long the agent had asked for no callbacks before this connection). Stops early
 * when the connection is lost. Sender thread only. */
void catchup_run(uint32_t quiet_ms);

#endif
