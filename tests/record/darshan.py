#!/usr/bin/env python3
"""Darshan's counters, exactly (issue 19 item 3): small C programs built here,
run under tracerecord (or real Recorder samples), read back with tracestat,
tracecat and tracesql and compared with the counters Darshan's rules give for
the program, worked out by hand in each case from darshan-posix.c /
darshan-stdio.c / darshan-mpiio.c (Darshan 3.5):

  - a read or write is at the record's offset (0 after every open, O_APPEND
    too; lseek sets it to its return value), or at its pread/pwrite offset,
    and moves it to offset + bytes returned (pread/pwrite too);
  - sequential: offset > last byte touched (0 at open); consecutive:
    offset == last byte + 1; MAX_BYTE = the highest offset + bytes - 1;
  - calls that return an error are not counted, nor fread/fwrite returning 0.

Usage: darshan.py TRACERECORD TRACECAT SRCDIR CASE; exit 0 pass, 1 fail, 77 skip."""
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

TRACERECORD, TRACECAT, SRCDIR, CASE = sys.argv[1:5]
BIN = os.path.dirname(TRACECAT)
TRACESTAT = os.path.join(BIN, "tracestat")
TRACESQL = os.path.join(BIN, "tracesql")
WORK = os.path.realpath(tempfile.mkdtemp(prefix="darshan-"))
failures = []


def fail(msg):
    failures.append(msg)


def eq(got, want, what):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def build(name, source):
    """Compile SOURCE into WORK/NAME; skip the case without a C compiler."""
    src = os.path.join(WORK, name + ".c")
    with open(src, "w") as f:
        f.write("#define _GNU_SOURCE\n#include <fcntl.h>\n#include <stdio.h>\n"
                "#include <string.h>\n#include <unistd.h>\n" + source)
    cc = os.environ.get("CC", "cc")
    p = subprocess.run([cc, "-O1", "-o", os.path.join(WORK, name), src], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print("skip: %s cannot build a test program: %s" % (cc, p.stderr))
        sys.exit(77)
    return os.path.join(WORK, name)


def trace(prog, out="trace"):
    d = os.path.join(WORK, out)
    p = subprocess.run([TRACERECORD, "-q", "-o", d, "--", prog], cwd=WORK, capture_output=True,
                       text=True, timeout=100)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (prog, p.returncode, p.stderr))
    return d


def stat_json(d):
    p = subprocess.run([TRACESTAT, "--section", "io", "--json", d], capture_output=True,
                       text=True, timeout=100)
    if p.returncode != 0:
        fail("tracestat %s exited %d: %s" % (d, p.returncode, p.stderr))
        return {"files": [], "total": {}, "layers": []}
    return json.loads(p.stdout)["io"]


def file_row(io_, path, keys):
    rows = [{k: f.get(k) for k in keys} for f in io_["files"] if f["path"] == path]
    return rows[0] if len(rows) == 1 else rows


def sql(d, query):
    p = subprocess.run([TRACESQL, d, "-c", query], capture_output=True, text=True, timeout=100)
    if p.returncode != 0:
        fail("tracesql %r exited %d: %s" % (query, p.returncode, p.stderr))
    return p.stdout


# ---- Recorder's .cst, rewritten as other Recorder versions spell paths ----

def rewrite_open_path(d, new_path):
    """Rewrite the path of every open signature of D's rank 0 (recorder.md 2.2)."""
    cst = os.path.join(d, "0.cst")
    data = open(cst, "rb").read()
    n, = struct.unpack_from("<i", data, 0)
    out, at = [data[:4]], 4
    for _ in range(n):
        tid_, rank, klen, count = struct.unpack_from("<iiii", data, at)
        key = data[at + 16:at + 16 + klen]
        func, argc, = key[8], key[10]
        args = key[15:]
        if func in (2, 3):  # open, open64
            fields = args.split(b" ")
            fields[0] = new_path.encode()
            args = b" ".join(fields)
            key = key[:11] + struct.pack("<i", len(args)) + args
        out.append(struct.pack("<iiii", tid_, rank, len(key), count) + key)
        at += 16 + klen
    with open(cst, "wb") as f:
        f.write(b"".join(out))


APPEND = r"""
int main(void)
{
    char buf[10];
    memset(buf, 'a', sizeof buf);
    int fd = open("append.dat", O_CREAT | O_WRONLY | O_APPEND, 0644);
    for (int i = 0; i < 300; i++)
        if (write(fd, buf, 10) != 10) return 1;
    return close(fd);
}
"""


def case_recorder_paths():
    """300 appending write()s as Recorder spells the open: 2.5 resolves the path before the
    open creates the file ("<cwd>/./append.dat" when given "./append.dat"), 2.3 keeps it as
    given ("append.dat"); the writes carry the resolved name.  Darshan: POSIX_WRITES 300,
    CONSEC_WRITES 299 and SEQ_WRITES 299 (the first write, at 0, is neither),
    MAX_BYTE_WRITTEN 2999."""
    prog = build("append", APPEND)
    want = {"writes": 300, "consecutive": 299, "sequential": 299, "max_byte_written": 2999}
    for form in (os.path.join(WORK, ".", "append.dat"), "append.dat", "./append.dat"):
        d = trace(prog, "t-" + str(len(form)))
        rewrite_open_path(d, form)
        got = file_row(stat_json(d), os.path.join(WORK, "append.dat"), want.keys())
        eq(got, want, "append.dat with the open naming it %r" % form)


def case_recorder_v23():
    """Recorder 2.3.3's own trace (testdata/recorder/v2-iomix-2r): open keeps "posix_rank0.dat"
    as given.  The program writes 4 x 100 B at 0..300, lseeks to 0, reads 64, lseeks to 200,
    reads 50.  Darshan: CONSEC 3 + 0, SEQ 3 + 1 (the read at 200 > 63), MAX_BYTE_READ 249,
    MAX_BYTE_WRITTEN 399; one record per file (no second "posix_rank0.dat")."""
    d = os.path.join(SRCDIR, "testdata", "recorder", "v2-iomix-2r")
    io_ = stat_json(d)
    keys = ("consecutive", "sequential", "max_byte_read", "max_byte_written")
    eq(file_row(io_, "/tmp/tracecat/v2-iomix-2r/posix_rank0.dat", keys),
       {"consecutive": 3, "sequential": 4, "max_byte_read": 249, "max_byte_written": 399},
       "posix_rank0.dat")
    eq(sorted(f["path"] for f in io_["files"] if not f["path"].startswith("/")), [],
       "files named by a relative path")


CASES = {"recorder-paths": case_recorder_paths, "recorder-v23": case_recorder_v23}

try:
    CASES[CASE]()
finally:
    if not failures:
        shutil.rmtree(WORK, ignore_errors=True)
for f in failures[:20]:
    print("FAIL:", f)
if failures:
    print("work dir kept:", WORK)
sys.exit(1 if failures else 0)
