#!/bin/bash
# run.sh [LINES] [RUNS]: peak RSS and CPU time of streaming `tracecat cat` (issue 18) beside the
# in-memory path in the same run, on a generated GT log (tests/bench/gen_gt.py, deterministic).
#   LINES  log lines (default 8000000: about 1 GB)    RUNS  repeats, interleaved (default 3)
# $TRACECAT names the binary (default build/tracecat); $OUT the scratch directory (default
# tests/bench/out/memory).  The in-memory reference is the same command with --name '*', a filter
# that keeps every event and so needs the model.  Prints one row a run and the medians; deletes
# the log at the end unless KEEP=1.  The figures of issue 18 are in the README's Memory section.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
lines=${1:-8000000} runs=${2:-3}
tc=${TRACECAT:-$root/build/tracecat}
out=${OUT:-$root/tests/bench/out/memory}
mkdir -p "$out"
log=$out/gt-$lines.log
[ -s "$log" ] || python3 "$root/tests/bench/gen_gt.py" "$lines" "$log"
echo "input: $log, $(stat -c %s "$log") bytes"

# measure NAME CMD...: one run under /usr/bin/time -v; prints NAME, peak RSS MiB, user+sys s, wall s.
measure() {
    local name=$1
    shift
    /usr/bin/time -v "$@" >/dev/null 2>"$out/time.txt" || {
        echo "$name failed: $(tail -3 "$out/time.txt")"
        return
    }
    awk -v n="$name" -F': ' '
        /Maximum resident/ { rss = $2 / 1024 }
        /User time/ { cpu += $2 } /System time/ { cpu += $2 }
        /Elapsed/ { split($2, t, ":"); wall = t[1] * 60 + t[2] }
        END { printf "%-22s %10.1f %9.2f %9.2f\n", n, rss, cpu, wall }' "$out/time.txt"
}

printf "%-22s %10s %9s %9s\n" run "RSS MiB" "cpu s" "wall s" | tee "$out/rows.txt"
for i in $(seq "$runs"); do
    measure "cat stream" "$tc" cat -q --tmpdir "$out" "$log"
    measure "cat in-memory" "$tc" cat -q --name '*' "$log"
    measure "cat stream 64M" "$tc" cat -q --memory 64M --tmpdir "$out" "$log"
done | tee -a "$out/rows.txt"
echo "medians (RSS MiB, cpu s):"
for name in "cat stream" "cat in-memory" "cat stream 64M"; do
    rows=$(grep "^$name  " "$out/rows.txt")
    med() { echo "$rows" | awk '{print $(NF - '"$1"')}' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
    printf "%-22s %10s %9s\n" "$name" "$(med 2)" "$(med 1)"
done
[ "${KEEP:-0}" = 1 ] || rm -f "$log"
