/* ws_wake.h -- which live-stream clients a change wakes.
 *
 * Any thread marks a session as changed (ws_notify, the sessions' listener);
 * the WebSocket service thread, poked, asks which of its subscribed clients
 * watch a session that changed, and wakes only those. One bit per session id
 * (1..SESSION_ID_MAX), set and taken with atomics: no lock, no allocation. A
 * mark for a session nobody watches stays until a client of it asks (one
 * spare wake then). An id out of that range marks every session. The service
 * thread is poked only when no poke is pending (ws_wake_mark says when), so a
 * busy link does not write the service's pipe once per batch of records.
 */
#ifndef JITSCOPE_WS_WAKE_H
#define JITSCOPE_WS_WAKE_H

#include <stddef.h>

/* Any thread: session_id changed. Returns 1 when the caller must poke the
 * service thread (lws_cancel_service), 0 when a poke is pending already. */
int ws_wake_mark(int session_id);

/* Service thread, poked: from now on a mark needs a poke again. Call before
 * ws_wake_select. */
void ws_wake_begin(void);

/* Service thread: for n clients, subscribed to sessions[i] (0: to none), sets
 * wake[i] to 1 when that session changed since the last call, else 0, and
 * takes those marks. Returns how many are to be woken. */
size_t ws_wake_select(const int *sessions, size_t n, unsigned char *wake);

#endif
