"""A student's report.md, its tab-separated views and its plot, made from results.json.

Everything a student controls is escaped by safetext (md and block in report.md, cell and
clean in the views)."""
import json
import os
import subprocess

from ..base import fsutil
from ..base.safetext import (block, cell, clean, gp_string, json_text, md,  # noqa: F401 (report's)
                              source_names)
from ..runs import speedloss
from .score import grades_row, label
from .wfreport import top

def _f(x, fmt="%.1f"):
    return "-" if x is None else fmt % x


def write_views(sd, rec):
    """tests.tsv, score.tsv, perf.tsv, files.txt and result.tsv, from the record."""
    def tsv(fields):
        return "\t".join(cell(f) for f in fields) + "\n"
    fsutil.atomic_write(os.path.join(sd, "tests.tsv"), "".join(
        tsv([c["variant"], c["case"], c["status"], c["reason"]]) for c in rec["cases"]))
    score, perf = [], []
    for v in rec["variants"]:
        t = v["timing"] or {}
        ok = t.get("status") == "ok"
        score.append(tsv([v["variant"], v["tests_passed"], v["tests_total"],
                          "%.2f" % v["correctness_pts"], "%.2f" % v["perf_pts"],
                          "%.4f" % t["student_ms"] if ok else "",
                          "%.4f" % t["ref_ms"] if ok else "",
                          "%.4f" % t["ratio"] if ok else ""]))
        if t:
            perf.append(tsv([v["variant"], t.get("case", ""),
                             "%.5f" % t["student_ms"] if ok else "", t.get("clock", ""),
                             t.get("status", "") + (": " + t["reason"] if t.get("reason") else "")]))
    fsutil.atomic_write(os.path.join(sd, "score.tsv"), "".join(score))
    fsutil.atomic_write(os.path.join(sd, "perf.tsv"), "".join(perf))
    fsutil.atomic_write(os.path.join(sd, "files.txt"), "".join(clean(n) + "\n"
                                                               for n in rec["files"]))
    fsutil.atomic_write(os.path.join(sd, "result.tsv"), tsv(grades_row(rec)[:11]))


