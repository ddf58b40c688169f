/* profile_tree.h -- the call trees of a profile view (profile_view.h, shaped
 * by profile_shape.h) as JSON, built without the sessions lock.
 *
 * A tree's root is "all"; a node's value is its samples including its
 * children's, self the samples that ended in it. Every node says what it is
 * ("kind": method, native or label: profile_shape.h) and, when native frames
 * were folded into it, which ones and in how many of its samples ("folded",
 * the heaviest PROFILE_TREE_MAX_FOLDED, "folded_other" for the rest; each
 * sample counted once per frame). Three orientations:
 *  - the call tree, root first (callees below);
 *  - inverted (bottom-up): the frames samples ended in at the top, their
 *    callers below, so a method's self time is one node under the root;
 *  - a sandwich around the frames of one name (and module, when given):
 *    "callees", the calls made from it (its outermost occurrence in each
 *    stack, so recursion is counted once), and "callers", who called it,
 *    from it toward the thread's start; the two root children are the
 *    method with all its samples.
 * At most PROFILE_TREE_MAX_NODES nodes a tree: beyond, the nodes with the
 * fewest samples go and each parent that lost children gets one "[pruned]"
 * child holding their samples, so value = self + the children's values holds.
 * profile_tree_functions lists the frames with their self and total samples
 * (total: once per stack), heaviest first: the sandwich's table.
 */
#ifndef JITSCOPE_PROFILE_TREE_H
#define JITSCOPE_PROFILE_TREE_H

#include <jansson.h>

#include "profile_view.h"

#define PROFILE_TREE_MAX_NODES 20000u
#define PROFILE_TREE_MAX_FOLDED 8u       /* folded frames named per node */
#define PROFILE_TREE_MAX_FUNCTIONS 2000u /* rows of the functions table */

typedef struct profile_tree_opts {
    int inverted;             /* bottom-up */
    const char *focus;        /* sandwich around the frames of this name; NULL: none */
    const char *focus_module; /* and of this module; NULL: any */
} profile_tree_opts;

/* Adds "tree" (or, with a focus, "focus", "callers" and "callees") to obj.
 * 0, or -1 with *why. */
int profile_tree_json(const profile_view *v, const profile_tree_opts *o, json_t *obj,
                      const char **why);
/* Adds "functions" to obj. 0, or -1 with *why. */
int profile_tree_functions(const profile_view *v, json_t *obj, const char **why);
/* The JSON name of a symbol kind (symbols.h). */
const char *profile_tree_kind_name(int kind);

#endif
