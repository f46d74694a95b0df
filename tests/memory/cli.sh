#!/bin/bash
# cli.sh TRACECAT ROOT CASE: streaming cat and convert (issue 18) from the command line.
#   equal    every sample in testdata/: the stream (--memory 1M) writes what the model does, with
#            each streaming writer (lines, folded, Chrome JSON, SQLite: the same dump, Parquet),
#            and warns as it does; equal-0 and equal-1 each take every other sample, so that
#            ctest -j2 runs the two halves at once
#   equal-quick  the same on a few samples, Chrome and Kineto ones among them, and on a generated
#            Kineto trace whose flows the reader binds through sorters that spill
#   spill    a generated GT log under --memory 8M: runs spilled and merged, the same output,
#            no spill directory left
#   fail     no room to spill, and a write that fails after spilling: exit 1, nothing left
#   sigterm  SIGTERM while the runs are being merged: nothing left
#   merged   several inputs (GT, Kineto, py-spy; two ranks; --align): merged through the stream as
#            the model merges them (lines; Chrome JSON, SQLite and Parquet with their flows), and
#            --align-on read into the model
#   window   a GT log in time order: lines written while it is read, the model's lines; `| head -1`
#            ends quietly; a log whose time goes back fails on a pipe and is sorted into a file
#   writers  Chrome JSON, SQLite and Parquet from Kineto (--memory 1M) and GT (4M): runs spilled
#            and merged, the model's output, nothing left after success, a failure and SIGTERM
# spill, fail and sigterm read a log whose first request is never answered: it holds the reorder
# window back until the window outgrows the budget and gives way to the sorter.
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

# gen_held LINES: gen_log with an unanswered request before the first record.
gen_held() {
    gen_log "$1"
    awk '!done && /^ *[0-9.]+s \| #/ {
        print "  0.100s | #0000 | RECV         | CLIENT CLIENT ffffffffff    | UnaryOp         |        10B | never answered"
        done = 1
    } { print }' "$tmp/big.log" >"$tmp/held.log" && mv "$tmp/held.log" "$tmp/big.log"
}

# same_output FMT A B: two outputs of FMT are the same: the bytes, the dump of a database
# (its pages are laid out in the order rows came), every file of a Parquet directory.
same_output() {
    case $1 in
    db) cmp -s <(sqlite3 "$2" .dump) <(sqlite3 "$3" .dump) ;;
    parquet) diff -rq "$2" "$3" >/dev/null ;;
    *) cmp -s "$2" "$3" ;;
    esac
}

# same_writers FILE PARQUET_OPTIONS OPTIONS...: Chrome JSON, SQLite and Parquet (with
# PARQUET_OPTIONS too) write from the stream what they write from the model, and stream whatever
# `cat` streams (Chrome too: the records keep the thread times).
same_writers() {
    local f=$1 pq=$2 fmt want got streams=0
    shift 2
    "$tracecat" cat -vv --tmpdir "$spill" "$@" "$f" 2>&1 >/dev/null |
        grep -q "events written while reading" && streams=1
    for fmt in json db parquet; do
        local to=(-o "$tmp/want.$fmt") out=(-o "$tmp/got.$fmt")
        # shellcheck disable=SC2206 # PARQUET_OPTIONS are words
        [ $fmt = parquet ] && to=(--to parquet $pq -o "$tmp/want.$fmt/") out=(--to parquet $pq -o "$tmp/got.$fmt/")
        "$tracecat" convert -q --name '*' "$f" "${to[@]}" >/dev/null 2>&1
        want=$?
        "$tracecat" convert -vv --tmpdir "$spill" "$@" "$f" "${out[@]}" >/dev/null 2>"$tmp/w.err"
        got=$?
        [ "$got" = "$want" ] || fail "$f: $fmt: exit $got, the model's $want"
        [ $streams = 0 ] || [ "$got" != 0 ] || grep -q "events written while reading" "$tmp/w.err" ||
            fail "$f: $fmt: read into the model, not streamed"
        [ "$got" != 0 ] || same_output $fmt "$tmp/want.$fmt" "$tmp/got.$fmt" ||
            fail "$f: $fmt: the stream writes other rows than the model"
        rm -rf "$tmp/want.$fmt" "$tmp/got.$fmt"
    done
}

