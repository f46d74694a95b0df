#!/bin/bash
# tracerecord's overhead: 1M small write(2)s to /dev/null and 1M pread(2)s of a
# cached file, untraced and traced in one run.  Prints the median ns per call
# of each, the ns added per call, and the trace's bytes per call (every file of
# the trace directory).  Usage: tests/bench/record/run.sh BUILD_DIR [N]
set -euo pipefail
build=$(cd "${1:?usage: run.sh BUILD_DIR [N]}" && pwd)
n=${2:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --build "$build" --target tracerecord >/dev/null
cc -O2 -o "$work/bench" "$here/bench_record.c"
head -c 4096 /dev/urandom >"$work/cached.dat"
cat "$work/cached.dat" >/dev/null

printf '%-28s %10s %10s %10s %12s\n' "calls" "untraced" "traced" "added" "trace B/call"
for mode in write pread; do
    plain=$("$work/bench" $mode "$n" "$work/cached.dat")
    # /dev is excluded by default; the benchmark traces /dev/null on purpose.
    traced=$("$build/tracerecord" -q --exclude /proc,/sys -o "$work/t-$mode" -- \
        "$work/bench" $mode "$n" "$work/cached.dat")
    bytes=$(du -b -c "$work/t-$mode"/* | tail -1 | cut -f1)
    label="$n x $mode"
    [ $mode = write ] && label="$n x write(8 B) /dev/null"
    [ $mode = pread ] && label="$n x pread(64 B, off 0)"
    awk -v l="$label" -v p="$plain" -v t="$traced" -v b="$bytes" -v n="$n" \
        'BEGIN { printf "%-28s %8.1fns %8.1fns %8.1fns %12.3f\n", l, p, t, t - p, b / n }'
done
