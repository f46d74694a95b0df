#!/bin/bash
# readme.sh TRACESQL SRCDIR: runs every ```sql block of README.md whose first
# line is "-- tracesql FILE" on that file, so the documented queries cannot rot.
# Each must succeed and print at least one row.
set -u
tracesql=$1 src=$2
. "$(dirname "$0")/../lib.sh"
cd "$src" || exit 1
n=0 in=0 file='' sql=''
while IFS= read -r line; do
    if [ $in = 0 ] && [ "$line" = '```sql' ]; then
        in=1 file='' sql=''
    elif [ $in = 1 ] && [ "$line" = '```' ]; then
        in=0
        [ -n "$file" ] || { echo "FAIL: a README sql block has no '-- tracesql FILE' line" >&2; exit 1; }
        n=$((n + 1))
        if ! "$tracesql" -q -m tsv "$file" -c "$sql" >"$tmp/out" 2>"$tmp/err"; then
            echo "FAIL: README query $n on $file:" >&2
            printf '%s\n' "$sql" >&2
            cat "$tmp/err" >&2
            exit 1
        fi
        [ -s "$tmp/out" ] || { echo "FAIL: README query $n on $file printed no row" >&2; printf '%s\n' "$sql" >&2; exit 1; }
    elif [ $in = 1 ]; then
        case $line in
        '-- tracesql '*) [ -z "$sql" ] && file=${line#-- tracesql } || sql+="$line"$'\n' ;;
        *) sql+="$line"$'\n' ;;
        esac
    fi
done <README.md
[ $n -ge 8 ] || { echo "FAIL: want at least 8 README queries, found $n" >&2; exit 1; }
echo "ran $n README queries"
