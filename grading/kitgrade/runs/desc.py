"""A variant's account of a run as the harness writes it (vV.txt), and the keys of its repetitions.

The harness's description of each variant it ran (DESIGN.md "The grading mode of the
harness": status, type, shape, span, a `rep` line per timed repetition) parsed into a Desc, to
be read, never believed for a verdict; and the key of a repetition where the grader hands none
out (a correctness run), as the harness computes it.
"""
from dataclasses import dataclass, field
from typing import List

from ..lab.rubric import Rng, fnv1a

MAX_DESC = 1 << 20


@dataclass
class Rep:
    k: int
    key: str
    l0: int
    l1: int
    kernel_ms: float
    total_ms: float


@dataclass
class Desc:
    """A variant's vV.txt: the run's own account (read, never believed for a verdict)."""
    status: str = ""
    type: str = ""
    shape: tuple = ()
    span: tuple = ()
    reps: List[Rep] = field(default_factory=list)
    bad: str = ""


def parse_desc(data):
    """A Desc from the bytes of a vV.txt (the older one-line form is read too)."""
    d = Desc()
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()[:100000]
    for ln in lines:
        t = ln.split()
        if not t:
            continue
        try:
            if t[0] == "status" and len(t) >= 2:
                d.status = t[1]
            elif t[0] == "type" and len(t) >= 2:
                d.type = t[1]
            elif t[0] == "shape" and len(t) >= 5:
                d.shape = tuple(int(x) for x in t[1:5])
            elif t[0] == "span" and len(t) >= 3:
                d.span = (int(t[1]), int(t[2]))
            elif t[0] == "rep" and len(t) >= 7:
                d.reps.append(Rep(int(t[1]), t[2].lower(), int(t[3]), int(t[4]), float(t[5]),
                                  float(t[6])))
            elif t[0] in ("ok", "not-implemented", "error", "unsupported") and not d.status \
                    and len(t) >= 6:
                d.status, d.type = t[0], t[1]      # the older one-line form
                d.shape = tuple(int(x) for x in t[2:6])
        except ValueError:
            d.bad = "line '%s' cannot be read" % ln[:60]
    if not d.status:
        d.bad = d.bad or "no status line"
    return d


def rep_key(seed, part, v, k):
    """The key of timed repetition K of variant V when the grader hands none out (the
    harness's kit_rep_key, common/spec.c): the content of a correctness run's repetitions."""
    key = Rng(seed ^ fnv1a(part) ^ ((v & 0xFFFFFFFF) << 40) ^ (k & 0xFFFFFFFF)).next()
    return key or 1


def case_seed(args):
    for i in range(len(args) - 1):
        if args[i] == "--seed":
            return int(args[i + 1])
    return 1