# same_as_model FILE: each streaming writer's output on FILE is the model's, byte for byte, and so
# are the warnings.
same_as_model() {
    local f=$1 want got
    "$tracecat" cat -v --name '*' "$f" >"$tmp/want" 2>"$tmp/want.err"
    want=$?
    "$tracecat" cat -v --memory 1M --tmpdir "$spill" "$f" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" = "$want" ] || fail "$f: exit $got, the model's $want"
    cmp -s "$tmp/out" "$tmp/want" || fail "$f: the stream prints other lines than the model"
    cmp -s "$tmp/err" "$tmp/want.err" || fail "$f: the stream warns otherwise than the model"
    for prefix in none process,thread; do
        "$tracecat" convert -q --name '*' --folded-prefix $prefix "$f" -o "$tmp/want.folded" \
            >/dev/null 2>&1
        want=$?
        "$tracecat" convert -q --memory 1M --tmpdir "$spill" --folded-prefix $prefix "$f" \
            -o "$tmp/out.folded" >/dev/null 2>&1
        got=$?
        [ "$got" = "$want" ] || fail "$f: folded: exit $got, the model's $want"
        [ "$got" != 0 ] || cmp -s "$tmp/out.folded" "$tmp/want.folded" ||
            fail "$f: folded ($prefix): the stream writes other stacks than the model"
        rm -f "$tmp/out.folded" "$tmp/want.folded"
    done
    same_writers "$f" "" --memory 1M
}

case $case in
equal | equal-[01])
    n=0 done=0
    while IFS= read -r f; do
        [ "$case" = equal ] || [ "$((n % 2))" = "${case#equal-}" ] || { n=$((n + 1)) && continue; }
        same_as_model "$f"
        n=$((n + 1)) done=$((done + 1))
    done < <(find testdata -type f ! -name '*.md' | sort)
    [ "$n" -gt 300 ] || fail "only $n samples"
    [ "$case" = equal ] || [ "$done" -ge $((n / 2)) ] || fail "only $done of $n samples compared"
    nothing_left
    ;;
equal-quick)
    for f in testdata/gt/gt-mlp-4workers-autoshard.log testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt \
        testdata/pyspy/12_raw_folded_gevent_pyspy179.txt testdata/pyspy/05_deepspeed6524_unnamed_threads_truncated.txt \
        testdata/input/empty.txt testdata/chrome/catapult/flow.json \
        testdata/chrome/hta/trace_filter/sampled_rank-0.json.gz \
        testdata/chrome/perfetto/diff_tests/json_all_slice_types.json \
        testdata/chrome/speedscope/chrome-devtools/chrome69-simple.json; do
        same_as_model "$f"
    done
    # Kineto: the stream's runs and the Chrome reader's flow sorters spill and merge
    python3 tests/bench/chrome/gen_kineto.py "$tmp/k.json" 3000 || fail "gen_kineto.py"
    same_as_model "$tmp/k.json"
    run 0 cat -vv --threads 1 --memory 1M --tmpdir "$spill" "$tmp/k.json"
    expect_err "tracecat: 0 events written while reading, 7 sorted runs spilled"
    cp "$tmp/out" "$tmp/k.one"
    # on two threads runs are sorted and written behind the reading, in half the room each
    run 0 cat -vv --threads 2 --memory 1M --tmpdir "$spill" "$tmp/k.json"
    expect_err "tracecat: 0 events written while reading, 8 sorted runs spilled"
    cmp -s "$tmp/out" "$tmp/k.one" || fail "spilled behind: other lines than on one thread"
    # the folded writer takes the streaming path, its records handed over as read, none sorted
    run 0 convert -vv --tmpdir "$spill" testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt \
        -o "$tmp/s.folded"
    expect_err "tracecat: 14 events written while reading, 0 sorted runs spilled"
    rm "$tmp/s.folded"
    # and so do Chrome JSON (after reading), SQLite and Parquet (while reading)
    f=testdata/gt/gt-mlp-4workers-autoshard.log
    run 0 convert -vv --tmpdir "$spill" $f -o "$tmp/s.json"
    expect_err "tracecat: 0 events written while reading, 0 sorted runs spilled"
    run 0 convert -vv --tmpdir "$spill" $f -o "$tmp/s.db"
    expect_err "tracecat: 5660 events written while reading, 0 sorted runs spilled"
    run 0 convert -vv --tmpdir "$spill" $f --to parquet -o "$tmp/s.pq/"
    expect_err "tracecat: 5660 events written while reading, 0 sorted runs spilled"
    rm -r "$tmp/s.json" "$tmp/s.db" "$tmp/s.pq"
    # more than one row group, and one part per rank
    same_writers $f "--row-group-rows 1000 --partition rank" --memory 1M
    nothing_left
    ;;
