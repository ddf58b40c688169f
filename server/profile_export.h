/* profile_export.h -- a profile view (profile_view.h) as a response body.
 *
 * Runs without the sessions lock. Three shapes, all root first:
 * - profile_export_json: {"threads", "timeline", "tree"}: the call tree, whose
 *   root is "all"; a node's value is its samples including its children's.
 *   At most PROFILE_TREE_MAX_NODES nodes: beyond, the nodes with the fewest
 *   samples go, and each parent that lost children gets one "[pruned]" child
 *   holding their samples, so value = self + the children's values holds.
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

#include "profile_view.h"
#include "textbuf.h"

#define PROFILE_TREE_MAX_NODES 20000u

/* Adds "threads", "timeline" and "tree" to obj. 0 or -1. */
int profile_export_json(const profile_view *v, json_t *obj, const char **why);
/* Appends the folded lines to out (whose cap bounds the size). 0 or -1. */
int profile_export_folded(const profile_view *v, textbuf *out, const char **why);
/* The speedscope file, or NULL with *why. */
json_t *profile_export_speedscope(const profile_view *v, const char *name, size_t max_bytes,
                                  const char **why);

#endif
