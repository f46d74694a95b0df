#!/usr/bin/env bash
# tests/bench/viz/stream.sh TRACEVIZ INPUT...: traceviz's timeline from the model and
# through the stream, in the same run, interleaved (RUNS rounds, default 5).
#
# The model path reads standard input (which never streams); the stream path reads
# the file under the default budget and under --memory 256M.  Prints per input and
# way the median and spread of CPU time (user + sys) and peak RSS (/usr/bin/time -v),
# and the medians' ratios to the model's.  Generate big inputs with
# tests/bench/gen_gt.py and tests/bench/chrome/gen_kineto.py.  Pictures go to a
# temporary directory beside the first input (the stream spills there).
set -uo pipefail
viz=$1
shift
runs=${RUNS:-5}
out=$(mktemp -d "$(dirname "$1")/vizbench.XXXXXX")
trap 'rm -rf "$out"' EXIT

# run WAY INPUT: one timed run; appends "cpu rss" to $out/WAY.
run() {
    local way=$1 in=$2 t=$out/time
    case $way in
    model) /usr/bin/time -v "$viz" - --title T -o "$out/m.png" <"$in" 2>"$t" >/dev/null ;;
    stream) /usr/bin/time -v "$viz" "$in" --title T -o "$out/s.png" 2>"$t" >/dev/null ;;
    stream256) /usr/bin/time -v "$viz" "$in" --memory 256M --title T -o "$out/s.png" 2>"$t" >/dev/null ;;
    esac || { echo "$way failed on $in:"; cat "$t"; return 1; }
    awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {r = $2}
        END {printf "%.2f %.0f\n", u + s, r / 1024}' "$t" >>"$out/$way"
}

# stats FILE COLUMN: "median (min-max)" of a column.
stats() {
    sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {printf "%s (%s-%s)", v[int((NR + 1) / 2)], v[1], v[NR]}'
}
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'; }

for in in "$@"; do
    rm -f "$out/model" "$out/stream" "$out/stream256"
    for _ in $(seq "$runs"); do
        for way in model stream stream256; do run $way "$in" || exit 1; done
    done
    cmp -s "$out/m.png" "$out/s.png" && same=same || same=DIFFERENT
    printf '%s (%s MB), %d runs, pictures %s\n' "$(basename "$in")" \
        "$(($(stat -c %s "$in") / 1000000))" "$runs" "$same"
    mc=$(median "$out/model" 1) mr=$(median "$out/model" 2)
    for way in model stream stream256; do
        c=$(median "$out/$way" 1) r=$(median "$out/$way" 2)
        printf '  %-10s CPU %s s  peak RSS %s MiB  ratios CPU %.2f RSS %.2f\n' "$way" \
            "$(stats "$out/$way" 1)" "$(stats "$out/$way" 2)" \
            "$(echo "$c / $mc" | bc -l)" "$(echo "$r / $mr" | bc -l)"
    done
done
