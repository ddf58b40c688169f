#!/usr/bin/env bash
# run.sh -- jitscope's benchmarks, in one run, on this machine. Prints markdown
# tables (also written to build/bench/results.md) to paste into docs/BENCHMARKS.md.
#   bench/run.sh             all
#   bench/run.sh overhead    one of: endtoend overhead sender ingest attach stream dashboard wsstall suspend sampling cpuprof chaos storage serverperf service code codeheat gcreason
#                            portresume exceptions allocations distinct
#   bench/run.sh soak        the 1,000-cycle attach/detach soak (~7 min; not in "all")
#   bench/run.sh "suspend sampling"   several (make bench BENCH="suspend sampling")
set -euo pipefail
cd "$(dirname "$0")/.."
make -s all apps >/dev/null
mkdir -p build/bench
out=build/bench/results.md
{
  echo "Machine: $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB, $(dotnet --list-runtimes | grep NETCore | tail -1 | cut -d' ' -f1-2), $(date -u +%Y-%m-%d)"
  echo
  for b in ${1:-endtoend overhead sender ingest attach stream dashboard wsstall suspend sampling cpuprof chaos storage serverperf service code codeheat gcreason portresume exceptions allocations distinct}; do
    node "bench/$b.mjs"
    echo
  done
} | tee "$out"
