#!/bin/sh
# check.sh TRACECAT KIND INPUT EXPECTED [OPTION...]
# Runs tracecat on INPUT (KIND: lines = `tracecat cat`, chrome = `tracecat convert
# -o x.json`) and compares its output with the EXPECTED golden file.
# INPUT is relative to the project root, as update.sh names it, because the
# outputs record input paths.  tests/golden/update.sh rewrites the golden files.
set -eu
tracecat=$1 kind=$2 input=$3 expected=$4
cd "$(dirname "$0")/../.."
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $kind in
lines) "$tracecat" cat "$@" "$input" >"$tmp/out" ;;
chrome) "$tracecat" convert "$@" "$input" -o "$tmp/out.json" && mv "$tmp/out.json" "$tmp/out" ;;
*) echo "check.sh: unknown kind $kind" >&2; exit 2 ;;
esac
if ! diff -u "$expected" "$tmp/out" >"$tmp/diff"; then
    head -n 40 "$tmp/diff"
    echo "golden mismatch: $expected (run tests/golden/update.sh and review the diff)" >&2
    exit 1
fi
