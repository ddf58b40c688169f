#!/usr/bin/env bash
# run.sh -- runs the libFuzzer targets built by `make fuzz-build` (build/fuzz/<name>).
#
#   tests/fuzz/run.sh fuzz SECONDS [NAME...]   fuzz each target for SECONDS (make fuzz)
#   tests/fuzz/run.sh test SECONDS NAME        a short run plus the regression inputs (make test)
#   tests/fuzz/run.sh merge [NAME...]          minimize the committed corpus (make fuzz-merge)
#
# Seeds: tests/fuzz/corpus/<name> (committed, read only here); what a run finds
# goes to build/fuzz/corpus/<name>, `merge` folds it back into the committed
# directory with -merge=1 (only inputs that add coverage; by edges alone when
# that keeps more than 200 files or 1 MB). Crashes are written
# to build/fuzz/crashes/<name>-crash-<sha1>; once fixed, such an input belongs
# in tests/fuzz/regressions/<name>/, which `test` replays. `fuzz` ends with one
# line per target: seconds, execs, execs/s, corpus size, coverage, crashes.
# `test` ends with "fuzz-<name>: 1 passed, 0 failed" (or 0 passed, 1 failed).
set -u
cd "$(dirname "$0")/../.." || exit 1
mode=${1:-}
out=build/fuzz
all=(wire_decode command ipc route ws sig names mdread perfrec procmaps elfsyms)

# Undefined behaviour stops the run like a memory error (the targets are also
# built with -fno-sanitize-recover); leaks are checked at every input.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# stat LOG KEY: a value of libFuzzer's -print_final_stats lines
stat() { grep -E "^stat::$2:" "$1" | tail -1 | awk '{print $2}'; }

fuzz_one() {
  local name=$1 seconds=$2 log=$out/$1.log rc execs cov files crashes
  mkdir -p "$out/corpus/$name" "$out/crashes" "tests/fuzz/corpus/$name"
  "$out/$name" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$out/crashes/$name-" "$out/corpus/$name" "tests/fuzz/corpus/$name" \
    >"$log" 2>&1
  rc=$?
  execs=$(stat "$log" number_of_executed_units)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  files=$(find "$out/corpus/$name" "tests/fuzz/corpus/$name" -type f | wc -l)
  crashes=$(find "$out/crashes" -name "$name-*" -type f | wc -l)
  printf '%-12s %5ss %12s execs %9s/s corpus %5s cov %5s crashes %s (exit %s)\n' \
    "$name" "$seconds" "${execs:-?}" "$(( ${execs:-0} / (seconds > 0 ? seconds : 1) ))" \
    "$files" "${cov:-?}" "$crashes" "$rc"
  [ "$rc" -eq 0 ]
}

case "$mode" in
  fuzz)
    seconds=${2:?seconds}
    shift 2
    [ $# -gt 0 ] || set -- "${all[@]}"
    status=0
    for name in "$@"; do
      fuzz_one "$name" "$seconds" || status=1
    done
    exit $status
    ;;
  test)
    seconds=${2:?seconds} name=${3:?name}
    work=$out/test-corpus/$name
    rm -rf "$work"
    mkdir -p "$work" "$out/crashes"
    failed=0
    # a fixed seed: the same mutations on every run, as far as the time allows
    "$out/$name" -seed=1 -max_total_time="$seconds" -timeout=60 \
      -artifact_prefix="$out/crashes/$name-" "$work" "tests/fuzz/corpus/$name" || failed=1
    if [ -d "tests/fuzz/regressions/$name" ]; then
      mapfile -t inputs < <(find "tests/fuzz/regressions/$name" -type f | sort)
      if [ ${#inputs[@]} -gt 0 ]; then
        echo "replaying ${#inputs[@]} regression input(s)"
        "$out/$name" "${inputs[@]}" || failed=1
      fi
    fi
    rm -rf "$work"
    echo "fuzz-$name: $((1 - failed)) passed, $failed failed"
    exit $failed
    ;;
  merge)
    shift
    [ $# -gt 0 ] || set -- "${all[@]}"
    for name in "$@"; do
      fresh=$out/merge/$name
      mkdir -p "$out/corpus/$name" "tests/fuzz/corpus/$name"
      # every feature (edges and their hit counts) first; a corpus over 200 files or
      # 1 MB is merged again by edges alone (-use_counters=0), which keeps far fewer
      for counters in 1 0; do
        rm -rf "$fresh"
        mkdir -p "$fresh"
        "$out/$name" -merge=1 -use_counters=$counters "$fresh" "tests/fuzz/corpus/$name" \
          "$out/corpus/$name" >"$out/$name-merge.log" 2>&1 ||
          { echo "merge of $name failed, see $out/$name-merge.log"; exit 1; }
        files=$(find "$fresh" -type f | wc -l)
        kb=$(du -sk "$fresh" | cut -f1)
        [ "$files" -le 200 ] && [ "$kb" -le 1024 ] && break
      done
      rm -rf "tests/fuzz/corpus/$name"
      mv "$fresh" "tests/fuzz/corpus/$name"
      echo "$name: $files files, $kb KB ($(tail -1 "$out/$name-merge.log"))"
    done
    ;;
  *)
    echo "usage: $0 fuzz SECONDS [NAME...] | test SECONDS NAME | merge [NAME...]" >&2
    exit 2
    ;;
esac
