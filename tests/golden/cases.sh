#!/bin/sh
# cases.sh: the golden cases, in one place for tests/CMakeLists.txt (which runs
# `sh cases.sh` to list them), check.sh and update.sh (which source it).
#
# A case is named as its ctest is, without the leading "golden.":
#   gt.<log>.lines         `tracecat cat LOG`                        -> gt/<log>.lines
#   gt.<log>.chrome        `tracecat convert LOG -o x.json`          -> gt/<log>.json
#   gt.<log>.visualize     `tracecat cat --gt-pairing=visualize --name 'Worker*' LOG`
#                                                                    -> gt/<log>.visualize.lines
#   gt.<log>.chrome-valid  the Chrome JSON checked by check_chrome.py (check.sh; no golden file)
#   pyspy.<sample>.info    `tracecat info --json SAMPLE`             -> pyspy/<sample>.info
#   pyspy.<sample>.lines   `tracecat cat SAMPLE`                     -> pyspy/<sample>.lines
#   chrome.<sample>        `tracecat info --json` and `tracecat cat` from testdata/chrome, stderr and
#                          exit status ignored                       -> chrome/<sample>.info.json, .lines
# Inputs are named relative to the project root (testdata/chrome for chrome.*)
# because the outputs record input paths.
#
# A golden file is kept whole when the output is at most GOLDEN_WHOLE_MAX bytes
# (32 KiB: small enough to read in a review); a larger output is kept as
# <file>.sum, a summary (sha256, size, lines, events per kind, first and last
# lines) whose sha256 catches any change and whose other lines say what changed.

GOLDEN_WHOLE_MAX=32768

# golden_root: the project root (this file is tests/golden/cases.sh).
golden_root=$(cd "$(dirname "$0")/../.." && pwd)

# golden_cases: one line "NAME INPUT" per case.  A case is named after its
# input's path below the family's folder, "/" made "_", without the extension
# (and without .json before .gz).
golden_cases() {
    (
        cd "$golden_root" || exit 1
        {
            find testdata/gt -type f \( -name '*.log' -o -name '*.txt' \)
            find testdata/pyspy -maxdepth 1 -type f -name '[0-9]*'
            find testdata/chrome -type f \( -name '*.json' -o -name '*.gz' -o -name '*.zip' \)
        } | LC_ALL=C sort | awk '{
            split($0, part, "/")
            family = part[2]
            c = substr($0, length("testdata/" family "/") + 1)
            gsub("/", "_", c)
            sub(/\.[^.]*$/, "", c)
            if (family == "gt") {
                n = split("lines chrome visualize chrome-valid", kind, " ")
                for (i = 1; i <= n; i++) print "gt." c "." kind[i], $0
            } else if (family == "pyspy") {
                print "pyspy." c ".info", $0
                print "pyspy." c ".lines", $0
            } else {
                sub(/\.json$/, "", c)
                print "chrome." c, $0
            }
        }'
    )
}

# golden_run NAME INPUT TRACECAT DIR: writes the outputs of case NAME into DIR,
# each under its golden file's name (gt/x.lines is DIR/x.lines).  Runs from the
# project root; fails as the command fails, except for chrome.* (see above).
golden_run() {
    name=$1 input=$2 tracecat=$3 dir=$4
    case=${name#*.}
    base=${case%.*}
    (
        cd "$golden_root" || exit 1
        case $name in
        gt.*.lines) "$tracecat" cat "$input" >"$dir/$base.lines" ;;
        gt.*.chrome) "$tracecat" convert "$input" -o "$dir/$base.json" ;;
        gt.*.visualize)
            "$tracecat" cat --gt-pairing=visualize --name 'Worker*' "$input" >"$dir/$base.visualize.lines" ;;
        pyspy.*.info) "$tracecat" info --json "$input" >"$dir/$base.info" ;;
        pyspy.*.lines) "$tracecat" cat "$input" >"$dir/$base.lines" ;;
        chrome.*)
            cd testdata/chrome || exit 1
            "$tracecat" info --json "${input#testdata/chrome/}" >"$dir/$case.info.json" 2>/dev/null || true
            "$tracecat" cat "${input#testdata/chrome/}" >"$dir/$case.lines" 2>/dev/null || true
            ;;
        *) echo "no golden case $name" >&2; exit 2 ;;
        esac
    )
}

# golden_dir NAME: the folder of the case's golden files.
golden_dir() {
    echo "$golden_root/tests/golden/${1%%.*}"
}

# golden_summary FILE: the summary of an output too large to keep whole.
golden_summary() {
    echo "# summary of an output over $GOLDEN_WHOLE_MAX bytes (tests/golden/cases.sh): the sha256 decides"
    echo "sha256 $(sha256sum <"$1" | cut -d' ' -f1)"
    echo "bytes $(wc -c <"$1")"
    echo "lines $(wc -l <"$1")"
    # Events per kind: the "ph" of Chrome JSON (an event a line), else the first column of `tracecat cat`.
    case $1 in
    *.json) LC_ALL=C grep -o '^{[^{]*"ph":"[^"]*"' "$1" | sed 's/.*"ph":"/ph /; s/"$//' ;;
    *) LC_ALL=C cut -f1 "$1" | sed 's/^/kind /' ;;
    esac | LC_ALL=C sort | LC_ALL=C uniq -c | awk '{print $2, $3, $1}'
    head -n 5 "$1" | LC_ALL=C cut -c1-200 | sed 's/^/first /'
    tail -n 3 "$1" | LC_ALL=C cut -c1-200 | sed 's/^/last /'
}
