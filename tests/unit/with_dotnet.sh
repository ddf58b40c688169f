#!/usr/bin/env bash
# with_dotnet.sh CMD... -- runs CMD with JITSCOPE_TEST_DOTNET_PID set to a live
# .NET process (E2eTarget in serve mode, waiting on stdin), so the IPC unit test
# also checks ProcessInfo and AttachProfiler against the real runtime.
set -u
cd "$(dirname "$0")/../.." || exit 1
fifo=$(mktemp -u /tmp/jitscope-ipc-XXXXXX)
mkfifo "$fifo"
dotnet build/apps/E2eTarget/E2eTarget.dll serve <"$fifo" >/dev/null 2>&1 &
pid=$!
exec 3>"$fifo"   # keeps the target's stdin open until we are done
rm -f "$fifo"
for _ in $(seq 1 200); do
  ls /tmp/dotnet-diagnostic-"$pid"-*-socket >/dev/null 2>&1 && break
  sleep 0.05
done
JITSCOPE_TEST_DOTNET_PID=$pid "$@"
rc=$?
exec 3>&-
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
exit $rc
