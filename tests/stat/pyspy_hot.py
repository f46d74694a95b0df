#!/usr/bin/env python3
"""Independent check of tracestat's hot section on py-spy dump text.

Each "Thread ..." header starts a stack; the indented "function (file:line)"
lines below it are its frames, innermost first (py-spy's order).  A thread's
stack is one sample (a thread with no frames is none: issue 19, item 12): its
innermost function gets a self sample, and every
distinct (function, file) on it a total sample.  Compares the counts and the
number of samples with `tracestat --csv hot --top 0`.

usage: pyspy_hot.py TRACESTAT DUMP
"""
import csv
import io
import re
import subprocess
import sys

FRAME = re.compile(r"^\s+(.*?) \((.*?)(?::(\d+))?\)\s*$")


def expected(path):
    stacks, cur = [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("Thread "):
                cur = []
                stacks.append(cur)
            elif cur is not None and line.startswith("    "):
                m = FRAME.match(line)
                if m:
                    cur.append((m.group(1), m.group(2)))
            elif not line.strip() or line.startswith("Process ") or line.startswith("Python v"):
                cur = None if not line.strip() else cur
    self_, total = {}, {}
    for st in stacks:
        if st:
            self_[st[0]] = self_.get(st[0], 0) + 1
        for fn in set(st):
            total[fn] = total.get(fn, 0) + 1
    return sum(1 for st in stacks if st), self_, total


def main():
    ts, dump = sys.argv[1], sys.argv[2]
    n, want_self, want_total = expected(dump)
    res = subprocess.run([ts, "--csv", "hot", "--top", "0", dump], capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        return 1
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    got_self = {(r["function"], r["file"]): int(r["self"]) for r in rows if int(r["self"])}
    got_total = {(r["function"], r["file"]): int(r["total"]) for r in rows}
    got_n = int(rows[0]["samples"]) if rows else 0
    bad = (got_n != n) + (got_self != want_self) + (got_total != want_total)
    print("samples: want %d got %d" % (n, got_n))
    for k in sorted(set(want_total) | set(got_total)):
        w = (want_self.get(k, 0), want_total.get(k))
        g = (got_self.get(k, 0), got_total.get(k))
        if w != g:
            print("%s: want self/total %s got %s  MISMATCH" % (k, w, g))
    print("FAIL" if bad else "ok: %d functions agree" % len(want_total))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
