// flamefilter.js -- what the Profile tab can leave out of its flame graph:
// failed walks and idle waits. A wall-clock profile samples every thread,
// running or not, so a service's graph is mostly threads that wait for work;
// hiding those samples leaves what the threads did.
//
// - A failed walk is a sample of a thread whose stack could not be walked:
//   the server names it "[unknown]" (docs/API.md, Sampling profile).
// - An idle wait is a sample whose deepest managed frame ([native] frames
//   below it are not counted) is a method that waits: IDLE_WAIT below, that is
//   Monitor.Wait, WaitHandle.Wait*, Thread.Sleep / Yield / SpinWait,
//   SpinWait.SpinOnce, ManualResetEventSlim / SemaphoreSlim / CountdownEvent /
//   Barrier .Wait, Task.Wait, the thread pool's own waits (LowLevelLifoSemaphore,
//   LowLevelMonitor, LowLevelSpinWaiter, WaitSubsystem) and the socket engine's
//   wait for events (SocketAsyncEngine.EventLoop, Interop+Sys.WaitForSocketEvents).
//   Waiting to take a lock (Monitor.Enter) is contention, not idleness, and a
//   blocking read (a file, a pipe, stdin) is I/O: both stay. A sample whose
//   deepest managed frame is the app's own code stays too, even when a wait
//   is further up its stack (work run inline by a wait). "[pruned]" frames
//   (the server's sum of the smallest callees) stay: their stacks are unknown.
//
// filterTree() copies the server's tree (Node: {name, module, value, self,
// children}) without the hidden samples and counts both kinds either way, so
// the toggles can show what they would hide.

export const IDLE_WAIT = new RegExp(
  '^(?:System\\.Threading\\.(?:' +
    'Monitor\\.(?:Wait|ObjWait)' +
    '|WaitHandle\\.Wait\\w*' +
    '|Thread\\.(?:Sleep|SleepInternal|Yield|YieldInternal|SpinWait|SpinWaitInternal)' +
    '|SpinWait\\.Spin\\w*' +
    '|(?:ManualResetEventSlim|SemaphoreSlim|CountdownEvent|Barrier)\\.Wait\\w*' +
    '|Tasks\\.Task(?:<[^>]*>)?\\.(?:Wait|InternalWait\\w*|SpinThenBlockingWait|SpinWait)' +
    '|LowLevel(?:LifoSemaphore|Monitor|SpinWaiter)\\.\\w+' +
    '|WaitSubsystem[.+]\\S+' +
    ')|Interop\\+Sys\\.(?:LowLevelMonitor_\\w+|WaitForSocketEvents|SchedYield)' +
    '|System\\.Net\\.Sockets\\.SocketAsyncEngine\\.EventLoop' +
    ')$',
);

// "Ns.Type.Method(int, bool)" -> "Ns.Type.Method"
function methodKey(name) {
  const i = name.indexOf('(');
  return i < 0 ? name : name.slice(0, i);
}

export function isIdleWaitFrame(name) {
  return IDLE_WAIT.test(methodKey(name || ''));
}

// Bracketed names are the server's markers, not methods: [native], [unknown], [pruned], [truncated].
const isMarker = (name) => name.startsWith('[');

// Copies root without the samples hidden by `hide` ({unknown, idle}: booleans).
// Returns {tree, unknown, idle, total}: the samples of failed walks and of idle
// waits in the whole tree (hidden or not), and the tree's samples before hiding.
export function filterTree(root, hide = {}) {
  const out = { tree: null, unknown: 0, idle: 0, total: root ? root.value || 0 : 0 };
  if (!root) return out;
  const walk = (n, failed, deepest, isRoot) => {
    const name = n.name || '';
    const inFailed = failed || name === '[unknown]';
    const managed = !isRoot && !isMarker(name) ? name : deepest;
    const self = n.self || 0;
    let hidden = 0;
    if (inFailed) {
      out.unknown += self;
      if (hide.unknown) hidden = self;
    } else if (name !== '[pruned]' && managed && isIdleWaitFrame(managed)) {
      out.idle += self;
      if (hide.idle) hidden = self;
    }
    const children = [];
    let value = self - hidden;
    for (const c of n.children || []) {
      const k = walk(c, inFailed, managed, false);
      if (k) {
        children.push(k);
        value += k.value;
      }
    }
    if (!value && !isRoot) return null;
    return { name: n.name, module: n.module, value, self: self - hidden, children };
  };
  out.tree = walk(root, false, null, true);
  return out;
}
