"""The grader's lines on standard error (say), and bad usage's one line (UsageError).

say writes no control character of a name and marks a message's later lines; a UsageError
is said and ends the grader with exit 2."""
import sys

from .safetext import term

PROG = "grade"


class UsageError(Exception):
    """Bad usage: one line, exit 2."""


def say(msg):
    """A line on standard error, as the grader: no control character of a name in it, and
    each line after the first (a log a message quotes, a name with a line break in it) begun
    with "  | ", so that nothing quoted reads as a line of the grader's own."""
    sys.stderr.write("%s: %s\n" % (PROG, term(msg).replace("\n", "\n  | ")))
    sys.stderr.flush()
