#!/usr/bin/env bash
# deps.sh -- installs what jitscope needs and is missing, nothing else.
#   scripts/deps.sh build   compilers' libraries (Debian packages), checks dotnet
#   scripts/deps.sh test    + chromium, the linters (clang-format, shellcheck) and the
#                           npm packages of tests/package.json (eslint among them)
#                           and the fuzzing compiler (as `fuzz` does)
#   scripts/deps.sh fuzz    clang with libFuzzer and its sanitizer runtimes (make fuzz)
# Run as root (as on the project's machines) or with sudo available.
#
# Two runs at once (two `make test` on a fresh machine) take turns: each holds
# a lock of its own ($JITSCOPE_DEPS_LOCK, default /tmp/jitscope-deps.lock) from
# its first check to its last install, so the second finds what the first
# installed; and apt-get waits up to DEPS_APT_WAIT seconds (600) for the
# package manager's lock that someone else (unattended-upgrades) holds.
set -euo pipefail
cd "$(dirname "$0")/.."

lock=${JITSCOPE_DEPS_LOCK:-/tmp/jitscope-deps.lock}
exec 9>>"$lock"
if ! flock -n 9; then
  echo "deps: waiting for another scripts/deps.sh to finish (lock $lock)"
  flock 9
fi
apt_wait=(-o "DPkg::Lock::Timeout=${DEPS_APT_WAIT:-600}")

need_build=(gcc make pkg-config libmicrohttpd-dev libjansson-dev libwebsockets-dev libcurl4-openssl-dev libsqlite3-dev libzstd-dev libxxhash-dev libcapstone-dev)
# CPU profiles: ELF symbols (libelf; liblzma for the xz-compressed .gnu_debugdata), pprof's
# protobuf (protobuf-c and its compiler), gzip (zlib)
need_build+=(libelf-dev liblzma-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev)
need_test=(valgrind chromium nodejs npm clang-format shellcheck prometheus openssl)
# `go tool pprof` reads the pprof export in tests/e2e/cpuprofile.test.mjs; libseccomp builds
# its helper that refuses perf_event_open (tests/helpers/noperf.c)
need_test+=(golang-go libseccomp-dev)
# the ELF symbol tests: libc's debug file by build ID (libc6-dbg), the fixtures' MiniDebugInfo (xz)
need_test+=(libc6-dbg xz-utils binutils)
# the container tests make containers with unshare, nsenter, setpriv, pivot_root (util-linux),
# mount, and read a listening socket's backlog with ss (iproute2): tests/helpers/container.sh
need_test+=(util-linux mount iproute2)
# clang-14 is Debian 12's clang; its libFuzzer and ASan/UBSan runtimes are in libclang-rt-14-dev.
need_fuzz=(clang-14 libclang-rt-14-dev)

missing() {
  local out=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || out+=("$p")
  done
  echo "${out[@]:-}"
}

apt_install() {
  local pkgs
  read -r -a pkgs <<<"$(missing "$@")"
  [ ${#pkgs[@]} -eq 0 ] && return 0
  # node and npm may come from elsewhere than Debian: only install if absent
  local filtered=() p
  for p in "${pkgs[@]}"; do
    case "$p" in
      nodejs) command -v node >/dev/null || filtered+=("$p") ;;
      npm) command -v npm >/dev/null || filtered+=("$p") ;;
      *) filtered+=("$p") ;;
    esac
  done
  [ ${#filtered[@]} -eq 0 ] && return 0
  echo "deps: installing ${filtered[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get "${apt_wait[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get "${apt_wait[@]}" install -y -qq \
    --no-install-recommends "${filtered[@]}"
}

apt_install "${need_build[@]}"
if ! command -v dotnet >/dev/null; then
  echo "deps: the .NET SDK (dotnet) is not on PATH; jitscope's demo and tests need it." >&2
  echo "      install the .NET 8+ SDK and retry." >&2
  exit 1
fi

if [ "${1:-build}" = fuzz ] || [ "${1:-build}" = test ]; then
  apt_install "${need_fuzz[@]}"
fi
if [ "${1:-build}" = test ]; then
  apt_install "${need_test[@]}"
  if [ ! -d tests/node_modules ] || [ tests/package.json -nt tests/node_modules/.stamp ]; then
    echo "deps: npm packages for the browser and WebSocket tests"
    (cd tests && npm install --no-audit --no-fund --loglevel=error && touch node_modules/.stamp)
  fi
fi