spill)
    gen_held 100000
    in_memory "$tmp/big.log" >"$tmp/want" || fail "in memory"
    run 0 cat -vv --threads 1 --memory 8M --tmpdir "$spill" "$tmp/big.log"
    expect_err "tracecat: 0 events written while reading, 4 sorted runs spilled"
    cmp -s "$tmp/out" "$tmp/want" || fail "spilled and merged: other lines than the model"
    run 0 cat -vv --threads 2 --memory 8M --tmpdir "$spill" "$tmp/big.log"
    expect_err "tracecat: 0 events written while reading, 8 sorted runs spilled"
    cmp -s "$tmp/out" "$tmp/want" || fail "spilled behind and merged: other lines than the model"
    nothing_left
    # convert spills beside its output by default
    run 0 convert -vv --threads 1 --memory 1M "$tmp/big.log" -o "$tmp/big.tsv"
    expect_err "tracecat: 0 events written while reading, 52 sorted runs spilled"
    cmp -s "$tmp/big.tsv" "$tmp/want" || fail "convert --to lines: other lines than the model"
    rm "$tmp/big.tsv"
    nothing_left
    ;;
fail)
    gen_held 100000
    run 1 convert --memory 8M --assume-free-bytes 1000 "$tmp/big.log" -o "$tmp/big.tsv"
    expect_err "spill-[0-9]*.tmp-[0-9]*-[0-9a-f]*-[A-Za-z0-9]*: no room to spill 4377088 bytes (1000 free): name another place with --tmpdir"
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
    gen_held 100000
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
window)
    gen_log 20000
    in_memory "$tmp/big.log" >"$tmp/want" || fail "in memory"
    run 0 cat -vv --tmpdir "$spill" "$tmp/big.log"
    expect_err "tracecat: 22772 events written while reading, 0 sorted runs spilled"
    cmp -s "$tmp/out" "$tmp/want" || fail "the window prints other lines than the model"
    # a reader that went away: the exit is SIGPIPE's, with nothing said and nothing left
    run_cmd 0 sh -c '"$0" cat --tmpdir "$1" "$2" | head -1' "$tracecat" "$spill" "$tmp/big.log"
    head -1 "$tmp/want" | cmp -s - "$tmp/out" || fail "| head -1: not the first line"
    [ -s "$tmp/err" ] && fail "| head -1 said: $(cat "$tmp/err")"
    (
        set -o pipefail
        "$tracecat" cat --tmpdir "$spill" "$tmp/big.log" | head -1 >/dev/null
        [ $? = 141 ] || exit 1
    ) || fail "| head -1: tracecat did not end of SIGPIPE"
    nothing_left
    # time goes back after the first batch went out
    awk 'NR == 15000 { sub(/^ *[0-9.]+s/, "  0.001s") } { print }' "$tmp/big.log" >"$tmp/back.log"
    run 1 cat "$tmp/back.log"
    expect_err "tracecat: $tmp/back.log: an event at 0.001000000 s comes after the events up to 5.449000000 s were written: the input is not in time order (with -o FILE it is sorted instead)"
    run 0 cat -vv "$tmp/back.log" -o "$tmp/back.tsv"
    expect_err "tracecat: the input is not in time order: reading it again, sorted"
    in_memory "$tmp/back.log" | cmp -s - "$tmp/back.tsv" || fail "sorted again: other lines"
    rm "$tmp/back.tsv"
    nothing_left
    ;;
