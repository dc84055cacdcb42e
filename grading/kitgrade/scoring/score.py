"""Points, the student's status and reason, and the result record (results.json).

Correctness points of a variant are shared out over its hidden tests (the cases it applies
to, n/a ones left out, and the sanitizer run); performance points go only to a variant that
passed every test and whose timed runs were verified, as the share of perf_scale's smooth
curve at its median time ratio to the reference. A speed breach costs what the rubric's
`penalty` says (the variant's performance points, all its points, or the lab's). The status
is the worst thing that happened; the reason says it in plain words.
"""
import time
from typing import Dict, List

from ..base.safetext import one_line
from ..lab.rubric import parse_vname

SEVERITY = ["missing", "refused", "no-commit", "no-files", "compile-error", "forbidden",
            "replayed", "impossible-time", "copies-in-launcher", "no-kernel", "extra-processes",
            "no-mechanism", "over-budget", "timeout", "memory-limit", "gpu-memory-limit", "disk-limit",
            "process-limit", "file-limit", "cpu-limit", "crash", "runtime-error",
            "sanitizer-error", "unverified", "no-output", "wrong", "not-implemented", "skipped",
            "ok"]
RANK = {s: i for i, s in enumerate(SEVERITY)}
SPEED = ("replayed", "impossible-time", "copies-in-launcher", "no-kernel", "extra-processes",
         "no-mechanism", "over-budget", "unverified")
SCHEMA = "kitgrade-results/1"


def worst(statuses):
    return min(statuses, key=lambda s: RANK.get(s, len(SEVERITY)), default=None)


def variant_points(rub, name, outcomes, timing):
    """One variant's record: its tests, points and what its timed runs showed."""
    pc, pp = rub.points[name]
    mine = [o for o in outcomes if o.vname == name and o.status != "n/a"]
    passed = sum(1 for o in mine if o.status == "pass")
    total = len(mine)
    corr = pc * passed / total if total else 0.0
    perf, status, reason, penalty = 0.0, "ok", "", ""
    fails = [o for o in mine if o.status != "pass"]
    if fails:
        status = worst(o.status for o in fails)
    speed = [o for o in fails if o.status in SPEED]
    if speed:
        penalty = rub.penalty.get(speed[0].status, "perf")
    if timing is not None and timing.status not in ("ok", "not-timed"):
        status = worst([status, timing.status])
        if timing.status in SPEED:
            penalty = rub.penalty.get(timing.status, "perf")
            reason = timing.reason
    if total and passed == total and timing is not None and timing.status == "ok" and pp > 0:
        perf = pp * rub.perf_share(timing.ratio)
    if penalty in ("variant", "lab"):
        corr, perf = 0.0, 0.0
    return {
        "variant": name, "part": parse_vname(name)[0], "number": parse_vname(name)[1],
        "tests_passed": passed, "tests_total": total,
        "correctness_pts": round(corr, 4), "perf_pts": round(perf, 4),
        "max_correctness": pc, "max_perf": pp,
        "status": status, "reason": reason, "penalty": penalty,
        "timing": timing.as_json() if timing is not None else None,
    }


def label(name):
    """A variant as reports name it: v3, or strip:3 in a lab of parts."""
    return name if ":" in name else "v" + name


def _phrase(o):
    if o.status == "not-implemented":
        return "not implemented"
    where = "the sanitizer run" if o.kind == "sanitize" else "case " + o.case
    return "%s in %s%s" % (o.status, where, ": " + o.reason if o.reason else "")


def summarise(rub, outcomes, variants):
    """(status, reason) of a student whose build was ok."""
    statuses = [o.status for o in outcomes if o.status not in ("pass", "n/a")]
    statuses += [v["timing"]["status"] for v in variants
                 if v["timing"] and v["timing"]["status"] not in ("ok", "not-timed")]
    status = worst(statuses) or "ok"
    groups = []           # [phrase, [variant names]]
    for name in rub.points:
        first = next((o for o in outcomes if o.vname == name and
                      o.status not in ("pass", "n/a")), None)
        ph = []
        if first is not None:
            ph.append(_phrase(first))
        v = next(x for x in variants if x["variant"] == name)
        t = v["timing"]
        if t and t["status"] not in ("ok", "not-timed"):
            cost = {"perf": "no performance points", "variant": "no points for the variant",
                    "lab": "no points for the lab"}.get(v["penalty"], "no performance points")
            ph.append("%s in its timed runs (%s): %s" % (t["status"], cost, t["reason"]))
        for p in ph:
            for g in groups:
                if g[0] == p:
                    g[1].append(name)
                    break
            else:
                groups.append([p, [name]])
    reason = "; ".join("%s %s" % (", ".join(label(n) for n in g[1]), g[0]) for g in groups)
    if status == "ok":
        reason = "every hidden test passed"
    return status, reason


def result(rub, student, lab_nn, build, files, outcomes=(), timings=None, fixed=None,
           runs=(), extra=None):
    """The record of one student (what results.json holds). FIXED: (status, reason) that
    decides without tests (a refused folder, a failed build, no device)."""
    timings = timings or {}
    variants = [variant_points(rub, n, outcomes, timings.get(n)) for n in rub.points]
    if fixed:
        status, reason = fixed
        if status in ("refused", "compile-error", "forbidden") or build.get("status") != "ok":
            for v in variants:
                v["correctness_pts"] = v["perf_pts"] = 0.0
    else:
        status, reason = summarise(rub, outcomes, variants)
    if any(v["penalty"] == "lab" for v in variants):
        for v in variants:
            v["correctness_pts"] = v["perf_pts"] = 0.0
    corr = sum(v["correctness_pts"] for v in variants)
    perf = sum(v["perf_pts"] for v in variants)
    tests = [o for o in outcomes if o.status != "n/a"]
    rec = {
        "schema": SCHEMA,
        "student": student.name, "id": student.id, "lab": lab_nn,
        "status": status, "reason": one_line(reason),
        "build": build, "files": list(files),
        "points": {"correctness": round(corr, 4), "perf": round(perf, 4),
                   "total": round(corr + perf, 4), "max": rub.max_points()},
        "tests": {"passed": sum(1 for o in tests if o.status == "pass"), "total": len(tests)},
        "variants": variants,
        "cases": [{"case": o.case, "kind": o.kind, "part": o.part, "variant": o.vname,
                   "status": o.status, "reason": one_line(o.reason, 1000),
                   "mismatch": o.listing[:4000] if o.listing else None,
                   "diff": o.diff or None} for o in outcomes],
        "runs": [dict(x) for x in runs],
        "graded_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    rec.update(extra or {})
    return rec


def grades_row(rec) -> List:
    """The grades.csv fields of a record, in the contract's order (and the id after)."""
    p = rec["points"]
    return [rec["student"], rec["lab"], rec["build"].get("status", ""), rec["tests"]["passed"],
            rec["tests"]["total"], "%.1f" % p["correctness"], "%.1f" % p["perf"],
            "%.1f" % p["total"], "%g" % p["max"], rec["status"], rec["reason"], rec["id"]]


def by_variant(rec) -> Dict[str, dict]:
    return {v["variant"]: v for v in rec["variants"]}
