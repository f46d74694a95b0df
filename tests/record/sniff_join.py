#!/usr/bin/env python3
"""One OS process seen by tracerecord and by tracesniff is one process in the merged trace
(issue 19 item 14).  A Python program that writes a file for 3 s runs under tracerecord, and
tracesniff samples it (and the launcher above it) at the same time; `tracecat convert` of
both gives one Chrome process holding the program's I/O calls (Recorder rank 0, named by
tracerecord's 0.proc: pid and host) and its Python stack samples (tracesniff's dump markers:
the same pid and host, overlapping times), and another for the launcher (a different pid).  tracesniff gives a program it started 2 s to
show a Python runtime before it samples its native stack, so the program outlives that by 1 s:
with 2 s the launcher was sampled once or not at all, and made no slice.

Usage: sniff_join.py TRACERECORD TRACECAT TRACESNIFF; exit 0 pass, 1 fail, 77 skip."""
import json
import os
import subprocess
import sys

import rec_common

TRACERECORD, TRACECAT, TRACESNIFF = sys.argv[1:4]
CASE_RUN = rec_common.Case("sniff-join-")
WORK, fail, eq = CASE_RUN.work, CASE_RUN.fail, CASE_RUN.eq

PROGRAM = """
import time
t0 = time.time()
while time.time() - t0 < 3.0:
    with open("out.txt", "a") as f:
        f.write("x" * 100)
    time.sleep(0.02)
"""


def python():
    """An interpreter tracesniff reads (CPython 3.11 to 3.13, not free-threaded)."""
    for exe in (sys.executable, "/usr/bin/python3.11", "/usr/bin/python3.12"):
        p = subprocess.run([exe, "-c", "import sys, sysconfig; print(sys.version_info[:2] in"
                            " ((3, 11), (3, 12), (3, 13)) and not"
                            " sysconfig.get_config_var('Py_GIL_DISABLED'))"],
                           capture_output=True, text=True) if os.path.exists(exe) else None
        if p and p.stdout.strip() == "True":
            return exe
    print("skip: no CPython 3.11-3.13 for tracesniff")
    sys.exit(77)


def case_join():
    with open(os.path.join(WORK, "prog.py"), "w") as f:
        f.write(PROGRAM)
    dumps, rec = os.path.join(WORK, "dumps.txt"), os.path.join(WORK, "rec")
    p = subprocess.run([TRACESNIFF, "-s", "-i", "0.05", "-o", dumps, "--", TRACERECORD, "-q",
                        "-o", rec, "--", python(), "prog.py"], cwd=WORK, capture_output=True,
                       text=True, timeout=100)
    if "ptrace" in p.stderr.lower() and p.returncode != 0:
        print("skip: tracesniff may not trace here: %s" % p.stderr.strip())
        sys.exit(77)
    eq(p.returncode, 0, "tracesniff -- tracerecord -- python exit status (%s)" % p.stderr)
    with open(dumps) as f:
        pids = {int(l.split()[1].rstrip(":")) for l in f
                if l.startswith("Process ") and l.rstrip().endswith(" prog.py")
                and "tracerecord" not in l}
    eq(len(pids), 1, "the program's pid in the dumps")
    pid = pids.pop() if pids else -1
    merged = os.path.join(WORK, "merged.json")
    p = subprocess.run([TRACECAT, "convert", rec, dumps, "-o", merged], capture_output=True,
                       text=True, timeout=100)
    eq(p.returncode, 0, "tracecat convert exit status (%s)" % p.stderr)
    with open(merged) as f:
        events = json.load(f)["traceEvents"]
    tids = {(e["pid"], e["tid"]): e["args"].get("source_tid") for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name"}
    # Chrome process -> categories of its slices on the program's own thread (tid = its pid).
    seen = {}
    for e in events:
        if e.get("ph") == "X":
            own = tids.get((e["pid"], e["tid"])) == pid
            seen.setdefault(e["pid"], set()).add((e.get("cat"), own))
    both = [k for k, cats in seen.items() if ("POSIX", True) in cats and ("stack", True) in cats]
    eq(len(both), 1, "Chrome processes with the program's I/O calls and its stack samples")
    eq(len(seen), 2, "Chrome processes (the program, the launcher): %r" % seen)


CASE_RUN.run({"join": case_join}, "join")
