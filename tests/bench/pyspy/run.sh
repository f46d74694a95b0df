#!/bin/sh
# run.sh [DUMPS] [FOLDED_LINES]: the py-spy benchmark (see the README beside it).
# Generates, once, tests/bench/out/pyspy-DUMPS.txt (a #tracecat-dump sequence,
# 8 threads of 20-60 frames), the same dumps played twice (pyspy-DUMPSx2.txt:
# the same distinct stacks, twice the samples) and pyspy-LINES.folded, then
# times one run of each pass under /usr/bin/time -v and prints a table.
# A benchmark, not a test: it always exits 0.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
tracecat=${TRACECAT:-$root/build/tracecat}
dumps=${1:-20000}
lines=${2:-1000000}
out=$root/tests/bench/out
mkdir -p "$out"
seq=$out/pyspy-$dumps.txt
seq2=$out/pyspy-${dumps}x2.txt
fold=$out/pyspy-$lines.folded
[ -s "$seq" ] || python3 "$here/gen_pyspy.py" dumps "$seq" "$dumps" 1
[ -s "$seq2" ] || python3 "$here/gen_pyspy.py" dumps "$seq2" "$dumps" 2
[ -s "$fold" ] || python3 "$here/gen_pyspy.py" folded "$fold" "$lines"

# pass NAME INPUT SAMPLES COMMAND...: wall seconds and peak RSS of one run
pass() {
    name=$1 input=$2 n_samples=$3
    shift 3
    /usr/bin/time -v "$@" >"$out/pyspy-$name.stdout" 2>"$out/pyspy-$name.time"
    rc=$?
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/pyspy-$name.time" |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/pyspy-$name.time")
    cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$out/pyspy-$name.time")
    bytes=$(stat -c %s "$input")
    if [ "$rc" -ne 0 ]; then
        printf '%-34s failed (exit %s)\n' "$name" "$rc"
    else
        awk -v n="$name" -v w="$wall" -v c="$cpu" -v r="$rss" -v b="$bytes" -v s="$n_samples" 'BEGIN {
            printf "%-20s %7.2f s %7.2f s %8.1f MB/s %8.1f MB/s %10.0f /s %8.1f MiB\n", n, w, c,
                   b / 1e6 / w, b / 1e6 / c, s / w, r / 1024 }'
    fi
    echo "$wall" >"$out/pyspy-$name.wall"
    echo "$cpu" >"$out/pyspy-$name.cpu"
    echo "$rss" >"$out/pyspy-$name.rss"
}

samples=$((dumps * 8))
echo "inputs: $(stat -c %s "$seq") bytes ($dumps dumps, $samples samples), $(stat -c %s "$fold") bytes ($lines folded lines)"
# Wall time suffers when the machine is shared; CPU (user + system) shows the work done.
printf '%-20s %9s %9s %13s %13s %12s %12s\n' pass wall cpu "MB/s wall" "MB/s cpu" samples/s "peak RSS"
pass info "$seq" $samples "$tracecat" info "$seq"
pass convert-chrome "$seq" $samples "$tracecat" convert "$seq" -o "$out/pyspy-$dumps.json"
pass convert-folded "$seq" $samples "$tracecat" convert "$seq" -o "$out/pyspy-$dumps.folded"
pass convert-folded-x2 "$seq2" $((samples * 2)) "$tracecat" convert "$seq2" -o "$out/pyspy-${dumps}x2.folded"
pass python-regex "$seq" $samples python3 "$here/pyspy_regex.py" "$seq"
pass folded-to-folded "$fold" "$lines" "$tracecat" convert "$fold" -o "$out/pyspy-$lines.out.folded"

# Targets
w_info=$(cat "$out/pyspy-info.wall") w_fold=$(cat "$out/pyspy-convert-folded.wall")
w_py=$(cat "$out/pyspy-python-regex.wall") c_info=$(cat "$out/pyspy-info.cpu")
r1=$(cat "$out/pyspy-convert-folded.rss") r2=$(cat "$out/pyspy-convert-folded-x2.rss")
stacks=$(grep -o 'stacks [0-9]*' "$out/pyspy-info.stdout" | awk '{print $2}')
awk -v b="$(stat -c %s "$seq")" -v ci="$c_info" -v wi="$w_info" -v wf="$w_fold" -v wp="$w_py" -v r1="$r1" \
    -v r2="$r2" -v s="$samples" -v st="${stacks:-0}" 'BEGIN {
    mbs = b / 1e6 / wi
    cmbs = b / 1e6 / ci
    printf "read speed (info):           %.0f MB/s wall, %.0f MB/s cpu   target >= 200: %s (wall) %s (cpu)\n",
           mbs, cmbs, (mbs >= 200 ? "PASS" : "MISS"), (cmbs >= 200 ? "PASS" : "MISS")
    x = wp / wf
    printf "convert to folded vs python: %.1fx       target >= 4: %s\n", x, (x >= 4 ? "PASS" : "MISS")
    # distinct stacks: 12 B a node + the index (8 B a slot, load <= 1/2)
    budget = (24 * s + st * 28) / 1048576 + 32
    printf "RSS convert to folded:       %.1f MiB  budget 24 B/sample + stacks + 32 MB = %.1f MiB: %s\n",
           r1 / 1024, budget, (r1 / 1024 <= budget ? "PASS" : "MISS")
    printf "RSS with twice the dumps:    %.1f MiB  (+%.1f MiB for %d more samples = %.1f B/sample)\n",
           r2 / 1024, (r2 - r1) / 1024, s, (r2 - r1) * 1024 / s
}'
exit 0
