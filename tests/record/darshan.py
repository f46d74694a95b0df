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

import rec_common

TRACERECORD, TRACECAT, SRCDIR, CASE = sys.argv[1:5]
BIN = os.path.dirname(TRACECAT)
TRACESTAT = os.path.join(BIN, "tracestat")
TRACESQL = os.path.join(BIN, "tracesql")
CASE_RUN = rec_common.Case("darshan-")
WORK, fail, eq = CASE_RUN.work, CASE_RUN.fail, CASE_RUN.eq


def build(name, source, cc=None, flags=()):
    """Compile SOURCE into WORK/NAME; skip the case without the compiler."""
    src = os.path.join(WORK, name + ".c")
    with open(src, "w") as f:
        f.write("#define _GNU_SOURCE\n#include <fcntl.h>\n#include <stdio.h>\n"
                "#include <string.h>\n#include <unistd.h>\n" + source)
    cc = cc or os.environ.get("CC", "cc")
    if not shutil.which(cc):
        print("skip: no %s" % cc)
        sys.exit(77)
    p = subprocess.run([cc, "-O1", *flags, "-o", os.path.join(WORK, name), src],
                       capture_output=True, text=True)
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


def stat_json(d, *opts):
    p = subprocess.run([TRACESTAT, "--section", "io", "--json", *opts, d], capture_output=True,
                       text=True, timeout=100)
    if p.returncode != 0:
        fail("tracestat %s exited %d: %s" % (d, p.returncode, p.stderr))
        return {"files": [], "total": {}, "layers": []}
    return json.loads(p.stdout)["io"]


def stat_notes(d, *opts):
    """The lines of the text report that say what was left out."""
    p = subprocess.run([TRACESTAT, "--section", "io", *opts, d], capture_output=True, text=True,
                       timeout=100)
    return [l for l in p.stdout.splitlines() if l.startswith(("failed", "excluded", "offsets"))]


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
        # The SQL io view's offset of a write() (no offset arg) is the derived position, one
        # path for the file, and max(offset + bytes - 1) is Darshan's MAX_BYTE_WRITTEN.
        eq(sql(d, "SELECT path, count(*), min(offset), max(offset), sum(offset),"
                  " max(offset + bytes - 1) FROM io WHERE function = 'write' GROUP BY path")
           .splitlines(), ["%s\t300\t0\t2990\t448500\t2999" % os.path.join(WORK, "append.dat")],
           "io view of the writes with the open naming it %r" % form)


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


def strip_returns(d):
    """Drop tracerecord's last argument "ret=N" from every signature of D's rank 0
    (recorder.md 2.2: key = 8-byte tid, func, level, arg count, int32 args length, the args
    each followed by a space), so the trace holds no return values, as Recorder's own."""
    cst = os.path.join(d, "0.cst")
    data = open(cst, "rb").read()
    n, = struct.unpack_from("<i", data, 0)
    out, at = [data[:4]], 4
    for _ in range(n):
        tid_, rank, klen, count = struct.unpack_from("<iiii", data, at)
        key = data[at + 16:at + 16 + klen]
        argc, args = key[10], key[15:]
        fields = args.split(b" ")[:-1]
        if fields and fields[-1].startswith(b"ret="):
            args = b" ".join(fields[:-1]) + (b" " if len(fields) > 1 else b"")
            key = key[:10] + bytes([argc - 1]) + struct.pack("<i", len(args)) + args
        out.append(struct.pack("<iiii", tid_, rank, len(key), count) + key)
        at += 16 + klen
    with open(cst, "wb") as f:
        f.write(b"".join(out))


SEEK_END = r"""
int main(void)
{
    char buf[100];
    memset(buf, 'e', sizeof buf);
    int fd = open("end.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (write(fd, buf, 100) != 100 || lseek(fd, 0, SEEK_END) != 100) return 1;
    if (write(fd, buf, 10) != 10 || write(fd, buf, 10) != 10) return 1;
    if (lseek(fd, 50, SEEK_SET) != 50 || write(fd, buf, 5) != 5) return 1;
    return close(fd);
}
"""


def case_seek_end():
    """A seek to the end: Darshan takes lseek's return value (100), so the writes after it are
    at 100 and 110: POSIX_WRITES 4, CONSEC_WRITES 2, SEQ_WRITES 2, MAX_BYTE_WRITTEN 119.  A
    trace without return values (Recorder's: the same trace with tracerecord's ret= taken off)
    cannot place those two writes: they are in no sequential, consecutive or MAX_BYTE count
    (the write at 50 after lseek SEEK_SET 50 is placed again, MAX_BYTE_WRITTEN 99 from the
    first), and the report says so (2 unplaced accesses) rather than showing Darshan's numbers
    short without a word."""
    d = trace(build("seekend", SEEK_END))
    keys = ("writes", "consecutive", "sequential", "max_byte_written")
    path = os.path.join(WORK, "end.dat")
    io_ = stat_json(d)
    eq((file_row(io_, path, keys), io_["unplaced_accesses"]),
       ({"writes": 4, "consecutive": 2, "sequential": 2, "max_byte_written": 119}, 0),
       "end.dat with return values")
    strip_returns(d)
    io_ = stat_json(d)
    eq((file_row(io_, path, keys), io_["unplaced_accesses"], io_["bytes_requested_calls"]),
       ({"writes": 4, "consecutive": 0, "sequential": 0, "max_byte_written": 99}, 2, 4),
       "end.dat without return values")
    eq([l for l in stat_notes(d) if l.startswith("offsets")],
       ["offsets not known: 2 reads and writes follow a seek whose result the trace does not "
        "hold (SEEK_END without a return value), so they are in no sequential, consecutive or "
        "max byte count"], "the text report's note")


