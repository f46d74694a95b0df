#!/bin/sh
# check.sh TRACECAT CASE [INPUT]: runs the golden case CASE (named as its ctest,
# with or without "golden."; cases.sh lists them and says what each runs) on
# its INPUT (looked up when not given) and compares every output with its
# golden file: the whole file, or the summary <file>.sum of an output kept as
# a summary (then a diff of the summaries shows what changed).
# check.sh --list: the cases, "NAME INPUT" a line, for tests/CMakeLists.txt.
# tests/golden/update.sh [CASE...] rewrites the golden files.
set -eu
. "$(dirname "$0")/cases.sh"
if [ "${1:-}" = --list ]; then
    golden_cases
    exit 0
fi
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: check.sh TRACECAT CASE [INPUT] | check.sh --list" >&2; exit 2; }
tracecat=$1 name=${2#golden.} input=${3:-}
[ -n "$input" ] || input=$(golden_cases | awk -v n="$name" '$1 == n { print $2 }')
[ -n "$input" ] || { echo "check.sh: no golden case $name" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case $name in
*.chrome-valid)
    # Loads with Python's json module, one instant per record line of the log.
    cd "$golden_root"
    "$tracecat" convert "$input" -o "$tmp/out.json"
    exec python3 tests/golden/check_chrome.py "$tmp/out.json" "$input"
    ;;
esac

mkdir "$tmp/out"
golden_run "$name" "$input" "$tracecat" "$tmp/out"
gold=$(golden_dir "$name")
fail=0
for out in "$tmp/out"/*; do
    f=$(basename "$out")
    if [ -f "$gold/$f" ]; then
        diff -u "$gold/$f" "$out" >>"$tmp/diff" || fail=1
    elif [ -f "$gold/$f.sum" ]; then
        golden_summary "$out" | diff -u "$gold/$f.sum" - >>"$tmp/diff" || fail=1
    else
        echo "no golden file $gold/$f or $gold/$f.sum" >>"$tmp/diff"
        fail=1
    fi
done
if [ $fail -ne 0 ]; then
    head -n 60 "$tmp/diff"
    echo "golden mismatch: $name (run tests/golden/update.sh $name and review the diff)" >&2
    exit 1
fi
