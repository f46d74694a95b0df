#!/bin/sh
# check.sh TRACECAT SRCDIR FILE CASE: `tracecat info --json` and `tracecat cat`
# of testdata/chrome/FILE against tests/golden/chrome/CASE.* (update.sh writes them).
set -eu
tracecat=$1 src=$2 file=$3 case=$4
gold=$src/tests/golden/chrome
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src/testdata/chrome"
"$tracecat" info --json "$file" >"$tmp/info" 2>/dev/null || true
"$tracecat" cat "$file" 2>/dev/null >"$tmp/lines" || true
fail=0
diff -u "$gold/$case.info.json" "$tmp/info" >"$tmp/diff" || fail=1
if [ -f "$gold/$case.head.lines" ]; then
    head -n 300 "$tmp/lines" | diff -u "$gold/$case.head.lines" - >>"$tmp/diff" || fail=1
else
    diff -u "$gold/$case.lines" "$tmp/lines" >>"$tmp/diff" || fail=1
fi
if [ $fail -ne 0 ]; then
    head -n 40 "$tmp/diff"
    echo "golden mismatch: $case (run tests/golden/chrome/update.sh and review the diff)" >&2
    exit 1
fi
