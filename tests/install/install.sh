#!/bin/bash
# install.sh BUILD_DIR SOURCE_DIR CASE: the installed tree (issue 22, item 7).
#   tree        cmake --install puts binaries, man pages, completions, the
#               library, its headers and libtrace.pc where they belong
#   man         every man page renders and lists every option its --help lists
#   pkgconfig   docs/example.c builds against the installed tree through
#               pkg-config alone and reads a bundled sample
#   bash        the bash completion offers options, subcommands and formats
set -euo pipefail
build=$1 src=$2 case=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
bins="tracecat tracestat tracesql traceviz tracesniff tracerecord"
fail() { echo "FAIL: $*" >&2; exit 1; }

case $case in
tree)
    for b in $bins; do
        [ -x "$prefix/bin/$b" ] || fail "bin/$b missing"
        [ -s "$prefix/share/man/man1/$b.1" ] || fail "man1/$b.1 missing"
        [ -e "$prefix/share/bash-completion/completions/$b" ] || fail "bash completion for $b missing"
    done
    [ -s "$prefix/share/zsh/vendor-completions/_tracecat" ] || fail "zsh completion missing"
    for f in libtrcore.a libtrreaders.a libtrwriters.a pkgconfig/libtrace.pc; do
        [ -s "$prefix/lib/$f" ] || fail "lib/$f missing"
    done
    [ -s "$prefix/include/tracecat/tr_trace.h" ] || fail "headers missing"
    if ls "$prefix/include/tracecat/" | grep -q '_impl\.h$\|^model\.h$'; then
        fail "internal headers installed"
    fi
    ;;
man)
    for b in $bins; do
        page=$prefix/share/man/man1/$b.1
        text=$(MANWIDTH=200 man -l "$page" 2>/dev/null) || fail "$b.1 does not render"
        grep -q "^NAME" <<<"$text" || fail "$b.1 has no NAME"
        for opt in $("$build/$b" --help | grep -oE -- '(^|[ ,])--[a-z][a-z0-9-]*' | tr -d ' ,' | sort -u); do
            grep -qF -- "$opt" <<<"$text" || fail "$b.1 lacks $opt, which --help lists"
        done
    done
    ;;
pkgconfig)
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    pkg-config --exists libtrace || fail "pkg-config does not find libtrace"
    # A sanitized build's libraries need the same compiler and runtime in the program.
    cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
    san=$(sed -n 's/^TR_SANITIZE:[A-Z]*=//p' "$build/CMakeCache.txt")
    # shellcheck disable=SC2046
    "${cc:-cc}" -std=c11 -Wall -Wextra -Werror ${san:+-fsanitize=$san} -o "$tmp/example" \
        "$prefix/share/doc/tracecat/example.c" $(pkg-config --cflags --libs libtrace) ||
        fail "example does not build"
    out=$("$tmp/example" "$src/testdata/gt/gt-tiny-visualize_demo-1worker.log")
    grep -qP '^dispatcher\t' <<<"$out" || grep -qP '\t[0-9]+\t[0-9]+$' <<<"$out" || fail "example printed: $out"
    [ "$(wc -l <<<"$out")" -ge 2 ] || fail "example printed too little: $out"
    ;;
bash)
    # shellcheck disable=SC1091
    source "$prefix/share/bash-completion/completions/tracecat"
    complete_words() {
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMPREPLY=()
        _tracecat
        printf '%s\n' "${COMPREPLY[@]}"
    }
    PATH=$prefix/bin:$PATH
    complete_words tracecat co | grep -qx convert || fail "no subcommand completion"
    complete_words tracecat convert --gt- | grep -qx -- --gt-pairing || fail "no option completion"
    complete_words traceviz --ki | grep -qx -- --kind || fail "no traceviz option completion"
    complete_words tracecat convert --to p | grep -qx parquet || fail "no --to completion"
    complete_words tracecat convert --from rec | grep -qx recorder || fail "no --from completion"
    ;;
*) fail "unknown case $case" ;;
esac
echo "ok $case"
