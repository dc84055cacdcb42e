"""grading/grade's entry: the options parsed, the grading run, a clean stop on an interrupt.

It also picks the class to grade (resume, --force, --only), hands it to schedule.Grading and
writes the class's outputs (grades.csv, summary.md, the plots, the export)."""
import os
import signal
import sys
import time

from ..base import fsutil
from ..base.tell import say
from ..cluster.shard import Shard, log_to_task, task_jobs
from ..cluster.slurmmain import login
from ..cluster.slurmstatus import status_main
from ..driver.outputs import the_class, write_outputs
from ..driver.schedule import Grading
from ..driver.setup import Fatal, finish_setup, grading_txt, own_folder, prepare
from ..driver.workflow import Workflow, export_only
from ..lab import names, rubric
from ..scoring import report, summary
from . import cli


def sandbox_words(ctx, mode):
    """(the sandbox's kind, the warning when there is none); the sandbox's own sentence about
    it leaves ctx.notes (the rest say what is not enforced here)."""
    kind = getattr(ctx.sandbox, "kind", None) or mode
    if kind != "none":
        return kind, ""
    note = next((n for n in ctx.notes if n.startswith("no sandbox")), None)
    if note is None:
        note = ("no sandbox (--sandbox none)" if mode == "none" else "no sandbox (bubblewrap is "
                "missing or does not work here)") + ": a run sees every file this user can " \
            "read (solutions included), can reach the network and write outside its folder"
    else:
        ctx.notes.remove(note)
    return "none", note


def main(argv):
    try:
        opts = cli.parse(argv)
    except cli.UsageError as e:
        say(str(e))
        return 2
    if opts.status is not None:                 # --status OUT: reads OUT only
        return status_main(opts.out or opts.status)
    if opts.help:
        sys.stdout.write(cli.USAGE)
        return 0
    opts.argv = list(argv)
    if opts.slurm.shard is not None:            # an array task: its log in its own folder
        try:
            log_to_task(own_folder(opts, os.path.abspath(opts.out)))
        except (Fatal, OSError) as e:
            say(str(e))
            return 2
    if opts.slurm.merge_only and not os.path.isfile(os.path.join(opts.out, "grading.txt")):
        say("--merge-only: %s holds no grading (no grading.txt)" % opts.out)
        return 2
    try:
        wf = None if opts.print_cases else Workflow(opts)   # roster, repos, times read
        if wf is not None and wf.export_only:
            return export_only(opts, wf)
        if wf is not None:
            wf.regrade_seed()                   # --only: the grading's own seed
        prep = prepare(opts)
    except Fatal as e:
        say(str(e))
        return e.code
    if opts.print_cases:
        sys.stdout.write(rubric.cases_tsv(prep))
        return 0
    ctx, state, started, lockfd, priv, subs, tools = prep
    ctx.wf = wf
    ctx.lockfd = lockfd
    holds = []
    stopped = False
    try:
        return _grade(ctx, state, started, subs, tools, holds)
    except Fatal as e:
        say(str(e))
        return e.code
    except (Interrupted, KeyboardInterrupt):    # (the latter: a signal after the runs)
        stopped = True
    finally:
        # after an interrupt the runs under way still end (they die with the grader): what
        # they hold is let go without waiting for them (a second interrupt is not heard
        # meanwhile), and the grader ends at once below
        if stopped:
            for s in (signal.SIGINT, signal.SIGTERM):
                signal.signal(s, signal.SIG_IGN)
            if getattr(ctx, "sandbox", None) is not None:
                ctx.sandbox.release_mounts()
        for step in (wf.close, lambda: [h.terminate() for h in holds],
                     lambda: priv and not opts.keep_work and fsutil.remove_tree(priv),
                     lambda: fsutil.remove_tree(ctx.tmp), lambda: os.close(lockfd)):
            try:
                step()
            except BaseException:
                if not stopped:
                    raise
    sys.stderr.flush()
    os._exit(1)


class Interrupted(Exception):
    """The grading was interrupted (SIGINT, SIGTERM); its message said so."""


