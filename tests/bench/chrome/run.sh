#!/bin/sh
# run.sh [BUILD_DIR] [STEPS]: the Chrome reader benchmark.  Generates a
# Kineto-like trace once (gen_kineto.py, ~1.04 M events, ~230 MB, kept in
# $TMPDIR), then runs on the same file: `tracecat info` (read into the model),
# `tracecat convert` to lines, and Python's json.load alone, printing MB/s,
# events/s (per CPU second) and peak RSS of each.  Not a ctest test: it prints figures.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tracecat=$(cd "${1:-$root/build}" && pwd)/tracecat
steps=${2:-115000}
file=${TMPDIR:-/tmp}/tracecat-bench-kineto-$steps.json
[ -f "$file" ] || python3 "$here/gen_kineto.py" "$file" "$steps"
bytes=$(wc -c <"$file")
events=$(grep -c '"ph": ' "$file")
run() {
    label=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$file.time" "$@" >/dev/null 2>"$file.err" ||
        { cat "$file.err"; exit 1; }
    read -r wall user sys kb <"$file.time"
    # CPU time (user + sys) as well as wall time: the machine may be shared
    awk -v l="$label" -v w="$wall" -v c="$(echo "$user $sys" | awk '{print $1 + $2}')" \
        -v kb="$kb" -v b="$bytes" -v n="$events" 'BEGIN {
        printf "%-22s wall %6.2f s cpu %6.2f s %7.1f MB/s %10.0f events/s %8.1f MB RSS %6.1f B/event\n",
               l, w, c, b / 1e6 / c, n / c, kb / 1024, kb * 1024 / n }'
}
echo "file: $file, $bytes bytes, $events events"
run "tracecat info" "$tracecat" info "$file"
run "tracecat convert lines" "$tracecat" convert "$file" -o "$file.tsv"
run "python json.load" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$file"
rm -f "$file.tsv" "$file.time" "$file.err"
