/* profile_shape.h -- what one view of a profile leaves out and folds away,
 * done on the copied view (profile_view.h) after the sessions lock.
 *
 * Two kinds of stacks can be hidden, and both are counted either way so the
 * page can say what hiding them would take away:
 *  - "unmanaged": stacks without a managed frame: a walk that failed
 *    ([unknown]), a thread that was in native code only (a runtime thread's
 *    wait or work, the GC's, a CPU profile's native threads);
 *  - "idle": stacks whose deepest managed frame is a method that waits
 *    (profile_shape_is_idle_wait: Monitor.Wait, WaitHandle.Wait*,
 *    Thread.Sleep, SpinWait, Task.Wait, the thread pool's and the socket
 *    engine's waits). Waiting for a lock (Monitor.Enter) is contention and a
 *    blocking read is I/O: both stay.
 * Folding ("the flame graph of my code"): every native frame (a native
 * function, [native], [kernel], [unmapped]) is folded into the managed frame
 * that called it, the nearest managed frame on its root side; native frames
 * with no managed caller (how a thread was entered, or a thread that runs no
 * managed code) are folded into one [native] frame put where they began.
 * Folded frames stay in the stack, marked PROFILE_SHAPE_FOLDED, so the call
 * tree can say what each frame folded in (profile_tree.h);
 * profile_shape_drop_folded() removes them for the exports.
 */
#ifndef JITSCOPE_PROFILE_SHAPE_H
#define JITSCOPE_PROFILE_SHAPE_H

#include <stdint.h>

#include "profile_view.h"

#define PROFILE_SHAPE_FOLDED (1u << 31) /* on a frame's symbol index: folded into its caller */

typedef struct profile_shape_opts {
    int fold_native;    /* fold native frames into the managed frames that called them */
    int hide_unmanaged; /* leave out stacks without a managed frame */
    int hide_idle;      /* leave out stacks whose deepest managed frame waits */
} profile_shape_opts;

typedef struct profile_shape_counts {
    uint64_t unmanaged, idle; /* samples of each kind in the view, hidden or not */
} profile_shape_counts;

/* Shapes v in place: the hidden stacks go (with their samples; v->total then
 * counts what is left), native frames are folded when asked. 0, or -1 when
 * out of memory (v is then unchanged). */
int profile_shape_apply(profile_view *v, const profile_shape_opts *o, profile_shape_counts *counts);
/* Removes the folded frames from v's stacks (for the exports). */
void profile_shape_drop_folded(profile_view *v);
/* Whether a method name ("Ns.Type.Method(args)") is one of the waits above. */
int profile_shape_is_idle_wait(const char *name);

#endif