def _grade(ctx, state, started, subs, tools, holds):
    opts = ctx.opts
    so = opts.slurm
    if so.submit or so.merge_only:
        return login(ctx, state, started, subs, cli.task_words(opts.argv))
    holds += finish_setup(ctx, tools, opts.sandbox)
    kind, note = sandbox_words(ctx, opts.sandbox)
    if note:
        say("WARNING: " + note)
    for n in ctx.notes:
        say("not enforced here: " + n)
    line = kind + (" (%s)" % note if note else "")
    txt = grading_txt(ctx, state, subs, line, started)
    if so.shard is None:                        # a Slurm task: its own task.txt
        fsutil.atomic_write(os.path.join(ctx.out, "grading.txt"), txt)
    ctx.wf.start(ctx)
    students, skipped, todo = the_class(ctx, subs)
    jobs = opts.jobs or os.cpu_count() or 1
    if so.shard is not None:
        jobs = task_jobs(opts)
    g = Grading(ctx, students, skipped, jobs)
    g.total = len(students)
    g.done = len(students) - len(todo)
    if so.shard is not None:
        g.shard = Shard(ctx, so.shard, students, txt)
        g.ref_dir = os.path.join(g.shard.td, "reference")
        todo = g.shard.todo
        g.total, g.done = len(todo), 0
    g.sandbox_line = line
    g.report_facts = {"sandbox": line, "notes": ctx.notes,
                      "inputs": {c.name: report.input_text(c.args) for c in ctx.cases},
                      "timing_words": report.timing_words(ctx)}
    if not opts.quiet:
        say("lab %s, %d students (%d graded before), seed in %s, sandbox %s, %d at a time, "
            "timed runs on %s" % (ctx.lab.nn, len(students), g.done,
                                  os.path.join(ctx.out, "grading.txt"), kind, jobs,
                                  " ".join(ctx.slots) or "the cores"))
    if not students:
        say("no student folders in %s" % subs)
    return _run(ctx, g, students, todo, txt)


def _run(ctx, g, students, todo, txt):
    opts = ctx.opts

    fired = []                                  # signals heard; only the first one raises

    def on_signal(signum, frame):
        # the runs under way die with the grader (the sandbox ties them to it); their
        # students have no results.json yet and are graded again by the next run. A second
        # signal (Ctrl-C, then a script's TERM) only stops: the clean-up is under way
        ctx.stop.set()
        g.ref_built.set()
        g.ref_ready.set()
        fired.append(signum)
        if len(fired) == 1:
            raise KeyboardInterrupt
    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if todo:
            g.run_all(todo)
    except KeyboardInterrupt:
        pass
    finally:
        fired.append(0)                         # from here a signal raises nothing
        if len(fired) == 1:                     # none came: the old handlers again
            for s, h in old.items():
                signal.signal(s, h)
    interrupted = len(fired) > 1                # (one that came meanwhile is kept as one)
    if not interrupted:
        for b in list(g.ref_boxes.values()) + ([g.ref_box] if g.ref_box else []):
            g.close_box(b)
    if sys.stderr.isatty() and not opts.quiet:
        sys.stderr.write("\n")
    crashed = "" if not g.crashed else (
        "the grader failed on %d student(s), not graded: %s; their tracebacks are in %s; run "
        "the same command again to grade them" % (
            len(g.crashed), ", ".join(names.display(st.name) for st in g.crashed[:10]) +
            (" and more" if len(g.crashed) > 10 else ""),
            os.path.join(ctx.out, "internal-errors.txt")))
    if g.shard is not None:                     # the merge job does the rest
        g.shard.write_task("interrupted" if interrupted else
                           "failed" if g.fatal or crashed else "finished")
        if g.fatal or crashed:
            say(g.fatal or crashed)
        if interrupted:
            say("interrupted: %d graded by this task" % g.shard.graded)
            raise Interrupted()
        return 1 if g.fatal or crashed else 0
    if not interrupted and not g.fatal:
        ctx.wf.similarity(students)
    write_outputs(g, ctx, txt)
    if interrupted:
        say("interrupted: %d of %d graded; run the same command again to resume"
            % (g.done, g.total))
        raise Interrupted()
    if g.fatal:
        say(g.fatal)
        return 1
    if crashed:                                 # no export of a class with students missing
        say(crashed)
        return 1
    ctx.wf.export(ctx.out, summary.records(ctx.out), ctx.rub.max_points())
    if not opts.quiet:
        say("%d of %d graded: %s, %s (%d s)" % (
            g.done, g.total, os.path.join(ctx.out, "grades.csv"),
            os.path.join(ctx.out, "summary.md"), int(time.monotonic() - g.t0)))
    return 0
