#!/usr/bin/env bash
# order.sh [-s "SEED..."] BINARY... -- shows that the tests of each unit-test
# binary stand alone: every test of its table (`BINARY --list`) run by itself,
# then the whole table shuffled once per seed (CHECK_SHUFFLE, check.h).
#
#   tests/unit/order.sh build/tests/test_api                  # seeds 1 2 3
#   tests/unit/order.sh -s "7 8" build/tests/test_*
#   tests/unit/with_dotnet.sh tests/unit/order.sh build/tests/test_*   # as tests/run.sh runs them
#
# A run that fails is named with the command that repeats it, its output in
# build/test-logs/order/. The last line is "order: N passed, N failed" (runs,
# not checks); the exit status is non-zero when any run failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
seeds="1 2 3"
if [ "${1:-}" = "-s" ]; then
  seeds=${2:?seeds}
  shift 2
fi
[ $# -gt 0 ] || { echo "usage: $0 [-s \"SEED...\"] BINARY..." >&2; exit 2; }
logs=build/test-logs/order
mkdir -p "$logs"
passed=0
failed=0

# run LOG CMD...: one run of a binary; counts it and names it when it fails.
run() {
  local log=$1; shift
  if "$@" >"$log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $* (output: $log)"
  fi
}

for bin in "$@"; do
  name=$(basename "$bin")
  mapfile -t tests < <("$bin" --list)
  if [ ${#tests[@]} -eq 0 ]; then
    failed=$((failed + 1))
    echo "FAIL: $bin --list names no test"
    continue
  fi
  for t in "${tests[@]}"; do
    run "$logs/$name.$t.log" env -u CHECK_SHUFFLE "$bin" "$t"
  done
  for seed in $seeds; do
    run "$logs/$name.shuffle-$seed.log" env CHECK_SHUFFLE="$seed" "$bin"
  done
  echo "$name: ${#tests[@]} tests alone, shuffled with seeds $seeds"
done
echo "order: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
