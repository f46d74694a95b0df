#!/bin/bash
# cli.sh TRACECAT TRACESTAT ROOT CASE: one job on one timeline, from the command line.
set -u
tracecat=$1 tracestat=$2 root=$3 case=$4
. "$(dirname "$0")/../lib.sh"
cd "$root"
gt=testdata/gt/gt-tiny-visualize_demo-1worker.log
rec=testdata/recorder/g3-iomix-2r
nodump=testdata/pyspy/06_pytorch135703_xargs_pgrep_truncated.txt
run() { run_cmd "$1" "$tracecat" "${@:2}"; } # run WANT_EXIT ARGS...

case $case in
info)
    run 0 info --tz UTC "$gt" "$rec" "$nodump"
    expect_out "wall clock: 2026-11-22T17:58:17Z, precision 1.000s, from GT header 'Started:' (local time, whole seconds), zone UTC"
    expect_out "  placed: -107.0ms (wall clock)"
    expect_out "wall clock: 2026-11-22T18:10:25.997148Z, precision 1.0us"
    expect_out "  placed: 728.890s (wall clock)"
    expect_out "timeline zero: 2026-11-22T17:58:17.107000000Z"
    expect_out "  warning: no wall clock: placed at the timeline's zero, a guess"
    expect_err "06_pytorch135703_xargs_pgrep_truncated.txt: no wall clock"
    run 0 info --json --tz UTC "$gt" "$rec"
    expect_out '"origin_unix_ns":1795370297000000000,"precision_ns":1000000000'
    expect_out '"placed":"wall clock","guess":false,"offset_ns":728890148160'
    expect_out '"timeline_origin_unix_ns":1795370297107000000'
    # one input: no placement to report, nothing moved
    run 0 info "$gt"
    expect_out "wall clock: unread (GT header 'Started:' (local time, whole seconds); use --tz)"
    grep -q "placed:" "$tmp/out" && fail "one input is not placed"
    # no --tz with several inputs: the zone is a guess, said on stderr
    run 0 info "$gt" "$rec"
    expect_err "its local time was read in this machine's zone, a guess (use --tz)"
    ;;
align)
    run 0 cat --tz UTC --align "$(basename "$gt")=2s" "$gt" "$rec" --name RECV
    [ "$(head -n 1 "$tmp/out" | cut -f2)" = "2.107000000" ] || fail "want the first RECV at 2.107s: $(head -n 1 "$tmp/out")"
    run 0 info --align-on MPI_File_open "$rec"
    expect_out "rank 0 (rank 0) placed at 1.2ms"
    run 2 info --align nofile "$gt"
    run 2 info --align missing.log=1s "$gt" "$rec"
    expect_err "--align missing.log: no input of that name"
    run 2 info --tz Mars/Olympus "$gt"
    run 2 info --threads 0 "$gt"
    run 0 info --align-on NoSuchName "$rec"
    expect_err "--align-on: no slice or instant is named 'NoSuchName'"
    "$tracestat" --tz UTC --align-on MPI_File_open "$gt" "$rec" >"$tmp/out" 2>"$tmp/err" || fail "tracestat with the timeline options"
    ;;
threads)
    set -- "$gt" "$rec" "$nodump" testdata/recorder/iomix-4r testdata/gt/gt-server-2workers.log \
        testdata/chrome/hta/trace_filter/sampled_rank-0.json.gz testdata/pyspy/01_json_locals_pyspy505.json
    for n in 1 2 3; do
        "$tracecat" convert --tz UTC --threads $n "$@" -o "$tmp/t$n.json" 2>"$tmp/t$n.err" || fail "convert --threads $n"
        "$tracecat" cat --tz UTC --threads $n "$@" >"$tmp/t$n.lines" 2>>"$tmp/t$n.err" || fail "cat --threads $n"
        # the Chrome writer formats spans of the events on the threads, a filter's too
        "$tracecat" convert --tz UTC --threads $n --name '*e*' "$@" -o "$tmp/f$n.json" || fail "convert --name --threads $n"
    done
    for n in 2 3; do
        cmp "$tmp/t1.json" "$tmp/t$n.json" || fail "chrome output differs on $n threads"
        cmp "$tmp/t1.lines" "$tmp/t$n.lines" || fail "lines differ on $n threads"
        cmp "$tmp/t1.err" "$tmp/t$n.err" || fail "warnings differ on $n threads"
        cmp "$tmp/f1.json" "$tmp/f$n.json" || fail "filtered chrome output differs on $n threads"
    done
    # one rank read from two inputs is one Chrome process
    "$tracecat" convert --tz UTC "$rec" testdata/chrome/hta/trace_filter/sampled_rank-1.json.gz -o "$tmp/g.json" || fail convert
    grep -qF '"name":"rank 1","rank":1}' "$tmp/g.json" || fail "no rank 1 group"
    ;;
*)
    echo "cli.sh: unknown case $case" >&2; exit 2 ;;
esac
exit 0
