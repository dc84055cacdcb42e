#!/usr/bin/env python3
"""grading/bench/scale_summary.py OUT LAB GPU_LAB CORES - scale.sh's report.

For each grading in OUT/times.txt (lines "G RC SECONDS": G GPUs, 0 for a lab timed on the
cores) and its folder OUT/gG: the students graded, the time, the floor (the busiest GPU's
timed runs after their gates, from the results.json records), the points of the reference's
copies (the students named *-correct by make-class.sh), the set-up's steps (grading.txt), the
occupancy line, and the goals that apply. Exit 0 when every goal that applies was met, else 1."""
import glob
import json
import os
import sys

SPEEDUP_GOALS = {2: 1.8, 4: 3.4}      # GPUs: at least this many times as fast as one


def floor_of(recs):
    """{GPU: seconds its timed runs took after their gates} of the results records RECS."""
    floor = {}
    for r in recs:
        for run in r.get("runs") or []:
            if not str(run.get("name", "")).startswith("time-") or run.get("gpu") in (None, ""):
                continue
            s = (run.get("wall_ms") or 0) / 1000.0 - (run.get("gated_s") or 0)
            floor[str(run["gpu"])] = floor.get(str(run["gpu"]), 0.0) + max(s, 0.0)
    return floor


def read_lines(path):
    """PATH's lines ([] when it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def records(d):
    """The results.json of every student graded in D, and of the reference."""
    recs = []
    for path in sorted(glob.glob(os.path.join(d, "students", "*", "results.json"))) + \
            glob.glob(os.path.join(d, "reference", "results.json")):
        try:
            with open(path, encoding="utf-8") as f:
                recs.append(json.load(f))
        except (OSError, ValueError):
            pass
    return recs


def main(argv):
    out, lab, gpu_lab, cores = argv[0], argv[1], argv[2] == "1", int(argv[3])
    met, base = [], None

    def goal(ok, text):
        met.append(ok)
        print("  goal %s: %s" % (text, "met" if ok else "NOT met"))

    with open(os.path.join(out, "times.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    for line in filter(None, lines):
        g, rc, secs = line.split()
        g, rc, secs = int(g), int(rc), float(secs)
        d = os.path.join(out, "g%d" % g)
        recs = records(d)
        floor = floor_of(recs)
        graded = sum(1 for r in recs if r.get("student") != "reference" and "points" in r)
        where = "%d GPU%s" % (g, "" if g == 1 else "s") if g else "%d cores" % cores
        print("lab %s on %s: %d graded in %.1f s (grade's exit %d)" % (lab, where, graded, secs,
                                                                       rc))
        busiest = max(floor.values()) if floor else 0.0
        if busiest:
            print("  floor %.1f s: the timed runs' GPU time after their gates (%s); %.2fx the "
                  "floor" % (busiest, ", ".join("GPU %s %.1f s" % kv for kv in
                                                sorted(floor.items())), secs / busiest))
        copies = [r["points"]["total"] for r in recs if "points" in r and
                  str(r.get("student", "")).endswith("-correct")]
        if copies:
            print("  the reference's %d copies: %g to %g points" % (len(copies), min(copies),
                                                                  max(copies)))
        for ln in read_lines(os.path.join(d, "grading.txt")):
            if ln.startswith("set-up: "):
                print("  " + ln)      # the time before the first student, step by step
        occ = os.path.join(d, "plots", "occupancy.txt")
        if os.path.exists(occ):
            with open(occ, encoding="utf-8") as f:
                print("  " + f.read().strip())
        if graded == 0:
            goal(False, "a class graded")
            continue
        if copies:
            goal(min(copies) == max(copies), "identical copies, identical points")
        if gpu_lab and g == 1:
            base = secs
            if lab == "03" and busiest:
                goal(secs <= 1.3 * busiest, "one GPU within 1.3x of the floor")
        elif gpu_lab and base:
            print("  %.2fx as fast as one GPU" % (base / secs))
            if g in SPEEDUP_GOALS:
                goal(base / secs >= SPEEDUP_GOALS[g], "%d GPUs %.1fx as fast as one" % (
                    g, SPEEDUP_GOALS[g]))
        elif not gpu_lab and graded >= 100 and cores >= 16:
            goal(secs <= 45, "100 students in 45 s on 16 cores")
    print("goals: %d of %d met" % (sum(met), len(met)))
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
