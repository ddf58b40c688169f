#!/usr/bin/env bash
# run.sh -- every jitscope test suite, one after another, with one summary line.
#
# Suites: the static checks (scripts/lint.sh), C unit tests (build/tests/test_*, built
# with ASan/UBSan, in a shuffled order), the libFuzzer targets (a short run each,
# tests/fuzz/run.sh), end-to-end tests against real .NET processes (tests/e2e,
# node:test), and the dashboard in real headless Chromium (tests/browser). The
# first three kinds run side by side (one per core); end-to-end and browser tests
# after them, one file per core.
# Each suite's output goes to build/test-logs/<suite>.log and its tail is echoed;
# its counts are read from its closing line. A suite that dies without a closing
# line counts as one failure.
# Before it, the time each kind of suite took (times()); the last line is
# "N passed, N failed"; the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 1
logs=build/test-logs
mkdir -p "$logs"
passed=0
failed=0

# count LOG: adds the suite's counts from its closing line(s)
count() {
  local log=$1 p f c
  if grep -qE '^# pass [0-9]+' "$log"; then          # node --test (TAP)
    p=$(grep -E '^# pass [0-9]+' "$log" | tail -1 | awk '{print $3}')
    f=$(grep -E '^# fail [0-9]+' "$log" | tail -1 | awk '{print $3}')
    c=$(grep -E '^# cancelled [0-9]+' "$log" | tail -1 | awk '{print $3}')
    f=$((f + ${c:-0}))   # a test (or file) cancelled at its time limit failed
  elif grep -qE ': [0-9]+ passed, [0-9]+ failed$' "$log"; then   # our C harness
    p=$(grep -E ': [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/')
    f=$(grep -E ': [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/')
  else
    p=0 f=1
  fi
  echo "$p $f"
}

# run_suite NAME CMD...: runs one suite into its log; writes "<rc> <seconds>" to
# its .status file. Quiet: report() prints it afterwards, so suites run side by
# side do not interleave their output.
run_suite() {
  local name=$1; shift
  local start=$SECONDS rc
  rm -f "$logs/$name.status"
  "$@" >"$logs/$name.log" 2>&1
  rc=$?
  echo "$rc $(( SECONDS - start ))" >"$logs/$name.status"
}

# failures LOG: what failed in a suite's log, wherever it is in it (the tail
# shows only its end): each failed node test with its error (TAP's "not ok"
# line to the end of its YAML block, 40 lines at most) and each failed C check.
failures() {
  echo "--- failed in $1:"
  awk '/^ *not ok / { on = 1; n = 0 } on { print; if (++n >= 40 || /^ *\.\.\.$/) on = 0 }' "$1"
  grep -E '^  FAIL ' "$1" | head -n 40
}

# report NAME: echoes a finished suite's log tail (and what failed) and adds its counts.
# A NAME starting with "fuzz-" counts as one test (its inputs are not tests).
report() {
  local name=$1 log=$logs/$1.log rc secs pf p f
  read -r rc secs <"$logs/$name.status" || { rc=1 secs=0; }
  echo "=== $name"
  tail -n 40 "$log"
  pf=$(count "$log")
  read -r p f <<<"$pf"
  if [ "$f" -gt 0 ]; then failures "$log"; fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi  # crashed or exited non-zero
  case "$name" in fuzz-*) if [ "$f" -eq 0 ]; then p=1; else p=0 f=1; fi ;; esac
  passed=$((passed + p))
  failed=$((failed + f))
  echo "--- $name: $p passed, $f failed (exit $rc, ${secs}s)"
}

# suite NAME CMD...: one suite on its own, reported at once.
suite() {
  run_suite "$@"
  report "$1"
}