merged)
    # same_inputs ARGS...: the stream of several inputs (--memory 1M) is the model's (read one input
    # after the other, as the stream reads them: the threads' loader shows fewer warnings), warnings
    # included
    same_inputs() {
        "$tracecat" cat -v --threads 1 --name '*' "$@" >"$tmp/want" 2>"$tmp/want.err" ||
            fail "in memory: $*"
        run 0 cat -vv --memory 1M --tmpdir "$spill" "$@"
        expect_err "tracecat: 0 events written while reading, [0-9]* sorted runs spilled"
        grep -v "events written while reading" "$tmp/err" >"$tmp/got.err"
        cmp -s "$tmp/out" "$tmp/want" || fail "$*: the stream prints other lines than the model"
        "$tracecat" cat -v --memory 1M --tmpdir "$spill" "$@" 2>"$tmp/err" >/dev/null
        cmp -s "$tmp/err" "$tmp/want.err" || fail "$*: the stream warns otherwise than the model"
    }
    hta=testdata/chrome/hta/trace_filter
    python3 tests/bench/chrome/gen_kineto.py "$tmp/k.json" 2000 || fail "gen_kineto.py"
    same_inputs "$hta/sampled_rank-0.json.gz" "$hta/sampled_rank-1.json.gz"
    same_inputs testdata/gt/gt-mlp-4workers-autoshard.log "$tmp/k.json" \
        testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt testdata/chrome/catapult/flow.json
    same_inputs --align testdata/chrome/catapult/flow.json=5s testdata/chrome/catapult/flow.json
    same_inputs --align "$tmp/k.json=-2.5s" "$tmp/k.json" testdata/gt/gt-server-2workers.log
    # an input named twice is read once
    same_inputs "$tmp/k.json" "$tmp/k.json"
    # writers_inputs ARGS...: Chrome JSON, SQLite and Parquet (an input a part) stream several
    # inputs (flows numbered across them) and write what they write from the model
    writers_inputs() {
        local fmt to ref
        for fmt in json db parquet; do
            to=(-o "$tmp/got.$fmt") ref=(-o "$tmp/want.$fmt")
            [ $fmt = parquet ] && to=(--to parquet -o "$tmp/got.$fmt/") ref=(--to parquet -o "$tmp/want.$fmt/")
            "$tracecat" convert -q --threads 1 --name '*' "$@" "${ref[@]}" 2>/dev/null ||
                fail "$fmt: in memory: $*"
            run 0 convert -vv --memory 1M --tmpdir "$spill" "$@" "${to[@]}"
            grep -q "tracecat: 0 events written while reading, [1-9][0-9]* sorted runs spilled" \
                "$tmp/err" || fail "$fmt: $*: not streamed and spilled: $(tail -1 "$tmp/err")"
            same_output $fmt "$tmp/want.$fmt" "$tmp/got.$fmt" || fail "$fmt: $*: other rows than the model"
            rm -r "$tmp/want.$fmt" "$tmp/got.$fmt"
        done
    }
    writers_inputs "$hta/sampled_rank-0.json.gz" "$hta/sampled_rank-1.json.gz"
    writers_inputs testdata/gt/gt-mlp-4workers-autoshard.log "$tmp/k.json" \
        testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt testdata/chrome/catapult/flow.json \
        testdata/chrome/perfetto/diff_tests/json_all_slice_types.json
    # --align-on needs the events of all inputs: they are read into the model
    run 0 cat -vv --align-on 'aten::linear' "$tmp/k.json" testdata/gt/gt-server-2workers.log
    ! grep -q "events written while reading" "$tmp/err" || fail "--align-on streamed"
    nothing_left
    ;;
