/* session_header.h -- a session's own fields (what the server knows of it
 * besides what its agent sent: pid, mode, tree, state, exit, times, token,
 * command line) as a JSON object, and back. Storage keeps it as the session's
 * header row (store.h); what folding the log makes (counters, lists) is not
 * in it. */
#ifndef JITSCOPE_SESSION_HEADER_H
#define JITSCOPE_SESSION_HEADER_H

#include <jansson.h>

#include "session.h"

json_t *session_header_to_json(const session *s);
/* Sets s's own fields from header (missing ones read as 0); with_folded: also
 * the counters that headers of storage's files of versions 1-3 held. */
void session_header_from_json(session *s, const json_t *header, int with_folded);
/* The state of that name; SESSION_INTERRUPTED for a name this server does not know. */
session_state session_state_from_name(const char *name);

#endif
