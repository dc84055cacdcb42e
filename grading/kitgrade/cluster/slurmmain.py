"""The driver's Slurm modes on the login node: --slurm and --merge-only.

`--slurm` does the grading's setup as a local grading does, then submits one round (a job
array and its merge job) and, with --wait, waits for it. `--merge-only` is what the merge job
runs. Neither builds or runs a submission, nor needs a GPU."""
import fcntl
import os

from ..base import fsutil
from ..base.tell import say
from ..driver.outputs import the_class
from ..driver.schedule import Grading
from ..driver.setup import Fatal, grading_txt
from . import shard, slurm

GRADE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "grade")


def login(ctx, state, started, subs, words):
    """WORDS: the words a job's task is started with (cli.task_words)."""
    opts = ctx.opts
    so = opts.slurm
    if so.merge_only:
        ctx.pristine = ctx.lab.kit          # the skeleton the similarity report leaves out
        ctx.wf.start(ctx)
        students, skipped = ctx.wf.scan(subs)
        g = Grading(ctx, students, skipped, opts.jobs or 1)
        return shard.merge(ctx, students, skipped, g)
    line = "the Slurm tasks' (each in OUT/slurm/ROUND/tasks/I/task.txt)"
    txt = grading_txt(ctx, state, subs, line, started)
    fsutil.atomic_write(os.path.join(ctx.out, "grading.txt"), txt)
    ctx.wf.start(ctx)
    students, skipped, todo = the_class(ctx, subs)
    try:
        rnd, array, merge = slurm.submit(ctx, so, todo, words, GRADE)
    except (RuntimeError, OSError, KeyError) as e:
        raise Fatal("cannot submit to Slurm: %s" % e, 1)
    rd = slurm.round_dir(ctx.out, rnd)
    if array:
        say("round %d: %d of %d students to grade, in %d tasks: job array %s, then merge job %s"
            % (rnd, len(todo), len(students), slurm.default_tasks(len(todo), so.tasks), array,
               merge))
    else:
        say("round %d: every student is graded; merge job %s" % (rnd, merge))
    say("follow it: squeue -j %s   or   grading/grade --status %s" % (
        ",".join(j for j in (array, merge) if j), slurm.shlex.quote(ctx.out)))
    if not so.wait:
        return 0
    fcntl.flock(ctx.lockfd, fcntl.LOCK_UN)      # the merge job takes OUT's lock
    rc = slurm.wait(rd, merge)
    say("merge job %s ended: exit %d" % (merge, rc))
    return rc
