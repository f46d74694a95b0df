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


def build(name, source, cc=None):
    """Compile SOURCE into WORK/NAME; skip the case without the compiler."""
    src = os.path.join(WORK, name + ".c")
    with open(src, "w") as f:
        f.write("#define _GNU_SOURCE\n#include <fcntl.h>\n#include <stdio.h>\n"
                "#include <string.h>\n#include <unistd.h>\n" + source)
    cc = cc or os.environ.get("CC", "cc")
    if not shutil.which(cc):
        print("skip: no %s" % cc)
        sys.exit(77)
    p = subprocess.run([cc, "-O1", "-o", os.path.join(WORK, name), src], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print("skip: %s cannot build a test program: %s" % (cc, p.stderr))
        sys.exit(77)
    return os.path.join(WORK, name)


def trace(prog, out="trace", launcher=()):
    d = os.path.join(WORK, out)
    p = subprocess.run([TRACERECORD, "-q", "-o", d, "--", *launcher, prog], cwd=WORK,
                       capture_output=True, text=True, timeout=100)
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


EOF_LOOPS = r"""
int main(void)
{
    static char buf[8192];
    memset(buf, 'x', sizeof buf);
    int fd = open("data.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (write(fd, buf, 8192) != 8192 || write(fd, buf, 2179) != 2179 || close(fd)) return 1;
    FILE *f = fopen("data.txt", "w");
    if (fwrite(buf, 1, 8192, f) != 8192 || fwrite(buf, 1, 2179, f) != 2179 || fclose(f)) return 1;
    fd = open("data.bin", O_RDONLY);
    while (read(fd, buf, 8192) > 0)
        ;
    if (write(fd, buf, 10) != -1) return 1; /* EBADF: a failed call */
    close(fd);
    f = fopen("data.txt", "r");
    while (fread(buf, 1, 4096, f) > 0)
        ;
    fclose(f);
    return open("no-such-dir/x", O_RDONLY) == -1 ? 0 : 1; /* ENOENT: a failed call */
}
"""


def case_returns():
    """Read-to-EOF loops with tracerecord's return values.  data.bin is written 8192 + 2179 B
    and read 8192 at a time: reads return 8192, 2179, 0.  Darshan (POSIX_RECORD_READ counts
    every ret >= 0): POSIX_READS 3, BYTES_READ 10371 (not 3 x 8192), CONSEC_READS 2 (8192
    and 10371 follow the last byte), MAX_BYTE_READ 10370; writes 2, consecutive 1.  data.txt
    through stdio, fread(1, 4096) returning 4096, 4096, 2179, 0: Darshan counts ret > 0 only,
    STDIO_READS 3, BYTES_READ 10371.  Failed: the write on the O_RDONLY descriptor, the fread
    that returned 0 and the open of a missing file: 3 calls, in no Darshan counter.  Sizes:
    reads 8192, 2179, 4096, 4096, 2179 in 1K-10K, the 0-byte read in 0-100."""
    d = trace(build("eof", EOF_LOOPS))
    io_ = stat_json(d)
    keys = ("reads", "bytes_read", "writes", "bytes_written", "consecutive", "sequential",
            "max_byte_read", "max_byte_written")
    eq(file_row(io_, os.path.join(WORK, "data.bin"), keys),
       {"reads": 3, "bytes_read": 10371, "writes": 2, "bytes_written": 10371,
        "consecutive": 3, "sequential": 3, "max_byte_read": 10370, "max_byte_written": 10370},
       "data.bin (POSIX)")
    eq(file_row(io_, os.path.join(WORK, "data.txt"), ("reads", "bytes_read", "max_byte_read")),
       {"reads": 3, "bytes_read": 10371, "max_byte_read": 10370}, "data.txt (stdio)")
    t = io_["total"]
    eq((t.get("failed"), t.get("bytes_read"), t["ops"]["read"], t.get("sizes_read")),
       (3, 20742, 6, [1, 0, 5, 0, 0, 0, 0, 0, 0, 0]), "total failed, bytes, reads, sizes")
    eq(io_.get("bytes_requested_calls"), 0, "reads and writes without a return value")
    p = subprocess.run([TRACESTAT, "--section", "io", d], capture_output=True, text=True)
    eq([l for l in p.stdout.splitlines() if l.startswith(("failed", "bytes are"))],
       ["failed calls: 3 (left out of every count, as Darshan does)"], "the text report's notes")


MPI_VIEW = r"""
#include <mpi.h>
int main(int argc, char **argv)
{
    int rank, buf[10] = {0};
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_File_open(MPI_COMM_WORLD, "view.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                  &fh);
    MPI_File_write_at(fh, 5, buf, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_set_view(fh, 1000, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_write_at(fh, rank * 10, buf, 10, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
"""


def case_mpiio():
    """MPI-IO in the io view: a data call's path is its handle's open path, and file_offset
    applies the view: before MPI_File_set_view offsets are bytes (5 -> 5); after a view of
    displacement 1000 and etype MPI_INT, offset rank x 10 is byte 1000 + 40 x rank."""
    if not shutil.which("mpiexec"):
        print("skip: no mpiexec")
        sys.exit(77)
    d = trace(build("view", MPI_VIEW, "mpicc"), launcher=("mpiexec", "-n", "2"))
    got = sql(d, "SELECT rank, path, offset, file_offset FROM io WHERE function ="
                 " 'MPI_File_write_at' ORDER BY rank, ts")
    path = os.path.join(WORK, "view.dat")
    eq(got.splitlines(), ["0\t%s\t5\t5" % path, "0\t%s\t0\t1000" % path,
                          "1\t%s\t5\t5" % path, "1\t%s\t10\t1040" % path],
       "MPI_File_write_at rows of io")


def case_mpiio_recorder():
    """Recorder's own trace (iomix-2r): the README's per-file query keeps the MPI-IO layer:
    each rank's two MPI_File_write_at_all of 128 B name shared.mpiio."""
    d = os.path.join(SRCDIR, "testdata", "recorder", "iomix-2r")
    got = sql(d, "SELECT path, count(*), sum(bytes) FROM io WHERE layer = 'MPI-IO'"
                 " AND function = 'MPI_File_write_at_all' GROUP BY path")
    eq(got.splitlines(), ["/tmp/tracecat/iomix-2r/shared.mpiio\t4\t512"],
       "MPI_File_write_at_all by path")


FLUSHES = r"""
int main(void)
{
    FILE *f = fopen("fl.txt", "w");
    fwrite("0123456789", 1, 10, f);
    fflush(f);
    fwrite("0123456789", 1, 10, f);
    fflush(f);
    fclose(f);
    int fd = open("fs.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (write(fd, "x", 1) != 1 || fsync(fd)) return 1;
    return close(fd);
}
"""


def case_flushes():
    """Per-file flushes: two fflush of fl.txt are Darshan's STDIO_FLUSHES 2, one fsync of fs.dat
    its POSIX_FSYNCS 1 (tracerecord records fflush as a user function naming the file)."""
    d = trace(build("flushes", FLUSHES))
    io_ = stat_json(d)
    eq([file_row(io_, os.path.join(WORK, n), ("syncs",)) for n in ("fl.txt", "fs.dat")],
       [{"syncs": 2}, {"syncs": 1}], "syncs of fl.txt and fs.dat")


CASES = {"flushes": case_flushes, "recorder-paths": case_recorder_paths, "recorder-v23": case_recorder_v23,
         "returns": case_returns, "mpiio": case_mpiio, "mpiio-recorder": case_mpiio_recorder}

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
