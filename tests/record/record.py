#!/usr/bin/env python3
"""tracerecord cases: run a program under the launcher, read the directory
back with `tracecat cat` and assert the exact calls, paths, offsets, byte
counts and order.  Usage:
  record.py TRACERECORD TRACECAT REC_PROG REC_PROG_FORTIFY REC_MPI|- SRCDIR CASE
Exit 0 pass, 1 fail, 77 skip (no MPI)."""
import json
import os
import shutil
import subprocess
import sys

import rec_common

TRACERECORD, TRACECAT, PROG, FORTIFY, MPI, SRCDIR, CASE = sys.argv[1:8]
TRACESTAT = os.path.join(os.path.dirname(TRACECAT), "tracestat")
CASE_RUN = rec_common.Case("record-")
WORK, fail, eq = CASE_RUN.work, CASE_RUN.fail, CASE_RUN.eq


def trace(argv, out="trace", opts=(), expect_rc=0):
    """Run argv under tracerecord in WORK; return the trace directory."""
    d = os.path.join(WORK, out)
    p = subprocess.run([TRACERECORD, "-q", "-o", d, *opts, "--", *argv], cwd=WORK,
                       capture_output=True, text=True, timeout=100)
    if p.returncode != expect_rc:
        fail("%s exited %d, want %d; stderr: %s" % (argv, p.returncode, expect_rc, p.stderr))
    return d, p.stderr


def cat(d, expect_warning=None):
    """The records of D: one dict per slice, in the reader's order."""
    p = subprocess.run([TRACECAT, "cat", "-v", d], capture_output=True, text=True, timeout=100)
    if p.returncode != 0:
        fail("tracecat cat %s exited %d: %s" % (d, p.returncode, p.stderr))
        return []
    if expect_warning is None and p.stderr:
        fail("unexpected reader warnings: %s" % p.stderr)
    if expect_warning is not None and expect_warning not in p.stderr:
        fail("reader warning %r missing; stderr: %r" % (expect_warning, p.stderr))
    recs = []
    for line in p.stdout.splitlines():
        f = line.split("\t")
        args = json.loads(f[8]) if f[8] else {}
        # the return value (tracerecord's "ret=N") is checked by darshan.py; these cases
        # compare the arguments Recorder itself stores
        ret = args.pop("ret", None)
        recs.append({"ts": float(f[1]), "dur": float(f[2]), "rank": f[3], "track": f[4],
                     "cat": f[5], "name": f[6], "bytes": int(f[7]) if f[7] else 0,
                     "args": args, "ret": ret})
    return recs


def w(name):
    return os.path.join(WORK, name)


def basic_expected():
    a, c, e = w("a.dat"), w("c.txt"), w("e.dat")
    return [
        ("open", {"path": a, "flags": 578, "mode": 420}),
        ("write", {"path": a, "buf": "%p", "count": 100}),
        ("write", {"path": a, "buf": "%p", "count": 100}),
        ("write", {"path": a, "buf": "%p", "count": 100}),
        ("write", {"path": a, "buf": "%p", "count": 100}),
        ("pwrite", {"path": a, "buf": "%p", "count": 50, "offset": 1000}),
        ("lseek", {"path": a, "offset": 0, "whence": 0}),
        ("read", {"path": a, "buf": "%p", "count": 64}),
        ("pread", {"path": a, "buf": "%p", "count": 32, "offset": 200}),
        ("writev", {"path": a, "iov": "%p", "iovcnt": 2}),
        ("fsync", {"path": a}),
        ("ftruncate", {"path": a, "length": 2000}),
        ("__fxstat", {"ver": 1, "path": a, "buf": "%p"}),
        ("mmap", {"addr": "%p", "length": 4096, "prot": 1, "flags": 1, "path": a, "offset": 0}),
        ("dup", {"path": a}),
        ("write", {"path": a, "buf": "%p", "count": 7}),
        ("close", {"path": a}),
        ("close", {"path": a}),
        ("__xstat", {"ver": 1, "path": a, "buf": "%p"}),
        ("open", {"path": a, "flags": 0}),
        ("close", {"path": a}),
        ("open", {"path": w("missing.dat"), "flags": 0}),
        ("mkdir", {"path": w("d"), "mode": 493}),
        ("rename", {"oldpath": a, "newpath": w("d/b.dat")}),
        ("fopen", {"path": c, "mode": "w+"}),
        ("fwrite", {"buf": "%p", "size": 1, "nmemb": 15, "path": c}),
        ("fwrite", {"buf": "%p", "size": 4, "nmemb": 8, "path": c}),
        ("fflush", {"path": c}),
        ("fseek", {"path": c, "offset": 5, "whence": 0}),
        ("ftell", {"path": c}),
        ("fread", {"buf": "%p", "size": 1, "nmemb": 10, "path": c}),
        ("fclose", {"path": c}),
        ("access", {"path": c, "mode": 4}),
        ("truncate", {"path": c, "length": 3}),
        ("unlink", {"path": c}),
        ("unlink", {"path": w("d/b.dat")}),
        ("rmdir", {"path": w("d")}),
        ("open", {"path": WORK, "flags": 65536}),
        ("open", {"path": e, "flags": 65, "mode": 384}),
        ("write", {"path": e, "buf": "%p", "count": 11}),
        ("dup2", {"path": e, "newfd": 40}),
        ("write", {"path": e, "buf": "%p", "count": 12}),
        ("close", {"path": e}),
        ("close", {"path": e}),
        ("close", {"path": WORK}),
        ("creat", {"path": w("f.dat"), "mode": 416}),
        ("close", {"path": w("f.dat")}),
    ]


