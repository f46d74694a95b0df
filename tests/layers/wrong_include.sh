#!/bin/bash
# wrong_include.sh SRCDIR: .ci/check-layers passes on a copy of the tree's
# sources and fails on the copy with one wrong include injected, naming it,
# for each kind of wrong arrow.
set -u
src=$1
. "$src/tests/lib.sh"

copy_tree() { # copy_tree DIR: the .c and .h files of the layer folders into DIR
    rm -rf "$1" && mkdir -p "$1"
    (cd "$src" && find lib readers writers render bin tests -name '*.[ch]' -print0 |
        xargs -0 cp --parents -t "$1") || fail "cannot copy the tree"
}

copy_tree "$tmp/clean"
run_cmd 0 "$src/.ci/check-layers" "$tmp/clean"
expect_out '^lib -> lib ([0-9]*)$'

# FILE HEADER FOLDER: FILE (new in the copy) including HEADER is an arrow to FOLDER.
while read -r file header folder; do
    copy_tree "$tmp/t"
    printf '#include "%s"\n' "$header" >"$tmp/t/$file"
    run_cmd 1 "$src/.ci/check-layers" "$tmp/t"
    expect_err "^$file:1: .* may not include .* ($folder)$"
done <<'CASES'
lib/x.c tr_readers.h readers
lib/x.h ../writers/tr_writers.h writers
readers/x.c tr_writers.h writers
writers/x.c ../render/tr_render.h render
render/x.c tr_readers.h readers
bin/tracesniff/x.c ../tracerecord/rr.h bin/tracerecord
CASES
