# bash completion for tracecat, tracestat, tracesql, traceviz, tracesniff and
# tracerecord.  Options come from the binary's own --help and formats from
# 'tracecat formats', so completion follows the installed version.

_tracecat_options()
{
    "$1" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,' | sort -u
}

_tracecat_formats()
{
    local cat=tracecat
    [ -x "${1%/*}/tracecat" ] && [ "${1%/*}" != "$1" ] && cat="${1%/*}/tracecat"
    "$cat" formats 2>/dev/null | awk -v want="$2" '
        /^[A-Za-z]/ { part = tolower($1) }
        /^  / && part ~ want { print $1 }'
}

_tracecat()
{
    local cur prev prog=${COMP_WORDS[0]}
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    case $prev in
    --from) COMPREPLY=($(compgen -W "$(_tracecat_formats "$prog" read)" -- "$cur")); return ;;
    --to) COMPREPLY=($(compgen -W "$(_tracecat_formats "$prog" writ)" -- "$cur")); return ;;
    --kind) COMPREPLY=($(compgen -W "timeline flame icicle heatmap access ops stree" -- "$cur")); return ;;
    --hta-steps) COMPREPLY=($(compgen -W "complete last all" -- "$cur")); return ;;
    --gt-pairing) COMPREPLY=($(compgen -W "batch visualize" -- "$cur")); return ;;
    --tmpdir | --io-exclude | --io-include) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --layers) # tracerecord's comma-separated list: complete its last item
        local pre=${cur%"${cur##*,}"}
        COMPREPLY=($(compgen -P "$pre" -W "posix stdio mpiio mpi hdf5" -- "${cur##*,}")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_tracecat_options "$prog")" -- "$cur"))
    elif [ "${prog##*/}" = tracecat ] && [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "convert cat info formats" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

complete -o filenames -F _tracecat tracecat tracestat tracesql traceviz tracesniff tracerecord
