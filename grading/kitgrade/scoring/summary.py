"""The class's files: grades.csv, summary.md and the plots, made from results.json.

The class: OUT/grades.csv, OUT/summary.md and OUT/plots/, made from the students'
results.json files (so a resumed grading writes them whole again)."""
import math
import os
import statistics
import subprocess
from typing import List

from ..base import fsutil
from ..base.safetext import cell
from ..runs.keys import SPLIT
from . import occupancy
from .report import clean, load, md
from .score import SEVERITY, grades_row, label
from .wfreport import grade_columns, summary_lines

HEADER = ("student,lab,build,tests_passed,tests_total,correctness_pts,perf_pts,total_pts,"
          "max_pts,status,reason,id")
QUOTED = (0, 1, 10, 11)


def _q(s):
    return '"' + cell(s).replace('"', '""') + '"'


def records(out):
    """Every student's record, sorted by name (bytes of its UTF-8)."""
    recs = []
    sdir = os.path.join(out, "students")
    for sid in sorted(os.listdir(sdir)) if os.path.isdir(sdir) else []:
        r = load(os.path.join(sdir, sid))
        if r is not None:
            recs.append(r)
    recs.sort(key=lambda r: (r["student"].encode("utf-8"), r["id"]))
    return recs


def write_grades(out, recs):
    more = grade_columns(recs, _q)      # login, roster, commit, ... (the workflow's)
    lines = [HEADER + (more[0] if more else "")]
    for r in recs:
        f = grades_row(r)
        lines.append(",".join(_q(x) if i in QUOTED else str(x) for i, x in enumerate(f)) +
                     (more[1](r) if more else ""))
    fsutil.atomic_write(os.path.join(out, "grades.csv"), "\n".join(lines) + "\n")


def write_plots(out, recs, max_pts, gnuplot, gp_script):
    """plots/scores.txt, plots/perf.tsv, the occupancy data and, with gnuplot, the histogram,
    time_vs_ref and the occupancy chart."""
    plots = os.path.join(out, "plots")
    os.makedirs(plots, exist_ok=True)
    fsutil.atomic_write(os.path.join(plots, "scores.txt"),
                        "".join("%.1f\n" % r["points"]["total"] for r in recs))
    names = []
    rows = []
    for r in recs:
        for v in r["variants"]:
            t = v.get("timing") or {}
            if t.get("status") == "ok" and t.get("student_ms") and t.get("ref_ms"):
                if v["variant"] not in names:
                    names.append(v["variant"])
                rows.append("%s\t%d\t%s\t%.6g\t%.6g\t%.6g\n" % (
                    cell(r["id"]), names.index(v["variant"]) + 1, v["variant"], t["student_ms"],
                    t["ref_ms"], t["student_ms"] / t["ref_ms"]))
    fsutil.atomic_write(os.path.join(plots, "perf.tsv"), "".join(rows))
    occupancy.draw(out, gnuplot)
    if not gnuplot or not recs:
        return False
    log = open(os.path.join(plots, "gnuplot.log"), "wb")
    with log:
        ok = subprocess.run([gnuplot, "-e", "mode='scores'; in='scores.txt'; out='scores'; "
                             "maxpts=%g" % max_pts, gp_script], cwd=plots, stdout=log,
                            stderr=log).returncode == 0
        if rows:
            labels = " ".join(label(n) for n in names)     # variant names: the rubric's
            subprocess.run([gnuplot, "-e", "mode='perf'; in='perf.tsv'; out='time_vs_ref'; "
                            "labels='%s'" % labels, gp_script], cwd=plots, stdout=log, stderr=log)
    return ok


def _median(xs):
    return statistics.median(xs) if xs else 0.0


PHASES = (("build", "building"), ("run", "correctness runs"),
          ("wait", "waiting for a timed slot"), ("timed", "timed runs"),
          ("check", "checking the timed outputs"))

RUN_PARTS = {"gate": "waiting for the GPU", "runs": "in the runs", "checks": "in the checker"}

# the parts of a timed run's time (results.json runs[].split_s), in keys.SPLIT's order
TIMED_WORDS = {"start": "starting (process, inputs, CUDA)", "gate": "waiting at the gate",
               "setup": "first set-up and warm-up",
               "key": "waiting for each key (in lockstep, the other run)",
               "content": "making each repetition's content", "variant": "in the variants",
               "output": "writing the outputs", "between": "between variants", "end": "ending"}
TIMED_PARTS = tuple((k, TIMED_WORDS[k]) for k in SPLIT)


