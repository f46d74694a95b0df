#!/bin/bash
# stream.sh TRACEVIZ SRCDIR quick|all: a timeline or flame graph drawn through the
# stream (a tiny --memory, so its sorters spill) is byte for byte the one drawn
# from the model.
#
# The model path is forced by what cannot stream: standard input (one input)
# or a tar archive (several).  The stream path is checked to be taken (-vvv
# says how many sorted runs it spilled).  PNG and SVG bytes are compared.
# quick: small generated GT and Kineto inputs, a window, two GT logs, a flame
# graph; all: those, lane filters, --annotate, the flame graph's other forms and
# every sample under testdata/ that streams, as a timeline.
set -u
viz=$1 src=$2 mode=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 checked=0 skipped=0

# One comparison: STREAM_ARGS... -- MODEL_ARGS... (each drawn as PNG and SVG).
compare() {
    local name=$1 stdin=$2
    shift 2
    local sargs=() margs=() side=s
    for a in "$@"; do
        if [ "$a" = "--" ]; then side=m; continue; fi
        if [ $side = s ]; then sargs+=("$a"); else margs+=("$a"); fi
    done
    for fmt in png svg; do
        "$viz" "${sargs[@]}" --memory 1M --title T -vvv -o "$tmp/s.$fmt" 2>"$tmp/s.err"
        local src=$?
        # all: a sample whose reader reads it whole, or that draws nothing, is not this test's.
        if ! grep -q "sorted runs spilled" "$tmp/s.err"; then
            if [ "$mode" = all ]; then skipped=$((skipped + 1)); return; fi
            echo "FAIL $name ($fmt): not drawn through the stream"; cat "$tmp/s.err"; fail=1; return
        fi
        if [ $src -ne 0 ]; then
            echo "FAIL $name ($fmt): the stream path failed"; cat "$tmp/s.err"; fail=1; return
        fi
        if [ -n "$stdin" ]; then
            "$viz" "${margs[@]}" --title T -o "$tmp/m.$fmt" <"$stdin" 2>"$tmp/m.err"
        else
            "$viz" "${margs[@]}" --title T -o "$tmp/m.$fmt" 2>"$tmp/m.err"
        fi || { echo "FAIL $name ($fmt): the model path failed"; cat "$tmp/m.err"; fail=1; return; }
        if ! cmp -s "$tmp/s.$fmt" "$tmp/m.$fmt"; then
            echo "FAIL $name ($fmt): the stream's picture differs from the model's"; fail=1; return
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

td=$src/testdata
# quick: generated GT and Kineto inputs (counters, flows), a window, several inputs, a flame graph.
python3 "$src/tests/bench/gen_gt.py" 10000 "$tmp/gen.log"
python3 "$src/tests/bench/chrome/gen_kineto.py" "$tmp/kineto.json" 1000
one "$tmp/gen.log"
one "$tmp/kineto.json"
# A window: the first pass sees more than the second draws.
compare "window" "$tmp/gen.log" "$tmp/gen.log" --since 0.05s --until 0.1s -- - --since 0.05s --until 0.1s
several "two GT logs" "$td/gt/gt-server-2workers.log" "$td/gt/gt-trace-capture-2workers.log"
py=$td/pyspy/11_sglang_multiprocess_xargs_concat.txt
compare "flame" "$py" "$py" --kind flame -- - --kind flame
if [ "$mode" = all ]; then
    # Lane filters sort everything before the first pass; ids; the flame graph's other forms.
    compare "tracks" "$tmp/gen.log" "$tmp/gen.log" --tracks 'worker*' -- - --tracks 'worker*'
    compare "annotate" "$td/gt/gt-server-2workers.log" "$td/gt/gt-server-2workers.log" --annotate -- - --annotate
    compare "icicle per thread" "$py" "$py" --kind icicle --per-thread -- - --kind icicle --per-thread
    compare "flame reversed" "$py" "$py" --kind flame --reverse -- - --kind flame --reverse
    while IFS= read -r f; do one "$f"; done < <(find "$td/gt" "$td/chrome" "$td/pyspy" "$td/hang" \
        -type f \( -name '*.log' -o -name '*.json' -o -name '*.txt' -o -name '*.gz' \) |
        grep -v -e '/legacy/' -e '\.expected\.txt$' -e SOURCES | sort)
fi
echo "$checked inputs compared, $skipped not streamed"
[ "$checked" -gt 0 ] || fail=1
exit $fail
