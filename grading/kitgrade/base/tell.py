"""The grader's one line on standard error (say), no control character of a name in it."""
import sys

from .safetext import term

PROG = "grade"


def say(msg):
    """One line on standard error, as the grader (no control character of a name in it)."""
    sys.stderr.write("%s: %s\n" % (PROG, term(msg)))
    sys.stderr.flush()
