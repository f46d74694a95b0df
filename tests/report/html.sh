#!/usr/bin/env bash
# tests/report/html.sh TRACESTAT SRCDIR CASE: tracestat --html (issue 23, items 8-9).
#   content  the page of each sample kind: its sections, figures, sortable tables, nothing
#            fetched from elsewhere, trace text escaped (a py-spy dump whose names are markup);
#            --html and --follow against the other outputs, --follow without one LOG
#   kinds    traceviz --kind heatmap, access, ops and stree: sizes, what each drew, and the usage error
#            of a plot whose data the trace lacks
#   browser  the pages opened offline in headless Chromium (tests/report/browser.mjs, driven by
#            playwright-core from $TR_PLAYWRIGHT_DIR, default build/pw): no console error, tables
#            sort, the flame graph zooms; a screenshot of every section in $TR_SHOTS_DIR when set.
#            Exit 77 (skipped) without chromium, node or playwright-core.
set -u
ts=$1 src=$2 case=$3
. "$(dirname "$0")/../lib.sh"
cd "$src" || fail "no $src"

# Writes the page of INPUT... to $tmp/NAME.html.
page() {
    local name=$1; shift
    run_cmd 0 "$ts" "$@" --html "$tmp/$name.html"
    [ ! -s "$tmp/out" ] || fail "$name: --html printed to stdout"
}

# The ids of the sections of page NAME, in order, on one line.
sections() { grep -o '<section[^>]*id="[a-z-]*"' "$tmp/$1.html" | sed 's/.*id="//; s/"$//' | tr '\n' ' '; }

hostile() {
    cat >"$tmp/hostile.txt" <<'DUMP'
Process 7: python evil.py
Python v3.12.3 (/usr/bin/python3.12)

Thread 7 (active): "<script>alert(1)</script>"
    <img src=x onerror=alert(2)> (a&b.py:1)
    main ("quoted".py:2)
DUMP
}

gt_mlp=testdata/gt/gt-mlp-4workers-autoshard.log
case $case in
content)
    page gt testdata/gt/gt-mlp-4workers-autoshard.log
    [ "$(sections gt)" = "overview lanes ops timeline opmix heatmap " ] || fail "gt sections: $(sections gt)"
    page rec testdata/recorder/iomix-4r
    [ "$(sections rec)" = "overview lanes ops timeline opmix io access heatmap stragglers " ] ||
        fail "recorder sections: $(sections rec)"
    # 10: the I/O section's Darshan modules table (issue 19) is the tenth.
    [ "$(grep -c '<table class="sortable">' "$tmp/rec.html")" = 10 ] || fail "recorder: not 10 tables"
    grep -q '<td>STDIO_OPENS</td>' "$tmp/rec.html" || fail "recorder: no STDIO_OPENS row"
    grep -q '<td>/tmp/tracecat/iomix-4r/shared.mpiio</td><td class="r">4 shared</td>' "$tmp/rec.html" ||
        fail "recorder: no shared file row"
    page dumps testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt
    [ "$(sections dumps)" = "overview timeline flame hot stragglers hangs stree " ] ||
        fail "py-spy sections: $(sections dumps)"
    grep -q '<iframe width="[0-9]*" height="[0-9]*" title="flame" src="data:image/svg+xml;base64,' \
        "$tmp/dumps.html" || fail "py-spy: no flame graph iframe"
    for p in gt rec dumps; do
        ! grep -Eq '(src|href)="(https?:)?//' "$tmp/$p.html" || fail "$p: fetches from elsewhere"
        grep -q '<img width="[0-9]*" height="[0-9]*" alt="timeline" src="data:image/png;base64,' \
            "$tmp/$p.html" || fail "$p: no timeline picture"
    done
    hostile
    page hostile "$tmp/hostile.txt"
    ! grep -q '<script>alert\|<img src=x' "$tmp/hostile.html" || fail "trace text not escaped"
    grep -q '<td>&lt;img src=x onerror=alert(2)&gt; (a&amp;b.py)</td>' "$tmp/hostile.html" ||
        fail "the escaped frame is missing"
    run_cmd 2 "$ts" --html "$tmp/x.html" --json testdata/gt/gt-tiny-visualize_demo-1worker.log
    expect_err 'exclude each other'
    run_cmd 2 "$ts" --follow --json testdata/gt/gt-tiny-visualize_demo-1worker.log
    expect_err 'exclude each other'
    run_cmd 2 "$ts" --follow testdata/gt/gt-tiny-visualize_demo-1worker.log "$gt_mlp"
    expect_err '--follow takes one LOG'
    run_cmd 1 "$ts" --follow "$tmp/no-such.log"
    expect_err 'no-such.log: No such file or directory'
    run_cmd 1 "$ts" --html "$tmp/no/such/dir/x.html" testdata/gt/gt-tiny-visualize_demo-1worker.log
    [ ! -e "$tmp/no" ] || fail "a failed run left a file"
    ;;
