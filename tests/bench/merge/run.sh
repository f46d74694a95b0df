#!/bin/sh
# run.sh [BUILD_DIR]: reading many inputs on one and two threads (issue 12).
# Generates one GT log (gen_gt.py) and one Kineto trace (chrome/gen_kineto.py)
# once under $BENCH_DIR (default /tmp/tracecat-bench-merge), links each 32
# times (64 inputs, about 11 M events), then runs bench_merge: the read phase
# on one and on two threads, the merge after it, alignment and freeze.  Then
# `tracecat convert` of the 64 inputs on 1 and 2 threads, wall time and peak
# RSS (GNU time), and a byte comparison of the two outputs.  Prints figures.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target bench_merge tracecat >/dev/null
dir=${BENCH_DIR:-/tmp/tracecat-bench-merge}
mkdir -p "$dir"
[ -f "$dir/gt.log" ] || python3 "$root/tests/bench/gen_gt.py" 120000 "$dir/gt.log"
[ -f "$dir/kineto.json" ] || python3 "$root/tests/bench/chrome/gen_kineto.py" "$dir/kineto.json" 19000
set --
for i in $(seq -w 0 31); do
    ln -sf gt.log "$dir/gt-$i.log"
    ln -sf kineto.json "$dir/kineto-rank$i.json"
    set -- "$@" "$dir/gt-$i.log" "$dir/kineto-rank$i.json"
done
echo "inputs: $# ($(du -shL "$dir/gt.log" | cut -f1) GT log and $(du -shL "$dir/kineto.json" | cut -f1) Kineto trace, 32 links each)"
"$build/tests/bench_merge" "$@"
for th in 1 2; do
    /usr/bin/time -f "%e %M" -o "$dir/time" "$build/tracecat" convert --tz UTC --threads $th "$@" \
        -o "$dir/out-$th.json" 2>/dev/null
    read -r secs kb <"$dir/time"
    echo "tracecat convert, threads $th: $secs s, peak RSS $((kb / 1024)) MB"
done
cmp -s "$dir/out-1.json" "$dir/out-2.json" && echo "outputs identical" || echo "OUTPUTS DIFFER"
rm -f "$dir/out-1.json" "$dir/out-2.json"
