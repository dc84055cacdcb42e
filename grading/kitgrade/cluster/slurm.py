"""Submitting a grading to Slurm: sbatch options, job scripts, the round, --wait.

This is the login node's side of `grading/grade --slurm`. The sbatch options come from the
rubric's limits. In a job script paths are data: every word is quoted. A round has the folder
OUT/slurm/ROUND, a job array and a merge job that depends on it. The tasks' side is shard.py;
the progress line slurmstatus.py."""
import math
import os
import pwd
import shlex
import subprocess
import time
from contextlib import suppress

from ..base import fsutil
from ..base.tell import say

STUDENTS_PER_TASK = 8       # the default share of one task
MAX_DEFAULT_TASKS = 64
MARGIN_MB = 1024            # the grader, its checker and the reference's runs
MIN_MINUTES = 15


def default_tasks(n_students, asked=0):
    """The array's size: --tasks (never more than the students), else one per 8 students."""
    if n_students <= 0:
        return 0
    if asked:
        return min(asked, n_students)
    return max(1, min(MAX_DEFAULT_TASKS, math.ceil(n_students / STUDENTS_PER_TASK)))


def minutes(text):
    """Minutes of a Slurm time (MM, MM:SS, HH:MM:SS, D-HH[:MM[:SS]])."""
    days, _, hms = text.rpartition("-")
    parts = [int(x) for x in hms.split(":")]
    if not days and len(parts) < 3:
        parts.insert(0, 0)                  # MM or MM:SS: no hours
    h, m, s = (parts + [0, 0])[:3]
    return max(1, int(days or 0) * 1440 + h * 60 + m + math.ceil(s / 60))


def sbatch_options(limits, run_s, n_students, tasks, jobs, time_text="", partition="",
                   gres="", account=""):
    """The sbatch options of one array task, from the rubric's LIMITS (build, memory_mb),
    the run time limit RUN_S, the students of the round and its TASKS, and JOBS (students a
    task grades at once = --cpus-per-task):
      --mem            memory_mb for each student at once, one more for a build, and a margin
      --cpus-per-task  JOBS
      --time           TIME_TEXT, else (the reference and each wave of JOBS students: a build
                       and three runs' worth of time limits) doubled, 10 minutes of setup
                       added, at least 15 minutes"""
    per_task = math.ceil(n_students / max(1, tasks)) if n_students else 0
    mem = int(limits.get("memory_mb") or 2048)
    opts = ["--cpus-per-task=%d" % jobs, "--mem=%dM" % (mem * jobs + mem + MARGIN_MB)]
    if time_text:
        opts.append("--time=%s" % time_text)
    else:
        one = float(limits.get("build") or 300) + 3 * float(run_s)
        waves = math.ceil(per_task / max(1, jobs)) + 1          # + the reference
        opts.append("--time=%d" % max(MIN_MINUTES, math.ceil((2 * waves * one + 600) / 60)))
    if partition:
        opts.append("--partition=%s" % partition)
    if gres:
        opts.append("--gres=%s" % gres)
    if account:
        opts.append("--account=%s" % account)
    return opts


def merge_options(partition="", account="", time_text=""):
    """The merge job's: one core, no GPU, an hour unless the tasks' limit is longer."""
    t = max(60, minutes(time_text)) if time_text else 60
    opts = ["--cpus-per-task=1", "--mem=4096M", "--time=%d" % t]
    if partition:
        opts.append("--partition=%s" % partition)
    if account:
        opts.append("--account=%s" % account)
    return opts


def job_script(grade, words, rnd, kind):
    """The text of a round's job script: KIND 'array' (a task: --shard ROUND:its index) or
    'merge' (--merge-only, its status kept in merge.rc). GRADE and WORDS are data: quoted."""
    q = " ".join(shlex.quote(w) for w in [grade] + list(words))
    head = ("#!/bin/bash\n# written by grading/grade --slurm: %s of round %d (every word below is "
            "quoted; nothing in it is a path the shell reads)\n" % (
                "one task of the job array" if kind == "array" else "the merge job", rnd))
    if kind == "array":
        return head + "exec %s --shard %d:\"$SLURM_ARRAY_TASK_ID\"\n" % (q, rnd)
    return head + ("%s --merge-only\nrc=$?\necho \"$rc\" > %s\nexit \"$rc\"\n" % (
        q, shlex.quote("merge.rc")))


def round_dir(out, rnd):
    return os.path.join(out, "slurm", "%d" % rnd)


def rounds(out):
    """The round numbers in OUT/slurm, in order."""
    try:
        names = os.listdir(os.path.join(out, "slurm"))
    except OSError:
        return []
    return sorted(int(n) for n in names if n.isdigit())


def new_round(out):
    """(number, folder) of a new round (mkdir: two submissions never share one)."""
    os.makedirs(os.path.join(out, "slurm"), exist_ok=True)
    n = (rounds(out) or [0])[-1] + 1
    while True:
        d = round_dir(out, n)
        try:
            os.mkdir(d)
            return n, d
        except FileExistsError:
            n += 1


