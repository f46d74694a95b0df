#!/bin/bash
# cli.sh TRACECAT SRCDIR CASE: one command-line test of tracecat.  Each case
# checks the exit status and the content of stdout/stderr, not just the exit.
set -u
tracecat=$1 src=$2 case=$3
. "$(dirname "$0")/../lib.sh"
tiny=$src/testdata/gt/gt-tiny-visualize_demo-1worker.log
run() { run_cmd "$1" "$tracecat" "${@:2}"; } # run EXPECTED_STATUS ARGS...
# A log: the tiny sample's header and first records, then LINE, then more records.
log_with() {
    head -n 30 "$tiny" >"$tmp/log"
    printf '%s\n' "$1" >>"$tmp/log"
    sed -n '31,40p' "$tiny" >>"$tmp/log"
}

case $case in
help)
    run 0 --help; expect_out "Usage: tracecat"; expect_out "--gt-pairing"
    run 0 --version; expect_out "tracecat 0"
    run 2 --no-such-option; expect_err "Try 'tracecat --help'"
    run 2; expect_err "no command"
    run 2 frobnicate "$tiny"; expect_err "unknown command"
    run 2 cat --since 5parsecs "$tiny"; expect_err "bad time"
    run 2 cat --from nope "$tiny"; expect_err "unknown input format"
    run 2 convert "$tiny"; expect_err "needs -o"
    run 2 convert "$tiny" -o out.unknownext; expect_err "--to"
    ;;
formats)
    run 0 formats; expect_out "gt"; expect_out "chrome"; expect_out "lines"
    ;;
garbled-line)
    log_with "  0.300s | #9999 | RECV | garbage"
    run 0 cat "$tmp/log"
    expect_err "log:31:"; expect_err "warning"
    [ "$(grep -c '^instant' "$tmp/out")" = 20 ] || fail "want the 20 good records read"
    run 1 cat --strict "$tmp/log"; expect_err "log:31:"
    ;;
truncated-line)
    head -n 30 "$tiny" >"$tmp/log"
    printf '  0.210s | #0011 | WORKER_RE' >>"$tmp/log"
    run 0 cat "$tmp/log"; expect_err "log:31:"
    [ "$(grep -c '^instant' "$tmp/out")" = 10 ] || fail "want the 10 good records read"
    ;;
binary-junk)
    head -c 20000 /dev/urandom >"$tmp/junk"
    printf '\0\1\2\3' >>"$tmp/junk"
    run 1 info "$tmp/junk"; expect_err "junk: unrecognized format (try --from)"
    run 0 info --from gt "$tmp/junk"; expect_out "instants 0"
    ;;
empty-file)
    : >"$tmp/empty.log"
    run 1 info "$tmp/empty.log"; expect_err "empty.log: empty input"
    run 0 cat --from gt "$tmp/empty.log"
    [ ! -s "$tmp/out" ] || fail "want no output"
    ;;
zero-byte-gz)
    : >"$tmp/empty.log.gz"
    run 1 info "$tmp/empty.log.gz"; expect_err "empty input"
    gzip -c </dev/null >"$tmp/empty2.log.gz"
    run 1 info "$tmp/empty2.log.gz"; expect_err "empty input"
    ;;
truncated-gz)
    gzip -c "$src/testdata/gt/gt-mlp-4workers-autoshard.log" | head -c 30000 >"$tmp/cut.log.gz"
    run 1 cat "$tmp/cut.log.gz"; expect_err "cut.log.gz"
    ;;
long-line)
    head -n 30 "$tiny" >"$tmp/log"
    head -c 1100000 /dev/zero | tr '\0' 'x' >>"$tmp/log"
    echo >>"$tmp/log"
    run 1 cat "$tmp/log"; expect_err "log:31"
    ;;
missing-file)
    run 1 cat "$tmp/nope.log"; expect_err "nope.log"; expect_err "No such file"
    ;;
