"""Verdicts: an output handed to the lab's checker on its standard input.

Verdicts: a dumped output, read safely from the box, handed to the lab's checker on its
standard input (`check-NN compare --part P --variant V --key K [--diff PNG] [--cache DIR] --
ARGS...`, DESIGN.md "The checker"). The checker never opens a path a submission chose; the
verdict is the checker's, never the run's own."""
import os
import re
import subprocess
import tempfile
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from ..base import fsutil

MAX_LISTED = 40


@dataclass
class Verdict:
    status: str          # pass | wrong
    detail: str = ""     # one line for the reason
    listing: str = ""    # the first mismatches, as the checker listed them
    diff: str = ""       # the diff picture's path, when one was written


def _first_row(lines):
    """The first mismatch row of a listing: (x, y, ch, expected, got) or None."""
    for ln in lines:
        t = ln.split()
        if len(t) >= 5 and all(re.fullmatch(r"-?\d+", x) for x in t[:3]):
            return t[:5]
    return None


def parse(out, rc):
    """A Verdict from the checker's output OUT (text) and exit status RC."""
    lines = out.splitlines()
    first = lines[0].strip() if lines else ""
    rest = lines[1:1 + MAX_LISTED]
    if first == "pass" and rc == 0:
        return Verdict("pass")
    if first.startswith("fail"):
        t = first.split()
        n, c = (t[1], t[2]) if len(t) >= 3 else ("some", "?")
        detail = "%s of %s values wrong" % (n, c)
        row = _first_row(rest)
        if row:
            detail += ", first at (%s,%s) ch %s: expected %s, got %s" % tuple(row)
        elif len(t) >= 5:
            detail += " (max abs error %s, max rel error %s)" % (t[3], t[4])
        return Verdict("wrong", detail, "\n".join(rest))
    if first.startswith("bad"):
        return Verdict("wrong", "unusable output: %s" % first[3:].strip(), "\n".join(rest))
    msg = " ".join(out.split())[:200]
    return Verdict("wrong", "unusable output: the checker could not judge it (exit %d%s)"
                   % (rc, ": " + msg if msg else ""))


def warm(checker, cache, items, take, stop=None):
    """The checker's references of ITEMS [(part, variant, key, args)] computed into the cache
    folder CACHE ahead of the compares that need them (a compare of no output computes and
    keeps the reference, then says "bad"), each on a core TAKE() lends (a context giving a
    list of cores). A grading's first compares (the reference's, which every student waits
    for) then read the cache instead of computing one after the other. Stops early once STOP
    (a threading.Event) is set; a failure is the compare's own business later."""
    for part, v, key, args in items:
        if stop is not None and stop.is_set():
            return
        with take() as cs:
            if stop is not None and stop.is_set():
                return
            with suppress(Exception):  # the real compare says what is wrong
                compare(checker, part, v, key, args, b"", cache=cache, cpus=cs, timeout=60)


@contextmanager
def on_cores(cpus):
    """The calling thread, and the processes it starts meanwhile, on the cores CPUS (a list;
    None: wherever they were). A checker started by a student's thread runs on the core that
    student holds, not on a core where another student's run is being timed."""
    if not cpus or not hasattr(os, "sched_setaffinity"):
        yield
        return
    old = os.sched_getaffinity(0)       # 0: the calling thread
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, old)


def _in_memory(data):
    """A descriptor of an unnamed in-memory file holding DATA, at its start: the checker's
    standard input. Fed through a pipe, megabytes go in 64 KiB writes, each waiting for the
    grader's interpreter lock among dozens of busy threads (a student's checks took 11 s, 2.5 s
    alone)."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("kit-output", os.MFD_CLOEXEC)
    else:
        fd = os.dup(tempfile.TemporaryFile().fileno())
    try:
        fsutil.write_all(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def compare(checker, part, variant, key, args, data, diff=None, cache=None, tol=None,
            timeout=600, cpus=None):
    """The checker's verdict on output DATA (bytes) of VARIANT on the case ARGS with content
    KEY (an int; 0: the case's own input). TOL: the rubric's (atol, rtol), else the lab's.
    CPUS: the cores it runs on (on_cores)."""
    argv = [checker, "compare", "--part", part, "--variant", str(variant), "--key", "%x" % key]
    if diff:
        argv += ["--diff", diff]
    if cache:
        argv += ["--cache", cache]
    if tol and len(tol) == 2:
        argv += ["--atol", repr(tol[0]), "--rtol", repr(tol[1])]
    argv += ["--"] + list(args)
    fd = -1
    try:
        fd = _in_memory(data)
        with on_cores(cpus):
            p = subprocess.run(argv, stdin=fd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Verdict("wrong", "unusable output: the checker ran past %d s on it" % timeout)
    except OSError as e:
        return Verdict("wrong", "unusable output: the checker could not run (%s)" % e)
    finally:
        if fd >= 0:
            os.close(fd)
    v = parse(p.stdout.decode("utf-8", "replace"), p.returncode)
    if v.status == "wrong" and diff:
        if os.path.isfile(diff):
            v.diff = diff
    return v
