#!/usr/bin/env python3
"""pytap.py DIR PATTERN - run the Python unittest files of DIR whose names match
PATTERN (unittest's glob, e.g. 'test_metrics*.py') and print TAP, the format
tests/run counts: "ok N name", "not ok N name" (the traceback as # lines after
it), "ok N name # skip reason". A test that ran ends its line with " in Nms", as bats --timing
does. Exit 0 when nothing failed."""
import os
import sys
import time
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0
        self.t0 = time.monotonic()

    def startTest(self, test):
        super().startTest(test)
        self.t0 = time.monotonic()

    def _ms(self):
        return " in %dms" % round(1000 * (time.monotonic() - self.t0))

    def _line(self, status, test, extra=""):
        self.n += 1
        print("%s %d %s%s" % (status, self.n, test.id(), extra), flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line("ok", test, self._ms())

    def _bad(self, test, err):
        self._line("not ok", test, self._ms())
        for line in self._exc_info_to_string(err, test).splitlines():
            print("# " + line)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._bad(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._bad(test, err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line("ok", test, " # skip " + " ".join(str(reason).split()))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line("ok", test)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line("not ok", test, " # unexpected success")


def main():
    if len(sys.argv) != 3:
        print("usage: pytap.py DIR PATTERN", file=sys.stderr)
        return 2
    top = os.path.abspath(sys.argv[1])
    sys.dont_write_bytecode = True
    suite = unittest.defaultTestLoader.discover(top, pattern=sys.argv[2], top_level_dir=top)
    count = suite.countTestCases()
    print("1..%d" % count, flush=True)
    result = TapResult()
    suite.run(result)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
