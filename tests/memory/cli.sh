#!/bin/bash
# cli.sh TRACECAT ROOT CASE: streaming cat and convert (issue 18) from the command line.
#   equal    every sample in testdata/: the stream (--memory 1M) prints what the model does
#   spill    a generated GT log under --memory 8M: runs spilled and merged, the same output,
#            no spill directory left
#   fail     no room to spill, and a write that fails after spilling: exit 1, nothing left
#   sigterm  SIGTERM while the runs are being merged: nothing left
set -u
tracecat=$1 root=$2 case=$3
. "$(dirname "$0")/../lib.sh"
cd "$root"
run() { run_cmd "$1" "$tracecat" "${@:2}"; } # run WANT_EXIT ARGS...
spill=$tmp/spill
mkdir "$spill"

# The spill directory holds nothing, and $tmp no hidden temporary.
nothing_left() {
    [ -z "$(ls -A "$spill")" ] || fail "left in --tmpdir: $(ls -A "$spill")"
    ! ls -a "$tmp" | grep -q 'tracecat-spill\|\.tmp' || fail "left in $tmp: $(ls -a "$tmp")"
}

# A filter that keeps every event makes tracecat read into the model: the reference.
in_memory() { "$tracecat" cat -q --name '*' "$@"; }

gen_log() { python3 tests/bench/gen_gt.py "$1" "$tmp/big.log" || fail "gen_gt.py"; }

case $case in
equal)
    n=0
    while IFS= read -r f; do
        in_memory "$f" >"$tmp/want" 2>/dev/null
        want=$?
        "$tracecat" cat -q --memory 1M --tmpdir "$spill" "$f" >"$tmp/out" 2>"$tmp/err"
        got=$?
        [ "$got" = "$want" ] || fail "$f: exit $got, the model's $want"
        cmp -s "$tmp/out" "$tmp/want" || fail "$f: the stream prints other lines than the model"
        n=$((n + 1))
    done < <(find testdata -type f ! -name '*.md' | sort)
    [ "$n" -gt 300 ] || fail "only $n samples"
    nothing_left
    ;;
spill)
    gen_log 100000
    in_memory "$tmp/big.log" >"$tmp/want" || fail "in memory"
    run 0 cat -vv --memory 8M --tmpdir "$spill" "$tmp/big.log"
    expect_err "tracecat: 4 sorted runs spilled"
    cmp -s "$tmp/out" "$tmp/want" || fail "spilled and merged: other lines than the model"
    nothing_left
    # convert spills beside its output by default
    run 0 convert -vv --memory 1M "$tmp/big.log" -o "$tmp/big.tsv"
    expect_err "tracecat: 26 sorted runs spilled"
    cmp -s "$tmp/big.tsv" "$tmp/want" || fail "convert --to lines: other lines than the model"
    rm "$tmp/big.tsv"
    nothing_left
    ;;
fail)
    gen_log 100000
    run 1 convert --memory 8M --assume-free-bytes 1000 "$tmp/big.log" -o "$tmp/big.tsv"
    expect_err "spill-[0-9]*.tmp[A-Za-z0-9]*: no room to spill 4377088 bytes (1000 free): name another place with --tmpdir"
    [ -e "$tmp/big.tsv" ] && fail "a failed convert left its output"
    nothing_left
    # the runs are on disk when the merged lines cannot be written
    run_cmd 1 sh -c '"$0" cat --memory 1M --tmpdir "$1" "$2" >/dev/full' "$tracecat" "$spill" \
        "$tmp/big.log"
    expect_err "No space left on device"
    nothing_left
    run 2 cat --memory 100K "$tmp/big.log"
    expect_err "bad --memory '100K' (a size of at least 1M: 8M, 2G)"
    ;;
sigterm)
    gen_log 100000
    # The lines go to a pipe no one reads: tracecat blocks writing them with its runs on disk.
    mkfifo "$tmp/pipe"
    exec 3<>"$tmp/pipe"
    "$tracecat" cat --memory 1M --tmpdir "$spill" "$tmp/big.log" >"$tmp/pipe" 2>"$tmp/err" &
    pid=$!
    trap 'kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
    runs() { find "$spill" -type f | grep -q .; }
    for _ in $(seq 600); do
        runs && break
        sleep 0.05
    done
    runs || fail "no runs spilled"
    sleep 0.2
    kill -TERM "$pid"
    wait "$pid"
    got=$?
    exec 3>&-
    [ "$got" = 143 ] || fail "exit $got after SIGTERM, want 143"
    nothing_left
    ;;
*)
    echo "cli.sh: unknown case $case" >&2
    exit 2
    ;;
esac
exit 0
