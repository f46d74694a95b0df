#!/bin/sh
# check.sh TRACECAT ROOT CASE KIND: runs tracecat on testdata/pyspy/CASE.* from
# ROOT (so the path inside `info --json` is relative) and compares with
# tests/golden/pyspy/CASE.KIND.  KIND: info (`tracecat info --json`) or lines
# (`tracecat cat`).  update.sh rewrites the expected files.
set -eu
tracecat=$1 root=$2 case=$3 kind=$4
cd "$root"
input=$(ls testdata/pyspy/"$case".* | head -n 1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $kind in
info) "$tracecat" info --json "$input" >"$tmp/out" ;;
lines) "$tracecat" cat "$input" >"$tmp/out" ;;
*) echo "check.sh: unknown kind $kind" >&2; exit 2 ;;
esac
if ! diff -u "tests/golden/pyspy/$case.$kind" "$tmp/out" >"$tmp/diff"; then
    head -n 40 "$tmp/diff"
    echo "golden mismatch: tests/golden/pyspy/$case.$kind (run tests/golden/pyspy/update.sh, review the diff)" >&2
    exit 1
fi
