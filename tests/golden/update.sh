#!/bin/sh
# update.sh [BUILD_DIR]: regenerate every golden file from the current build.
# Review the diff (git diff tests/golden) before committing.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tracecat=${1:-$root/build}/tracecat
cd "$root"
find testdata/gt -type f \( -name '*.log' -o -name '*.txt' \) | sort | while read -r log; do
    rel=${log#testdata/gt/}
    case=$(echo "${rel%.*}" | tr '/' '_')
    "$tracecat" cat "$log" >"tests/golden/gt/$case.lines"
    "$tracecat" convert "$log" -o "tests/golden/gt/$case.json"
    "$tracecat" cat --gt-pairing=visualize --name 'Worker*' "$log" >"tests/golden/gt/$case.visualize.lines"
done
echo "golden files rewritten; review with: git diff --stat tests/golden"
