#!/bin/sh
# container.sh -- runs a command in a container made with unshare(1), as a
# container engine would run an image: its own mount, pid and UTS namespaces
# (the command is pid 1 of its pid namespace, under its own hostname), a root
# directory of its own that holds only the system's programs and shared
# libraries (as a base image has), the .NET runtime and what --bind adds (all
# read-only), a private tmpfs /tmp, a /proc
# of its pid namespace, and no other path of the host: no path of jitscope's
# build tree is visible inside. There is no container engine on the machines
# the tests run on; this is how the end-to-end tests (tests/e2e/containers.mjs)
# make the containers jitscope attaches into and the sidecar volumes it
# listens on.
#
#   tests/helpers/container.sh [OPTION...] -- COMMAND [ARG...]
#
#   --hostname NAME     the UTS namespace's hostname (default: jitscope-ctr)
#   --bind SRC:DST      bind the host's SRC at DST inside, read-only
#   --volume SRC:DST    bind the host's SRC at DST inside, writable (a shared
#                       volume: a sidecar sees the same files)
#   --userns OUTER      a user namespace too: uid and gid 0..65535 inside are
#                       OUTER..OUTER+65535 outside (its root is an unprivileged
#                       user on the host; this script runs as root)
#   --rootless          a user namespace made by the user running this script
#                       (not root): its root is that user, as in a rootless
#                       Podman container
#   --tmp-size SIZE     the size of /tmp (tmpfs size=, default 64m)
#   --tmp-ro            /tmp is read-only
#   --cgroup PATH       run in cgroup PATH (made under each writable cgroup
#                       hierarchy, removed at the end), as an engine names a
#                       container's cgroup (docker/<id>, kubepods/.../<id>)
#   --env NAME=VALUE    the command's environment (nothing else is passed but
#                       PATH, HOME=/tmp and what the .NET tests need)
#   --pidfile FILE      the command's pid as the host sees it, once it runs
#
# The command runs with uid 0 of the container. The container ends with the
# command; this script's exit status is the command's. SIGTERM/SIGINT to this
# script end the container (SIGKILL to its pid 1).
set -eu

say() { echo "container.sh: $*" >&2; }

if [ "${1-}" = "--inside" ]; then
  # ---- second stage: inside the new namespaces, still seeing the host's files
  shift
  root=$1 hostname=$2 tmpopts=$3 binds=$4 envs=$5
  shift 5
  mount --make-rprivate /
  mount -t tmpfs -o mode=0755,size=16m jitscope-root "$root"
  mkdir -p "$root/proc" "$root/tmp" "$root/dev" "$root/etc" "$root/usr/bin" "$root/usr/lib64" \
    "$root/usr/lib/x86_64-linux-gnu" "$root/usr/share/dotnet"
  ln -s usr/lib "$root/lib"
  ln -s usr/lib64 "$root/lib64"
  ln -s usr/bin "$root/bin"
  robind() { # SRC DST: a read-only bind mount
    mount --bind "$1" "$2"
    mount -o remount,bind,ro "$2"
  }
  robind /usr/bin "$root/usr/bin"
  robind /usr/lib/x86_64-linux-gnu "$root/usr/lib/x86_64-linux-gnu"
  robind /usr/lib64 "$root/usr/lib64"
  robind "$(dirname "$(readlink -f "$(command -v dotnet)")")" "$root/usr/share/dotnet"
  for dev in null zero random urandom; do
    : >"$root/dev/$dev"
    mount --bind "/dev/$dev" "$root/dev/$dev"
  done
  # shellcheck disable=SC2086 # the options are one comma-separated word
  mount -t tmpfs -o $tmpopts jitscope-tmp "$root/tmp"
  # SRC:DST:ro|rw entries, one per line
  printf '%s\n' "$binds" | while IFS=: read -r src dst mode; do
    [ -n "$src" ] || continue
    if [ -d "$src" ]; then mkdir -p "$root$dst"; else mkdir -p "$root$(dirname "$dst")" && : >"$root$dst"; fi
    if [ "$mode" = ro ]; then robind "$src" "$root$dst"; else mount --bind "$src" "$root$dst"; fi
  done
  echo "$hostname" >"$root/etc/hostname"
  printf '127.0.0.1 localhost %s\n' "$hostname" >"$root/etc/hosts"
  printf 'root:x:0:0:root:/tmp:/bin/false\n' >"$root/etc/passwd"
  mount -t proc proc "$root/proc"
  hostname "$hostname"
  # The new root goes on top of the old one (pivot_root(".", ".")), and the old
  # one is detached from under it: nothing of the host's tree stays reachable.
  cd "$root"
  pivot_root . .
  umount -l .
  cd /
  # the command's environment, and nothing of the host's
  IFS='