def _sbatch(argv, user, cwd, log):
    """The job id sbatch --parsable printed (RuntimeError with its words when it failed)."""
    kw = {"user": user} if user else {}
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                           timeout=120, **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError("%s: %s" % (argv[0], e))
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    with open(log, "a", encoding="utf-8") as f:
        f.write("$ %s\n%s%s(exit %d)\n" % (" ".join(shlex.quote(a) for a in argv), out, err,
                                          p.returncode))
    jid = out.strip().split(";")[0]
    if p.returncode != 0 or not jid.isdigit():
        raise RuntimeError("sbatch failed (exit %d): %s" % (p.returncode, (err or out).strip()[
            -500:]))
    return jid


def hand_over(path, user):
    """OUT given to USER (the jobs run as USER and write there); links are not followed."""
    pw = pwd.getpwnam(user)
    for d, dirs, files in os.walk(path):
        for n in [d] + [os.path.join(d, x) for x in dirs + files]:
            with suppress(OSError):
                os.chown(n, pw.pw_uid, pw.pw_gid, follow_symlinks=False)


def submit(ctx, sopts, todo, words, grade):
    """Submit a round grading TODO (students): its folder, scripts, the array and the merge
    job. Returns (round, array job id or '', merge job id)."""
    rnd, rd = new_round(ctx.out)
    n = len(todo)
    tasks = default_tasks(n, sopts.tasks)
    jobs = ctx.opts.jobs or 2
    for sub in ["claims"] + ["tasks/%d" % i for i in range(tasks)]:
        os.makedirs(os.path.join(rd, sub), exist_ok=True)
    fsutil.atomic_write(os.path.join(rd, "students.txt"), "".join(s.id + "\n" for s in todo))
    fsutil.atomic_write(os.path.join(rd, "array.sh"), job_script(grade, words, rnd, "array"),
                        mode=0o755)
    fsutil.atomic_write(os.path.join(rd, "merge.sh"), job_script(grade, words, rnd, "merge"),
                        mode=0o755)
    log = os.path.join(rd, "sbatch.txt")
    plain = "%" not in rd and "\\" not in rd
    name = "grade%s" % ctx.lab.nn
    if sopts.user and os.geteuid() == 0:
        hand_over(ctx.out, sopts.user)
    user = sopts.user if sopts.user and os.geteuid() == 0 else None
    array = ""
    facts = ["round: %d" % rnd, "submitted: %s" % time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                                                  time.gmtime()),
             "students: %d" % n, "tasks: %d" % tasks]
    if tasks:
        opts = sbatch_options(ctx.rub.limits, ctx.run_timeout, n, tasks, jobs, sopts.time,
                              sopts.partition, sopts.gres, sopts.account)
        outp = os.path.join(rd, "tasks", "%a", "slurm.out") if plain else "/dev/null"
        argv = ["sbatch", "--parsable", "--job-name=%s-r%d" % (name, rnd),
                "--array=0-%d" % (tasks - 1), "--chdir=" + rd, "--output=" + outp] + opts + \
            [os.path.join(rd, "array.sh")]
        array = _sbatch(argv, user, rd, log)
        facts += ["array-job: %s" % array, "array-options: %s" % " ".join(opts)]
    mopts = merge_options(sopts.partition, sopts.account, sopts.time)
    argv = ["sbatch", "--parsable", "--job-name=%s-r%d-merge" % (name, rnd), "--chdir=" + rd,
            "--output=" + (os.path.join(rd, "merge.out") if plain else "/dev/null")] + \
        (["--dependency=afterany:%s" % array] if array else []) + mopts + \
        [os.path.join(rd, "merge.sh")]
    try:
        merge = _sbatch(argv, user, rd, log)
    except RuntimeError:
        if array:
            subprocess.run(["scancel", array], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
        raise
    facts.append("merge-job: %s" % merge)
    fsutil.atomic_write(os.path.join(rd, "round.txt"), "\n".join(facts) + "\n")
    if user:
        hand_over(rd, user)
    return rnd, array, merge


def wait(rd, merge, poll=2.0):
    """Wait for the merge job (squeue; its merge.rc) and return its exit status."""
    rc_file = os.path.join(rd, "merge.rc")
    gone = 0
    while True:
        data = fsutil.read_regular(rc_file, 64)
        if data is not None and data.strip().isdigit():
            return min(int(data.strip()), 255)
        state = queue_states([merge]).get(merge, "")
        if state in ("", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                     "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"):
            gone += 1
            if gone > 5:
                say("the merge job %s ended without a status (%s)" % (merge, state or "gone"))
                return 1
        else:
            gone = 0
        time.sleep(poll)


def queue_states(ids):
    """{job id (ARRAY_TASK form for array tasks): state} from squeue ({} without Slurm)."""
    if not ids:
        return {}
    try:
        p = subprocess.run(["squeue", "-h", "-r", "-t", "all", "-j", ",".join(ids), "-o",
                            "%i %T"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    res = {}
    for ln in p.stdout.decode("utf-8", "replace").splitlines():
        t = ln.split()
        if len(t) == 2:
            res[t[0]] = t[1]
    return res
