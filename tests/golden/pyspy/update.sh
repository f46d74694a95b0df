#!/bin/sh
# update.sh [BUILD_DIR]: rewrite the expected files of every testdata/pyspy sample.
# Review the diff before committing: each expected file was checked by hand
# against its input (processes, threads, stacks root first, states, locals,
# pseudo-times of concatenated dumps, the error instant of sample 08).
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
tracecat=${1:-$root/build}/tracecat
cd "$root"
for input in testdata/pyspy/*; do
    case $input in *SOURCES.md) continue ;; esac
    name=$(basename "$input")
    case=${name%.*}
    "$tracecat" info --json "$input" >"tests/golden/pyspy/$case.info"
    "$tracecat" cat "$input" >"tests/golden/pyspy/$case.lines"
done
echo "pyspy golden files rewritten; review with: git diff tests/golden/pyspy"
