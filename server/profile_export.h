/* profile_export.h -- a profile view (profile_view.h) as a response body.
 *
 * Runs without the sessions lock. Three shapes, all root first:
 * - profile_export_json: {"threads", "timeline"} and the call trees of
 *   profile_tree.h ("tree", or a sandwich's "callers" and "callees").
 * - profile_export_folded: FlameGraph's collapsed stacks, one line per
 *   distinct stack ("root;...;leaf count"), sorted, identical lines merged; a
 *   ';' inside a name becomes ':' and a line break a space.
 * - profile_export_speedscope: a speedscope file (its published JSON schema),
 *   one sampled profile per thread, samples root first in time order,
 *   consecutive identical stacks merged into one weighted sample, unit "none".
 *   Identical stacks share one JSON array, so memory follows the output size.
 * Text and JSON larger than `max_bytes` (estimated before building) are
 * refused: -1 with *why set.
 */
#ifndef JITSCOPE_PROFILE_EXPORT_H
#define JITSCOPE_PROFILE_EXPORT_H

#include <jansson.h>
#include <stddef.h>

#include "profile_tree.h"
#include "profile_view.h"
#include "textbuf.h"

/* Adds "threads", "timeline" and the trees o asks for (none when o is NULL) to obj. 0 or -1. */
int profile_export_json(const profile_view *v, const profile_tree_opts *o, json_t *obj,
                        const char **why);
/* Appends the folded lines to out (whose cap bounds the size). 0 or -1. */
int profile_export_folded(const profile_view *v, textbuf *out, const char **why);
/* The speedscope file, or NULL with *why. */
json_t *profile_export_speedscope(const profile_view *v, const char *name, size_t max_bytes,
                                  const char **why);

#endif