def _seconds(x):
    """X as seconds to add (a finite number, not below 0), or None: a record's number may
    come from an earlier grading's results.json, or a hand-edited one."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    try:
        s = float(x)
    except OverflowError:
        return None
    return max(0.0, s) if math.isfinite(s) else None


def phase_lines(recs, line):
    """Where the grading's time went: each phase's seconds added over the students whose
    records carry them (results.json "phases", each from the run of the grader that graded the
    student), and how long this run's timing line held the GPUs alone (LINE: seconds, turns)."""
    recs = [r for r in recs if isinstance(r.get("phases"), dict)]
    if not recs:
        return []

    def added(pairs):
        """{key: its seconds added up} of PAIRS (key, seconds), those of None left out."""
        tot = {}
        for k, secs in pairs:
            if secs is not None:
                tot[k] = tot.get(k, 0.0) + secs
        return tot
    spans = [(k, r["phases"].get(k)) for r in recs for k, _w in PHASES]
    sums = added((k, max(0.0, se[1] - se[0])) for k, se in spans
                 if isinstance(se, list) and len(se) == 2 and None not in se)
    parts = ["%s %.1f s" % (w, sums[k]) for k, w in PHASES if k in sums]
    s = "Where the time went, added over %d students: %s." % (len(recs), ", ".join(parts))
    rp = added((k, _seconds(x.get(k))) for x in (r.get("run_parts") for r in recs)
               if isinstance(x, dict) for k in RUN_PARTS)
    if rp:
        s += " Of the correctness runs: %s." % ", ".join(
            "%s %.1f s" % (w, rp[k]) for k, w in RUN_PARTS.items() if k in rp)
    splits = [run.get("split_s") for r in recs if isinstance(r.get("runs"), list)
              for run in r["runs"] if isinstance(run, dict)]
    timed = [[(k, _seconds(sp.get(k))) for k, _w in TIMED_PARTS] for sp in splits
             if isinstance(sp, dict)]
    tp = added(p for ps in timed for p in ps)
    if tp:
        nt = sum(1 for ps in timed if any(secs is not None for _k, secs in ps))
        s += " Of the %d timed runs (the students' and the reference's): %s." % (nt, ", ".join(
            "%s %.1f s" % (w, tp[k]) for k, w in TIMED_PARTS if k in tp))
    if line is not None and line[1]:
        s += " The timing line held a GPU alone %.1f s in all, in %d turns." % line
    return [s + "\n"]


def write_summary(out, recs, g):
    """summary.md. G: lab, labname, max points, grading.txt text, notes, skipped entries,
    slots and jobs, seconds, plots made."""
    L = ["# Lab %s (%s): grades\n" % (g["lab"], g["labname"])]
    L += ["    " + clean(ln) for ln in g["grading_txt"].splitlines()]
    L.append("")
    if not recs:
        L.append("No student graded yet.\n")
    else:
        tot = [r["points"]["total"] for r in recs]
        L.append("%d students; mean %.1f, median %.1f of %g points.\n" % (
            len(recs), sum(tot) / len(tot), _median(tot), g["max_pts"]))
        L.append("| status | students |\n|---|---|")
        for s in SEVERITY + sorted({r["status"] for r in recs} - set(SEVERITY)):
            n = sum(1 for r in recs if r["status"] == s)
            if n:
                L.append("| %s | %d |" % (s, n))
        L.append("")
    L += summary_lines(out, recs)
    if g["notes"]:
        L.append("Not enforced on this machine: %s.\n" % md("; ".join(g["notes"])))
    builds = [r["build"].get("ms", 0) / 1000.0 for r in recs if r["build"].get("ms")]
    runs = [r.get("run_ms", 0) / 1000.0 for r in recs if r.get("run_ms")]
    procs = [x["wall_ms"] / 1000.0 for r in recs for x in r.get("runs", []) if x.get("wall_ms")]
    if builds:
        L.append("Per submission: build %.1f s, runs %.1f s on average (builds and correctness "
                 "runs %d at a time; timed runs alone on each of: %s). The runs started %d "
                 "programs in all, %.2f s each on average. This run of the grader took %d s "
                 "from start to end.\n" % (
                     sum(builds) / len(builds), sum(runs) / len(runs) if runs else 0.0,
                     g["jobs"], ", ".join(g["slots"]), len(procs),
                     sum(procs) / len(procs) if procs else 0.0, g["seconds"]))
    L += phase_lines(recs, g.get("line"))
    spread = reference_spread(recs)
    if spread:
        L.append("The reference's time per variant across this grading (each student's pairs; "
                 "min / median / max, ms):\n")
        L.append("| variant | runs | min | median | max |\n|---|---|---|---|---|")
        for name, xs in spread:
            L.append("| %s | %d | %.4f | %.4f | %.4f |" % (md(label(name)), len(xs), min(xs),
                                                          _median(xs), max(xs)))
        L.append("")
    occ = os.path.join(out, "plots", "occupancy.txt")
    if os.path.isfile(occ):
        with open(occ, encoding="utf-8") as f:
            L.append("Where the time went (plots/occupancy.tsv): %s.\n" % md(
                f.read().strip().replace("occupancy: ", "", 1)))
    if g["plots"]:
        L.append("![score histogram](plots/scores.png)\n")
        if os.path.isfile(os.path.join(out, "plots", "time_vs_ref.png")):
            L.append("![time against the reference per variant](plots/time_vs_ref.png)\n")
        if os.path.isfile(os.path.join(out, "plots", "occupancy.png")):
            L.append("![the GPUs and cores over the grading, a bar per run](plots/occupancy.png)\n")
    else:
        L.append("(no plots: gnuplot is missing)\n")
    L.append("| student | status | points | tests | reason |")
    L.append("|---|---|---|---|---|")
    for r in recs:
        L.append("| [%s](students/%s/report.md) | %s | %.1f / %g | %d/%d | %s |" % (
            md(r["student"]), r["id"], r["status"], r["points"]["total"], r["points"]["max"],
            r["tests"]["passed"], r["tests"]["total"], md(r["reason"], 160)))
    L.append("")
    if g["skipped"]:
        L.append("Not graded:\n")
        L += ["- %s: %s" % (md(n), md(why)) for n, why in g["skipped"]]
        L.append("")
    L.append("Each report: students/ID/report.md; each result: students/ID/results.json (ID is "
             "the name, or its safe form and a short hash when the name is not safe as a "
             "path).")
    fsutil.atomic_write(os.path.join(out, "summary.md"), "\n".join(L) + "\n")


def reference_spread(recs) -> List:
    per = {}
    for r in recs:
        for v in r["variants"]:
            t = v.get("timing") or {}
            for p in t.get("pairs") or []:
                per.setdefault(v["variant"], []).append(p["ref_ms"])
    return [(k, per[k]) for k in per]
