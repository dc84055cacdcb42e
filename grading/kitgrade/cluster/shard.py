"""One Slurm array task's grading (--shard) and the merge job (--merge-only).

A task (`--shard ROUND:I`) grades the round's students it claims, its own share first, then
those of tasks that ended without claiming them. It grades through the local driver, with its
own reference in OUT/slurm/ROUND/tasks/I. The merge makes grades.csv, summary.md, the plots, the
similarity report and the export from OUT, and lists the machines every task graded on."""
import os
import platform
import socket
import sys
import time

from ..base import fsutil
from ..base.tell import say
from ..driver.outputs import write_outputs
from ..driver.setup import Fatal, gpu_query
from ..scoring import report, summary
from . import claims
from .slurm import round_dir, rounds

MARK = "# Slurm tasks (the machines each student was timed on, with its own reference)"


def task_dir(out, shard):
    rnd, i = shard
    return os.path.join(round_dir(out, rnd), "tasks", "%d" % i)


def cpu_model():
    for ln in fsutil.read_text("/proc/cpuinfo", 1 << 20).splitlines():
        k, sep, v = ln.partition(":")
        if sep and k.strip() == "model name":
            return v.strip()
    return platform.processor() or platform.machine() or "unknown"


def machine(gpu):
    """This node in words: its host name and GPU model (or CPU model)."""
    name = gpu_query("name") if gpu else ""
    return "%s (%s)" % (socket.gethostname(), name or "CPU " + cpu_model())


def round_ids(out, rnd):
    data = fsutil.read_regular(os.path.join(round_dir(out, rnd), "students.txt"), 64 << 20)
    if data is None:
        raise Fatal("round %d has no student list in %s" % (rnd, round_dir(out, rnd)))
    return [x for x in data.decode("utf-8", "replace").splitlines() if x]


def task_jobs(opts):
    """Students at once in a task: --jobs, else the cores Slurm gave it."""
    if opts.jobs:
        return opts.jobs
    n = os.environ.get("SLURM_CPUS_PER_TASK", "")
    if n.isdigit() and int(n) > 0:
        return int(n)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2


