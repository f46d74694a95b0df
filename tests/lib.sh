# tests/lib.sh: what the command-line test scripts share.  Source it from bash
# after setting `case` (optional: it names the case in messages):
#     . "$(dirname "$0")/../lib.sh"
# It makes the scratch directory $tmp (removed on exit) and defines:
#   fail MSG...              "FAIL [case]: MSG", then the stderr of the last run; exits 1
#   run_cmd WANT CMD ARG...  runs CMD with stdout in $tmp/out, stderr in $tmp/err, stdin from
#                            $tmp/in when it exists (else /dev/null); fails unless it exits WANT
#   expect_out RE            $tmp/out has a line matching RE (grep's basic regex); else shows
#                            the first lines of $tmp/out and fails
#   expect_err RE            $tmp/err has a line matching RE
#   same_golden FILE         $tmp/out equals FILE; TR_UPDATE_GOLDEN=1 rewrites FILE instead
#                            (then review the diff before committing)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL${case:+ [$case]}: $*" >&2
    [ -s "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err" >&2
    exit 1
}

run_cmd() {
    local want=$1 in=/dev/null
    shift
    [ -f "$tmp/in" ] && in=$tmp/in
    "$@" >"$tmp/out" 2>"$tmp/err" <"$in"
    local got=$?
    [ "$got" = "$want" ] || fail "exit $got, want $want: $*"
}

expect_out() {
    grep -q -- "$1" "$tmp/out" && return
    sed -n '1,20s/^/  stdout: /p' "$tmp/out" >&2
    fail "stdout lacks '$1'"
}
expect_err() { grep -q -- "$1" "$tmp/err" || fail "stderr lacks '$1'"; }

same_golden() {
    if [ "${TR_UPDATE_GOLDEN:-0}" = 1 ]; then cp "$tmp/out" "$1"; fi
    diff -u "$1" "$tmp/out" >&2 || fail "stdout differs from ${1#"${src:-}"/}"
}
