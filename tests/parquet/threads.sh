#!/bin/bash
# threads.sh TRACECAT SRCDIR (issue 18 item 5): `convert --to parquet` of several inputs on two
# threads (the next input read while one is written) writes the same files, byte for byte, as on
# one; and a bad input in the middle still leaves the inputs before it written, on both.
set -u
tracecat=$1 src=$2
. "$(dirname "$0")/../lib.sh"
g=$src/testdata/gt
inputs=("$g/gt-tiny-visualize_demo-1worker.log" "$g/gt-server-2workers.log"
        "$g/gt-mlp-4workers-autoshard.log" "$g/gt-trace-capture-2workers.log")
count() { find "$@" -name '*.parquet' | wc -l; }
for th in 1 2; do
    run_cmd 0 "$tracecat" convert --threads $th --to parquet "${inputs[@]}" -o "$tmp/t$th/"
done
[ "$(count "$tmp/t1")" -gt 14 ] || fail "want a file per table and input"
diff -r "$tmp/t1" "$tmp/t2" >/dev/null || fail "--threads 2 wrote other files than --threads 1"
for th in 1 2; do
    run_cmd 1 "$tracecat" convert --threads $th --to parquet "${inputs[@]:0:2}" "$tmp/missing.log" \
        "${inputs[2]}" -o "$tmp/m$th/"
    expect_err "missing.log: cannot open"
    n=$(count "$tmp/m$th")
    [ "$n" = "$(count "$tmp/t1"/*/part-gt-tiny* "$tmp/t1"/*/part-gt-server*)" ] ||
        fail "--threads $th: $n files after a bad third input, want the first two inputs' files"
done
