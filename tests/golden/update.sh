#!/bin/sh
# update.sh [-b BUILD_DIR] [CASE...]: rewrites the golden files of the named
# cases (ctest names, with or without "golden."; shell patterns such as
# 'chrome.*' allowed), or of every case, from BUILD_DIR/tracecat (default
# build/).  An output of at most 32 KiB is kept whole, a larger one as its
# summary <file>.sum (cases.sh says why and what a summary holds).  Review the
# diff (git diff tests/golden) before committing: a golden changes only for a
# bug fix, named in the commit.
#
# How the golden files were first checked by hand against their inputs:
# - pyspy: processes, threads, stacks root first, states, locals, pseudo-times
#   of concatenated dumps, the error instant of sample 08.
# - chrome (see also tests/test_chrome.c): the counts in .info.json against the
#   phase counts of testdata/chrome/SOURCES.md (X -> slices, B+E pairs ->
#   slices, i/I/R and N/O/D/c -> instants, C args -> counters, s/f pairs ->
#   flows, samples/P -> samples); the first and last lines of .lines against
#   the first events of the file (ts relative to the first event, in seconds);
#   warnings against the known oddities of each sample (unclosed B in
#   main_thread_has_unclosed_slices, unmatched E in too-many-end-events, X
#   without dur in simple*.json, string ts with junk in string_ts_trailing_chars).
set -eu
. "$(dirname "$0")/cases.sh"
build=$golden_root/build
if [ "${1:-}" = -b ]; then
    build=$(cd "$2" && pwd)
    shift 2
fi
tracecat=$build/tracecat
[ -x "$tracecat" ] || { echo "update.sh: no $tracecat (build first, or pass -b BUILD_DIR)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
golden_cases >"$tmp/cases"
while read -r name input; do
    case $name in *.chrome-valid) continue ;; esac
    wanted=$#
    for p in "$@"; do
        # shellcheck disable=SC2254
        case $name in ${p#golden.}) wanted=0 ;; esac
    done
    [ "$wanted" = 0 ] || continue
    rm -rf "$tmp/out" && mkdir "$tmp/out"
    golden_run "$name" "$input" "$tracecat" "$tmp/out"
    gold=$(golden_dir "$name")
    for out in "$tmp/out"/*; do
        f=$(basename "$out")
        if [ "$(wc -c <"$out")" -le "$GOLDEN_WHOLE_MAX" ]; then
            cp "$out" "$gold/$f"
            rm -f "$gold/$f.sum"
        else
            golden_summary "$out" >"$gold/$f.sum"
            rm -f "$gold/$f"
        fi
    done
    n=$((n + 1))
done <"$tmp/cases"
[ $n -gt 0 ] || { echo "update.sh: no case matches $* (tests/golden/check.sh --list)" >&2; exit 2; }
echo "$n golden cases rewritten; review with: git diff --stat tests/golden"