GENERATIONS = (("v2-iomix-2r", "2.3.3"), ("v24-iomix-2r", "2.4.0"), ("iomix-2r", "2.5.0"),
               ("iomix-4r-ipc", "2.5.0 inter-process"), ("g3-iomix-2r", "G3"),
               ("g3-iomix-2r-local", "G3 local"))


def case_recorder_generations():
    """The implicit offsets on Recorder's own traces of every format generation (the iomix
    program of testdata/recorder/SOURCES.md): rank 0 writes 4 x 100 B to posix_rank0.dat
    with write() (no offset arg), lseeks to 0, reads 64, lseeks to 200, reads 50; fwrite()s
    15 and 32 B to stdio_rank0.txt.  Darshan: CONSEC 3 + 0, SEQ 3 + 1, MAX_BYTE_READ 249,
    MAX_BYTE_WRITTEN 399; the stream 1 / 1 and 46.  The SQL io view gives every one of these
    calls its derived offset, and max(offset + bytes - 1) is each MAX_BYTE."""
    keys = ("consecutive", "sequential", "max_byte_read", "max_byte_written")
    for sample, gen in GENERATIONS:
        d = os.path.join(SRCDIR, "testdata", "recorder", sample)
        io_ = stat_json(d)
        base = "/tmp/tracecat/%s/" % sample
        eq(file_row(io_, base + "posix_rank0.dat", keys),
           {"consecutive": 3, "sequential": 4, "max_byte_read": 249, "max_byte_written": 399},
           "%s (%s): posix_rank0.dat" % (sample, gen))
        eq(file_row(io_, base + "stdio_rank0.txt", keys),
           {"consecutive": 1, "sequential": 1, "max_byte_read": -1, "max_byte_written": 46},
           "%s (%s): stdio_rank0.txt" % (sample, gen))
        eq(sql(d, "SELECT function, offset, bytes FROM io WHERE rank = 0 AND path LIKE"
                  " '%_rank0.%' AND bytes IS NOT NULL ORDER BY ts").splitlines(),
           ["write\t0\t100", "write\t100\t100", "write\t200\t100", "write\t300\t100",
            "read\t0\t64", "read\t200\t50", "fwrite\t0\t15", "fwrite\t15\t32"],
           "%s (%s): the io view's offsets" % (sample, gen))
        eq(sql(d, "SELECT function IN ('read', 'fread'), max(offset + bytes - 1) FROM io"
                  " WHERE rank = 0 AND path LIKE '%_rank0.%' AND bytes IS NOT NULL"
                  " GROUP BY path, 1 ORDER BY path, 1").splitlines(),
           ["0\t399", "1\t249", "0\t46"], "%s (%s): MAX_BYTE_* from the io view" % (sample, gen))


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
    eq(stat_notes(d), ["failed calls: 3 (left out of every count, as Darshan does)"],
       "the text report's notes")
    # Every counter leaves them out: the failed open, write and fread are in none.
    eq((nonzero(modules(io_)["POSIX"], "POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN",
                "POSIX_MAX_BYTE_READ", "POSIX_MAX_BYTE_WRITTEN", "POSIX_CONSEC_READS",
                "POSIX_CONSEC_WRITES", "POSIX_SEQ_READS", "POSIX_SEQ_WRITES"),
        nonzero(modules(io_)["STDIO"], "STDIO_BYTES_READ", "STDIO_BYTES_WRITTEN",
                "STDIO_MAX_BYTE_READ", "STDIO_MAX_BYTE_WRITTEN")),
       ({"POSIX_OPENS": 2, "POSIX_READS": 3, "POSIX_WRITES": 2, "POSIX_RW_SWITCHES": 1},
        {"STDIO_OPENS": 2, "STDIO_READS": 3, "STDIO_WRITES": 2}), "POSIX and STDIO counters")
    eq([(l["layer"], l["failed"], l["ops"]) for l in io_["layers"]],
       [("POSIX", 3, {"read": 6, "write": 4, "open": 4, "stat": 0, "seek": 0, "sync": 0,
                      "metadata": 4})], "the layer's calls")
    eq(sql(d, "SELECT function, path IS NOT NULL FROM io WHERE failed ORDER BY ts").splitlines(),
       ["write\t1", "fread\t1", "open\t1"], "the io view's failed calls")
    # The read loop in the io view: each read at the position the bytes moved before it left
    eq(sql(d, "SELECT offset, bytes FROM io WHERE function = 'read' ORDER BY ts").splitlines(),
       ["0\t8192", "8192\t2179", "10371\t0"], "the io view's reads of data.bin")


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
    MPI_File bad; /* files return errors (MPI_ERRORS_RETURN): a failed open */
    if (MPI_File_open(MPI_COMM_WORLD, "no-such-dir/x", MPI_MODE_RDONLY, MPI_INFO_NULL, &bad) ==
        MPI_SUCCESS)
        return 1;
    MPI_Finalize();
    return 0;
}
"""


def case_mpiio():
    """MPI-IO in the io view: a data call's path is its handle's open path, and file_offset
    applies the view: before MPI_File_set_view offsets are bytes (5 -> 5); after a view of
    displacement 1000 and etype MPI_INT, offset rank x 10 is byte 1000 + 40 x rank.  The
    MPI_File_open of a missing file returns an error code on each rank: 2 failed MPI-IO calls,
    in no MPI-IO counter (MPIIO_COLL_OPENS 2, the good open's), marked failed in the view."""
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
    io_ = stat_json(d)
    eq(([(l["layer"], l["failed"]) for l in io_["layers"] if l["layer"] == "MPI-IO"],
        nonzero(modules(io_)["MPI-IO"])),
       ([("MPI-IO", 2)], {"MPIIO_COLL_OPENS": 2, "MPIIO_INDEP_WRITES": 4, "MPIIO_VIEWS": 2,
                          "MPIIO_BYTES_WRITTEN": 88}), "the failed MPI_File_open")
    eq(sql(d, "SELECT rank, function, path FROM io WHERE failed AND layer = 'MPI-IO'"
              " ORDER BY rank").splitlines(),
       ["%d\tMPI_File_open\t%s" % (r, os.path.join(WORK, "no-such-dir", "x")) for r in (0, 1)],
       "the io view's failed MPI-IO calls")


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


def modules(io_):
    """Darshan's counters by module name, from tracestat's JSON."""
    return {m["module"]: m["counters"] for m in io_.get("modules", [])}


def nonzero(counters, *drop):
    """The counters that are not 0 (MAX_BYTE_*: not -1), without those named in DROP."""
    return {k: v for k, v in counters.items()
            if v != (-1 if "MAX_BYTE" in k else 0) and k not in drop}


STDIO = r"""
#include <stdlib.h>
int main(void)
{
    static char buf[256];
    memset(buf, 's', sizeof buf);
    FILE *f = fopen("s.txt", "w");
    fwrite(buf, 1, 100, f);
    fwrite(buf, 1, 50, f);
    fflush(f);
    fseek(f, 10, SEEK_SET);
    fwrite(buf, 1, 5, f);
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    fwrite(buf, 1, 20, f);
    fclose(f);
    f = fopen("s.txt", "a");
    fwrite(buf, 1, 30, f);
    fflush(f);
    fclose(f);
    f = fopen("s.txt", "r");
    fread(buf, 1, 64, f);
    rewind(f);
    fread(buf, 1, 16, f);
    fseek(f, 100, SEEK_CUR);
    fread(buf, 1, 4, f);
    fclose(f);
    FILE *g = fdopen(open("s.txt", O_RDONLY), "r");
    fread(buf, 1, 8, g);
    fclose(g);
    return end == 150 ? 0 : 1;
}
"""


def case_stdio():
    """Darshan's STDIO module on a tracerecord trace (darshan-stdio.c: one record per file and
    process, its offset shared by every stream of the file; fopen sets it to 0 whatever the
    mode, "a" too; fdopen keeps it (STDIO_RECORD_REFOPEN, no reset); fseek/rewind set it to
    ftell; fread/fwrite add the bytes moved; fflush is a write of 0 bytes at the offset).
    s.txt: fopen "w" (OPENS 1, offset 0); fwrite 100 at 0, 50 at 100 (MAX_BYTE_WRITTEN 149,
    offset 150); fflush (FLUSHES 1, 150 - 1 = 149); fseek 10 (SEEKS 1); fwrite 5 at 10;
    fseek SEEK_END (SEEKS 2, offset = ftell = 150: the trace gives it by ftell's return
    value); fwrite 20 at 150 (MAX 169); fopen "a" (OPENS 2, offset 0 although the stream
    appends); fwrite 30 at 0; fflush (FLUSHES 2, 29 < 169); fopen "r" (OPENS 3); fread 64 at
    0 (MAX_BYTE_READ 63); rewind (SEEKS 3, 0); fread 16 at 0; fseek +100 SEEK_CUR (SEEKS 4,
    116); fread 4 at 116 (119); fdopen (OPENS 4, FDOPENS 1, offset kept: 120); fread 8 at 120
    (MAX_BYTE_READ 127, though the new stream reads byte 0).  WRITES 5, BYTES_WRITTEN 205,
    READS 4, BYTES_READ 92.  The POSIX module has the one open() under fdopen: POSIX_OPENS 1.
    In the SQL io view the stdio calls are module STDIO while their layer stays POSIX, as
    Recorder writes it."""
    d = trace(build("stdio", STDIO))
    got = modules(stat_json(d))
    eq(nonzero(got.get("STDIO", {})),
       {"STDIO_OPENS": 4, "STDIO_FDOPENS": 1, "STDIO_READS": 4, "STDIO_WRITES": 5,
        "STDIO_SEEKS": 4, "STDIO_FLUSHES": 2, "STDIO_BYTES_WRITTEN": 205,
        "STDIO_BYTES_READ": 92, "STDIO_MAX_BYTE_READ": 127, "STDIO_MAX_BYTE_WRITTEN": 169},
       "STDIO counters")
    eq(nonzero(got.get("POSIX", {})), {"POSIX_OPENS": 1}, "POSIX counters")
    eq(sql(d, "SELECT module, layer, count(*) FROM io WHERE function IN ('fopen', 'fwrite')"
              " GROUP BY 1, 2").splitlines(), ["STDIO\tPOSIX\t8"], "module and layer of stdio")


def case_stdio_recorder():
    """Recorder's own trace (iomix-2r), whose layer for fopen/fwrite/fclose is POSIX: each rank
    fopen()s stdio_rank<r>.txt "w" and fwrite()s 15 then 32 B: STDIO_OPENS 2, WRITES 4,
    BYTES_WRITTEN 94, MAX_BYTE_WRITTEN 46 (15 + 32 - 1; the highest of the two records).
    Its POSIX module: 3 opens on rank 0 (its file and ROMIO's two of shared.mpiio; ROMIO's
    open of /etc/romio-hints is under Darshan's excluded /etc/), 2 on rank 1; 4 writes + 2 pwrites per rank (BYTES_WRITTEN 2 x 656 = 1312);
    MAX_BYTE_WRITTEN 511 (rank 1's pwrite of 128 at 384); consecutive 3 per rank (the file's
    writes at 100, 200, 300); sequential 3 + 1 on rank 0 (its pwrite at 256 > 127; the one at
    0 is not) and 3 + 2 on rank 1 (128 > 0, 384 > 255); reads: 64 at 0 (not sequential: the
    last byte starts at 0) and 50 at 200 (sequential), MAX_BYTE_READ 249; one read/write
    switch per rank.  MPI-IO: MPI_File_open on MPI_COMM_WORLD of 2 ranks is collective
    (MPIIO_COLL_OPENS 2), 4 MPI_File_write_at_all (COLL_WRITES 4, 512 B)."""
    d = os.path.join(SRCDIR, "testdata", "recorder", "iomix-2r")
    got = modules(stat_json(d))
    eq(nonzero(got.get("STDIO", {})),
       {"STDIO_OPENS": 2, "STDIO_WRITES": 4, "STDIO_BYTES_WRITTEN": 94,
        "STDIO_MAX_BYTE_WRITTEN": 46}, "STDIO counters")
    eq(nonzero(got.get("POSIX", {})),
       {"POSIX_OPENS": 5, "POSIX_READS": 4, "POSIX_WRITES": 12, "POSIX_SEEKS": 4,
        "POSIX_BYTES_READ": 228, "POSIX_BYTES_WRITTEN": 1312, "POSIX_MAX_BYTE_READ": 249,
        "POSIX_MAX_BYTE_WRITTEN": 511, "POSIX_CONSEC_WRITES": 6, "POSIX_SEQ_READS": 2,
        "POSIX_SEQ_WRITES": 9, "POSIX_RW_SWITCHES": 2}, "POSIX counters")
    eq(nonzero(got.get("MPI-IO", {})),
       {"MPIIO_COLL_OPENS": 2, "MPIIO_COLL_WRITES": 4, "MPIIO_BYTES_WRITTEN": 512},
       "MPI-IO counters")
    p = subprocess.run([TRACECAT, "cat", d], capture_output=True, text=True, timeout=100)
    eq(sorted({l.split("\t")[5] for l in p.stdout.splitlines() if "\tfopen\t" in l}),
       ["POSIX"], "tracecat cat's category of fopen (Recorder's layer)")


DUPS = r"""
int main(void)
{
    char buf[100];
    memset(buf, 'd', sizeof buf);
    int fd = open("d.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (write(fd, buf, 100) != 100) return 1;
    int fd2 = dup(fd);
    if (write(fd2, buf, 100) != 100) return 1;
    int fd3 = fcntl(fd, F_DUPFD, 10);
    if (write(fd3, buf, 50) != 50) return 1;
    if (dup2(fd, 20) != 20 || lseek(20, 0, SEEK_SET) != 0) return 1;
    if (write(fd, buf, 10) != 10) return 1;
    close(fd), close(fd2), close(fd3), close(20);
    FILE *f = fopen("d.dat", "r");
    if (read(fileno(f), buf, 5) != 5) return 1;
    return fclose(f);
}
"""


def case_dups():
    """dup, fcntl(F_DUPFD), dup2 and fileno as darshan-posix.c counts them: each is an open
    of the file (POSIX_RECORD_REFOPEN: POSIX_OPENS + POSIX_DUPS or POSIX_FILENOS) that keeps
    the record's offset, one per file and process however many descriptors share it.
    d.dat: open (OPENS 1, offset 0); write 100 at 0 (neither sequential nor consecutive: the
    last byte starts at 0); dup (OPENS 2, DUPS 1); write 100 through it at 100 (consecutive);
    fcntl F_DUPFD (OPENS 3, DUPS 2); write 50 through it at 200 (consecutive; MAX 249);
    dup2 (OPENS 4, DUPS 3); lseek on the dup2'd descriptor to 0 (SEEKS 1); write 10 through
    the first at 0 (not sequential); fopen + fileno (STDIO_OPENS 1; POSIX_OPENS 5, FILENOS 1,
    offset kept at 10); read 5 through fileno's descriptor at 10 (sequential: 10 > 0, the
    last byte read; MAX_BYTE_READ 14; a write-to-read switch).  WRITES 4, 260 B,
    CONSEC_WRITES 2, SEQ_WRITES 2, READS 1.  Built twice: with 64-bit offsets the program
    calls fcntl64."""
    for name, flags in (("dups", ()), ("dups64", ("-D_FILE_OFFSET_BITS=64",))):
        d = trace(build(name, DUPS, flags=flags), "t-" + name)
        io_ = stat_json(d)
        got = modules(io_)
        eq(nonzero(got.get("POSIX", {})),
           {"POSIX_OPENS": 5, "POSIX_FILENOS": 1, "POSIX_DUPS": 3, "POSIX_READS": 1,
            "POSIX_WRITES": 4, "POSIX_SEEKS": 1, "POSIX_BYTES_READ": 5,
            "POSIX_BYTES_WRITTEN": 260, "POSIX_MAX_BYTE_READ": 14, "POSIX_MAX_BYTE_WRITTEN": 249,
            "POSIX_CONSEC_WRITES": 2, "POSIX_SEQ_READS": 1, "POSIX_SEQ_WRITES": 2,
            "POSIX_RW_SWITCHES": 1}, "%s: POSIX counters" % name)
        eq(nonzero(got.get("STDIO", {})), {"STDIO_OPENS": 1}, "%s: STDIO counters" % name)
        eq(file_row(io_, os.path.join(WORK, "d.dat"), ("writes", "bytes_written", "consecutive")),
           {"writes": 4, "bytes_written": 260, "consecutive": 2}, "%s: d.dat's row" % name)
        # The rank table counts opens as Darshan's job summary does (POSIX_OPENS + STDIO_OPENS:
        # open, dup, fcntl F_DUPFD, dup2, fileno, fopen); closes are the metadata calls.
        eq(io_["ranks"][0]["ops"], {"read": 1, "write": 4, "open": 6, "stat": 0, "seek": 1,
                                    "sync": 0, "metadata": 5}, "%s: rank 0's calls" % name)


def case_exclusions_recorder():
    """Darshan's default exclusions on Recorder's own trace (iomix-4r, 4 ranks): rank 0's
    MPI_File_open makes ROMIO open /etc/romio-hints (one call, nested), which Darshan never
    records (darshan-config.c: /etc/ is excluded).  Files: 9 (4 posix_rank, 4 stdio_rank,
    shared.mpiio), not 10; one shared; every rank 3 files; the POSIX layer's opens 13 (an open
    of posix_rank<r>.dat and an fopen of stdio_rank<r>.txt per rank, which Recorder files under
    POSIX, and ROMIO's opens of shared.mpiio: 2 on rank 0, 1 on each other), not 14.
    --io-all-files, or --io-include /etc/romio-hints, counts it again; --io-exclude replaces
    Darshan's list (as DARSHAN_EXCLUDE_DIRS did): excluding shared.mpiio leaves out its 35
    calls (rank 0: MPI_File_open, 2 opens and a close under it, 2 MPI_File_write_at_all with
    a pwrite each, MPI_File_close with a close, unlink: 11; each other rank 8, one open),
    17 of them outermost (4 MPI-IO calls per rank and the unlink), so 6 writes per rank."""
    d = os.path.join(SRCDIR, "testdata", "recorder", "iomix-4r")
    def figures(io_):
        posix = [l for l in io_["layers"] if l["layer"] == "POSIX"][0]
        return (len(io_["files"]), io_["shared_files"], [r["files"] for r in io_["ranks"]],
                posix["ops"]["open"], posix["excluded"], io_["excluded_calls"],
                io_["excluded_files"])
    eq(figures(stat_json(d)), (9, 1, [3, 3, 3, 3], 13, 1, 1, 1), "Darshan's exclusions")
    eq(figures(stat_json(d, "--io-all-files")), (10, 1, [4, 3, 3, 3], 14, 0, 0, 0),
       "--io-all-files")
    eq(figures(stat_json(d, "--io-include", "/etc/romio-hints")),
       (10, 1, [4, 3, 3, 3], 14, 0, 0, 0), "--io-include /etc/romio-hints")
    shared = "/tmp/tracecat/iomix-4r/shared.mpiio"
    io_ = stat_json(d, "--io-exclude", shared)
    eq((len(io_["files"]), io_["shared_files"], io_["excluded_calls"], io_["total"]["excluded"],
        io_["total"]["ops"]["write"]), (9, 0, 35, 17, 24), "--io-exclude the shared file")
    # 114 records: 12 MPI calls that are not I/O, the excluded open, 101 I/O calls counted.
    unknown = ("failed calls not known: %d calls carry no return value (Recorder stores none), "
               "so one that failed counts as made, where Darshan leaves it out")
    eq(stat_notes(d), [unknown % 101,
                       "excluded calls: 1 on 1 file under /etc/,/dev/,/usr/,/bin/,/boot/,/lib/,"
                       "/opt/,/sbin/,/sys/,/proc/,/var/ (left out of every count, as Darshan "
                       "does; --io-all-files counts them)"], "the text report's notes")
    eq(stat_notes(d, "--io-all-files"), [unknown % 102], "the notes with --io-all-files")
    eq(sql(d, "SELECT rank, function, path, failed FROM io WHERE excluded").splitlines(),
       ["0\topen\t/etc/romio-hints\t0"], "the io view keeps the call, marked excluded")


SYSTEM_FILES = r"""
#include <sys/stat.h>
int main(void)
{
    char buf[64];
    struct stat st;
    int fd = open("/dev/null", O_WRONLY);
    if (write(fd, "hello", 5) != 5 || close(fd)) return 1;
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f || fread(buf, 1, 10, f) != 10 || fclose(f)) return 1;
    if (stat("/etc", &st)) return 1;
    if (open("/etc/no-such-file", O_RDONLY) != -1) return 1;
    if (open("/var/opt/cray/dws/mounts/no-such-file", O_RDONLY) != -1) return 1;
    fd = open("out.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (write(fd, buf, 10) != 10) return 1;
    return close(fd);
}
"""


def case_exclusions():
    """System files in a tracerecord trace made with --exclude '' (every path traced), left out
    by the analysis as Darshan leaves them: /dev/null (open, write, close), /proc/<pid>/stat
    (fopen, fread, fclose) and the failed open of /etc/no-such-file (excluded, so not a failed
    call: Darshan never sees it) are 7 calls on 3 files; stat("/etc") stays (Darshan's prefix
    is "/etc/", the directory itself is not under it: POSIX_STATS 1); the failed open under
    /var/opt/cray/dws/mounts/ (Darshan's inclusion) is a failed call.  Left: out.dat's open,
    write, close and the stat: files out.dat and /etc, 10 B written, 1 open."""
    prog = build("system", SYSTEM_FILES)
    d = os.path.join(WORK, "trace")
    p = subprocess.run([TRACERECORD, "-q", "--exclude", "", "-o", d, "--", prog], cwd=WORK,
                       capture_output=True, text=True, timeout=100)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (prog, p.returncode, p.stderr))
    io_ = stat_json(d)
    t = io_["total"]
    eq((sorted(f["path"] for f in io_["files"]), t["ops"], t["bytes_written"], t["failed"],
        t["excluded"], io_["excluded_calls"], io_["excluded_files"]),
       (["/etc", os.path.join(WORK, "out.dat")],
        {"read": 0, "write": 1, "open": 1, "stat": 1, "seek": 0, "sync": 0, "metadata": 1},
        10, 1, 7, 7, 3), "files, calls, bytes, failed and excluded")
    eq(nonzero(modules(io_).get("POSIX", {}), "POSIX_MAX_BYTE_WRITTEN"),
       {"POSIX_OPENS": 1, "POSIX_WRITES": 1, "POSIX_STATS": 1, "POSIX_BYTES_WRITTEN": 10},
       "POSIX counters")
    eq(modules(io_).get("STDIO"), None, "no STDIO record")
    t = stat_json(d, "--io-all-files")["total"]
    eq((t["ops"]["open"], t["ops"]["read"], t["bytes_written"], t["failed"], t["excluded"]),
       (3, 1, 15, 2, 0), "--io-all-files: the system files' calls, the failed open of /etc")
    eq(sql(d, "SELECT sum(excluded), sum(failed), count(*) FROM io").splitlines(), ["7\t1\t12"],
       "the io view: every call, 7 excluded, 1 failed")


