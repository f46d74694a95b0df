#!/usr/bin/env bash
# tests/bench/hangs/run.sh [RANKS THREADS FRAMES]: the hang diagnosis at scale (issue 24).
#
# Generates a job of RANKS x THREADS x FRAMES py-spy dumps (default 10000 x 8 x
# 60, a few ranks stuck elsewhere; gen.py) and times, under /usr/bin/time -v,
# `tracecat info` (reading alone) beside `tracestat --section hangs` (reading
# + the stack tree of every thread) and with --main-thread: the tree's cost is
# the difference, and its memory follows the distinct stacks, not the ranks.
# Median wall seconds of RUNS (default 3) runs, peak RSS of the last.  Binaries:
# $TRACECAT, $TRACESTAT (default build/ under the repository root; use a
# Release build).  Always exits 0 (a benchmark, not a test).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$root/tests/bench/out
ranks=${1:-10000} threads=${2:-8} frames=${3:-60}
runs=${RUNS:-3}
tracecat=${TRACECAT:-$root/build/tracecat}
tracestat=${TRACESTAT:-$root/build/tracestat}
mkdir -p "$out"
job=$out/hang-$ranks-$threads-$frames.txt
[[ -s $job ]] || python3 "$here/gen.py" "$ranks" "$threads" "$frames" > "$job"
echo "job: $job ($(du -h "$job" | cut -f1), $ranks ranks x $threads threads x $frames frames)"

measure() { # label command...: median wall seconds and the peak RSS
    local label=$1; shift
    local walls=() rss=""
    for _ in $(seq "$runs"); do
        /usr/bin/time -v "$@" > "$out/hang.out" 2> "$out/hang.time" || echo "  $label failed"
        walls+=("$(awk -F': ' '/Elapsed/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$out/hang.time")")
        rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$out/hang.time")
    done
    median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    printf '%-34s %8.2f s  %8d KiB\n' "$label" "$median" "$rss"
}

measure "tracecat info (read)" "$tracecat" info "$job"
measure "tracestat --section hangs" "$tracestat" --section hangs "$job"
measure "tracestat hangs --main-thread" "$tracestat" --section hangs --main-thread "$job"
"$tracestat" --section hangs --main-thread "$job" | sed -n 2,8p
exit 0
