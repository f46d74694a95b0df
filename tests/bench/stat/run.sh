#!/usr/bin/env bash
# tests/bench/stat/run.sh [LINES]: what tracestat's analyses cost on top of reading.
#
# On the 1 M-line GT benchmark log (tests/bench/gen_gt.py, shared with the GT
# benchmark) and on the same trace converted to Chrome JSON, times `tracecat info`
# (read + a summary), `tracestat --section overview` (the read alone: the overview
# computes nothing) and `tracestat` (read + every section), and reports the
# analyses' cost on top of the read: (all - overview) / overview.  Target: <= 0.5.
# Times are CPU seconds (user + sys) of the process, which a shared machine's
# load disturbs less than wall time; wall times are printed too.
# Binaries: $TRACECAT and $TRACESTAT (default build/ under the repository root;
# use a Release build).  Median of RUNS (default 5) runs after one warm-up.
# Always exits 0 (a benchmark, not a test).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$root/tests/bench/out
lines=${1:-1000000}
runs=${RUNS:-5}
tracecat=${TRACECAT:-$root/build/tracecat}
tracestat=${TRACESTAT:-$root/build/tracestat}
mkdir -p "$out"
log=$out/gt-$lines.log
[[ -s $log ]] || python3 "$root/tests/bench/gen_gt.py" "$lines" "$log"
json=$out/gt-$lines.json
[[ -s $json ]] || "$tracecat" convert "$log" -o "$json"

median() { # command... -> "cpu wall": median CPU and wall seconds of $runs runs after a warm-up
    python3 - "$runs" "$@" <<'PY'
import os, statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
cpu, wall = [], []
for _ in range(runs):
    t, c = time.perf_counter(), os.times()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    c2 = os.times()
    wall.append(time.perf_counter() - t)
    cpu.append(c2.children_user - c.children_user + c2.children_system - c.children_system)
print("%.3f %.3f" % (statistics.median(cpu), statistics.median(wall)))
PY
}
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

printf '%-18s %8s %17s %17s %17s %9s %8s  %s\n' trace events "info cpu/wall" "read cpu/wall" \
    "all cpu/wall" overhead "RSS MiB" target
for input in "$log" "$json"; do
    events=$("$tracecat" info --json "$input" | python3 -c 'import json,sys; c=json.load(sys.stdin)["counts"]; print(c["slices"]+c["instants"]+c["counters"]+c["samples"])')
    info=$(median "$tracecat" info "$input")
    read=$(median "$tracestat" --section overview "$input")
    all=$(median "$tracestat" "$input")
    mib=$(( $(rss "$tracestat" "$input") / 1024 ))
    python3 - "$(basename "$input")" "$events" "$info" "$read" "$all" "$mib" <<'PY'
import sys
name, events, mib = sys.argv[1], int(sys.argv[2]), sys.argv[6]
info, read, al = (tuple(map(float, a.split())) for a in sys.argv[3:6])
over = (al[0] - read[0]) / read[0]
f = lambda p: "%7.3f/%-7.3f" % p
print("%-18s %8d %17s %17s %17s %8.2fx %8s  %s" % (name, events, f(info), f(read), f(al), over, mib,
      "PASS" if over <= 0.5 else "MISS"))
PY
done
exit 0
