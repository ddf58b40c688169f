/* grow.h -- capped growth of the server's arrays (functions, events, walks, stacks).
 *
 * Every array the server grows from agent input has a hard cap given by its
 * owner, so a hostile or runaway agent cannot make the server allocate without
 * bound: growth doubles, never past the cap, and fails cleanly at it. */
#ifndef JITSCOPE_GROW_H
#define JITSCOPE_GROW_H

#include <stddef.h>

enum { GROW_KEEP = 0, GROW_ZERO = 1 };

/* Makes index `count` of *items (elements of `elem` bytes, *cap of them now)
 * exist: doubles from `first` elements until it does, never past `max`. With
 * GROW_ZERO the new elements are zeroed. Returns 0, or -1 when count >= max or
 * memory runs out (then *items and *cap are unchanged). */
int grow_reserve(void **items, size_t *cap, size_t count, size_t elem, size_t first, size_t max,
                 int zero);

#endif