# The short, independent suites (static checks, unit tests, fuzz targets) run
# side by side, one per core; the end-to-end and browser suites, which start
# real processes, run after them, one file per core.
jobs_max=$(nproc 2>/dev/null || echo 2)
quick=()
start_quick() {
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  quick+=("$1")
  run_suite "$@" &
}
run_start=$SECONDS
start_quick lint scripts/lint.sh
# The unit tests run in an order shuffled from a seed (check.h): today's date
# unless CHECK_SHUFFLE is set. `CHECK_SHUFFLE=<seed> build/tests/test_x` runs
# a failing order again.
unit_seed=${CHECK_SHUFFLE:-$(date +%Y%m%d)}
echo "unit tests shuffled: CHECK_SHUFFLE=$unit_seed"
# One binary per tests/unit/test_<name>.c: a binary left in build/ by a source since
# removed (a file split in two) does not run; one whose source did not build fails.
# A binary whose tests also check against a live runtime (its source reads
# JITSCOPE_TEST_DOTNET_PID: test_ipc, test_mdread) runs under tests/unit/with_dotnet.sh,
# which starts one; the others without (a .NET process started and ended per binary for
# nothing).
for src in tests/unit/test_*.c; do
  t=build/tests/$(basename "$src" .c)
  with_dotnet=()
  if grep -q JITSCOPE_TEST_DOTNET_PID "$src"; then with_dotnet=(tests/unit/with_dotnet.sh); fi
  start_quick "unit-$(basename "$t")" env CHECK_SHUFFLE="$unit_seed" ${with_dotnet[@]+"${with_dotnet[@]}"} "$t"
done
# each libFuzzer target (build/fuzz/*, make fuzz-build) for 3 s from its corpus, then its
# regression inputs (tests/fuzz/run.sh test): one test each
# (every tests/fuzz/fuzz_<name>.c: tests/fuzz/run.sh list, as the Makefile's FUZZ_TARGETS)
for t in $(tests/fuzz/run.sh list); do
  start_quick "fuzz-$t" tests/fuzz/run.sh test 3 "$t"
done
wait
quick_secs=$(( SECONDS - run_start ))
for name in "${quick[@]}"; do report "$name"; done

# The end-to-end and browser test files run in one node run, one file per core
# (at most 4 at once): most of their time is waiting for real processes, and every
# file has its own servers, ports (--port 0), data directories and apps. The files
# in `alone` run after them, by themselves: hostile.test.mjs floods a server at
# 20,000 JIT events/s for a minute and holds 1,000 connections, which would only
# slow the files beside it (its checks hold under load). Every node test has a time
# limit (ms), so one that hangs fails alone. Node 20 puts that limit on each file as a
# whole too (the file's process is a test of the run), so it bounds a file, not one
# test: 30 minutes. At 300 s, trees.test.mjs and valgrind.test.mjs were cancelled in
# both of two make test at once at load 43, every test they had finished passed
# (valgrind's two reads 71 s and 115 s). A test's own waits bound what it waits for.
node_jobs=$(( jobs_max < 4 ? jobs_max : 4 ))
node_test=(node --test --test-reporter=tap --test-timeout=1800000)
alone=(tests/e2e/hostile.test.mjs)
side_by_side=()
for f in tests/e2e/*.test.mjs tests/browser/*.test.mjs; do
  case " ${alone[*]} " in *" $f "*) ;; *) side_by_side+=("$f") ;; esac
done
suite e2e "${node_test[@]}" --test-concurrency="$node_jobs" "${side_by_side[@]}"
suite e2e-alone "${node_test[@]}" --test-concurrency=1 "${alone[@]}"

# secs NAME: the seconds a finished suite took (its .status file)
secs() {
  local rc s
  read -r rc s <"$logs/$1.status" 2>/dev/null || s=0
  echo "${s:-0}"
}

# times: where the run's time went, per kind of suite. The unit binaries and
# fuzz targets are many suites each: their seconds summed, and the slowest.
times() {
  local kind n sum slow slow_s s name
  echo
  echo "=== time per suite"
  printf '%-28s %6d s\n' "static checks (lint)" "$(secs lint)"
  for kind in unit fuzz; do
    n=0 sum=0 slow='' slow_s=-1
    for name in "${quick[@]}"; do
      case "$name" in "$kind"-*) ;; *) continue ;; esac
      s=$(secs "$name")
      n=$((n + 1)) sum=$((sum + s))
      if [ "$s" -gt "$slow_s" ]; then slow_s=$s slow=${name#"$kind"-}; fi
    done
    printf '%-28s %6d s summed, the slowest %s %d s\n' "$kind ($n suites)" "$sum" "$slow" "$slow_s"
  done
  printf '%-28s %6d s of wall time\n' "  the three side by side" "$quick_secs"
  printf '%-28s %6d s\n' "e2e + browser" "$(secs e2e)"
  printf '%-28s %6d s (%s)\n' "alone" "$(secs e2e-alone)" "${alone[*]}"
  printf '%-28s %6d s\n' "total" "$(( SECONDS - run_start ))"
}
times

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
