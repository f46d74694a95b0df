#!/usr/bin/env python3
"""make.py DIR: write the hostile inputs of tests/hostile/hostile.sh into DIR.

Generated rather than committed: some are bombs (a few KB that expand to
GBs), the rest are small but would hide what they are in a binary blob.

  evil.json       Chrome events named with terminal escapes, a NUL and a C1 CSI
  hostile.db      a tracecat database (from the tiny GT sample, made by the test)
                  with a view that never ends (hostile.sh adds it)
  zeros.bin       4 KiB of NUL bytes
  zeros.zst       a zstd stream of 8 MiB of NUL bytes
  nokeys.json     a JSON object without traceEvents
  empty.json      a Chrome trace with no events
  bomb.gz         gzip members of 1 GiB of folded-stack lines in all (about 1 MB)
  bomb.zst        zstd frames of 32 GiB of folded-stack lines in all (about 1 MB)
  bomb.tar        a tar whose member rec/0.ts is bomb.zst
  dup.tar         a tar with the member a.json twice: an empty trace, then one event
"""
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


evil = "\u001b]0;pwned\u0007\u001b[2J"
write("evil.json", json.dumps({"traceEvents": [
    {"name": evil, "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1, "cat": "c\u0000d",
     "args": {"k\u001b": "v\u0000w"}},
    {"name": "a\u0000b", "ph": "i", "ts": 3, "pid": 1, "tid": 1},
    {"name": "\u009b2J", "ph": "X", "ts": 5, "dur": 1, "pid": 1, "tid": 1},
]}).encode())

write("zeros.bin", bytes(4096))
write("nokeys.json", b'{"foo": 1}\n')
write("empty.json", b'{"traceEvents": []}\n')


# Bombs: one compressed block of 8 MiB repeated; gzip members and zstd frames concatenate.
LINES = b"a;b;c 1\n" * (1 << 20)
write("bomb.gz", gzip.compress(LINES, 9, mtime=0) * 128)
frame = subprocess.run(["zstd", "-q", "-19", "-c"], input=LINES, stdout=subprocess.PIPE,
                       check=True).stdout
bomb = frame * 4096
write("bomb.zst", bomb)


def tar_of(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


write("bomb.tar", tar_of([("rec/0.ts", bomb)]))
one = json.dumps({"traceEvents": [{"name": "last", "ph": "X", "ts": 1, "dur": 1, "pid": 1,
                                   "tid": 1}]}).encode()
write("dup.tar", tar_of([("a.json", b'{"traceEvents": []}'), ("a.json", one)]))
