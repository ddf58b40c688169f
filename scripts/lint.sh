#!/usr/bin/env bash
# lint.sh -- every static check of jitscope, one after another (make lint).
#
#   checksrc      scripts/checksrc.sh: banned C calls
#   format        scripts/format.sh --check: C sources against .clang-format
#   eslint        web/js, tests and bench JavaScript (eslint.config.mjs)
#   prettier      web/ (js, css, html) against .prettierrc.json (100 columns);
#                 scripts/format.sh --fix rewrites C and web alike
#   binaries      no binary file committed outside the fuzz corpora (tests/fuzz/corpus):
#                 tool output (perf.data, cores) and build products stay out of git
#   shell         shellcheck over scripts/, tests/ and bench/ *.sh and .ci/run
#   include-cycles  scripts/include_cycles.py, when present
#   layout        scripts/layout.py: no call cycles between modules (nm of the built
#                 objects: run make first), no source file over 800 lines (nor any
#                 test source: tests/ C, JavaScript and C#), every
#                 source file on docs/ARCHITECTURE.md, include guards their own, a
#                 session's state changed only in session_state.c, no agent record
#                 kind named in more than two server .c files (its row and its fold)
#   test-files    scripts/test_files.py: docs/TESTING.md lists every test file (tests/unit,
#                 e2e, browser, fuzz, helpers, run.sh), one line each, and no file that is gone
#
# LINT_SKIP="format ..." leaves checks out (names as after ===). The last line is "lint: N passed, N failed"
# (read by tests/run.sh); the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 1
passed=0
failed=0

check() {
  local name=$1; shift
  case " ${LINT_SKIP:-} " in *" $name "*) echo "=== $name: skipped (LINT_SKIP)"; return ;; esac
  echo "=== $name"
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "--- $name: FAILED"
    failed=$((failed + 1))
  fi
}

run_eslint() {
  [ -x tests/node_modules/.bin/eslint ] ||
    { echo "eslint not installed: scripts/deps.sh test (npm install in tests/)" >&2; return 1; }
  tests/node_modules/.bin/eslint --max-warnings 0 . && echo "eslint: clean"
}

run_prettier() {
  [ -x tests/node_modules/.bin/prettier ] ||
    { echo "prettier not installed: scripts/deps.sh test (npm install in tests/)" >&2; return 1; }
  tests/node_modules/.bin/prettier --check --log-level warn 'web/**/*.{js,css,html}' &&
    echo "prettier: web/ clean"
}

# git's own verdict on each tracked file's content (i/-text: binary)
run_binaries() {
  local bad
  bad=$(git ls-files --eol | awk '$1 == "i/-text" { print $NF }' | grep -v '^tests/fuzz/corpus/')
  if [ -n "$bad" ]; then
    echo "binary files committed (remove them and ignore their kind in .gitignore):"
    echo "$bad"
    return 1
  fi
  echo "binaries: none outside tests/fuzz/corpus"
}

run_shellcheck() {
  local files=() f
  command -v shellcheck >/dev/null ||
    { echo "shellcheck not found: scripts/deps.sh test installs it" >&2; return 1; }
  while IFS= read -r f; do
    [ -f "$f" ] && files+=("$f")
  done < <(git ls-files --cached --others --exclude-standard -- \
             'scripts/*.sh' 'tests/*.sh' 'bench/*.sh' '.ci/run' | sort -u)
  shellcheck "${files[@]}" && echo "shellcheck: ${#files[@]} scripts clean"
}

check checksrc scripts/checksrc.sh
check format scripts/format.sh --check
check eslint run_eslint
check prettier run_prettier
check binaries run_binaries
check shell run_shellcheck
if [ -f scripts/include_cycles.py ]; then
  check include-cycles python3 scripts/include_cycles.py
fi
check layout python3 scripts/layout.py
check test-files python3 scripts/test_files.py

echo "lint: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
