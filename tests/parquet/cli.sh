#!/bin/bash
# cli.sh TRACECAT SRCDIR: `tracecat convert --to parquet` on the command line:
# the layout (a file per table and input, Hive rank directories), reruns,
# refusals (bad options, another layout, a full disk), atomic files.  What the
# files hold is checked through DuckDB (tests/parquet/*.mjs).
set -u
tracecat=$1 src=$2
. "$(dirname "$0")/../lib.sh"
gt=$src/testdata/gt/gt-tiny-visualize_demo-1worker.log
gt2=$src/testdata/gt/gt-server-2workers.log
rec=$src/testdata/recorder/iomix-4r
tables="slice instant counter stack_sample trace_input process thread track flow args
        stack_profile_callsite stack_profile_frame sample_stack io"
run() { run_cmd "$1" "$tracecat" "${@:2}"; } # run EXPECTED_STATUS ARGS...
count() { find "$@" -name '*.parquet' | wc -l; }
is_parquet() {
    [ "$(head -c 4 "$1")" = PAR1 ] && [ "$(tail -c 4 "$1")" = PAR1 ] || fail "$1 is not Parquet"
}

# misuse
run 2 convert "$gt" -o "$tmp/x.json" --partition rank; expect_err "--partition is for --to parquet"
run 2 convert "$gt" -o "$tmp/d" --to parquet --partition host; expect_err "--partition takes 'rank'"
run 2 convert "$gt" -o - --to parquet; expect_err "directory"
run 2 convert "$gt" -o "$tmp/x.json" --row-group-rows 10; expect_err "--row-group-rows is for --to parquet"
run 2 convert "$gt" -o "$tmp/d" --to parquet --row-group-rows 0; expect_err "positive"
run 0 formats; grep -q '^  parquet ' "$tmp/out" || fail "formats lacks parquet"

# one input: a file per table, named after the input, and the layout file
out=$tmp/flat
run 0 convert "$gt" -o "$out/" --to parquet
[ "$(count "$out")" = 14 ] || fail "want 14 files, got $(count "$out")"
for t in $tables; do
    f=$(ls "$out/$t"/part-gt-tiny-visualize_demo-1worker.log-*.parquet) || fail "no $t part"
    is_parquet "$f"
done
grep -q '"schema_version":2' "$out/_tracecat.json" || fail "no schema_version"
grep -q '"partition":null' "$out/_tracecat.json" || fail "no partition"
# a second input adds a part per table; running the first again replaces its files
run 0 convert "$gt2" "$gt" -o "$out" --to parquet
[ "$(count "$out")" = 28 ] || fail "want 28 files after a second input, got $(count "$out")"
[ "$(ls "$out/slice" | wc -l)" = 2 ] || fail "slice: want 2 parts"
# nothing temporary is left behind
[ -z "$(find "$out" -name '.*tmp*')" ] || fail "temporary files left: $(find "$out" -name '.*tmp*')"

# the other layout in the same directory is refused
run 2 convert "$gt" -o "$out" --to parquet --partition rank; expect_err "written without --partition rank"

# partitioned: Recorder ranks 0..3 each get a directory per table
out=$tmp/ranked
run 0 convert "$rec" -o "$out" --to parquet --partition rank
for r in 0 1 2 3; do
    for t in $tables; do
        ls "$out/$t/rank=$r"/part-iomix-4r-*-r$r.parquet >/dev/null 2>&1 || fail "no $t/rank=$r part"
    done
done
grep -q '"partition":"rank"' "$out/_tracecat.json" || fail "partition not recorded"
# a GT log states no rank: the Hive default partition, unless --rank gives one
run 0 convert "$gt" -o "$out" --to parquet --partition rank
ls "$out/slice/rank=__HIVE_DEFAULT_PARTITION__"/part-gt-tiny*.parquet >/dev/null || fail "no default partition"
run 0 convert "$gt2" -o "$out" --to parquet --partition rank --rank gt-server-2workers.log=9
ls "$out/slice/rank=9"/part-gt-server-2workers.log-*-r9.parquet >/dev/null || fail "no rank=9 part"

# a full disk is found before anything is written for the input
out=$tmp/full
run 1 convert "$gt" -o "$out" --to parquet --assume-free-bytes 1000
expect_err "not enough free space"
[ "$(count "$out")" = 0 ] || fail "files written despite the free-space check"
# a bad input fails the run after the inputs before it are written (published together)
run 1 convert "$gt" "$tmp/missing.log" -o "$out" --to parquet
[ "$(count "$out")" = 14 ] || fail "want the first input's 14 files"
# a run that fails on its first input leaves no directory, not even an empty one
run 1 convert "$tmp/missing.log" -o "$tmp/none" --to parquet
[ ! -e "$tmp/none" ] || fail "a failed run left $tmp/none"
# nothing of any run is left beside the targets (temporary trees, locks)
[ -z "$(ls -A "$tmp" | grep '^\.')" ] || fail "left beside the targets: $(ls -A "$tmp" | grep '^\.')"
# an unwritable directory
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then
    run 1 convert "$gt" -o "$tmp/ro/sub" --to parquet; expect_err "cannot create"
fi
echo "ok"