writers)
    # a Kineto trace: its records and the Chrome reader's flow sorters spill in each writer
    python3 tests/bench/chrome/gen_kineto.py "$tmp/k.json" 3000 || fail "gen_kineto.py"
    for fmt in json db parquet; do
        to=(-o "$tmp/got.$fmt") ref=(-o "$tmp/want.$fmt")
        [ $fmt = parquet ] && to=(--to parquet -o "$tmp/got.$fmt/") ref=(--to parquet -o "$tmp/want.$fmt/")
        "$tracecat" convert -q --name '*' "$tmp/k.json" "${ref[@]}" || fail "$fmt: Kineto in memory"
        run 0 convert -vv --memory 1M --tmpdir "$spill" "$tmp/k.json" "${to[@]}"
        grep -q "tracecat: 0 events written while reading, [1-9][0-9]* sorted runs spilled" \
            "$tmp/err" || fail "$fmt: Kineto: no runs spilled: $(tail -1 "$tmp/err")"
        same_output $fmt "$tmp/want.$fmt" "$tmp/got.$fmt" || fail "$fmt: Kineto: other rows than the model"
        rm -r "$tmp/want.$fmt" "$tmp/got.$fmt"
        nothing_left
    done
    # a dataset directory is made at the end: the runs spill beside it, not in it
    run 0 convert -vv --memory 1M "$tmp/k.json" --to parquet -o "$tmp/got.parquet/"
    expect_err "tracecat: 0 events written while reading, [1-9][0-9]* sorted runs spilled"
    rm -r "$tmp/got.parquet"
    nothing_left
    gen_held 100000
    for fmt in json db parquet; do
        to=(-o "$tmp/big.$fmt") ref=(-o "$tmp/want.$fmt")
        [ $fmt = parquet ] && to=(--to parquet -o "$tmp/big.$fmt/") ref=(--to parquet -o "$tmp/want.$fmt/")
        "$tracecat" convert -q --name '*' "$tmp/big.log" "${ref[@]}" || fail "$fmt: in memory"
        run 0 convert -vv --memory 4M --tmpdir "$spill" "$tmp/big.log" "${to[@]}"
        grep -q "tracecat: [0-9]* events written while reading, [1-9][0-9]* sorted runs spilled" \
            "$tmp/err" || fail "$fmt: no runs spilled: $(cat "$tmp/err")"
        same_output $fmt "$tmp/want.$fmt" "$tmp/big.$fmt" || fail "$fmt: spilled: other rows than the model"
        rm -r "$tmp/want.$fmt" "$tmp/big.$fmt"
        nothing_left
        # no room to spill: nothing is written, nothing left
        run 1 convert --memory 4M --tmpdir "$spill" --assume-free-bytes 1000 "$tmp/big.log" "${to[@]}"
        expect_err "no room to spill"
        [ -e "$tmp/big.$fmt" ] && fail "$fmt: a failed convert left its output"
        nothing_left
    done
    # SIGTERM with runs on disk: Chrome JSON blocks writing to a pipe no one reads; Parquet is
    # stopped while it reads
    mkfifo "$tmp/pipe"
    exec 3<>"$tmp/pipe"
    runs() { find "$spill" -type f | grep -q .; }
    for fmt in json parquet; do
        if [ $fmt = json ]; then
            "$tracecat" convert --memory 1M --tmpdir "$spill" "$tmp/big.log" -o - >"$tmp/pipe" \
                2>"$tmp/err" &
        else
            gen_held 400000
            "$tracecat" convert --memory 1M --tmpdir "$spill" "$tmp/big.log" --to parquet \
                -o "$tmp/big.pq/" 2>"$tmp/err" &
        fi
        pid=$!
        for _ in $(seq 1200); do
            runs && break
            sleep 0.05
        done
        runs || fail "$fmt: no runs spilled"
        kill -TERM "$pid"
        wait "$pid"
        got=$?
        [ "$got" = 143 ] || fail "$fmt: exit $got after SIGTERM, want 143"
        [ -e "$tmp/big.pq" ] && fail "$fmt: SIGTERM left the output"
        nothing_left
    done
    exec 3>&-
    ;;
*)
    echo "cli.sh: unknown case $case" >&2
    exit 2
    ;;
esac
exit 0
