#!/bin/bash
# stream.sh TRACESTAT SRCDIR quick|all: the report computed from the stream (a tiny
# --memory, so its runs spill) is byte for byte the one computed from the model:
# the default report's text, --json, each of its CSV tables, --dot and a few
# options of the sections (every one but gpu-breakdown and gpu-kernels; io
# when no slice is an I/O call).
#
# The model path is forced by what cannot stream: standard input (one input) or
# a tar archive (several).  The stream path is checked to be taken (-vvv says
# how many sorted runs it spilled).  The inputs' names are the only difference
# (a path against "-"), so the "input:" lines and JSON "path" fields are masked.
# The stream spills into a directory of its own, which must be empty after.
# A report asking for a section that needs the model says so on stderr and
# prints the model's report, as does a stream whose slices hold I/O calls when
# the io section or the stragglers are asked.  A GT log at the default budget
# goes through the reorder window while reading (-vvv says) and spills no run.  quick: small generated GT and Kineto inputs, a
# py-spy dump, a Kineto rank with NCCL kernels, two GT logs; all: those and
# every sample under testdata/ that streams.
set -u
stat=$1 src=$2 mode=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 checked=0 skipped=0
mkdir "$tmp/spill"

mask() { sed -E -e 's/^input: .* \(([a-z-]+)\)$/input: X (\1)/' -e 's/"path":"([^"\\]|\\.)*"/"path":"X"/g' "$1"; }

# One comparison: NAME STDIN STREAM_ARGS... -- MODEL_ARGS..., in every output form.
compare() {
    local name=$1 stdin=$2
    shift 2
    local sargs=() margs=() side=s
    for a in "$@"; do
        if [ "$a" = "--" ]; then side=m; continue; fi
        if [ $side = s ]; then sargs+=("$a"); else margs+=("$a"); fi
    done
    local forms=("" "--json" "--csv lanes" "--csv ops" "--csv categories" "--csv io-ranks" \
        "--csv io-modules" "--csv hot" "--csv stragglers" "--csv hangs" "--csv gpu-streams" \
        "--csv gpu-devices" "--section ops,lanes --sort count --top 0 --gaps 5" \
        "--section hot --per-thread --by-total --json" \
        "--section hangs --ignore-lines --main-thread --json" \
        "--section hangs --by-function --depth 4 --python-only" "--dot")
    for form in "${forms[@]}"; do
        # shellcheck disable=SC2086
        "$stat" "${sargs[@]}" $form --memory 1M --tmpdir "$tmp/spill" --width 120 -vvv \
            >"$tmp/s.out" 2>"$tmp/s.err"
        local src=$?
        if [ -n "$(ls -A "$tmp/spill")" ]; then
            echo "FAIL $name ($form): spilled runs left behind"; ls -A "$tmp/spill"; fail=1; return
        fi
        # all: a sample whose reader reads it whole is not this test's.
        if ! grep -q "sorted runs spilled" "$tmp/s.err"; then
            if [ "$mode" = all ]; then skipped=$((skipped + 1)); return; fi
            echo "FAIL $name ($form): not computed from the stream"; cat "$tmp/s.err"; fail=1; return
        fi
        if [ $src -ne 0 ]; then
            echo "FAIL $name ($form): the stream path failed"; cat "$tmp/s.err"; fail=1; return
        fi
        # shellcheck disable=SC2086
        if [ -n "$stdin" ]; then
            "$stat" "${margs[@]}" $form --width 120 <"$stdin" >"$tmp/m.out" 2>"$tmp/m.err"
        else
            "$stat" "${margs[@]}" $form --width 120 >"$tmp/m.out" 2>"$tmp/m.err"
        fi || { echo "FAIL $name ($form): the model path failed"; cat "$tmp/m.err"; fail=1; return; }
        if ! cmp -s <(mask "$tmp/s.out") <(mask "$tmp/m.out"); then
            echo "FAIL $name ($form): the stream's report differs from the model's"
            diff <(mask "$tmp/s.out") <(mask "$tmp/m.out") | head -20
            fail=1; return
        fi
    done
    checked=$((checked + 1))
}

one() { compare "$1" "$1" "$1" -- -; }

# Several inputs: the model reads them from a tar archive (archives do not stream).
several() {
    local name=$1
    shift
    tar -C "$(dirname "$1")" -cf "$tmp/several.tar" $(for f in "$@"; do basename "$f"; done)
    compare "$name" "" "$@" -- "$tmp/several.tar"
}

# A GT log at the default budget: its events go out through the reorder
# window while reading, none reaches the sorter, and the report is the model's.
window() {
    local in=$1
    "$stat" "$in" --json -vvv >"$tmp/s.out" 2>"$tmp/s.err"
    "$stat" - --json <"$in" >"$tmp/m.out" 2>/dev/null
    if ! grep -Eq "tracestat: [1-9][0-9]* events counted while reading, 0 sorted runs spilled" \
        "$tmp/s.err"; then
        echo "FAIL window $in: no event counted while reading, or runs spilled"; cat "$tmp/s.err"
        fail=1
    elif ! cmp -s <(mask "$tmp/s.out") <(mask "$tmp/m.out"); then
        echo "FAIL window $in: the report differs from the model's"; fail=1
    fi
}

