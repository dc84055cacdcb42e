"""Why a passing variant lost performance points, and what else ran at that moment.

The report names the pairs (and their repetitions) that fell below the ratio where full points
start, or the run that broke a speed check, and what else ran at that moment on the same GPU
and cores.

Every run of a grading (builds, correctness runs, timed runs) is kept in a RunLog while the
grading lasts: who it was for, where it ran (the GPU, the cores) and from when to when, in
seconds from the grading's start. A timed run carries its entry's number (`seq`), and a pair the
numbers of its two runs, so the runs that overlapped it are found afterwards. Other submissions'
runs are named by their kind only (a build, a correctness run, a timed run, the reference's
timed run): a report is the student's. explain() gives results.json's variant "speed_loss", and
lines() report.md's words on it (Markdown, escaped).
"""
import itertools
import threading
import time
from contextlib import contextmanager, nullcontext

from ..base.safetext import md

MAX_OTHERS = 12


class RunLog:
    def __init__(self):
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self.runs = []

    def start(self, at, who, name, gpu, cores):
        e = {"seq": next(self._seq), "who": who, "name": name, "at": at, "end": None,
             "gpu": None if gpu is None else str(gpu), "cores": sorted(cores or [])}
        with self._lock:
            self.runs.append(e)
        return e

    def get(self, seq):
        with self._lock:
            return next((e for e in self.runs if e["seq"] == seq), None)

    def during(self, at, end):
        """Runs that were under way some time between AT and END (END None: still on)."""
        with self._lock:
            return [dict(e) for e in self.runs
                    if e["at"] < (end if end is not None else float("inf")) and
                    (e["end"] is None or e["end"] > at)]


@contextmanager
def _logged(ctx, who, name, gpu, cores):
    e = ctx.runlog.start(ctx.since_start(time.monotonic()), who, name, gpu, cores)
    try:
        yield e
    finally:
        e["end"] = ctx.since_start(time.monotonic())


def running(ctx, who, name, gpu=None, cores=None):
    """Around one run: its entry in the grading's RunLog (nothing without one)."""
    if getattr(ctx, "runlog", None) is None or getattr(ctx, "t0", None) is None:
        return nullcontext({})
    return _logged(ctx, who, name, gpu, cores)


def full_ratio(rub):
    """The smallest time ratio that earns the full share of perf_scale."""
    pts = sorted(rub.perf_scale)
    if not pts:
        return None
    top = max(y for _x, y in pts)
    return next(x for x, y in pts if y >= top)


def _kind(e, who):
    n = e["name"]
    what = ("a build" if n == "build" else "a timed run of the reference"
            if n.startswith("time-reference") else "a timed run" if n.startswith("time-")
            else "a correctness run")
    if e["who"] == "reference":
        return "the reference's " + ("build" if n == "build" else "correctness run")
    return what + (" of this submission" if e["who"] == who else " of another submission")


def _others(log, seqs, who):
    """The runs that overlapped the runs SEQS and shared their GPU or a core: from the time
    each of SEQS went through its gate (`held`; its start when it had none), not while it
    waited there for its turn."""
    mine = [log.get(s) for s in seqs if s is not None]
    mine = [e for e in mine if e is not None]
    out = []
    for m in mine:
        for e in log.during(m.get("held", m["at"]), m["end"]):
            if e["seq"] in seqs or any(o["seq"] == e["seq"] for o in out):
                continue
            shared = []
            if m["gpu"] is not None and e["gpu"] == m["gpu"]:
                shared.append("GPU %s" % m["gpu"])
            cores = sorted(set(m["cores"]) & set(e["cores"]))
            if cores:
                shared.append("core%s %s" % ("s" if len(cores) > 1 else "",
                                             ",".join(map(str, cores))))
            out.append({"seq": e["seq"], "what": _kind(e, who), "at": e["at"], "end": e["end"],
                        "gpu": e["gpu"], "cores": e["cores"], "shared": shared})
    out.sort(key=lambda o: (not o["shared"], o["at"]))
    return out[:MAX_OTHERS], len(out)


def _where(log, seq):
    e = log.get(seq) if seq is not None else None
    if e is None:
        return None
    return {"run": e["name"], "at": e["at"], "end": e["end"], "gpu": e["gpu"],
            "cores": e["cores"]}