def build_h5(out, *extra):
    """tests/record/rec_h5.c built (with the compiler flags EXTRA) into WORK/OUT against the
    shared HDF5 (pkg-config's flags, else Debian's serial HDF5, else h5cc -shlib: h5cc links
    libhdf5.a by default, whose calls no preload library sees); skipped without HDF5."""
    src, exe = os.path.join(SRCDIR, "tests", "record", "rec_h5.c"), os.path.join(WORK, out)
    p = subprocess.run(["pkg-config", "--cflags", "--libs", "hdf5"], capture_output=True,
                       text=True) if shutil.which("pkg-config") else None
    deb = "/usr/include/hdf5/serial/hdf5.h"
    cmds = ([["cc", *extra, "-o", exe, src, *p.stdout.split()]] if p and p.returncode == 0
            else []) + \
        ([["cc", *extra, "-I/usr/include/hdf5/serial", "-o", exe, src,
           "-L/usr/lib/x86_64-linux-gnu/hdf5/serial", "-lhdf5"]] if os.path.exists(deb) else []) + \
        ([["h5cc", "-shlib", *extra, "-o", exe, src]] if shutil.which("h5cc") else [])
    for cmd in cmds:
        if subprocess.run(cmd, capture_output=True, cwd=WORK).returncode == 0:
            return exe
    print("skip: HDF5 is not installed (libhdf5-dev)")
    sys.exit(77)


