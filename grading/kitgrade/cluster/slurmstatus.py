"""`grading/grade --status OUT`: one progress line of a Slurm grading, from OUT alone.

squeue adds the tasks' states where Slurm answers. The line gives graded of all, claimed and
not done yet, each task's state and count, and the last round's job ids."""
import os
import sys

from ..base import fsutil
from ..scoring import report
from . import claims
from .slurm import queue_states, round_dir, rounds

USAGE_LINE = "usage: grading/grade --status OUT"


def _graded(out, sid):
    """Whether SID has a result (skipped, for want of a GPU, is none)."""
    rec = report.load(os.path.join(out, "students", sid))
    return rec is not None and rec.get("status") != "skipped"


def status_line(out, queue=None):
    """The progress line of OUT's last round. QUEUE: {job id: state} (squeue's), or None to
    ask squeue."""
    out = os.path.abspath(out)
    rs = rounds(out)
    sdir = os.path.join(out, "students")
    try:
        have = set(os.listdir(sdir))
    except OSError:
        have = set()
    if not rs:
        n = sum(1 for s in have if _graded(out, s))
        return "%s: graded %d of %d; no Slurm round" % (out, n, len(have))
    rnd = rs[-1]
    rd = round_dir(out, rnd)
    ids = [x for x in fsutil.read_text(os.path.join(rd, "students.txt"), 64 << 20).splitlines()
           if x]
    everyone = have | set(ids)
    graded = {s for s in everyone if _graded(out, s)}
    mine = [s for s in ids if s in graded]
    cl = claims.all_claims(os.path.join(rd, "claims"))
    busy = [s for s in cl if s not in graded]
    rt = fsutil.key_values(os.path.join(rd, "round.txt"), head_only=True)
    array, merge = rt.get("array-job", ""), rt.get("merge-job", "")
    tasks = int(rt.get("tasks", "0") or 0)
    if queue is None:
        queue = queue_states([j for j in (array, merge) if j])
    parts = []
    for i in range(tasks):
        tf = fsutil.key_values(os.path.join(rd, "tasks", "%d" % i, "task.txt"), head_only=True)
        q = queue.get("%s_%d" % (array, i), "") if array else ""
        state = q.lower() if q else tf.get("state", "pending" if not tf else "?")
        if not q and state == "running" and queue and array:
            state = "gone"          # Slurm has forgotten it and it did not finish
        done = sum(1 for s, c in cl.items() if str(c.get("task")) == str(i) and s in graded)
        parts.append("%d %s (%d)" % (i, state, done))
    mstate = queue.get(merge, "").lower() if merge else ""
    if not mstate and os.path.isfile(os.path.join(rd, "merge.rc")):
        rc = (fsutil.read_regular(os.path.join(rd, "merge.rc"), 64) or b"?").decode().strip()
        mstate = "done, exit %s" % rc
    return ("%s: graded %d of %d (round %d: %d of %d), claimed-not-done %d; tasks: %s; "
            "array job %s, merge job %s%s" % (
                out, len(graded), len(everyone), rnd, len(mine), len(ids), len(busy),
                ", ".join(parts) or "none", array or "-", merge or "-",
                " (%s)" % mstate if mstate else ""))


def status_main(out):
    """--status OUT (or --status --out OUT): the line on standard output; exit 2 without OUT
    or with an OUT that holds no grading."""
    if not out:
        sys.stderr.write("grade: %s\n" % USAGE_LINE)
        return 2
    if not os.path.isfile(os.path.join(out, "grading.txt")):
        sys.stderr.write("grade: --status: %s holds no grading (no grading.txt)\n" % out)
        return 2
    sys.stdout.write(status_line(out) + "\n")
    return 0
