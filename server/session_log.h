/* session_log.h -- the one call the record folders make back into a session.
 *
 * profile.c, stacks.c and timeline.c fold records into their own state
 * (profile_state, stacks_state, timeline_state, held by struct session) and
 * add a line to the session's event log when something finished. They see
 * the session only as this opaque handle, so session.h may include their
 * headers without an include cycle. Implemented in session.c; caller holds the
 * sessions lock.
 */
#ifndef JITSCOPE_SESSION_LOG_H
#define JITSCOPE_SESSION_LOG_H

#include <stdint.h>

struct session;

void session_log_event(struct session *s, uint16_t type, uint16_t flags, int64_t when_ns,
                       uint64_t id, uint64_t value, uint32_t extra);

#endif
