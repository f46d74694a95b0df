#!/bin/bash
# wrong_include.sh SRCDIR: .ci/check-layers passes on a copy of the tree's
# sources and fails on the copy with one wrong include injected, naming it,
# for each kind of wrong arrow.
set -u
src=$1
. "$src/tests/lib.sh"

# The .c and .h files of the folders the check reads.
mkdir "$tmp/t"
(cd "$src" && find lib readers writers render bin tests -name '*.[ch]' -print0 |
    xargs -0 cp --parents -t "$tmp/t") || fail "cannot copy the tree"
run_cmd 0 "$src/.ci/check-layers" "$tmp/t"
expect_out '^lib -> lib ([0-9]*)$'

# FILE HEADER FOLDER: FILE (new in the copy) including HEADER is an arrow to FOLDER.
while read -r file header folder; do
    printf '#include "%s"\n' "$header" >"$tmp/t/$file"
    run_cmd 1 "$src/.ci/check-layers" "$tmp/t"
    expect_err "^$file:1: .* may not include .* ($folder)$"
    rm "$tmp/t/$file"
done <<'CASES'
lib/x.c tr_readers.h readers
lib/x.h ../writers/tr_writers.h writers
readers/x.c tr_writers.h writers
writers/x.c ../render/tr_render.h render
render/x.c tr_readers.h readers
bin/tracesniff/x.c ../tracerecord/rr_impl.h bin/tracerecord
CASES
