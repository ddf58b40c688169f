#!/usr/bin/env bash
# checksrc.sh -- banned C library calls in jitscope's C sources (after curl's checksrc).
#
#   scripts/checksrc.sh [FILE...]   default: every *.c/*.h under agent/ server/ proto/ tests/ bench/
#
# Prints FILE:LINE:CALL for each use and exits 1 if there is any. A use is the name as
# a whole word followed by "(" (so `my_strcpy(`, `strcpy_len` or a field `.system` do
# not count); comments, string and character literals are blanked first.
#
# Banned, and what to use instead:
#   gets                              unbounded: fgets / getline
#   strcpy strcat stpcpy              unbounded: snprintf, memcpy with a known length
#   sprintf vsprintf                  unbounded: snprintf / vsnprintf
#   strncpy strncat                   no NUL guarantee / confusing size: snprintf, memcpy
#   strtok                            hidden static state, not thread-safe: strtok_r, strchr
#   atoi atol atoll atof              no error reporting: strtol / strtoul / strtod
#   scanf fscanf sscanf vscanf
#     vfscanf vsscanf                 unbounded %s, undefined behaviour on overflow: strto*
#   tmpnam tempnam mktemp             races: mkstemp / mkdtemp
#   alloca                            unchecked stack growth: malloc or a fixed buffer
#   system popen                      goes through the shell: fork/execve (posix_spawn)
#   asctime ctime gmtime localtime    static buffers: the *_r variants
# Not banned (yet): strerror (glibc's is safe for valid errno values; server/ipc.c has a
# strerror_r wrapper for the threaded paths).
#
# A line may be exempted with a trailing comment "checksrc: allow CALL" (give a reason).
set -euo pipefail
cd "$(dirname "$0")/.."

banned='gets|strcpy|strcat|stpcpy|sprintf|vsprintf|strncpy|strncat|strtok|atoi|atol|atoll|atof|scanf|fscanf|sscanf|vscanf|vfscanf|vsscanf|tmpnam|tempnam|mktemp|alloca|system|popen|asctime|ctime|gmtime|localtime'

if [ $# -gt 0 ]; then
  files=("$@")
else
  files=()
  while IFS= read -r f; do
    [ -f "$f" ] && files+=("$f")
  done < <(git ls-files --cached --others --exclude-standard -- \
             'agent/*.[ch]' 'server/*.[ch]' 'proto/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' | sort -u)
fi
[ ${#files[@]} -gt 0 ] || { echo "checksrc: no files"; exit 0; }

# One awk pass: strip comments and literals (state carried across lines for /* */),
# then report each banned word followed by "(".
awk -v banned="$banned" '
FNR == 1 { incomment = 0; nfiles++ }
{
    raw = $0; line = ""; n = length(raw); i = 1
    while (i <= n) {
        c = substr(raw, i, 1); c2 = substr(raw, i, 2)
        if (incomment) {
            if (c2 == "*/") { incomment = 0; i += 2; line = line "  " } else { i++; line = line " " }
            continue
        }
        if (c2 == "/*") { incomment = 1; i += 2; line = line "  "; continue }
        if (c2 == "//") break
        if (c == "\"" || c == "\047") {
            q = c; line = line q; i++
            while (i <= n) {
                c = substr(raw, i, 1)
                if (c == "\\") { i += 2; line = line "  "; continue }
                i++
                if (c == q) break
                line = line " "
            }
            line = line q
            continue
        }
        line = line c; i++
    }
    rest = line; col = 0
    while (match(rest, "(^|[^A-Za-z0-9_.>])(" banned ")[ \t]*\\(")) {
        hit = substr(rest, RSTART, RLENGTH)
        sub(/^[^A-Za-z_]/, "", hit); sub(/[ \t]*\($/, "", hit)
        if (raw !~ ("checksrc: allow " hit "([^A-Za-z0-9_]|$)")) {
            printf "%s:%d:%s\n", FILENAME, FNR, hit
            found++
        }
        rest = substr(rest, RSTART + RLENGTH)
    }
}
END {
    if (found) exit 1
    printf "checksrc: %d files clean\n", nfiles
}
' "${files[@]}"