def log_to_task(td):
    """The task's standard error (its progress lines) appended to its folder's grade.log."""
    fd = os.open(os.path.join(td, "grade.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND |
                 os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    sys.stderr.flush()
    os.dup2(fd, 2)
    os.close(fd)


class Shard:
    """What the driver asks a task: which students it may grade (claim), what their records
    gain (facts), and what it notes when one is done (graded)."""

    def __init__(self, ctx, shard, students, txt):
        self.ctx = ctx
        self.rnd, self.index = shard
        self.rd = round_dir(ctx.out, self.rnd)
        self.td = task_dir(ctx.out, shard)
        self.cdir = os.path.join(self.rd, "claims")
        ids = round_ids(ctx.out, self.rnd)
        rt = fsutil.read_regular(os.path.join(self.rd, "round.txt"), 1 << 16) or b""
        self.tasks = next((int(ln.split(": ")[1]) for ln in rt.decode().splitlines()
                           if ln.startswith("tasks: ")), 0) or \
            len([d for d in os.listdir(os.path.join(self.rd, "tasks")) if d.isdigit()])
        self.me = claims.owner_here(self.index)
        self.machine = machine(ctx.lab.gpu)
        self.facts = {"machine": self.machine,
                      "slurm": {"round": self.rnd, "task": self.index, "job": self.me["job"],
                                "host": self.me["host"]}}
        by_id = {s.id: s for s in students}
        self.todo = [by_id[i] for i in claims.order(ids, self.tasks, self.index) if i in by_id]
        self.owner = {i: k % self.tasks for k, i in enumerate(ids)}
        self.missing = [i for i in ids if i not in by_id]
        self.txt = txt
        self.graded = 0
        self.write_task("running")

    def write_task(self, state):
        lines = ["state: %s" % state, "round: %d" % self.rnd, "task: %d" % self.index,
                 "job: %s" % self.me["job"], "host: %s" % self.me["host"],
                 "machine: %s" % self.machine, "pid: %d" % self.me["pid"],
                 "share: %d" % len(claims.share([s.id for s in self.todo] + self.missing,
                                                self.tasks, self.index)),
                 "graded: %d" % self.graded,
                 "time: %s" % time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())]
        fsutil.atomic_write(os.path.join(self.td, "task.txt"),
                            "\n".join(lines) + "\n\n" + self.txt)

    def claim(self, st):
        """Whether this task grades ST now: it holds the claim and ST was not graded in this
        round already (by this same task before a requeue)."""
        own = self.owner.get(st.id, self.index)
        if own != self.index and not self.ended(own):
            return False        # that task grades its share itself
        if not claims.claim(self.cdir, st.id, self.me):
            return False
        rec = report.load(os.path.join(self.ctx.out, "students", st.id))
        return not (rec and (rec.get("slurm") or {}).get("round") == self.rnd)

    def ended(self, i):
        """Whether task I has ended (finished, failed or interrupted): the students of its
        share it never claimed are anyone's then (work stealing)."""
        st = fsutil.key_values(os.path.join(self.rd, "tasks", "%d" % i, "task.txt"), head_only=True)
        return st.get("state") in ("finished", "failed", "interrupted")

    def done(self, rec):
        self.graded += 1
        with open(os.path.join(self.td, "graded.txt"), "a", encoding="utf-8") as f:
            f.write("%s\t%s\t%d\t%s\n" % (rec["id"], rec["status"], self.rnd, self.me["job"]))


# ---------------------------------------------------------------- the merge

def task_lines(out):
    """'round R task I: MACHINE, N graded' for every task of every round that graded one."""
    lines = []
    for rnd in rounds(out):
        tdir = os.path.join(round_dir(out, rnd), "tasks")
        try:
            idx = sorted(int(d) for d in os.listdir(tdir) if d.isdigit())
        except OSError:
            continue
        for i in idx:
            st = fsutil.key_values(os.path.join(tdir, "%d" % i, "task.txt"), head_only=True)
            if not st:
                continue
            lines.append("round %d task %d: %s, job %s, %s graded, %s" % (
                rnd, i, st.get("machine", "?"), st.get("job", "?"), st.get("graded", "0"),
                st.get("state", "?")))
    return lines


def with_tasks(txt, lines):
    """grading.txt's text with its Slurm section (replaced, never added twice)."""
    head = txt.split("\n" + MARK + "\n")[0].rstrip("\n") + "\n"
    if not lines:
        return head
    return head + "\n" + MARK + "\n" + "".join("task: %s\n" % x for x in lines)


def merge(ctx, students, skipped, g):
    """--merge-only: every output of the end of a grading, from the results in OUT."""
    path = os.path.join(ctx.out, "grading.txt")
    txt = fsutil.read_text(path, 1 << 20)
    lines = task_lines(ctx.out)
    txt = with_tasks(txt, lines)
    fsutil.atomic_write(path, txt)
    ctx.wf.similarity(students)
    write_outputs(g, ctx, txt)
    if lines:
        sp = os.path.join(ctx.out, "summary.md")
        s = fsutil.read_text(sp, 64 << 20)
        s += "\n## Slurm tasks\n\nEach student's speed is scored against the reference timed " \
             "in the same task, on the same machine:\n\n" + "".join(
                 "- %s\n" % report.md(x) for x in lines)
        fsutil.atomic_write(sp, s)
    recs = summary.records(ctx.out)
    ctx.wf.export(ctx.out, recs, ctx.rub.max_points())
    ids = {s.id for s in students}
    graded = sum(1 for r in recs if r["id"] in ids)
    if not ctx.opts.quiet:
        say("merged: %d of %d graded: %s, %s" % (graded, len(students),
                                                 os.path.join(ctx.out, "grades.csv"),
                                                 os.path.join(ctx.out, "summary.md")))
    return 0 if graded == len(students) else 1