# A section that needs the model: said once on stderr, and the model's report printed.
fallback() {
    local in=$1
    shift
    "$stat" "$in" "$@" --memory 1M -vvv >"$tmp/s.out" 2>"$tmp/s.err"
    "$stat" - "$@" <"$in" >"$tmp/m.out" 2>/dev/null
    if ! grep -q "read.* the whole trace into memory, past the 1 MiB budget" "$tmp/s.err" ||
        grep -q "sorted runs spilled" "$tmp/s.err"; then
        echo "FAIL fallback $*: not said, or streamed"; cat "$tmp/s.err"; fail=1
    elif ! cmp -s <(mask "$tmp/s.out") <(mask "$tmp/m.out"); then
        echo "FAIL fallback $*: the report differs from the model's"; fail=1
    fi
}

# I/O calls in a stream: the io section (and the stragglers' I/O time) reads the model, said.
io_fallback() {
    cat >"$tmp/io.json" <<'JSON'
{"traceEvents":[
{"name":"compute","ph":"X","ts":0,"dur":100,"pid":1,"tid":1},
{"name":"write","ph":"X","ts":10,"dur":20,"pid":1,"tid":1,"args":{"path":"/data/out","bytes":4096}},
{"name":"compute","ph":"X","ts":0,"dur":150,"pid":2,"tid":1},
{"name":"read","ph":"X","ts":20,"dur":30,"pid":2,"tid":1,"args":{"path":"/data/in","bytes":100}}
]}
JSON
    for sec in io stragglers; do
        "$stat" "$tmp/io.json" --section $sec --json --memory 1M >"$tmp/s.out" 2>"$tmp/s.err"
        "$stat" - --section $sec --json <"$tmp/io.json" >"$tmp/m.out" 2>/dev/null
        if ! grep -q "2 I/O calls need the io section, which reads the whole trace: reading it into memory" \
            "$tmp/s.err"; then
            echo "FAIL io fallback ($sec): not said"; cat "$tmp/s.err"; fail=1
        elif ! cmp -s <(mask "$tmp/s.out") <(mask "$tmp/m.out"); then
            echo "FAIL io fallback ($sec): the report differs from the model's"; fail=1
        fi
    done
}

td=$src/testdata
python3 "$src/tests/bench/gen_gt.py" 10000 "$tmp/gen.log" >/dev/null
python3 "$src/tests/bench/chrome/gen_kineto.py" "$tmp/kineto.json" 1000 >/dev/null
one "$tmp/gen.log"
one "$tmp/kineto.json"
one "$td/pyspy/11_sglang_multiprocess_xargs_concat.txt"
# NCCL kernels overlapping compute: the gpu section's unions.
one "$td/hang/kineto-rank1-one-allreduce-fewer.json.gz"
# Two processes: the stragglers have rows.
several "two GT logs" "$td/gt/gt-server-2workers.log" "$td/gt/gt-trace-capture-2workers.log"
window "$tmp/gen.log"
# A clock that steps back after events went out: read again, sorted, said at -vv.
awk 'NR == 5000 { sub(/^ *[0-9.]+s/, "  0.001s") } { print }' "$tmp/gen.log" >"$tmp/back.log"
"$stat" "$tmp/back.log" --json -vv >"$tmp/s.out" 2>"$tmp/s.err"
"$stat" - --json <"$tmp/back.log" >"$tmp/m.out" 2>/dev/null
if ! grep -q "the input is not in time order: reading it again, sorted" "$tmp/s.err" ||
    ! cmp -s <(mask "$tmp/s.out") <(mask "$tmp/m.out"); then
    echo "FAIL back in time: not read again, or the report differs from the model's"; fail=1
fi
fallback "$tmp/kineto.json" --section gpu-kernels
fallback "$tmp/kineto.json" --section lanes,gpu-breakdown --json
io_fallback
if [ "$mode" = all ]; then
    compare "step names" "$tmp/kineto.json" "$tmp/kineto.json" --step 'aten::*' --k 1 -- - --step 'aten::*' --k 1
    while IFS= read -r f; do one "$f"; done < <(find "$td/gt" "$td/chrome" "$td/pyspy" "$td/hang" \
        -type f \( -name '*.log' -o -name '*.json' -o -name '*.txt' -o -name '*.gz' \) |
        grep -v -e '/legacy/' -e '\.expected\.txt$' -e SOURCES | sort)
fi
echo "$checked inputs compared, $skipped not streamed"
[ "$checked" -gt 0 ] || fail=1
exit $fail
