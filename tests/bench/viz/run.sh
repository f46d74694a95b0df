#!/usr/bin/env bash
# tests/bench/viz/run.sh [BUILD]: what drawing costs on top of reading.
#
# On the 1 M-line GT log (tests/bench/gen_gt.py) and the ~1 M-event Kineto trace
# (tests/bench/chrome/gen_kineto.py): `tracecat info` (read only) beside
# `traceviz ... -o t.png` (read + render), wall time and peak RSS; a flame graph
# of the 20,000-dump py-spy sequence (tests/bench/pyspy/gen_pyspy.py); and a
# 10 M-slice timeline rendered in memory (bench_render, built here).  Inputs are
# generated once into tests/bench/out/.  Prints a table and PASS/MISS for the
# targets: render/read <= 1.0, RSS <= +25% over reading, 10 M slices < 10 s.
# A benchmark, not a test: always exits 0 once it ran.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-$root/build}
out=$root/tests/bench/out
runs=${RUNS:-3}
mkdir -p "$out"
tracecat=$build/tracecat traceviz=$build/traceviz
for b in "$tracecat" "$traceviz"; do
    [ -x "$b" ] || { echo "run.sh: no $b (build it first: cmake --build $build)" >&2; exit 2; }
done
cmake --build "$build" --target bench_render >/dev/null || { echo "run.sh: cannot build bench_render" >&2; exit 2; }

gt=$out/gt-1000000.log
kineto=$out/kineto-115000.json
dumps=$out/pyspy-20000.txt
gt224=$out/gt-224000.log
[ -s "$gt" ] || python3 "$root/tests/bench/gen_gt.py" 1000000 "$gt"
[ -s "$gt224" ] || python3 "$root/tests/bench/gen_gt.py" 224000 "$gt224"
[ -s "$kineto" ] || python3 "$root/tests/bench/chrome/gen_kineto.py" "$kineto" 115000
[ -s "$dumps" ] || python3 "$root/tests/bench/pyspy/gen_pyspy.py" dumps "$dumps" 20000 1

# measure NAME CMD...: best wall and CPU (user + sys) time of RUNS runs, peak RSS (MiB) of the
# last.  The ratios use CPU time: on a shared machine wall time mostly measures the others.
measure() {
    local name=$1; shift
    local best= wall=
    for _ in $(seq "$runs"); do
        /usr/bin/time -f '%e %M %U %S' -o "$out/viz-$name.time" "$@" >/dev/null 2>"$out/viz-$name.err" ||
            { echo "$name: failed (see $out/viz-$name.err)"; return 1; }
        local t w
        t=$(awk '{print $3 + $4}' "$out/viz-$name.time")
        w=$(awk '{print $1}' "$out/viz-$name.time")
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$t; fi
        if [ -z "$wall" ] || awk -v a="$w" -v b="$wall" 'BEGIN{exit !(a < b)}'; then wall=$w; fi
    done
    local rss
    rss=$(awk '{printf "%.0f", $2 / 1024}' "$out/viz-$name.time")
    printf '%-20s %8.2f s %8.2f s %8s MiB\n' "$name" "$wall" "$best" "$rss"
    eval "T_${name//-/_}=$best R_${name//-/_}=$rss"
}

verdict() { awk -v ok="$1" 'BEGIN{print (ok ? "PASS" : "MISS")}'; }

echo "inputs: $(stat -c %s "$gt") B GT log, $(stat -c %s "$kineto") B Kineto trace, $(stat -c %s "$dumps") B dumps"
printf '%-20s %10s %10s %12s\n' pass "wall" "CPU" "peak RSS"
# The size of log GT's own matplotlib visualizer took 84 s and 1 GB for.
measure gt224k-timeline "$traceviz" "$gt224" -o "$out/viz-gt224k.png"
measure gt-info "$tracecat" info "$gt"
measure gt-timeline "$traceviz" "$gt" -o "$out/viz-gt.png"
measure kineto-info "$tracecat" info "$kineto"
measure kineto-timeline "$traceviz" "$kineto" -o "$out/viz-kineto.png"
measure dumps-info "$tracecat" info "$dumps"
measure dumps-flame "$traceviz" "$dumps" --kind flame -o "$out/viz-flame.svg"
measure dumps-flame-png "$traceviz" "$dumps" --kind flame -o "$out/viz-flame.png"
echo
"$build/tests/bench_render" 10000000 16 "$out/viz-10m.png" | tee "$out/viz-10m.txt"
render10m=$(sed -n 's/.*render \([0-9.]*\) s.*/\1/p' "$out/viz-10m.txt")

echo
for k in gt kineto; do
    ti=T_${k}_info tt=T_${k}_timeline ri=R_${k}_info rt=R_${k}_timeline
    [ -n "${!ti:-}" ] && [ -n "${!tt:-}" ] || continue
    ratio=$(awk -v r="${!ti}" -v v="${!tt}" 'BEGIN{printf "%.2f", (v - r) / r}')
    rss=$(awk -v r="${!ri}" -v v="${!rt}" 'BEGIN{printf "%.1f", 100 * (v - r) / r}')
    printf '%-8s render/read (CPU) %s  %s   RSS %+s%%  %s\n' "$k" "$ratio" \
        "$(verdict "$(awk -v x="$ratio" 'BEGIN{print x <= 1.0}')")" "$rss" \
        "$(verdict "$(awk -v x="$rss" 'BEGIN{print x <= 25}')")"
done
if [ -n "${T_dumps_info:-}" ] && [ -n "${T_dumps_flame:-}" ]; then
    printf 'flame    render/read (CPU) %s (SVG), %s (PNG)\n' \
        "$(awk -v r="$T_dumps_info" -v v="$T_dumps_flame" 'BEGIN{printf "%.2f", (v - r) / r}')" \
        "$(awk -v r="$T_dumps_info" -v v="$T_dumps_flame_png" 'BEGIN{printf "%.2f", (v - r) / r}')"
fi
[ -n "$render10m" ] && printf '10M      render %s s  %s\n' "$render10m" \
    "$(verdict "$(awk -v x="$render10m" 'BEGIN{print x < 10}')")"
exit 0
