#!/bin/sh
# check_chrome.sh TRACECAT LOG: convert LOG to Chrome JSON and check it with Python.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" convert "$2" -o "$tmp/out.json"
python3 "$(dirname "$0")/check_chrome.py" "$tmp/out.json" "$2"
