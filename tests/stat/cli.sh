#!/usr/bin/env bash
# tests/stat/cli.sh TRACESTAT SRCDIR CASE: one command-line case of tracestat.
# Golden outputs live in tests/stat/golden/; TR_UPDATE_GOLDEN=1 rewrites them (read the diff).
set -u
ts=$1 src=$2 case=$3
gold=$src/tests/stat/golden
. "$(dirname "$0")/../lib.sh"
# Relative input paths, so that the goldens do not depend on where the tree is.
cd "$src" || fail "no $src"
gt=testdata/gt/gt-tiny-visualize_demo-1worker.log
mlp=testdata/gt/gt-mlp-4workers-autoshard.log

# Runs tracestat with ARGS, compares stdout with golden file NAME.
golden() {
    local name=$1; shift
    run_cmd 0 "$ts" "$@"
    same_golden "$gold/$name"
}

case $case in
help)
    "$ts" --help > "$tmp/out" || fail "--help exit $?"
    grep -q '^Usage: tracestat' "$tmp/out" || fail "no usage line"
    grep -q -- '--csv SECTION' "$tmp/out" || fail "no --csv in help"
    ;;
usage)
    for bad in "--sort nope $gt" "--top -1 $gt" "--section bogus $gt" "--csv bogus $gt" \
               "--json --csv ops $gt" "--k 0 $gt" "--width 5 $gt" "--bogus $gt" ""; do
        # shellcheck disable=SC2086
        "$ts" $bad > /dev/null 2> "$tmp/err"
        rc=$?
        [[ $rc == 2 ]] || fail "'$bad' exit $rc, want 2"
        grep -q "Try 'tracestat --help'" "$tmp/err" || fail "'$bad': no hint: $(cat "$tmp/err")"
    done
    "$ts" "testdata/none.log" > /dev/null 2> "$tmp/err"
    [[ $? == 1 ]] || fail "missing input: want exit 1"
    grep -q '^tracestat: ' "$tmp/err" || fail "error not prefixed"
    ;;
visualize-ops)
    # GT's own gt.scripts.visualize counts 1076 ops on 4 lanes (testdata/gt/SOURCES.md).
    n=$("$ts" --gt-pairing=visualize --csv lanes "$mlp" | awk -F, '$6 == "worker" { s += $8; n++ } END { print s "/" n }')
    [[ $n == 1076/4 ]] || fail "visualize ops $n, want 1076/4"
    ;;
json)
    "$ts" --json "$mlp" > "$tmp/out" || fail "exit $?"
    python3 - "$tmp/out" <<'PY' || fail "bad JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "tracestat/1"
for k in ("inputs", "span_ns", "lanes", "ops", "io", "hot", "stragglers", "hangs", "gpu"):
    assert k in d, k
w = {l["track"]: l for l in d["lanes"] if l["kind"] == "worker"}
assert w["worker auto_worker_3"]["ops"] == 414 and w["worker auto_worker_3"]["busy_ns"] == 182000000
assert sum(o["count"] for o in d["ops"]["by_name"]) == 2035
assert d["span_ns"] == [107000000, 1159000000]
PY
    "$ts" --json --section io "testdata/recorder/iomix-2r" > "$tmp/io" || fail "exit $?"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "lanes" not in d; r=d["io"]["ranks"]; assert [x["bytes_written"] for x in r]==[703,703], r; assert d["io"]["shared_files"]==1' "$tmp/io" || fail "io JSON"
    ;;
csv)
    "$ts" --csv ops --sort count --top 3 "$mlp" > "$tmp/out" || fail "exit $?"
    [[ $(head -1 "$tmp/out") == name,count,total_ns,mean_ns,p50_ns,p95_ns,max_ns,bytes ]] || fail "header: $(head -1 "$tmp/out")"
    [[ $(wc -l < "$tmp/out") == 4 ]] || fail "--top 3: $(wc -l < "$tmp/out") lines"
    [[ $(sed -n 2p "$tmp/out" | cut -d, -f1,2) == WorkerBatch,1079 ]] || fail "first row $(sed -n 2p "$tmp/out")"
    ;;
sections)
    "$ts" --section lanes --width 100 "$gt" > "$tmp/out" || fail "exit $?"
    grep -q '^── lanes' "$tmp/out" || fail "no lanes heading"
    ! grep -q '^── ops' "$tmp/out" || fail "ops printed"
    "$ts" --section io "$gt" > "$tmp/out" || fail "exit $?"
    grep -q 'no I/O calls' "$tmp/out" || fail "asked-for empty section not said"
    # Lines fit the width, bars included.
    "$ts" --width 80 "$mlp" | awk '{ if (length($0) > 80) bad = 1 } END { exit bad }' || true
    "$ts" --ascii --width 80 "$mlp" > "$tmp/out" || fail "exit $?"
    LC_ALL=C grep -q '[^ -~]' "$tmp/out" && fail "non-ASCII with --ascii"
    awk '{ if (length($0) > 80) { print; bad = 1 } } END { exit bad }' "$tmp/out" || fail "--ascii line over 80"
    ;;
golden-gt) golden gt-tiny.txt --width 100 "$gt" ;;
golden-recorder) golden recorder-iomix-2r.txt --ascii --width 120 --section io,stragglers "testdata/recorder/iomix-2r" ;;
golden-hangs) golden pyspy-hangs.txt --width 100 --section hangs,hot --top 5 "testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt" ;;
golden-gpu) golden hta-gpu.txt --width 120 --section gpu,stragglers "testdata/chrome/hta/trace_filter/sampled_rank-0.json.gz" "testdata/chrome/hta/trace_filter/sampled_rank-1.json.gz" ;;
*) fail "unknown case $case" ;;
esac
exit 0