def explain(rub, v, log, who):
    """Why variant record V lost performance points although it passed every test (None when
    it did not, or failed a test: its tests say why)."""
    t = v.get("timing") or {}
    if not v["max_perf"] or v["perf_pts"] >= v["max_perf"] - 1e-6 or not t or \
            v["tests_passed"] < v["tests_total"] or log is None:
        return None
    full = full_ratio(rub)
    out = {"lost": round(v["max_perf"] - v["perf_pts"], 4), "status": t.get("status"),
           "reason": t.get("reason") or "", "ratio": t.get("ratio"), "full_ratio": full,
           "pairs": []}
    for i, p in enumerate(t.get("pairs") or [], 1):
        if t.get("status") == "ok" and full is not None and p["ratio"] >= full:
            continue
        seqs = [p.get("student_run"), p.get("ref_run")]
        others, n = _others(log, seqs, who)
        reps = p.get("student_reps_ms") or []
        out["pairs"].append({
            "pair": i, "ratio": round(p["ratio"], 4), "ref_ms": p["ref_ms"],
            "student_ms": p["student_ms"], "student_reps_ms": reps,
            "ref_reps_ms": p.get("ref_reps_ms") or [],
            "slowest_rep": 1 + reps.index(max(reps)) if reps else None,
            "student_run": _where(log, seqs[0]), "ref_run": _where(log, seqs[1]),
            "others": others, "others_total": n})
    if t.get("status") != "ok":
        # the run that broke the check, or (a check of every pair) each of its timed runs
        seqs = [t["breach_run"]] if t.get("breach_run") is not None else \
            [p.get("student_run") for p in t.get("pairs") or []]
        others, n = _others(log, seqs, who)
        out["breach_run"] = _where(log, seqs[0]) if seqs else None
        out["others"], out["others_total"] = others, n
    return out


def _span(w):
    if not w:
        return "?"
    return "%s, %.1f-%s s, %s" % (w["run"], w["at"],
                                  "%.1f" % w["end"] if w["end"] is not None else "?",
                                  _place(w))


def _place(x):
    parts = (["GPU %s" % x["gpu"]] if x.get("gpu") is not None else []) + \
        (["cores %s" % ",".join(map(str, x["cores"]))] if x.get("cores") else [])
    return " and ".join(parts) or "no core of its own"


def _meanwhile(others, n):
    if not others:
        return "nothing else ran then"
    words = ["%s (%s, %.1f-%s s%s)" % (o["what"], _place(o), o["at"],
                                       "%.1f" % o["end"] if o["end"] is not None else "on",
                                       "; shared: " + ", ".join(o["shared"]) if o["shared"]
                                       else "")
             for o in others]
    more = " and %d more" % (n - len(others)) if n > len(others) else ""
    return "meanwhile: " + "; ".join(words) + more


def lines(v, label):
    """report.md's lines on variant record V's lost performance points ([] when none)."""
    s = v.get("speed_loss")
    if not s:
        return []
    head = "- %s: %.1f of %g performance points lost: " % (md(label), s["lost"], v["max_perf"])
    if s["status"] != "ok":
        head += "**%s** in its timed runs (%s)" % (s["status"], md(s["reason"]))
        if s.get("breach_run"):
            head += ", in %s; %s" % (md(_span(s["breach_run"])),
                                     md(_meanwhile(s["others"], s["others_total"])))
    else:
        head += "the median ratio of times (reference / this submission) is %.2f; the full " \
                "points start at %s" % (s["ratio"], "%g" % s["full_ratio"]
                                        if s["full_ratio"] is not None else "?")
    out = [head + "."]
    for p in s["pairs"]:
        reps = ", ".join("%.4g" % x for x in p["student_reps_ms"])
        out.append("  - pair %d: ratio %.2f (reference %.4f ms, this submission %.4f ms%s); "
                   "this submission's run %s, the reference's %s; %s." % (
                       p["pair"], p["ratio"], p["ref_ms"], p["student_ms"],
                       "; its repetitions %s ms, repetition %s the slowest" % (
                           reps, p["slowest_rep"]) if reps else "",
                       md(_span(p["student_run"])), md(_span(p["ref_run"])),
                       md(_meanwhile(p["others"], p["others_total"]))))
    return out
