#!/bin/bash
# cli.sh TRACECAT SRCDIR CASE: the command line of issue #22 (fitting the tools
# people use): messages, the formats in --help, -o - without --to, --no-samples
# and --to speedscope.
set -u
tracecat=$1 src=$2 case=$3
. "$(dirname "$0")/../lib.sh"
tiny=$src/testdata/gt/gt-tiny-visualize_demo-1worker.log
idle=$src/testdata/pyspy/05_deepspeed6524_unnamed_threads_truncated.txt
run() { run_cmd "$1" "$tracecat" "${@:2}"; } # run EXPECTED_STATUS ARGS...

case $case in
messages)
    run 2 --bogus; [ "$(head -n 1 "$tmp/err")" = "tracecat: unknown option '--bogus'" ] || fail "message"
    [ "$(wc -l <"$tmp/err")" = 2 ] || fail "want one message and the --help hint"
    run 2 --bogus=1 cat "$tiny"; expect_err "^tracecat: unknown option '--bogus'$"
    run 2 -Z cat "$tiny"; expect_err "^tracecat: unknown option '-Z'$"
    run 2 cat "$tiny" -o; expect_err "^tracecat: option '-o' needs an argument$"
    run 2 cat "$tiny" --since; expect_err "^tracecat: option '--since' needs an argument$"
    run 2 bogus "$tiny"; expect_err "^tracecat: unknown command 'bogus'$"
    ;;
help-formats)
    # the formats --help lists are the tables' (tracecat formats), every one of them
    run 0 --help; cp "$tmp/out" "$tmp/help"
    ! grep -q "as their readers land" "$tmp/help" || fail "stale format sentence"
    run 0 formats
    for name in $(awk '/^  / {print $1}' "$tmp/out"); do
        grep -q "^  \(read\|write\): .*\b$name\b\|^ \{10\}.*\b$name\b" "$tmp/help" || fail "--help lacks $name"
    done
    grep -q "^  write: .*speedscope" "$tmp/help" || fail "--help lacks the speedscope writer"
    ;;
stdout-chrome)
    run 0 convert "$tiny" -o -
    head -c 16 "$tmp/out" | grep -q '^{"traceEvents":' || fail "-o - is not Chrome JSON"
    ;;
no-samples)
    # a py-spy sequence: three dumps of 5 threads, 2 of them idle (no frame)
    for i in 1 2 3; do
        echo "#tracecat-dump ts=1700000000.$i pid=4886"
        cat "$idle"
    done >"$tmp/seq.txt"
    run 0 convert -q "$tmp/seq.txt" -o "$tmp/a.json"
    [ "$(grep -c '^{"ts":' "$tmp/a.json")" = 9 ] || fail "want the 9 samples with a stack"
    [ "$(grep -c '^{"ts":.*"sf":' "$tmp/a.json")" = 9 ] || fail "a sample without sf"
    run 0 convert -q "$tmp/seq.txt" -o "$tmp/a.folded"
    [ "$(awk '{n += $NF} END {print n}' "$tmp/a.folded")" = 9 ] || fail "folded total is not 9"
    # the sequence alone and merged with a GT log, as a job's outputs are: Catapult's rules hold
    run_cmd 0 python3 "$(dirname "$0")/catapult_rules.py" "$tracecat" "$tmp/seq.txt" "$tiny"
    expect_out "^(all merged): .*: ok$"
    run 0 convert -q "$tmp/seq.txt" --no-samples -o "$tmp/b.json"
    ! grep -q '"samples"\|"stackFrames"' "$tmp/b.json" || fail "--no-samples wrote samples"
    [ "$(grep -c '"ph":"X"' "$tmp/b.json")" -gt 0 ] || fail "--no-samples lost the stack slices"
    ;;
speedscope)
    run 0 convert -q "$idle" --to speedscope -o "$tmp/s.speedscope"
    head -n 1 "$tmp/s.speedscope" | grep -q '"$schema":"https://www.speedscope.app/file-format-schema.json"' ||
        fail "no \$schema"
    [ "$(grep -o '"type":"sampled"' "$tmp/s.speedscope" | wc -l)" = 3 ] || fail "want 3 sampled profiles"
    run 0 convert -q "$tiny" -o "$tmp/t.speedscope"
    [ "$(grep -o '"type":"evented"' "$tmp/t.speedscope" | wc -l)" -gt 0 ] || fail "want evented profiles"
    ;;
kineto)
    k=$src/testdata/chrome/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz
    cp "$k" "$tmp/k2.json.gz" # one file named twice is read once: a copy is another input
    run 2 convert -q "$k" "$tmp/k2.json.gz" --to kineto -o "$tmp/k.json"; expect_err "one input's trace"
    run 0 convert -q "$k" --to kineto -o "$tmp/k.json"
    grep -q '^"baseTimeNanoseconds":1735632360000000000,$' "$tmp/k.json" || fail "no top-level baseTimeNanoseconds"
    grep -q '"pid":597913,"tid":598009' "$tmp/k.json" || fail "the source's pid and tid are not kept"
    ;;
*)
    fail "unknown case $case"
    ;;
esac
exit 0