kinds)
    tv=$(dirname "$ts")/traceviz
    rec=testdata/recorder/iomix-4r gt=testdata/gt/gt-mlp-4workers-autoshard.log
    run_cmd 0 "$tv" -v --kind heatmap "$rec" -o "$tmp/h.png"
    expect_err "h.png: 2400x296 px, 4 rows"
    run_cmd 0 "$tv" -v --kind heatmap "$gt" -o "$tmp/h.svg"
    expect_err "h.svg: 2400x427 px, 9 rows"
    run_cmd 0 "$tv" -v --kind access "$rec" -o "$tmp/a.png"
    # 4 files: shared.mpiio (8 writes) and posix_rank0-2.dat (2 reads, 4 writes each).
    expect_err "a.png: 2400x1021 px, 4 rows, 26 marks drawn, 0 merged"
    run_cmd 0 "$tv" -v --kind ops "$gt" -o "$tmp/o.pdf"
    expect_err "o.pdf: 2400x[0-9]* px, 9 rows"
    run_cmd 0 "$tv" -v --kind stree testdata/hang/vllm-two-nodes-line.txt -o "$tmp/s.png"
    expect_err "s.png: 2400x796 px, 2 rows"
    run_cmd 2 "$tv" --kind stree "$gt" -o "$tmp/x.png"
    expect_err "a stack tree needs the stack samples of two or more threads"
    run_cmd 2 "$tv" --kind access "$gt" -o "$tmp/x.png"
    expect_err "an access plot needs reads or writes at known offsets of named files"
    run_cmd 2 "$tv" --kind pie "$gt" -o "$tmp/x.png"
    expect_err "heatmap, access, ops or stree"
    [ ! -e "$tmp/x.png" ] || fail "a failed plot left a file"
    ;;
browser)
    chromium=$(command -v chromium || command -v chromium-browser) || exit 77
    command -v node >/dev/null || exit 77
    pw=${TR_PLAYWRIGHT_DIR:-$src/build/pw}
    [ -d "$pw/node_modules/playwright-core" ] || exit 77
    page gt testdata/gt/gt-mlp-4workers-autoshard.log
    page rec testdata/recorder/iomix-4r
    page dumps testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt
    page kineto testdata/hang/kineto-rank1-one-allreduce-fewer.json.gz
    hostile
    page hostile "$tmp/hostile.txt"
    shots=${TR_SHOTS_DIR:-$tmp/shots}
    mkdir -p "$shots"
    node "$src/tests/report/browser.mjs" "$pw" "$chromium" "$shots" "$tmp"/*.html >"$tmp/out" 2>"$tmp/err" ||
        { cat "$tmp/out" >&2; fail "the browser check failed"; }
    cat "$tmp/out"
    for p in gt rec dumps kineto hostile; do grep -q "^$p: loaded" "$tmp/out" || fail "$p not checked"; done
    ;;
*) fail "unknown case $case" ;;
esac
