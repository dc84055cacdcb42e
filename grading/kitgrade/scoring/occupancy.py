"""Where a grading's time went: OUT/plots/occupancy.png and .pdf, drawn from its runs.

Written at the end of every grading (summary.write_plots); by hand:
  python3 -c 'import sys; sys.path.insert(0, "grading"); from kitgrade.scoring import occupancy; occupancy.main(["OUT"])'

From the results.json of every student and of the reference (each run's start `at`,
seconds from the grading's start, its `wall_ms`, the seconds `gated_s` a run started early
waited at its gate, and where it ran: `gpu`, `cores`), one
row per GPU and one per core, each run a bar: correctness runs in one colour, timed runs
in another, labelled with the student where the bar has room. The data go to
OUT/plots/occupancy.tsv too (lane, start, end, kind, student, run), and a line of totals
to occupancy.txt: how long each GPU was busy, and with timed runs alone, against the
grading's span. Without gnuplot the TSV and the totals are still written.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

from ..base.safetext import cell
from ..runs.cupti import covered


def kind_of(run):
    return "timed" if str(run.get("name", "")).startswith("time-") else "correctness"


def printable(text):
    """A student's folder name as a label: no control characters, no gnuplot quoting."""
    return "".join(c if c.isprintable() and c not in "\"'\\`" else "?" for c in str(text))[:24]


def runs_of(out):
    """Every run with a start and a duration: (lane, start s, end s, kind, student, name)."""
    rows = []
    files = sorted(glob.glob(os.path.join(out, "students", "*", "results.json")))
    ref = os.path.join(out, "reference", "results.json")
    if os.path.exists(ref):
        files.append(ref)
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        who = data.get("student") or os.path.basename(os.path.dirname(path))
        for run in data.get("runs") or []:
            at, wall = run.get("at"), run.get("wall_ms")
            if not isinstance(at, (int, float)) or not isinstance(wall, (int, float)):
                continue
            # a timed run started early waited at its gate, asleep, while another was timed:
            # its bar begins when the gate opened
            gated = run.get("gated_s")
            if isinstance(gated, (int, float)) and 0 < gated * 1000.0 <= wall:
                at, wall = at + gated, wall - gated * 1000.0
            lanes = []
            if run.get("gpu") not in (None, "", "-"):
                lanes.append("GPU %s" % run["gpu"])
            for c in run.get("cores") or []:
                lanes.append("core %s" % c)
            for lane in lanes:
                rows.append((lane, float(at), float(at) + wall / 1000.0, kind_of(run),
                             printable(who), printable(run.get("name", ""))))
    return rows


def lane_order(rows):
    def key(lane):
        kind, _, n = lane.partition(" ")
        return (0 if kind == "GPU" else 1, int(n) if n.isdigit() else n)
    return sorted({r[0] for r in rows}, key=key)


def totals(rows):
    if not rows:
        return "occupancy: no run with a start and a duration in the results"
    span = max(r[2] for r in rows) - min(r[1] for r in rows)
    parts = ["span %.1f s" % span]
    for lane in lane_order(rows):
        if not lane.startswith("GPU"):
            continue
        mine = [r for r in rows if r[0] == lane]
        parts.append("%s busy %.1f s (timed runs %.1f s, correctness runs %.1f s)" % (
            lane, covered([(r[1], r[2]) for r in mine]),
            covered([(r[1], r[2]) for r in mine if r[3] == "timed"]),
            covered([(r[1], r[2]) for r in mine if r[3] == "correctness"])))
    cores = [r for r in rows if r[0].startswith("core")]
    if cores:
        parts.append("%d cores, busy %.1f core-s in all" % (
            len({r[0] for r in cores}),
            sum(covered([(r[1], r[2]) for r in cores if r[0] == lane])
                for lane in {r[0] for r in cores})))
    return "occupancy: " + "; ".join(parts)