stdin)
    "$tracecat" cat - <"$tiny" >"$tmp/out" 2>"$tmp/err" || fail "stdin read failed"
    "$tracecat" cat "$tiny" >"$tmp/want"
    cmp -s "$tmp/out" "$tmp/want" || fail "stdin output differs from the file's"
    ;;
compressed)
    gzip -c "$tiny" >"$tmp/a.gz"; zstd -q -c "$tiny" >"$tmp/a.zst"
    xz -c "$tiny" >"$tmp/a.xz"; bzip2 -c "$tiny" >"$tmp/a.bz2"
    "$tracecat" cat "$tiny" >"$tmp/want"
    for f in a.gz a.zst a.xz a.bz2; do
        run 0 cat "$tmp/$f"
        cmp -s "$tmp/out" "$tmp/want" || fail "$f differs"
    done
    ;;
output-atomic)
    echo "precious" >"$tmp/out.json"
    run 1 convert "$tmp/missing.log" -o "$tmp/out.json"
    [ "$(cat "$tmp/out.json")" = precious ] || fail "a failed run clobbered the output"
    [ "$(ls -A "$tmp" | grep -c tmp)" = 0 ] || fail "a temporary file was left behind"
    run 1 convert "$tiny" -o "$tmp/no/such/dir/out.json"
    run 0 convert "$tiny" -o "$tmp/out.json.gz"
    gzip -dc "$tmp/out.json.gz" | python3 -c 'import json,sys; json.load(sys.stdin)' || fail "bad .json.gz"
    run 0 convert "$tiny" -o "$tmp/out.tsv.zst"
    zstd -dc "$tmp/out.tsv.zst" | head -n 1 | grep -q '^slice' || fail "bad .tsv.zst"
    ;;
filters)
    run 0 cat --header --name RECV --until 0.25s "$tiny"
    [ "$(head -n 1 "$tmp/out")" = "$(printf '#kind\tts\tdur\tprocess\ttrack\tcategory\tname\tvalue\targs')" ] || fail "header"
    [ "$(grep -vc '^#' "$tmp/out")" -gt 0 ] || fail "no rows"
    awk -F'\t' 'NR > 1 && ($7 != "RECV" || $2 > 0.25) {exit 1}' "$tmp/out" || fail "filter leaked"
    run 0 cat --track 'worker *' --since 200ms "$tiny"
    awk -F'\t' '$5 !~ /^worker / || $2 < 0.2 {exit 1}' "$tmp/out" || fail "track filter leaked"
    ;;
rank)
    cp "$tiny" "$tmp/r.log"
    run 0 info --json --rank r.log=3 "$tmp/r.log"; expect_out '"rank":3'
    run 2 info --rank nonsense "$tmp/r.log"
    ;;
run-folder)
    mkdir "$tmp/run"; cp "$tiny" "$tmp/run/a.log"; gzip -c "$tiny" >"$tmp/run/b.log.gz"
    echo "not a trace" >"$tmp/run/notes.md"
    run 0 info --json "$tmp/run"
    [ "$(grep -o '"format":"gt"' "$tmp/out" | wc -l)" = 2 ] || fail "want two GT inputs"
    tar -C "$tmp" -czf "$tmp/run.tar.gz" run
    run 0 info --json "$tmp/run.tar.gz"
    [ "$(grep -o '"format":"gt"' "$tmp/out" | wc -l)" = 2 ] || fail "want two GT inputs from the tarball"
    # A Recorder directory inside a run folder is read whole, not file by file.
    cp -r "$src/testdata/recorder/iomix-2r" "$tmp/run/"
    run 0 info --json "$tmp/run"
    [ "$(grep -o '"format":"recorder"' "$tmp/out" | wc -l)" = 1 ] || fail "want one Recorder input"
    [ "$(grep -o '"format":"gt"' "$tmp/out" | wc -l)" = 2 ] || fail "want two GT inputs beside it"
    ! grep -q "recorder_summary" "$tmp/err" || fail "the Recorder directory's files were read one by one"
    ;;
*)
    echo "cli.sh: unknown case $case" >&2; exit 2 ;;
esac
exit 0