def check_sequence(recs, want, what):
    got = [(r["name"], r["args"]) for r in recs]
    if len(got) != len(want):
        fail("%s: %d records, want %d" % (what, len(got), len(want)))
    for i, (g, x) in enumerate(zip(got, want)):
        if g != x:
            fail("%s: record %d is %r, want %r" % (what, i, g, x))
            break
    starts = [r["ts"] for r in recs]
    if starts != sorted(starts):
        fail("%s: start times go backwards" % what)


def case_basic():
    d, _ = trace([PROG, "basic"])
    recs = cat(d)
    check_sequence(recs, basic_expected(), "basic")
    eq({r["rank"] for r in recs}, {"rank 0"}, "ranks")
    eq(len({r["track"] for r in recs}), 1, "threads")
    written = sum(r["bytes"] for r in recs if r["name"] in ("write", "pwrite", "fwrite"))
    eq(written, 4 * 100 + 50 + 7 + 15 + 32 + 11 + 12, "bytes written")
    eq(sorted(os.listdir(d)), ["0.cfg", "0.cst", "0.proc", "0.ts", "VERSION", "recorder.mt"],
       "files")
    # 0.proc names the OS process (issue 19 item 14): the pid tracecat reads into the process.
    with open(os.path.join(d, "0.proc")) as f:
        proc = f.read()
    eq(proc.split(" host=")[1], os.uname().nodename + "\n", "0.proc's host")
    p = subprocess.run([TRACECAT, "convert", d, "-o", "-"], capture_output=True, text=True)
    names = [e["args"] for e in json.loads(p.stdout)["traceEvents"]
             if e.get("name") == "process_name"]
    eq([(a.get("source_pid"), a.get("host")) for a in names],
       [(int(proc.split()[0][4:]), os.uname().nodename)], "the process's pid and host")


def case_fortify():
    d, _ = trace([FORTIFY, "basic"])
    rename = {"open": "open64", "pwrite": "pwrite64", "lseek": "lseek64", "pread": "pread64",
              "__fxstat": "__fxstat64", "__xstat": "__xstat64", "mmap": "mmap64",
              "fopen": "fopen64", "creat": "creat64"}
    want = [(rename.get(n, n), a) for n, a in basic_expected()]
    check_sequence(cat(d), want, "fortify")


def case_threads():
    d, _ = trace([PROG, "threads"])
    recs = cat(d)
    tracks = {}
    for r in recs:
        tracks.setdefault(r["track"], []).append(r)
    eq(len(tracks), 4, "threads")
    seen = set()
    for track, rs in tracks.items():
        path = rs[0]["args"].get("path", "")
        k = int(os.path.basename(path)[1:-4]) if path.startswith(w("t")) else -1
        seen.add(k)
        want = ([("open", {"path": path, "flags": 577, "mode": 420})] +
                [("write", {"path": path, "buf": "%p", "count": (k + 1) * 10})] * 5000 +
                [("close", {"path": path})])
        check_sequence(rs, want, "thread %s" % track)
        eq(sum(r["bytes"] for r in rs), 5000 * (k + 1) * 10, "bytes of thread %d" % k)
    eq(seen, {0, 1, 2, 3}, "files of the threads")
    starts = [r["ts"] for r in recs]
    if starts != sorted(starts):
        fail("merged records go backwards in time")


