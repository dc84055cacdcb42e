"""The grader's one line on standard error (say), and bad usage's one line (UsageError).

say writes no control character of a name; a UsageError is said and ends the grader with exit
2."""
import sys

from .safetext import term

PROG = "grade"


class UsageError(Exception):
    """Bad usage: one line, exit 2."""


def say(msg):
    """One line on standard error, as the grader (no control character of a name in it)."""
    sys.stderr.write("%s: %s\n" % (PROG, term(msg)))
    sys.stderr.flush()