def plot_student(sd, rec, gnuplot, gp_script):
    """time.png: the student's time and the reference's per variant (when any was timed)."""
    rows = [v for v in rec["variants"] if v["timing"] and v["timing"].get("status") == "ok"]
    png = os.path.join(sd, "time.png")
    if not rows or not gnuplot:
        return False
    r = subprocess.run([gnuplot, "-e", "mode='student'; in='score.tsv'; out='time.png'; "
                        "who='this submission'", gp_script], cwd=sd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0 and os.path.exists(png):
        os.unlink(png)
    return os.path.isfile(png)


def input_text(args):
    """A case's arguments as shown in a report (the seed left out)."""
    out, i = [], 0
    while i < len(args):
        if args[i] == "--seed" and i + 1 < len(args):
            i += 2              # "--seed V" goes as a pair; a --seed with nothing after stays
            continue
        out.append(args[i])
        i += 1
    return " ".join(out)


def write_report(sd, rec, g):
    """report.md. G: the grading's facts for the footer (sandbox, notes, cases, clock)."""
    L = []
    p = rec["points"]
    L.append("# Lab %s: %s\n" % (rec["lab"], md(rec["student"])))
    cut = (rec.get("late") or {}).get("points_before", p["total"]) - p["total"]
    L.append("**%s of %s points** (correctness %.1f, performance %.1f%s); %d of %d hidden tests "
             "passed.\n" % (_f(p["total"]), "%g" % p["max"], p["correctness"], p["perf"],
                            ", %.1f off for lateness" % cut if cut > 0.005 else "",
                            rec["tests"]["passed"], rec["tests"]["total"]))
    L.append("Status: **%s**. %s\n" % (rec["status"], md(rec["reason"])))
    if rec.get("machine"):
        L.append("Graded on %s, timed against the reference in the same Slurm task.\n"
                 % md(rec["machine"]))
    L += top(sd, rec)           # roster, commit, lateness, earlier gradings
    L.append("## Files\n")
    L += ["- %s" % md(n) for n in rec["files"]] or ["(none)"]
    L.append("")
    b = rec["build"]
    L.append("## Build\n")
    if b.get("status"):
        L.append("Build: **%s** in %.1f s%s. Full log: [build.log](build.log).\n" % (
            b["status"], b.get("ms", 0) / 1000.0, ": " + md(b["reason"]) if b.get("reason") else ""))
        warn = b.get("warnings") or []
        if warn:
            L.append("The compiler gave %d warning lines; the first:\n" % b.get("nwarnings",
                                                                                  len(warn)))
            L.append(block("\n".join(warn), 5))
        if b["status"] != "ok":
            L.append(block(fsutil.read_text(os.path.join(sd, "build.log"), 1 << 20), 25))
    if rec["cases"]:
        L.append("## Hidden tests\n")
        L.append("| variant | case | input | result | detail |")
        L.append("|---|---|---|---|---|")
        for c in rec["cases"]:
            L.append("| %s | %s | %s | %s | %s |" % (
                md(label(c["variant"])), md(c["case"]), md(g["inputs"].get(c["case"], "")),
                c["status"], md(c["reason"], 300)))
        L.append("")
        # per variant: its first wrong case with a diff picture, else its first wrong case
        first = {}
        for c in rec["cases"]:
            if c["status"] == "wrong" and c.get("mismatch"):
                if c["variant"] not in first or (c.get("diff") and
                                                  not first[c["variant"]].get("diff")):
                    first[c["variant"]] = c
        for c in rec["cases"]:
            if first.get(c["variant"]) is not c:
                continue
            L.append("**%s in case %s**: the first mismatches\n" % (md(label(c["variant"])),
                                                                   md(c["case"])))
            L.append(block(c["mismatch"], 14))
            if c.get("diff"):
                rel = os.path.relpath(c["diff"], sd)
                L.append("![diff picture of %s in case %s](%s)\n" % (
                    md(label(c["variant"])), md(c["case"]), rel))
    L.append("## Points per variant\n")
    L.append("| variant | tests | correctness | performance | time ms | reference ms | "
             "speed vs reference | spread | timed |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for v in rec["variants"]:
        t = v["timing"] or {}
        ok = t.get("status") == "ok"
        spread = "%.2f-%.2fx" % tuple(t["spread"]) if ok and t.get("spread") else "-"
        timed = ("%d pairs of %d reps" % (len(t.get("pairs", [])), t.get("reps", 0))
                 if ok else (t.get("status", "-") if t else "-"))
        L.append("| %s | %d/%d | %.1f / %g | %.1f / %g | %s | %s | %s | %s | %s |" % (
            md(label(v["variant"])), v["tests_passed"], v["tests_total"], v["correctness_pts"],
            v["max_correctness"], v["perf_pts"], v["max_perf"],
            _f(t.get("student_ms") if ok else None, "%.4f"),
            _f(t.get("ref_ms") if ok else None, "%.4f"),
            _f(t.get("ratio") if ok else None, "%.2fx"), spread, md(timed)))
    L.append("")
    L.append(g["timing_words"] + "\n")
    breaches = [v for v in rec["variants"] if v["timing"] and
                v["timing"].get("status") not in ("ok", "not-timed")]
    if breaches:
        L.append("## Speed checks\n")
        for v in breaches:
            t = v["timing"]
            L.append("- %s: **%s**: %s" % (md(label(v["variant"])), t["status"], md(t["reason"])))
        L.append("")
    lost = [x for v in rec["variants"] for x in speedloss.lines(v, label(v["variant"]))]
    if lost:
        L.append("## Speed points lost\n")
        L.append("Why a variant that passed every test has less than its full performance "
                 "points: each pair of timed runs below the ratio where the full points start "
                 "(or the run that broke a check), and what else ran on its GPU and cores "
                 "then (seconds from the grading's start).\n")
        L += lost + [""]
    if os.path.isfile(os.path.join(sd, "time.png")):
        L.append("![time against the reference](time.png)\n")
    if os.path.isfile(os.path.join(sd, "profile.tsv")):
        L.append("## Profiler metrics\n")
        L.append(block(fsutil.read_text(os.path.join(sd, "profile.tsv"), 1 << 20), 60))
    for key, what in (("profile_note", "Profiler"), ("sanitize_note", "Sanitizer")):
        if rec.get(key):
            L.append("%s: %s\n" % (what, md(rec[key])))
    L.append("## Logs\n")
    L.append("Every run's standard output and error are in [logs/](logs/); what a run wrote "
             "about itself is never used for the verdict.\n")
    shown = 0
    logs = os.path.join(sd, "logs")
    for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        if not name.endswith(".err") or shown >= 3:
            continue
        text = "\n".join(source_names(ln[:4000]) for ln in
                         fsutil.read_text(os.path.join(logs, name), 64 << 10).splitlines())
        if not text.strip():
            continue
        shown += 1
        L.append("%s:\n" % md(name))
        L.append(block(text, 8))
    L.append("Sandbox: %s.%s\n" % (md(g["sandbox"]), " Not enforced here: " +
                                    md("; ".join(g["notes"])) + "." if g["notes"] else ""))
    fsutil.atomic_write(os.path.join(sd, "report.md"), "\n".join(L) + "\n")


def write_results(sd, rec):
    """results.json, last and atomically: a student with it is graded."""
    fsutil.atomic_write(os.path.join(sd, "results.json"),
                        json_text(rec, indent=1, sort_keys=False) + "\n")


def load(sd):
    data = fsutil.read_regular(os.path.join(sd, "results.json"), 64 << 20)
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:
        return None


def timing_words(ctx):
    how = {"gpu": "kernel time from the GPU's own activity records (CUPTI), per repetition by "
                  "its launch window",
           "cpu": "CPU time of every process of the run, less the reference's own share of "
                  "what is not the variant",
           "wall": "wall-clock time of the run, less the reference's own share of what is not "
                   "the variant"}[ctx.clock]
    return ("Times: %s; each repetition on content the grader handed out at that moment, two "
            "repetitions picked after the run checked; the reference solution timed "
            "interleaved with this submission on the same %s in the same grading. Speed "
            "points follow the rubric's curve of the median ratio; the spread is the range of "
            "the pairs' ratios." % (how, "GPU" if ctx.clock == "gpu" else "core"))