def gnuplot_script(data, lanes, out_png, out_pdf, span):
    height = max(300, 22 * len(lanes) + 120)
    ytics = ", ".join('"%s" %d' % (lane, i) for i, lane in enumerate(lanes))
    body = [
        'set datafile separator "\\t"',
        'set xlabel "seconds from the grading\'s start"',
        "set yrange [-0.7:%f]" % (len(lanes) - 0.3),
        "set xrange [0:%f]" % max(span * 1.02, 1.0),
        "set ytics (%s) font \",8\"" % ytics,
        "set grid xtics",
        "set key outside top center horizontal",
        "set style fill solid 0.8 border -1",
        'set title "Where the grading\'s time went: one row per GPU and per core, a bar per run"',
        # columns: lane index, start, end, kind index, label
        "plot '%s' using (($2+$3)/2):1:(($3-$2)/2):(0.35) with boxxyerror lc rgb '#3465a4' "
        "title 'correctness run' , \\" % data.replace("'", ""),
        "     '%s' using (($2+$3)/2):($4 == 1 ? $1 : 1/0):(($3-$2)/2):(0.35) with boxxyerror "
        "lc rgb '#f57900' title 'timed run', \\" % data.replace("'", ""),
        "     '%s' using (($2+$3)/2):($6 > %f ? $1 : 1/0):5 with labels font ',6' notitle" % (
            data.replace("'", ""), span / 25.0),
    ]
    return "\n".join(
        ['set terminal pngcairo size 1400,%d font "sans,10"' % height,
         "set output '%s'" % out_png.replace("'", "")] + body +
        ['set terminal pdfcairo size 14in,%fin font "sans,9"' % (height / 100.0),
         "set output '%s'" % out_pdf.replace("'", ""), "replot"]) + "\n"


def draw(out, gnuplot=None):
    """Write OUT/plots/occupancy.tsv and .txt, and with gnuplot (GNUPLOT, else the one on
    PATH) occupancy.png and .pdf; returns (the line of totals, whether it drew)."""
    plots = os.path.join(out, "plots")
    os.makedirs(plots, exist_ok=True)
    rows = runs_of(out)
    line = totals(rows)
    with open(os.path.join(plots, "occupancy.txt"), "w", encoding="utf-8") as f:
        f.write(line + "\n")
    with open(os.path.join(plots, "occupancy.tsv"), "w", encoding="utf-8") as f:
        f.write("lane\tstart_s\tend_s\tkind\tstudent\trun\n")
        for r in sorted(rows, key=lambda r: (r[0], r[1])):
            # a spreadsheet opens it: the student's name and the run's are cells
            f.write("%s\t%.3f\t%.3f\t%s\t%s\t%s\n" % (r[0], r[1], r[2], r[3], cell(r[4]), cell(r[5])))
    if not rows:
        return line, False
    gp = gnuplot or shutil.which("gnuplot")
    if not gp:
        return line + " (no gnuplot: no picture)", False
    lanes = lane_order(rows)
    t0 = min(r[1] for r in rows)
    span = max(r[2] for r in rows) - t0
    data = os.path.join(plots, "occupancy.dat")
    with open(data, "w", encoding="utf-8") as f:
        for r in rows:
            # lane index, start, end, timed (1) or not, label, duration
            f.write("%d\t%.3f\t%.3f\t%d\t%s\t%.3f\n" % (
                lanes.index(r[0]), r[1] - t0, r[2] - t0, 1 if r[3] == "timed" else 0, r[4], r[2] - r[1]))
    script = gnuplot_script(data, lanes, os.path.join(plots, "occupancy.png"),
                            os.path.join(plots, "occupancy.pdf"), span)
    res = subprocess.run([gp], input=script, text=True, capture_output=True, timeout=120)
    os.unlink(data)
    ok = res.returncode == 0 and os.path.exists(os.path.join(plots, "occupancy.png"))
    if not ok:
        line += " (gnuplot failed: %s)" % printable(res.stderr.strip().splitlines()[-1:] or "")
    return line, ok


def main(argv):
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print("usage: occupancy OUT (a grading's output folder)", file=sys.stderr)
        return 2
    line, _ = draw(argv[0])
    print(line)
    return 0
