#!/bin/bash
# viz.sh TRACEVIZ SRCDIR CASE: one command-line test of traceviz.  Each case
# checks the exit status and what was written, not just the exit.
set -u
traceviz=$1 src=$2 case=$3
. "$(dirname "$0")/../lib.sh"
mlp=$src/testdata/gt/gt-mlp-4workers-autoshard.log
folded=$src/testdata/pyspy/12_raw_folded_gevent_pyspy179.txt
dumps=$src/testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt
# run EXPECTED_STATUS ARGS...: traceviz ARGS in $tmp, where relative outputs land
run() { (cd "$tmp" && run_cmd "$1" "$traceviz" "${@:2}") || exit 1; }
# png_size FILE: "WIDTHxHEIGHT" from the PNG header.
png_size() {
    od -An -tu1 -j16 -N8 "$1" |
        awk '{printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}'
}
have() { command -v "$1" >/dev/null; }

case $case in
help)
    run 0 --help; grep -q "Usage: traceviz" "$tmp/out" || fail "no usage"
    for opt in --kind --dpi --width --height --since --until --tracks --ranks --title --no-legend \
               --annotate --reverse --per-thread --color-by --min-width --output; do
        grep -q -- "$opt" "$tmp/out" || fail "--help lacks $opt"
    done
    run 0 --version; grep -q "traceviz 0" "$tmp/out" || fail "no version"
    run 2 --no-such-option "$mlp"; expect_err "Try 'traceviz --help'"
    run 2; expect_err "no INPUT"
    run 2 --kind pie "$mlp"; expect_err "timeline, flame, icicle, heatmap, access, ops or stree"
    run 2 --dpi 0 "$mlp"; expect_err "bad --dpi"
    run 2 --ranks 3-1 "$mlp"; expect_err "bad --ranks"
    run 2 --since 5parsecs "$mlp"; expect_err "bad time"
    run 2 "$mlp" -o out.jpg; expect_err "picture format"
    [ -e "$tmp/out.jpg" ] && fail "wrote out.jpg"
    ;;
gt-visualize-options)
    # GT's own command line: traceviz /tmp/debug.log --output timeline.png --dpi 200
    run 0 "$mlp" --output timeline.png --dpi 200
    [ "$(head -c 4 "$tmp/timeline.png" | tail -c 3)" = PNG ] || fail "not a PNG"
    size=$(png_size "$tmp/timeline.png")
    # 16 in at 200 dpi wide; as tall as the lanes need, at most 10 in.
    [ "${size%x*}" = 3200 ] && [ "${size#*x}" -gt 600 ] && [ "${size#*x}" -le 2000 ] || fail "size $size"
    run 0 "$mlp" --width 8 --height 5 -o small.png
    [ "$(png_size "$tmp/small.png")" = 1200x750 ] || fail "size $(png_size "$tmp/small.png")"
    # The default output is timeline.png, as GT's.
    rm -f "$tmp/timeline.png"; run 0 "$mlp"; [ -s "$tmp/timeline.png" ] || fail "no timeline.png"
    ;;
formats)
    run 0 "$mlp" -o t.svg; grep -q "<svg" "$tmp/t.svg" || fail "no SVG"
    run 0 "$mlp" -o t.pdf; [ "$(head -c 5 "$tmp/t.pdf")" = "%PDF-" ] || fail "not a PDF"
    if have pdftotext; then
        pdftotext "$tmp/t.pdf" "$tmp/t.txt"
        for want in "worker auto_worker_0" "worker auto_worker_3" "client 006b8b456b" "GT dispatcher" \
                    UnaryOp BinaryOp RECV WORKER_SEND "Timeline of gt-mlp"; do
            grep -q "$want" "$tmp/t.txt" || fail "PDF text lacks '$want'"
        done
    fi
    run 0 "$mlp" -o - --format svg; grep -q "<svg" "$tmp/out" || fail "no SVG on stdout"
    run 2 "$mlp" -o -; expect_err "needs --format"
    ;;
filters)
    run 0 "$mlp" --tracks 'worker*' --since 0.2s --until 0.4s --title 'Workers only' --no-legend -o w.pdf
    if have pdftotext; then
        pdftotext "$tmp/w.pdf" "$tmp/w.txt"
        grep -q "Workers only" "$tmp/w.txt" || fail "no title"
        grep -q "client" "$tmp/w.txt" && fail "a client lane is drawn"
        grep -q "Slices" "$tmp/w.txt" && fail "a legend is drawn"
        grep -q "200ms" "$tmp/w.txt" || fail "no tick at the window's start"
    fi
    run 0 "$src/testdata/recorder/iomix-4r" --ranks 1,3 -o r.pdf
    if have pdftotext; then
        pdftotext "$tmp/r.pdf" "$tmp/r.txt"
        grep -q "rank 1" "$tmp/r.txt" && grep -q "rank 3" "$tmp/r.txt" || fail "ranks 1 and 3 missing"
        grep -q "rank 2" "$tmp/r.txt" && fail "rank 2 drawn"
    fi
    run 0 "$mlp" --annotate --since 0.2s --until 0.25s -o a.pdf
    if have pdftotext; then
        pdftotext "$tmp/a.pdf" - | grep -q "#14" || fail "no instruction ids"
    fi
    ;;
flame)
    run 0 "$folded" --kind flame -o f.svg
    for want in '<title>all (1000 samples, 100.00%)' \
                '<title>run (gevent/hub.py:582) (499 samples, 49.90%)' \
                '<title>wait (gevent/_threading.py:84) (500 samples, 50.00%)'; do
        grep -qF "$want" "$tmp/f.svg" || fail "flame SVG lacks $want"
    done
    if have python3; then
        python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$tmp/f.svg" || fail "not XML"
    fi
    run 0 "$dumps" --kind icicle --reverse --per-thread -o f.png
    size=$(png_size "$tmp/f.png")
    [ "${size%x*}" = 2400 ] && [ "${size#*x}" -le 1500 ] || fail "size $size"
    run 0 "$dumps" --kind flame --color-by module --min-width 5 -o f.pdf -v; expect_err "samples"
    # The default output of a flame graph is flame.svg.
    run 0 "$folded" --kind flame; [ -s "$tmp/flame.svg" ] || fail "no flame.svg"
    # No stack samples: a usage error, and nothing written.
    run 2 "$mlp" --kind flame -o g.svg; expect_err "no stack samples"
    [ -e "$tmp/g.svg" ] && fail "wrote g.svg"
    ;;
atomic)
    echo keep >"$tmp/t.png"
    run 1 "$tmp/missing.log" -o t.png
    [ "$(cat "$tmp/t.png")" = keep ] || fail "clobbered t.png"
    run 1 "$mlp" -o /nonexistent-dir/t.png; expect_err "nonexistent-dir"
    [ "$(ls -A "$tmp" | grep -v -e '^out$' -e '^err$' -e '^t.png$')" = "" ] || fail "a temporary file was left"
    ;;
*)
    fail "no such case"
    ;;
esac
exit 0
