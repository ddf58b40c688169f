#!/usr/bin/env bash
# format.sh -- jitscope's C sources against .clang-format (clang-format 14, as in Debian 12).
#
#   scripts/format.sh --check [FILE...]   list the files clang-format would change
#                                         (with the number of changed lines); exit 1 if any
#   scripts/format.sh --fix [FILE...]     rewrite them in place; without FILEs, also
#                                         web/ with prettier (.prettierrc.json; make lint checks it)
#
# Default files: every *.c/*.h under agent/ server/ proto/ tests/ bench/, except
# EXCLUDE below. A region can be kept as written with /* clang-format off */ ... on.
set -euo pipefail
cd "$(dirname "$0")/.."

# Left as written: the hand-laid CoreCLR ABI tables (one slot per line, comments aligned),
# agent/corprof.h and the four headers it includes.
EXCLUDE=(agent/corprof_types.h agent/corprof_callback.h agent/corprof_info.h agent/cormeta.h)

mode=${1:-}
case "$mode" in
  --check|--fix) shift ;;
  *) echo "usage: $0 --check|--fix [FILE...]" >&2; exit 2 ;;
esac
command -v clang-format >/dev/null || { echo "format: clang-format not found (scripts/deps.sh test)" >&2; exit 1; }

if [ $# -gt 0 ]; then
  files=("$@")
else
  files=()
  while IFS= read -r f; do
    [ -f "$f" ] || continue
    for x in "${EXCLUDE[@]}"; do [ "$f" = "$x" ] && continue 2; done
    files+=("$f")
  done < <(git ls-files --cached --others --exclude-standard -- \
             'agent/*.[ch]' 'server/*.[ch]' 'proto/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' | sort -u)
fi

if [ "$mode" = --fix ]; then
  clang-format -i --style=file "${files[@]}"
  echo "format: ${#files[@]} files formatted"
  if [ $# -eq 0 ] && [ -x tests/node_modules/.bin/prettier ]; then
    tests/node_modules/.bin/prettier --write --log-level warn 'web/**/*.{js,css,html}'
    echo "format: web/ formatted (prettier)"
  fi
  exit 0
fi

bad=0 lines=0
for f in "${files[@]}"; do
  n=$(clang-format --style=file "$f" | diff -- "$f" - | grep -c '^[<>]' || true)
  if [ "$n" -gt 0 ]; then
    echo "$f: $n lines differ"
    bad=$((bad + 1)) lines=$((lines + n))
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "format: $bad of ${#files[@]} files differ ($lines diff lines); scripts/format.sh --fix rewrites them"
  exit 1
fi
echo "format: ${#files[@]} files clean"
