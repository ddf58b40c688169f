/* agent.c -- the one definition of the agent's process-wide state (agent.h).
 *
 * A module of its own so that every module that reads the state depends on
 * this one only, not on the profiler's COM plumbing (lifecycle.c, callbacks.c), which calls
 * into them: calls go one way. */
#include "agent.h"

agent_state agent; /* zero until lifecycle_begin (lifecycle.c); the socket is conn.c's */