LOADER = r"""
#include <dlfcn.h>
int main(int argc, char **argv)
{
    void *h = dlopen(argv[1], RTLD_LOCAL | RTLD_NOW);
    int (*run)(int, char **) = h ? (int (*)(int, char **))dlsym(h, "rec_h5_main") : NULL;
    return run ? run(argc - 1, argv + 1) : 3;
}
"""


def h5_local():
    """HDF5 brought in by a library opened RTLD_LOCAL, as Python opens h5py's modules: outside
    the scope dlsym(RTLD_NEXT) searches.  The wrappers find it all the same (rec_h5.c as such a
    library): the same 18 HDF5 calls, and the program's data reach the file (its reads check
    them)."""
    lib = build_h5("librec_h5.so", "-shared", "-fPIC", "-Dmain=rec_h5_main")
    t = os.path.join(WORK, "t-local")
    p = subprocess.run([TRACERECORD, "-q", "-o", t, "--", build("loader", LOADER, flags=("-ldl",)),
                        lib, "local.h5"], cwd=WORK, capture_output=True, text=True, timeout=100)
    eq(p.returncode, 0, "RTLD_LOCAL: the program's exit status (stderr %r)" % p.stderr)
    eq(len(cat_args(t, "HDF5")), 18, "RTLD_LOCAL: the HDF5 calls traced")


