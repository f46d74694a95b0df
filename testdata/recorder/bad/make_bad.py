#!/usr/bin/env python3
"""make_bad.py: rebuild the crafted bad Recorder traces in this folder from the
real samples beside it (../iomix-1r, ../iomix-2r, ../g3-iomix-1r).  Each case is
one damage to a real trace; tests/test_recorder.c says what error each must give.
Run from anywhere: python3 testdata/recorder/bad/make_bad.py"""
import os, shutil, struct, zlib

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.dirname(here)


def case(name, base):
    d = os.path.join(here, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(src, base), d, ignore=shutil.ignore_patterns("_*", "*.json", "*.txt"))
    return d


def rd(d, f):
    return open(os.path.join(d, f), "rb").read()


def wr(d, f, b):
    open(os.path.join(d, f), "wb").write(b)


def cfg(rules):
    out = struct.pack("<i", len(rules))
    for rid, syms in rules:
        out += struct.pack("<ii", rid, len(syms))
        for v, r in syms:
            out += struct.pack("<ii", v, r)
    return out


# a rank's files missing
d = case("missing-rank", "iomix-2r"); os.remove(os.path.join(d, "1.ts"))
# 100,000 ranks claimed, 2 present
d = case("many-ranks", "iomix-2r"); mt = rd(d, "recorder.mt"); wr(d, "recorder.mt", struct.pack("<i", 100000) + mt[4:])
d = case("g3-many-ranks", "g3-iomix-1r"); mt = rd(d, "recorder.mt"); wr(d, "recorder.mt", struct.pack("<i", 100000) + mt[4:])
# call-signature table cut short
d = case("cst-cut", "iomix-1r"); wr(d, "0.cst", rd(d, "0.cst")[:300])
# timestamps cut short: the grammar claims more records than 0.ts holds
d = case("ts-cut", "iomix-1r"); wr(d, "0.ts", rd(d, "0.ts")[:100])
# grammar: a rule that refers to itself, a cycle, a missing rule, a huge count
d = case("cfg-self", "iomix-1r"); wr(d, "0.cfg", cfg([(-1, [(0, 1), (-1, 2)])]))
d = case("cfg-cycle", "iomix-1r"); wr(d, "0.cfg", cfg([(-1, [(-2, 1)]), (-2, [(1, 1), (-3, 1)]), (-3, [(-2, 2)])]))
d = case("cfg-missing-rule", "iomix-1r"); wr(d, "0.cfg", cfg([(-1, [(0, 1), (-7, 1)])]))
d = case("cfg-count", "iomix-1r"); b = bytearray(rd(d, "0.cfg")); b[8:12] = struct.pack("<i", 0x7fffffff); wr(d, "0.cfg", bytes(b))
d = case("cfg-terminal", "iomix-1r"); wr(d, "0.cfg", cfg([(-1, [(0, 1), (999, 1)])]))
# function id out of range: terminal 0's func_id byte (entry at 4, header 16, tid 8)
d = case("func-range", "iomix-1r"); b = bytearray(rd(d, "0.cst")); b[4 + 16 + 8] = 250; wr(d, "0.cst", bytes(b))
# a compressed block that fails to inflate (G3 recorder.cst, zlib data damaged)
d = case("zlib-bad", "g3-iomix-1r"); b = bytearray(rd(d, "recorder.cst")); b[40:60] = b"\xff" * 20; wr(d, "recorder.cst", bytes(b))
# a compressed block that claims a huge raw size
d = case("zlib-huge", "g3-iomix-1r"); b = bytearray(rd(d, "recorder.cst")); b[8:16] = struct.pack("<Q", 1 << 40); wr(d, "recorder.cst", bytes(b))