def file_calls(path, n, size):
    return ([("open", {"path": path, "flags": 577, "mode": 420})] +
            [("write", {"path": path, "buf": "%p", "count": size})] * n +
            [("close", {"path": path})])


def by_rank(recs):
    out = {}
    for r in recs:
        out.setdefault(r["rank"], []).append(r)
    return out


def case_fork():
    d, _ = trace([PROG, "fork"])
    ranks = by_rank(cat(d))
    eq(sorted(ranks), ["rank 0", "rank 1"], "ranks")
    check_sequence(ranks.get("rank 0", []),
                   file_calls(w("parent1.dat"), 3, 100) + file_calls(w("parent2.dat"), 2, 200),
                   "parent")
    check_sequence(ranks.get("rank 1", []), file_calls(w("child.dat"), 5, 10), "child")


def case_exec():
    d, _ = trace([PROG, "exec"])
    ranks = by_rank(cat(d))
    eq(sorted(ranks), ["rank 0", "rank 1"], "ranks")
    check_sequence(ranks.get("rank 0", []), file_calls(w("before.dat"), 2, 30), "before exec")
    check_sequence(ranks.get("rank 1", []), file_calls(w("after.dat"), 3, 40), "after exec")


def case_kill():
    d, err = trace([PROG, "kill"], expect_rc=128 + 9)
    if "killed by signal 9" not in err:
        fail("no launcher warning about the signal: %r" % err)
    recs = cat(d, expect_warning="rank 0's trace is cut: it ends without its closing checkpoint")
    k = w("k.dat")
    want = ([("open", {"path": k, "flags": 577, "mode": 420})] +
            [("write", {"path": k, "buf": "%p", "count": 10})] * 10)
    check_sequence(recs, want, "before the kill")


CUT = "rank 0's trace is cut"


def case_quiet():
    """Fewer calls than one buffer, then silence and SIGKILL: the flusher wrote them."""
    d, _ = trace([PROG, "quiet"], expect_rc=128 + 9)
    check_sequence(cat(d, expect_warning=CUT), file_calls(w("quiet.dat"), 10, 10), "quiet")
    # A damaged <r>.inflight is warned about at its byte offset and left out.
    for name, data in (("short", b"\x01\x00"), ("claims", b"\xff\xff\xff\x7f" + b"\x00" * 20),
                       ("table", b"\x01\x00\x00\x00" + b"\x00" * 8 + b"\x05\x00\x00\x00")):
        with open(os.path.join(d, "0.inflight"), "wb") as f:
            f.write(data)
        check_sequence(cat(d, expect_warning="calls in flight ignored"),
                       file_calls(w("quiet.dat"), 10, 10), "quiet with a %s .inflight" % name)


def case_steady():
    """SIGKILL loses at most a second: a write's count is its millisecond in the loop."""
    d, err = trace([PROG, "steady"], expect_rc=128 + 9)
    last = [int(x.split()[2]) for x in err.splitlines() if x.startswith("last count ")]
    counts = [r["bytes"] for r in cat(d, expect_warning=CUT) if r["name"] == "write"]
    if not last or not counts:
        fail("no last count (%r) or no writes (%d)" % (err, len(counts)))
        return
    lost = last[0] - max(counts)
    print("lost to SIGKILL: %d ms of %d (%d writes kept)" % (lost, last[0], len(counts)))
    if lost > 1000:
        fail("%d ms of calls lost to SIGKILL, want <= 1000" % lost)
    eq(counts, sorted(counts), "write counts in order")


def case_signals():
    """SIGABRT and SIGSEGV end the program after the records are written."""
    for mode, sig in (("abort", 6), ("segv", 11)):
        d, _ = trace([PROG, mode], out=mode, expect_rc=128 + sig)
        check_sequence(cat(d), file_calls(w("fault.dat"), 3, 30), mode)


