#!/bin/sh
# update.sh [BUILD_DIR]: rewrite the golden files of every Chrome sample in
# testdata/chrome (tests/golden/chrome/<case>.info.json and .lines).
#
# .info.json is `tracecat info --json`; .lines is `tracecat cat`, cut to its
# first 300 lines (<case>.head.lines instead) when the whole output passes
# 512 KiB, to keep the repository small (no golden file over ~2 MB).
#
# How they were checked by hand against the JSON (see also tests/test_chrome.c):
# for each file the counts in .info.json were compared with the phase counts
# of testdata/chrome/SOURCES.md (X -> slices, B+E pairs -> slices, i/I/R and
# N/O/D/c -> instants, C args -> counters, s/f pairs -> flows, samples/P ->
# samples); first and last lines of .lines were compared with the first
# events of the file (ts relative to the first event, in seconds); warnings
# were compared with the known oddities of each sample (unclosed B in
# main_thread_has_unclosed_slices, unmatched E in too-many-end-events, X
# without dur in simple*.json, string ts with junk in string_ts_trailing_chars).
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
tracecat=$(cd "${1:-$root/build}" && pwd)/tracecat
gold=$root/tests/golden/chrome
cd "$root/testdata/chrome"
find . -type f \( -name '*.json' -o -name '*.gz' -o -name '*.zip' \) ! -name '*.expected.txt' |
    sed 's|^\./||' | sort | while read -r f; do
    case=$(echo "$f" | sed 's|/|_|g; s|\.[^.]*$||; s|\.json$||')
    "$tracecat" info --json "$f" >"$gold/$case.info.json" 2>/dev/null || true
    "$tracecat" cat "$f" >"$gold/$case.tmp" 2>/dev/null || true
    rm -f "$gold/$case.lines" "$gold/$case.head.lines"
    if [ "$(wc -c <"$gold/$case.tmp")" -gt 524288 ]; then
        head -n 300 "$gold/$case.tmp" >"$gold/$case.head.lines"
        rm -f "$gold/$case.tmp"
    else
        mv "$gold/$case.tmp" "$gold/$case.lines"
    fi
done
echo "chrome golden files rewritten; review with: git diff --stat tests/golden/chrome"
