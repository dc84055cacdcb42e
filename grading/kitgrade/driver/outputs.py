"""The class a grading covers (resume, --force, --only) and the class's outputs at its end.

The outputs (grades.csv, summary.md, the plots) are the local grading's and the Slurm merge
job's alike."""
import os
import time

from ..base import fsutil
from ..base.safetext import clean
from ..base.tell import say
from ..lab import names
from ..scoring import report, summary


def the_class(ctx, subs):
    """(students, not graded with why, those to grade now): the scan, --force and --only
    honoured, the results of students no longer there removed (not by a Slurm task)."""
    opts = ctx.opts
    students, skipped = ctx.wf.scan(subs)      # folders, clones, --repos; the roster's
    for n, why in skipped:
        say("not graded: %s: %s" % (names.display(n), why))
    sdir = os.path.join(ctx.out, "students")
    if opts.force:
        fsutil.remove_tree(sdir)
        fsutil.remove_tree(os.path.join(ctx.out, "reference"))
    os.makedirs(sdir, exist_ok=True)
    ids = {s.id for s in students}
    keep = ctx.wf.only is not None or opts.slurm.shard is not None  # --only: the rest stays
    for d in os.listdir(sdir) if not keep else []:
        if d not in ids:
            fsutil.remove_tree(os.path.join(sdir, d))
    todo = []
    for s in students:
        rec = report.load(os.path.join(sdir, s.id))
        if rec is not None and rec.get("student") != s.name:
            # another folder's record under this id (an id is made from a folder's name, and
            # a folder named like another's id takes it): not this student's; graded anew
            if opts.slurm.shard is None:
                fsutil.remove_tree(os.path.join(sdir, s.id))
            rec = None
        if rec is None or rec.get("status") == "skipped":
            todo.append(s)
    return students, skipped, ctx.wf.select(students, todo)


def write_outputs(g, ctx, state_txt):
    recs = summary.records(ctx.out)
    summary.write_grades(ctx.out, recs)
    made = summary.write_plots(ctx.out, recs, ctx.rub.max_points(), g.gnuplot, g.gp)
    summary.write_summary(ctx.out, recs, {
        "lab": ctx.lab.nn, "labname": ctx.lab.name, "max_pts": ctx.rub.max_points(),
        "grading_txt": state_txt, "notes": ctx.notes, "skipped": g.skipped, "jobs": g.jobs,
        "slots": ctx.slots or ["cores %s" % ",".join(str(c) for c in g.cores.all)],
        "seconds": int(time.monotonic() - g.t0), "plots": made,
        "line": (g.line.held, g.line.batches) if g.line is not None else None})


def internal_error(out, st, tb):
    """The grader failed on student ST (traceback TB), whether from its own fault or the
    submission's: the class goes on, ST stays ungraded (a later run tries again) and the end
    of the grading names it and fails. TB goes to OUT/internal-errors.txt (no control byte:
    a message may quote the submission's names), its last line to the console."""
    text = "== %s (%s)\n%s\n" % (st.id, names.display(st.name), tb)
    with open(os.path.join(out, "internal-errors.txt"), "a", encoding="utf-8") as f:
        f.write("\n".join(clean(ln, keep="\t") for ln in text.split("\n")))
    say("internal error grading %s: %s; not graded (OUT/internal-errors.txt)"
        % (names.display(st.name), tb.strip().splitlines()[-1][:200]))
