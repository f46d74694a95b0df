#!/usr/bin/env python3
"""gen.py RANKS THREADS FRAMES [STUCK...] > job.txt

A deterministic py-spy dump of a whole job for the hang benchmark (issue 24):
RANKS processes (rank r is pid 100000 + r on host node<r // 8>), each with
THREADS threads of FRAMES frames, wrapped in #tracecat-dump markers.  Every
rank's main thread waits in allreduce inside train_step; the ranks named in
STUCK (default: 17, RANKS // 2 and RANKS - 3) wait in a data loader one line
earlier in the same loop instead.  Helper threads sit in the same idle
stacks on every rank.
"""
import sys


def frames(depth, leaf):
    out = [f"    {leaf}"]
    for d in range(depth - 3, 0, -1):
        out.append(f"    layer_{d} (model/block_{d % 7}.py:{100 + d})")
    return out


def main():
    ranks, threads, depth = (int(a) for a in sys.argv[1:4])
    stuck = {int(a) for a in sys.argv[4:]} or {17 % ranks, ranks // 2, max(ranks - 3, 0)}
    w = sys.stdout.write
    for r in range(ranks):
        pid = 100000 + r
        w(f"#tracecat-dump ts=1772607893.{r % 1000:03d} pid={pid} host=node{r // 8} rank={r}\n")
        w(f"Process {pid}: python train.py --rank {r}\nPython v3.11.2 (/usr/bin/python3.11)\n\n")
        for t in range(threads):
            tid = pid if t == 0 else pid * 10 + t
            name = "MainThread" if t == 0 else f"Thread-{t}"
            w(f"Thread {tid} ({'active' if t == 0 else 'idle'}): \"{name}\"\n")
            if t == 0:
                line = 1040 if r in stuck else 1084
                leaf = "wait (torch/distributed/c10d.py:2050)" if r not in stuck else \
                    "next (torch/utils/data/loader.py:631)"
                stack = [f"    {leaf}", f"    train_step (engine.py:{line})"] + frames(depth - 1, "x")[1:]
                stack += ["    main (train.py:40)", "    <module> (train.py:52)"]
            else:
                stack = frames(depth, f"wait (threading.py:{320 + t})") + \
                    ["    run (threading.py:1010)", "    _bootstrap (threading.py:1030)"]
            w("\n".join(stack[:depth]) + "\n")
        w("\n")


if __name__ == "__main__":
    main()
