"""What the tracerecord test scripts (record.py, darshan.py) share: a work
directory, failures collected rather than raised, and the run of one case."""
import os
import shutil
import sys
import tempfile


class Case:
    """Failures of one case, and its work directory (kept when a check fails)."""

    def __init__(self, prefix):
        self.work = os.path.realpath(tempfile.mkdtemp(prefix=prefix))
        self.failures = []

    def fail(self, msg):
        self.failures.append(msg)

    def eq(self, got, want, what):
        if got != want:
            self.fail("%s: got %r, want %r" % (what, got, want))

    def run(self, cases, name):
        """Run cases[name], print the failures and exit 0 pass, 1 fail (a case exits 77 to skip)."""
        try:
            cases[name]()
        finally:
            if not self.failures:
                shutil.rmtree(self.work, ignore_errors=True)
        for f in self.failures[:20]:
            print("FAIL:", f)
        if self.failures:
            print("work dir kept:", self.work)
        sys.exit(1 if self.failures else 0)