def cat_args(d, layer):
    """(function, args) of each slice of LAYER in tracecat cat's output, in order."""
    p = subprocess.run([TRACECAT, "cat", d], capture_output=True, text=True, timeout=100)
    rows = [l.split("\t") for l in p.stdout.splitlines() if l.startswith("slice\t")]
    return [(r[6], json.loads(r[8])) for r in rows if r[5] == layer]


def case_h5():
    """HDF5 (tracerecord's H5F/H5D layer) as darshan-hdf5.c counts it: an H5F record per file,
    an H5D record per dataset named "<file>:<dataset>"; only calls that succeed count; H5Dwrite
    and H5Dread add the points selected in the FILE dataspace (H5S_ALL: the dataset's whole
    extent) times the size of the DATASET's type (not the memory type).  rec_h5.c on d.h5:
    H5Fcreate (H5F_OPENS 1); H5Dcreate2 "ints" (int32, 100 points; H5D_OPENS 1); H5Dwrite
    H5S_ALL (100 x 4 = 400 B) and a hyperslab of 10 (40 B); H5Dcreate2 "shorts" (int16, 4 x 5;
    H5D_OPENS 2) written from an int buffer: H5S_ALL 20 x 2 = 40 B, a 2 x 3 hyperslab 6 x 2 =
    12 B; H5Fflush (H5F_FLUSHES 1); H5Dclose x 2, H5Fclose; H5Fopen (H5F_OPENS 2); H5Dopen2
    "ints" (H5D_OPENS 3); H5Dread H5S_ALL 400 B (a write-to-read switch) and the hyperslab 40 B;
    H5Dopen2 "missing" fails: not counted, one failed call.  H5D_WRITES 4, BYTES_WRITTEN
    400 + 40 + 40 + 12 = 492, READS 2, BYTES_READ 440, RW_SWITCHES 1; records H5F 1, H5D 2.
    Every POSIX call HDF5 makes on d.h5 is one level under an H5 call (Recorder's call level),
    none at the top.  --layers hdf5 traces the H5 calls alone, --layers posix none of them.
    HDF5 loaded RTLD_LOCAL (h5py's way) is traced too."""
    exe = build_h5("rec_h5")
    d = os.path.join(WORK, "t-h5")
    p = subprocess.run([TRACERECORD, "-q", "-o", d, "--", exe, "d.h5"], cwd=WORK,
                       capture_output=True, text=True, timeout=100)
    eq(p.returncode, 0, "rec_h5's exit status (stderr %r)" % p.stderr)
    h5, ints, shorts = (os.path.join(WORK, "d.h5"), os.path.join(WORK, "d.h5:/ints"),
                        os.path.join(WORK, "d.h5:/shorts"))
    io_ = stat_json(d)
    got = modules(io_)
    eq(nonzero(got.get("H5F", {})), {"H5F_OPENS": 2, "H5F_FLUSHES": 1}, "H5F counters")
    eq(nonzero(got.get("H5D", {})),
       {"H5D_OPENS": 3, "H5D_READS": 2, "H5D_WRITES": 4, "H5D_BYTES_READ": 440,
        "H5D_BYTES_WRITTEN": 492, "H5D_RW_SWITCHES": 1}, "H5D counters")
    eq({m["module"]: m["records"] for m in io_["modules"] if m["module"].startswith("H5")},
       {"H5F": 1, "H5D": 2}, "H5 records")
    eq(io_["total"]["failed"], 1, "failed outermost calls: the missing dataset")
    eq({l["layer"]: l["failed"] for l in io_["layers"]},
       {"HDF5": 1, "POSIX": sum(1 for _, a in cat_args(d, "POSIX") if a["ret"] < 0)},
       "failed calls per layer (HDF5 probes d.h5 with open() before it creates it)")
    keys = ("reads", "writes", "bytes_read", "bytes_written", "accesses")
    eq(file_row(io_, ints, keys),
       {"reads": 2, "writes": 2, "bytes_read": 440, "bytes_written": 440, "accesses": 0},
       "the files table's row of d.h5:/ints")
    eq(file_row(io_, shorts, keys),
       {"reads": 0, "writes": 2, "bytes_read": 0, "bytes_written": 52, "accesses": 0},
       "the files table's row of d.h5:/shorts")
    h5_cat(d, h5, ints)
    h5_sql(d, h5, ints, shorts)
    h5_layers(exe)
    h5_local()


