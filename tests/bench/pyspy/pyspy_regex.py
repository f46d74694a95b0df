#!/usr/bin/env python3
"""pyspy_regex.py FILE: what the Python tools do with a dump file (putils'
python_stack_sniffer.py): a regular expression over every line, extracting
each frame's function, file and line.  Prints the number of frames."""
import re
import sys

FRAME = re.compile(r"^\s+(?P<func>.+?) \((?P<file>.+):(?P<line>\d+)\)\s*$")
THREAD = re.compile(r'^Thread (?P<tid>\S+)(?: \((?P<state>[^)]*)\))?(?:: "(?P<name>.*)")?')

n = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        m = FRAME.match(line)
        if m:
            n += 1
            m.group("func"), m.group("file"), int(m.group("line"))
        elif line.startswith("Thread "):
            THREAD.match(line)
print(n)
