#!/bin/bash
# run.sh MODDIR SCRIPT ARGS...: runs a DuckDB check (node SCRIPT ARGS...) with
# @duckdb/node-api installed from npm into MODDIR (once; .ci/run installs it
# before ctest).  Exits 77 (skipped) when node or npm is missing or the
# package cannot be installed (no network), saying so.
set -u
moddir=$1
shift
version=1.5.6-r.1
if ! command -v node >/dev/null; then
    echo "SKIP: node is not installed (the DuckDB checks need @duckdb/node-api from npm)"
    exit 77
fi
if [ ! -f "$moddir/node_modules/@duckdb/node-api/package.json" ]; then
    if ! command -v npm >/dev/null; then
        echo "SKIP: npm is not installed (the DuckDB checks need @duckdb/node-api)"
        exit 77
    fi
    mkdir -p "$moddir"
    # ctest -j runs several checks at once: one installs, the others wait.
    (
        flock 9
        [ -f "$moddir/node_modules/@duckdb/node-api/package.json" ] ||
            npm install --prefix "$moddir" --no-audit --no-fund --loglevel=error \
                "@duckdb/node-api@$version" >"$moddir/npm.log" 2>&1
    ) 9>"$moddir/.lock"
    if [ ! -f "$moddir/node_modules/@duckdb/node-api/package.json" ]; then
        echo "SKIP: npm install @duckdb/node-api@$version failed (offline?); see $moddir/npm.log"
        tail -n 5 "$moddir/npm.log" 2>/dev/null
        exit 77
    fi
fi
DUCKDB_MODULES=$moddir exec node "$@"
