#!/usr/bin/env python3
"""perfetto_json.py TRACESQL SRCDIR: Perfetto's own tests of its JSON importer
(and of its flow table functions), run by tracesql on the same traces and
compared with the answers Perfetto's tests expect.

Each testdata/chrome/perfetto/**/NAME.expected.txt holds the test's query and
its expected CSV (testdata/chrome/SOURCES.md says where each comes from); the
trace is NAME.json beside it (or the one TRACES names).  The answer is printed
as Perfetto's diff tests print it ("[NULL]", strings quoted, reals with six
decimals) and compared exactly: row for row when the query orders its rows,
as a multiset when it does not (Perfetto's unordered order is its own).

DIFFERS lists the tests whose answers differ here, each with why.  A test on
the list that starts to match fails too, so the list (and the README's
"what does not carry over", which it backs) stays true.
"""
import json
import os
import re
import subprocess
import sys

TRACES = {"connected_flow": "connected_flow_data.json"}

DIFFERS = {
    "json_all_slice_types": "an E whose name differs from its B closes it here (Perfetto leaves "
    "it open, dur -1) and adds its args; null args are kept; a global instant is on its "
    "thread's track and an R mark is an instant (Perfetto has neither in thread_or_process_slice)",
    "json_extreme_vals": "an E whose name differs from its B closes it here (as Catapult does; "
    "Perfetto leaves the B open, dur -1)",
    "json_sort_index_hints": "sort index hints are process.sort_index here, not args "
    "(process.arg_set_id is NULL); Perfetto adds a main thread (tid = pid) to every process",
    "json_sort_index_ordering": "as json_sort_index_hints",
    "json_counter_args": "the values match; tracesql's JSON output prints a whole real as an "
    "integer (246, not 246.000000), which this comparison cannot tell from an int",
    "json_id2_global_int_id": "no track.type (track.kind has tracecat's names)",
    "json_id2_global_string_id": "no track.type",
    "json_id2_local_int_id": "no track.type",
    "json_id2_local_string_id": "no track.type",
    "overlapping_complete_event_import_log": "no _trace_import_logs (tracecat warns on stderr)",
    "trailing_empty_event": "no stats table",
}


def cell(v):
    if v is None:
        return '"[NULL]"'
    if isinstance(v, str):
        return '"%s"' % v
    if isinstance(v, float):
        return "%f" % v
    return str(v)


def case(tracesql, path):
    name = os.path.basename(path)[: -len(".expected.txt")]
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^-- trace_processor query[^\n]*\n(.*?)^-- expected CSV[^\n]*\n(.*)", text,
                  re.S | re.M)
    query, want = m.group(1), [l.strip() for l in m.group(2).strip().splitlines()]
    trace = os.path.join(os.path.dirname(path), TRACES.get(name, name + ".json"))
    p = subprocess.run([tracesql, trace, "-q", "--mode", "json", "-c", query],
                       capture_output=True, text=True)
    if p.returncode != 0:
        got = ["error: " + p.stderr.strip()]
    else:
        # pairs, not a dict: a query may name two columns alike (process.name, track.name)
        rows = json.loads(p.stdout, object_pairs_hook=list) if p.stdout.strip() else []
        got = [want[0]] + [",".join(cell(v) for _, v in r) for r in rows]
    ordered = re.search(r"\border\s+by\b", query, re.I) is not None
    same = got == want if ordered else sorted(got) == sorted(want)
    return name, same, want, got


def main():
    tracesql, src = sys.argv[1], sys.argv[2]
    top = os.path.join(src, "testdata/chrome/perfetto")
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs
                   if f.endswith(".expected.txt"))
    bad = n_same = 0
    for path in paths:
        name, same, want, got = case(tracesql, path)
        if same:
            n_same += 1
        if same and name in DIFFERS:
            print("FAIL: %s now answers as Perfetto: take it off DIFFERS" % name)
            bad += 1
        elif not same and name not in DIFFERS:
            print("FAIL: %s differs from Perfetto's answer" % name)
            print("\n".join(["  want " + l for l in want] + ["  got  " + l for l in got]))
            bad += 1
        elif not same:
            print("differs as listed: %s: %s" % (name, DIFFERS[name]))
    print("%d of %d of Perfetto's JSON tests answer as Perfetto's" % (n_same, len(paths)))
    if len(paths) < 30:
        print("FAIL: found only %d tests under %s" % (len(paths), top))
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