def h5_cat(d, h5, ints):
    """rec_h5's HDF5 calls in tracecat cat: their order, arg names (Recorder's parameter names,
    then tracerecord's dataset/bytes/ret) and the values that say which id is which."""
    calls = cat_args(d, "HDF5")
    eq([f for f, _ in calls],
       ["H5Fcreate", "H5Dcreate2", "H5Dwrite", "H5Dwrite", "H5Dcreate2", "H5Dwrite", "H5Dwrite",
        "H5Fflush", "H5Dclose", "H5Dclose", "H5Fclose", "H5Fopen", "H5Dopen2", "H5Dread",
        "H5Dread", "H5Dopen2", "H5Dclose", "H5Fclose"], "tracecat cat's HDF5 calls")
    rw = ["dataset_id", "mem_type_id", "mem_space_id", "file_space_id", "xfer_plist_id", "buf",
          "bytes", "ret"]
    want_keys = {"H5Fcreate": ["filename", "flags", "create_plist", "access_plist", "ret"],
                 "H5Fopen": ["filename", "flags", "access_plist", "ret"],
                 "H5Dcreate2": ["loc_id", "name", "dtype_id", "space_id", "lcpl_id", "dcpl_id",
                                "dapl_id", "dataset", "ret"],
                 "H5Dopen2": ["loc_id", "name", "dapl_id", "dataset", "ret"],
                 "H5Dwrite": rw, "H5Dread": rw, "H5Fflush": ["object_id", "scope", "ret"],
                 "H5Dclose": ["dataset_id", "ret"], "H5Fclose": ["file_id", "ret"]}
    for i, (f, a) in enumerate(calls):
        keys_f = want_keys[f][:]
        if i == 15:  # the failed open has no dataset name
            keys_f.remove("dataset")
        eq(list(a), keys_f, "call %d (%s): arg names" % (i, f))
    fid, dints = calls[0][1]["ret"], calls[1][1]["ret"]
    eq({k: calls[0][1][k] for k in ("filename", "flags", "create_plist", "access_plist")},
       {"filename": h5, "flags": 2, "create_plist": 0, "access_plist": 0}, "H5Fcreate's args")
    eq({k: calls[1][1][k] for k in ("loc_id", "name", "lcpl_id", "dcpl_id", "dapl_id", "dataset")},
       {"loc_id": fid, "name": "ints", "lcpl_id": 0, "dcpl_id": 0, "dapl_id": 0,
        "dataset": ints}, "H5Dcreate2's args")
    eq([(a["dataset_id"], a["file_space_id"] == 0, a["bytes"], a["ret"]) for _, a in calls[2:4]],
       [(dints, True, 400, 0), (dints, False, 40, 0)], "H5Dwrite's args")
    eq((calls[7][1]["object_id"], calls[7][1]["scope"]), (fid, 1), "H5Fflush's args")
    eq((calls[15][1]["name"], calls[15][1]["ret"]), ("missing", -1), "the failed H5Dopen2")


