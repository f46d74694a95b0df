#!/usr/bin/env bash
# tests/bench/stat/stream.sh TRACESTAT INPUT...: tracestat's report (the default one, or
# the sections SECTIONS names) from the model and through the stream, in the same run,
# interleaved (RUNS rounds, default 5).
#
# The model path reads standard input (which never streams); the stream path reads
# the file under --memory 1G (the default budget, given so that Chrome JSON streams
# too), 256M and 64M.  Prints per input and way the median and spread of
# CPU time (user + sys) and peak RSS (/usr/bin/time -v), and the medians' ratios to
# the model's; the reports are compared (input names masked).  Generate big inputs
# with tests/bench/gen_gt.py and tests/bench/chrome/gen_kineto.py.  The stream spills
# beside the first input.
set -uo pipefail
stat=$1
shift
runs=${RUNS:-5}
sections=${SECTIONS:-}
out=$(mktemp -d "$(dirname "$1")/statbench.XXXXXX")
trap 'rm -rf "$out"' EXIT

# run WAY INPUT: one timed run; appends "cpu rss" to $out/WAY.
run() {
    local way=$1 in=$2 t=$out/time
    case $way in
    model) /usr/bin/time -v "$stat" - ${sections:+--section "$sections"} <"$in" 2>"$t" >"$out/m.txt" ;;
    stream1g) /usr/bin/time -v "$stat" "$in" ${sections:+--section "$sections"} --memory 1G --tmpdir "$out" \
        2>"$t" >"$out/s.txt" ;;
    stream256) /usr/bin/time -v "$stat" "$in" ${sections:+--section "$sections"} --memory 256M --tmpdir "$out" \
        2>"$t" >"$out/s256.txt" ;;
    stream64) /usr/bin/time -v "$stat" "$in" ${sections:+--section "$sections"} --memory 64M --tmpdir "$out" \
        2>"$t" >"$out/s64.txt" ;;
    esac || { echo "$way failed on $in:"; cat "$t"; return 1; }
    awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {r = $2}
        END {printf "%.2f %.0f\n", u + s, r / 1024}' "$t" >>"$out/$way"
}

# stats FILE COLUMN: "median (min-max)" of a column.
stats() {
    sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {printf "%s (%s-%s)", v[int((NR + 1) / 2)], v[1], v[NR]}'
}
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'; }
mask() { sed -E 's/^input: .* \(([a-z-]+)\)$/input: X (\1)/' "$1"; }

for in in "$@"; do
    rm -f "$out/model" "$out/stream1g" "$out/stream256" "$out/stream64"
    for _ in $(seq "$runs"); do
        for way in model stream1g stream256 stream64; do run $way "$in" || exit 1; done
    done
    same=same
    for s in s s256 s64; do cmp -s <(mask "$out/m.txt") <(mask "$out/$s.txt") || same=DIFFERENT; done
    printf '%s (%s MB), %d runs, sections %s, reports %s\n' "$(basename "$in")" \
        "$(($(stat -c %s "$in") / 1000000))" "$runs" "${sections:-default}" "$same"
    mc=$(median "$out/model" 1) mr=$(median "$out/model" 2)
    for way in model stream1g stream256 stream64; do
        c=$(median "$out/$way" 1) r=$(median "$out/$way" 2)
        printf '  %-10s CPU %s s  peak RSS %s MiB  ratios CPU %.2f RSS %.2f\n' "$way" \
            "$(stats "$out/$way" 1)" "$(stats "$out/$way" 2)" \
            "$(echo "$c / $mc" | bc -l)" "$(echo "$r / $mr" | bc -l)"
    done
done
