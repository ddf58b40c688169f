#!/usr/bin/env bash
# run.sh -- every jitscope test suite, one after another, with one summary line.
#
# Suites: the static checks (scripts/lint.sh), C unit tests (build/tests/test_*, built
# with ASan/UBSan), the libFuzzer targets (a short run each, tests/fuzz/run.sh),
# end-to-end tests against real .NET processes (tests/e2e, node:test), and the dashboard in real headless Chromium (tests/browser). Each suite's output
# goes to build/test-logs/<suite>.log and is echoed; its counts are read from its
# closing line. A suite that dies without a closing line counts as one failure.
# The last line is "N passed, N failed"; the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 1
logs=build/test-logs
mkdir -p "$logs"
passed=0
failed=0

# count LOG: adds the suite's counts from its closing line(s)
count() {
  local log=$1 p f
  if grep -qE '^# pass [0-9]+' "$log"; then          # node --test (TAP)
    p=$(grep -E '^# pass [0-9]+' "$log" | tail -1 | awk '{print $3}')
    f=$(grep -E '^# fail [0-9]+' "$log" | tail -1 | awk '{print $3}')
  elif grep -qE ': [0-9]+ passed, [0-9]+ failed$' "$log"; then   # our C harness
    p=$(grep -E ': [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/')
    f=$(grep -E ': [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/')
  else
    p=0 f=1
  fi
  echo "$p $f"
}

# suite NAME CMD...: counts the suite's own passes/failures.
# A NAME starting with "fuzz-" counts as one test (its inputs are not tests).
suite() {
  local name=$1; shift
  local log=$logs/$name.log start rc pf
  start=$(date +%s)
  echo "=== $name"
  "$@" >"$log" 2>&1
  rc=$?
  tail -n 40 "$log"
  pf=$(count "$log")
  local p f
  read -r p f <<<"$pf"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed or exited non-zero
  case "$name" in fuzz-*) if [ "$f" -eq 0 ]; then p=1; else p=0 f=1; fi ;; esac
  passed=$((passed + p))
  failed=$((failed + f))
  echo "--- $name: $p passed, $f failed (exit $rc, $(( $(date +%s) - start ))s)"
}

suite lint scripts/lint.sh
for t in build/tests/test_*; do
  [ -x "$t" ] || continue
  suite "unit-$(basename "$t")" tests/unit/with_dotnet.sh "$t"
done
# each libFuzzer target (build/fuzz/*, make fuzz-build) for 3 s from its corpus, then its
# regression inputs (tests/fuzz/run.sh test): one test each, about 25 s in all
# (every tests/fuzz/fuzz_<name>.c: tests/fuzz/run.sh list, as the Makefile's FUZZ_TARGETS)
for t in $(tests/fuzz/run.sh list); do
  suite "fuzz-$t" tests/fuzz/run.sh test 3 "$t"
done
suite e2e node --test --test-reporter=tap --test-concurrency=1 tests/e2e/
if [ -d tests/browser ] && ls tests/browser/*.test.mjs >/dev/null 2>&1; then
  suite browser node --test --test-reporter=tap --test-concurrency=1 tests/browser/
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
