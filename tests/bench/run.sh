#!/usr/bin/env bash
# tests/bench/run.sh [LINES]: time tracecat against wc, awk and GT's own Python regex on one GT log.
#
# Builds nothing: the binary is $TRACECAT, else build/tracecat under the repository root. The log
# (LINES lines, default 1000000) is generated once into tests/bench/out/ and reused. Every pass runs
# on that same file: median wall time over RUNS runs (default 5) after WARMUP (default 1), timed by
# hyperfine when installed and by bench.py otherwise, plus one extra run under /usr/bin/time -v for
# the peak RSS. Prints the table and PASS/MISS for each target; always exits 0 (a benchmark, not a
# test), except on a usage error or when the log cannot be generated.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$here/out

usage() { echo "usage: $0 [LINES]   (env: TRACECAT, RUNS, WARMUP)" >&2; exit 2; }
[[ $# -le 1 ]] || usage
lines=${1:-1000000}
[[ $lines =~ ^[0-9]+$ ]] || usage
runs=${RUNS:-5}
warmup=${WARMUP:-1}
[[ $runs =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ ]] || usage

tracecat=${TRACECAT:-$root/build/tracecat}
if [[ $tracecat != */* ]]; then
    tracecat=$(command -v "$tracecat" || true)
fi
if [[ -z $tracecat || ! -x $tracecat ]]; then
    echo "run.sh: no tracecat binary at '${TRACECAT:-$root/build/tracecat}' (build it, or set TRACECAT)" >&2
    echo "run.sh: the tracecat rows are reported as failed" >&2
    tracecat=false
fi
# The interpreter itself, not a wrapper such as a pyenv shim, whose start-up would be timed too.
python=$(python3 -c 'import sys; print(sys.executable)') || { echo "run.sh: python3 is required" >&2; exit 2; }
awk=$(command -v mawk || command -v awk)

mkdir -p "$out"
log=$out/gt-$lines.log
if [[ ! -s $log ]]; then
    echo "generating $log ..." >&2
    "$python" "$here/gen_gt.py" "$lines" "$log.tmp"
    mv "$log.tmp" "$log"
fi
bytes=$(wc -c < "$log")
nlines=$(wc -l < "$log")

q() { printf '%q ' "$@"; }

# Sum of the size column: field 6 of a '|'-split record is " <number><unit> " when the line has a size.
# One line, so that the quoted command also parses for hyperfine -N (which splits words itself).
# shellcheck disable=SC2016  # $6 is awk's, not the shell's
awk_prog='$6 ~ /^ *[0-9.]+(B|KB|MB) *$/ { n = $6 + 0; if ($6 ~ /MB/) n *= 1048576; else if ($6 ~ /KB/) n *= 1024; total += n; count++ } END { printf "%d sizes, %.0f bytes\n", count, total }'

names=(
    "wc -l"
    "awk size sum ($(basename "$awk"))"
    "python regex"
    "tracecat info"
    "tracecat convert"
    "tracecat cat"
)
cmds=(
    "$(q wc -l "$log")"
    "$(q "$awk" -F'|' "$awk_prog" "$log")"
    "$(q "$python" "$here/gt_regex.py" "$log")"
    "$(q "$tracecat" info "$log")"
    "$(q "$tracecat" convert "$log" -o "$out/gt-$lines.json")"
    "$(q "$tracecat" cat "$log")"
)
keys=(wc awk python info convert cat)
# Where the extra run's standard output goes (the timed runs discard it); cat's is the whole trace.
sinks=(file file file file file null)

timev=()
[[ -x /usr/bin/time ]] && timev=(/usr/bin/time -v)
have_hyperfine=0
command -v hyperfine > /dev/null && have_hyperfine=1

manifest=$out/manifest.tsv
printf 'input\t%s\t%s\t%s\n' "$log" "$bytes" "$nlines" > "$manifest"
for i in "${!cmds[@]}"; do
    key=${keys[$i]} cmd=${cmds[$i]}
    echo "== ${names[$i]}: $cmd" >&2
    # The extra run: checks that the command works, shows its output, and records the peak RSS.
    rc=0
    sink=$out/$key.stdout
    [[ ${sinks[$i]} == null ]] && sink=/dev/null && : > "$out/$key.stdout"
    if ((${#timev[@]})); then
        "${timev[@]}" -o "$out/$key.time" bash -c "exec $cmd" > "$sink" 2> "$out/$key.stderr" || rc=$?
    else
        rm -f "$out/$key.time"
        bash -c "exec $cmd" > "$sink" 2> "$out/$key.stderr" || rc=$?
    fi
    if ((rc != 0)); then
        echo "   failed with exit status $rc:" >&2
        head -5 "$out/$key.stderr" >&2 || true
    else
        head -c 300 "$out/$key.stdout" | head -3 | sed 's/^/   /' >&2 || true
        if ((have_hyperfine)); then
            # -N: no intermediate shell, so nothing is subtracted from these short runs.
            hyperfine -N -w "$warmup" -r "$runs" --style basic --export-json "$out/$key.json" \
                -n "${names[$i]}" -- "$cmd" > "$out/$key.hyperfine" 2>&1 || rc=$?
        else
            "$python" "$here/bench.py" time --warmup "$warmup" --runs "$runs" --json "$out/$key.json" -- "$cmd" || rc=$?
        fi
    fi
    printf 'row\t%s\t%s\t%s\t%s\n' "${names[$i]}" "$out/$key.json" "$out/$key.time" "$rc" >> "$manifest"
done

"$python" "$here/bench.py" report "$manifest" || true
exit 0
