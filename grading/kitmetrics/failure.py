# failure - the one error type of grading/metrics: an exit code and the one line that explains it.
#
# Every part raises Failure instead of printing and exiting; cli.main prints "metrics: LINE" on
# stderr and exits with the code. The codes are the tool's contract with its callers:
#   2 bad usage or bad input, 3 the profiled command produced no metrics, 4 it produced none
#   because the kit's program said its variant is not written yet (its exit status 4),
#   5 ncu or gnuplot not found, 6 no permission for the GPU performance counters.

USAGE = 2
NO_METRICS = 3
NOT_WRITTEN = 4
NOT_FOUND = 5
NO_PERMISSION = 6


class Failure(Exception):
    """A reason to stop: `code` is the exit status, `line` the message without the prefix."""

    def __init__(self, code, line):
        Exception.__init__(self, line)
        self.code = code
        self.line = line


def usage(line):
    """Bad usage of the command line: points at --help."""
    return Failure(USAGE, "%s (see grading/metrics --help)" % line)


def bad_selection(line):
    """A metric or set name that the mapping does not know: points at `list`."""
    return Failure(USAGE, "%s (see grading/metrics list)" % line)