'
  for kv in $envs; do export "${kv?}"; done
  unset IFS
  exec "$@"
fi

# ---- first stage: on the host
hostname=jitscope-ctr binds='' userns='' rootless='' tmpsize=64m tmpro='' cgroup='' pidfile=''
envs="PATH=/usr/share/dotnet:/usr/bin
HOME=/tmp
DOTNET_CLI_TELEMETRY_OPTOUT=1
DOTNET_NOLOGO=1"
while [ $# -gt 0 ]; do
  case $1 in
    --hostname) hostname=$2; shift 2 ;;
    --bind) binds="$binds$2:ro
"; shift 2 ;;
    --volume) binds="$binds$2:rw
"; shift 2 ;;
    --userns) userns=$2; shift 2 ;;
    --rootless) rootless=1; shift ;;
    --tmp-size) tmpsize=$2; shift 2 ;;
    --tmp-ro) tmpro=1; shift ;;
    --cgroup) cgroup=$2; shift 2 ;;
    --env) envs="$envs
$2"; shift 2 ;;
    --pidfile) pidfile=$2; shift 2 ;;
    --) shift; break ;;
    *) say "unknown option $1"; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { say "usage: container.sh [OPTION...] -- COMMAND [ARG...]"; exit 2; }

work=$(mktemp -d /tmp/jitscope-ctr-XXXXXX)
chmod 0755 "$work"
mkdir "$work/root"
cgdirs=''
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  for d in $cgdirs; do
    # back to the hierarchy's root first: a cgroup with a process cannot go
    echo $$ >"${d%/"$cgroup"}/cgroup.procs" 2>/dev/null || true
    rmdir "$d" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'kill -KILL "$child" 2>/dev/null || true' TERM INT

if [ -n "$cgroup" ]; then
  # every writable hierarchy: cgroup v2's unified one, or v1's pids and
  # name=systemd (the ones an engine always uses; memory and cpu are left
  # alone so that the machine's own limits stay as they are)
  for h in /sys/fs/cgroup /sys/fs/cgroup/pids /sys/fs/cgroup/systemd; do
    [ -f "$h/cgroup.procs" ] || continue
    [ "$h" = /sys/fs/cgroup ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ] && continue
    if mkdir -p "$h/$cgroup" 2>/dev/null && echo $$ >"$h/$cgroup/cgroup.procs" 2>/dev/null; then
      cgdirs="$cgdirs $h/$cgroup"
    fi
  done
  [ -n "$cgdirs" ] || { say "no writable cgroup hierarchy for --cgroup $cgroup"; exit 1; }
fi

tmpopts="mode=1777,size=$tmpsize"
[ -z "$tmpro" ] || tmpopts="$tmpopts,ro"
self=$(readlink -f "$0")
set -- "$self" --inside "$work/root" "$hostname" "$tmpopts" "$binds" "$envs" "$@"
if [ -n "$rootless" ]; then
  set -- --user --map-root-user "$@"
elif [ -n "$userns" ]; then
  # unshare writes the maps with newuidmap/newgidmap; the machine may not have
  # them (package uidmap, and /etc/subuid), and as root there is nothing to
  # check: these write the maps as given
  mkdir "$work/bin"
  for kind in uid gid; do
    cat >"$work/bin/new${kind}map" <<EOF
#!/bin/sh
pid=\$1; shift; map=''
while [ \$# -ge 3 ]; do map="\$map\$1 \$2 \$3
"; shift 3; done
printf '%s' "\$map" >/proc/\$pid/${kind}_map
EOF
    chmod 0755 "$work/bin/new${kind}map"
  done
  set -- --user --map-users="$userns,0,65536" --map-groups="$userns,0,65536" --setuid 0 --setgid 0 "$@"
  PATH=$work/bin:$PATH
fi
# stdin goes to the command: an asynchronous list's own is /dev/null
exec 3<&0
env -i PATH="$PATH" unshare --mount --pid --uts --fork --kill-child "$@" <&3 3<&- &
child=$!
if [ -n "$pidfile" ]; then
  # unshare's child that is pid 1 of the new pid namespace is the command,
  # before and after its exec (with --userns unshare first forks a child of
  # its own that writes the maps)
  pid1=''
  for _ in $(seq 1 1000); do
    kids=$(cat "/proc/$child/task/$child/children" 2>/dev/null) || kids=''
    for c in $kids; do
      if grep -qE '^NSpid:.*[[:space:]]1$' "/proc/$c/status" 2>/dev/null; then pid1=$c; fi
    done
    [ -n "$pid1" ] && break
    sleep 0.01
  done
  echo "$pid1" >"$pidfile"
fi
set +e
wait "$child"
rc=$?
exit $rc