def case_hang():
    """A job cut inside MPI_Barrier: the calls in flight and each rank's last call."""
    if MPI == "-" or not shutil.which("mpiexec"):
        print("skip: no mpicc/mpiexec")
        sys.exit(77)
    d, _ = trace(["mpiexec", "-n", "4", MPI, "hang"], expect_rc=9)
    eq(sorted(os.listdir(d)),
       sorted(["VERSION", "recorder.mt"] + ["%d.%s" % (r, x) for r in range(4)
                                            for x in ("cst", "cfg", "ts", "proc")] +
              ["%d.inflight" % r for r in (0, 2, 3)]), "files")
    ranks = by_rank(cat(d, expect_warning="had 1 call in flight at its last flush"))
    for r in range(4):
        own = w("hang_rank%d.dat" % r)
        mine = [x for x in ranks.get("rank %d" % r, []) if x["args"].get("path") == own]
        check_sequence(mine, file_calls(own, 5, 64), "rank %d's own file" % r)
        barrier = [x for x in ranks.get("rank %d" % r, []) if x["name"] == "MPI_Barrier"]
        want = [] if r == 1 else [{"comm": "MPI_COMM_WORLD", "unfinished": 1}]
        eq([x["args"] for x in barrier], want, "rank %d's MPI_Barrier" % r)
    p = subprocess.run([TRACESTAT, "--section", "hangs", d], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    for want in ("ranks inside a call that never returned:", "    MPI_Barrier: rank 0 2 3",
                 "    not in one: rank 1"):
        if want not in lines:
            fail("tracestat --section hangs: no line %r in %r" % (want, p.stdout))
    for r in range(4):
        head = "    rank %d " % r
        row = [x for x in lines if x.startswith(head)]
        # Rank 1's state (idle or in I/O) depends on how long before the end its close was.
        want = ("in a collective; last call MPI_Barrier entered " if r != 1
                else "; last call close ended ")
        if len(row) != 1 or (r != 1 and not row[0].startswith(head + want)) or want not in row[0]:
            fail("rank %d: %r, want %r" % (r, row, want))
        elif (r != 1) != ("never returned" in row[0]):
            fail("rank %d: %r says wrongly whether it returned" % (r, row[0]))


def case_append():
    """Darshan's counters of 300 appending write()s (darshan-posix.c: every open starts at
    offset 0, O_APPEND too; the first access is neither consecutive nor sequential)."""
    d, _ = trace([PROG, "append"])
    p = subprocess.run([TRACESTAT, "--section", "io", "--json", d], capture_output=True,
                       text=True)
    files = json.loads(p.stdout)["io"]["files"] if p.returncode == 0 else []
    got = [{k: f[k] for k in ("writes", "bytes_written", "consecutive", "sequential")}
           for f in files if f["path"] == w("append.dat")]
    eq(got, [{"writes": 300, "bytes_written": 3000, "consecutive": 299, "sequential": 299}],
       "Darshan's POSIX_WRITES, BYTES_WRITTEN, CONSEC_WRITES, SEQ_WRITES of append.dat")


def case_term():
    d, _ = trace([PROG, "term"], expect_rc=128 + 15)
    check_sequence(cat(d), file_calls(w("term.dat"), 4, 25), "SIGTERM")


def case_exit():
    d, _ = trace([PROG, "_exit"], expect_rc=3)
    want = file_calls(w("exit.dat"), 2, 60) + [
        ("open", {"path": w("exit2.dat"), "flags": 65, "mode": 420}),
        ("write", {"path": w("exit2.dat"), "buf": "%p", "count": 70})]
    check_sequence(cat(d), want, "_exit")


def case_layers():
    d, _ = trace([PROG, "basic"], opts=["--layers", "posix"])
    stdio = {"fopen", "fwrite", "fflush", "fseek", "ftell", "fread", "fclose"}
    want = [x for x in basic_expected() if x[0] not in stdio]
    check_sequence(cat(d), want, "--layers posix")
    d, _ = trace([PROG, "basic"], out="all", opts=["--exclude", ""])
    names = [r["args"].get("path") for r in cat(d)]
    for path in ("/dev/null", "/etc/passwd"):
        if path not in names:
            fail("--exclude '' does not trace %s" % path)


def case_usage():
    def run(args, rc, text, stream="stderr"):
        p = subprocess.run([TRACERECORD, *args], cwd=WORK, capture_output=True, text=True)
        eq(p.returncode, rc, "exit of tracerecord %s" % args)
        if text not in getattr(p, stream):
            fail("tracerecord %s: %r not in %r" % (args, text, getattr(p, stream)))
    run(["--help"], 0, "Usage: tracerecord", "stdout")
    run([], 2, "Try 'tracerecord --help'")
    run(["--bogus", "--", "true"], 2, "Try 'tracerecord --help'")
    run(["--layers", "posix,netcdf", "--", "true"], 2, "unknown layer")
    run(["-o", "layers", "--layers", "posix,hdf5", "--", "true"], 0, "trace in")
    run(["-o", "x1", "--", "/nonexistent/prog"], 127, "cannot run /nonexistent/prog")
    os.mkdir(w("full"))
    open(w("full/f"), "w").close()
    run(["-o", "full", "--", "true"], 1, "not empty")
    # A program without traced I/O still leaves a readable rank.
    run(["-o", "quiet", "--", "true"], 0, "trace in %s (1 rank)" % w("quiet"))
    eq(cat(w("quiet"), "a trace with no events"), [], "records of true")


def case_meta():
    """recorder.mt: the same header layout and name list as the project's writer."""
    d, _ = trace([PROG, "fork"])
    mine = open(os.path.join(d, "recorder.mt"), "rb").read()
    eq(open(os.path.join(d, "VERSION"), "rb").read(), b"2.5.0", "VERSION")
    eq(int.from_bytes(mine[0:4], "little"), 2, "total_ranks")
    tar = w("conv.tar")
    p = subprocess.run([TRACECAT, "convert", d, "-o", tar, "--to", "recorder"],
                       capture_output=True, text=True)
    eq(p.returncode, 0, "tracecat convert: %s" % p.stderr)
    import tarfile
    with tarfile.open(tar) as t:
        member = [m for m in t.getmembers() if m.name.endswith("/recorder.mt")][0]
        theirs = t.extractfile(member).read()
    eq(mine[40:], theirs[40:], "function names against writers/recorder.c")
    eq(mine[24:40], theirs[24:40], "ts_buffer_elements and flags")


def case_mpi(n):
    if MPI == "-" or not shutil.which("mpiexec"):
        print("skip: no mpicc/mpiexec")
        sys.exit(77)
    d, _ = trace(["mpiexec", "-n", str(n), MPI])
    ranks = by_rank(cat(d))
    eq(sorted(ranks), sorted("rank %d" % r for r in range(n)), "ranks (mpiexec not traced)")
    shared = w("shared.mpiio")
    for r in range(n):
        recs = ranks.get("rank %d" % r, [])
        mpiio = [(x["name"], x["args"]) for x in recs if x["cat"] == "MPI-IO"]
        fh = "%d-0" % r
        want = [
            ("MPI_File_open", {"comm": "MPI_COMM_WORLD", "path": shared, "amode": 9,
                               "info": "%p", "fh": fh}),
            ("MPI_File_write_at_all", {"fh": fh, "offset": r * 100, "buf": "%p", "count": 100,
                                       "datatype": "MPI_BYTE", "status": "MPI_STATUS_IGNORE"}),
            ("MPI_File_write_at", {"fh": fh, "offset": 1000 + 16 * r, "buf": "%p", "count": 4,
                                   "datatype": "MPI_INT", "status": "%p"}),
            ("MPI_File_read_at", {"fh": fh, "offset": r * 100, "buf": "%p", "count": 100,
                                  "datatype": "MPI_BYTE", "status": "MPI_STATUS_IGNORE"}),
            ("MPI_File_close", {"fh": fh}),
        ]
        eq(mpiio, want, "MPI-IO calls of rank %d" % r)
        wrote = sum(x["bytes"] for x in recs if x["name"].startswith("MPI_File_write"))
        eq(wrote, 116, "MPI-IO bytes written by rank %d" % r)
        own = w("posix_rank%d.dat" % r)
        posix = [x for x in recs if x["args"].get("path") == own]
        check_sequence(posix, file_calls(own, 3, (r + 1) * 10), "POSIX calls of rank %d" % r)
        # ROMIO's own POSIX calls sit inside the MPI-IO calls (level 1).
        inner = [x for x in recs if x["cat"] == "POSIX" and x["args"].get("path") == shared]
        if not inner:
            fail("rank %d: no POSIX calls of ROMIO on the shared file" % r)


CASES = {"basic": case_basic, "fortify": case_fortify, "threads": case_threads,
         "fork": case_fork, "exec": case_exec, "kill": case_kill, "term": case_term,
         "exit": case_exit, "layers": case_layers, "usage": case_usage, "meta": case_meta,
         "mpi2": lambda: case_mpi(2), "mpi4": lambda: case_mpi(4), "quiet": case_quiet,
         "steady": case_steady, "signals": case_signals, "hang": case_hang,
         "append": case_append}

CASE_RUN.run(CASES, CASE)
