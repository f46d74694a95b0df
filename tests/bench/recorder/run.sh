#!/bin/sh
# run.sh [BUILD_DIR]: the Recorder benchmark (issue 6).  Generates a 64-rank,
# 5.2 M-record trace with the writer (once, under $BENCH_DIR or /tmp), then,
# with one and with two threads: the read and freeze phases
# (bench_recorder read), and `tracecat info` and `tracecat convert` to Chrome
# JSON with wall time and peak RSS (GNU time).  Prints figures, checks nothing.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target bench_recorder tracecat >/dev/null
dir=${BENCH_DIR:-/tmp/tracecat-bench-recorder}/trace
if [ ! -f "$dir/recorder.mt" ]; then
    mkdir -p "$dir"
    "$build/tests/bench_recorder" gen "$dir"
fi
bytes=$(du -sb "$dir" | cut -f1)
echo "trace: $dir, $(ls "$dir" | wc -l) files, $bytes bytes"
for th in 1 2; do
    "$build/tests/bench_recorder" read "$dir" $th
done
for th in 1 2; do
    for cmd in info convert; do
        out=$(mktemp -d)
        if [ $cmd = info ]; then set -- info "$dir"; else set -- convert "$dir" -o "$out/x.json"; fi
        TRACECAT_THREADS=$th /usr/bin/time -f "%e %M" -o "$out/time" "$build/tracecat" "$@" >/dev/null
        read -r secs kb <"$out/time"
        echo "tracecat $cmd, threads $th: ${secs} s, peak RSS $((kb / 1024)) MB"
        rm -rf "$out"
    done
done
