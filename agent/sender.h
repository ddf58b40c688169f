/* sender.h -- the agent's sender thread ("jitscope-agent").
 *
 * Started by Initialize / InitializeForAttach (lifecycle.c), it is the only
 * thread that talks to the server: it connects (with back-off), sends the
 * hello, runs a catch-up when one is due, drains the ring, runs the server's
 * commands and reports drop counters (sender.c). The calls below are made by
 * lifecycle.c on the runtime's threads.
 */
#ifndef JITSCOPE_SENDER_H
#define JITSCOPE_SENDER_H

/* Starts the thread with every signal blocked. Returns 0, or -1. */
int sender_start(void);

/* Shutdown: ends the thread after a last (bounded) flush; waits at most 3 s. */
void sender_stop(void);

/* ProfilerDetachSucceeded: joins the thread (it left after
 * RequestProfilerDetach), sends what is left and DETACH_STATUS succeeded,
 * closes the connection and frees the ring. */
void sender_detach_succeeded(void);

#endif