def h5_sql(d, h5, ints, shorts):
    """The io view's rows of rec_h5's HDF5 calls (a dataset's calls on "<file>:<dataset>"), and
    the POSIX calls HDF5 makes one level under them."""
    eq(sql(d, "SELECT function, path, bytes, module FROM io WHERE layer = 'HDF5'").splitlines(),
       ["H5Fcreate\t%s\t\tH5F" % h5, "H5Dcreate2\t%s\t\tH5D" % ints,
        "H5Dwrite\t%s\t400\tH5D" % ints, "H5Dwrite\t%s\t40\tH5D" % ints,
        "H5Dcreate2\t%s\t\tH5D" % shorts, "H5Dwrite\t%s\t40\tH5D" % shorts,
        "H5Dwrite\t%s\t12\tH5D" % shorts, "H5Fflush\t%s\t\tH5F" % h5,
        "H5Dclose\t%s\t\tH5D" % shorts, "H5Dclose\t%s\t\tH5D" % ints,
        "H5Fclose\t%s\t\tH5F" % h5, "H5Fopen\t%s\t\tH5F" % h5,
        "H5Dopen2\t%s\t\tH5D" % ints, "H5Dread\t%s\t400\tH5D" % ints,
        "H5Dread\t%s\t40\tH5D" % ints, "H5Dopen2\t\t\tH5D",
        "H5Dclose\t%s\t\tH5D" % ints, "H5Fclose\t%s\t\tH5F" % h5], "the io view's HDF5 rows")
    nest = sql(d, "SELECT coalesce(p.category, 'top'), s.depth, count(*) FROM io i"
                  " JOIN slice s ON s.id = i.slice_id LEFT JOIN slice p ON p.id = s.parent_id"
                  " WHERE i.layer = 'POSIX' AND i.path = '%s' GROUP BY 1, 2" % h5).splitlines()
    eq([r.split("\t")[:2] for r in nest], [["HDF5", "1"]],
       "the POSIX calls on d.h5: one level under an HDF5 call, none at the top")
    eq(sql(d, "SELECT p.name FROM io i JOIN slice s ON s.id = i.slice_id JOIN slice p"
              " ON p.id = s.parent_id WHERE i.function = 'open' AND i.path = '%s'"
              " GROUP BY 1" % h5).split(), ["H5Fcreate", "H5Fopen"], "the opens' parents")


def h5_layers(exe):
    """--layers hdf5: the H5 calls alone; --layers posix: none of them."""
    for layers, want in (("hdf5", {"HDF5"}), ("posix", {"POSIX"})):
        t = os.path.join(WORK, "t-" + layers)
        subprocess.run([TRACERECORD, "-q", "--layers", layers, "-o", t, "--", exe, "l.h5"],
                       cwd=WORK, capture_output=True, timeout=100)
        eq(set(sql(t, "SELECT DISTINCT category FROM slice").split()), want,
           "--layers %s: the layers traced" % layers)


CASES = {"h5": case_h5, "flushes": case_flushes, "stdio": case_stdio, "stdio-recorder": case_stdio_recorder,
         "dups": case_dups, "recorder-paths": case_recorder_paths, "recorder-v23": case_recorder_v23,
         "returns": case_returns, "mpiio": case_mpiio, "mpiio-recorder": case_mpiio_recorder,
         "exclusions": case_exclusions, "exclusions-recorder": case_exclusions_recorder,
         "recorder-generations": case_recorder_generations, "seek-end": case_seek_end}

CASE_RUN.run(CASES, CASE)
