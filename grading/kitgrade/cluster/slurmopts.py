"""The grader's Slurm options, taken out of the command line and checked.

The grader's Slurm options (grading/README.md, "Grading on a Slurm cluster"): taken out of
the command line before the rest is parsed (take) and checked; what only the submission reads
(SUBMIT_ONLY: cli.task_words leaves it out of the words a job's task is started with)."""
import re
from dataclasses import dataclass
from typing import List, Optional

from ..base import optwords

# option -> attribute; each takes one value
VALUED = {"--partition": "partition", "--gres": "gres", "--tasks": "tasks_text",
          "--account": "account", "--time": "time", "--slurm-user": "user",
          "--shard": "shard_text"}
FLAGS = {"--slurm": "submit", "--wait": "wait", "--merge-only": "merge_only"}
# what only the submission reads: a task never sees these (nor --force nor --seed: the tasks
# read the seed back from OUT/grading.txt and never forget results)
SUBMIT_ONLY = ("--slurm", "--partition", "--gres", "--tasks", "--account", "--time", "--wait",
               "--slurm-user", "--force", "--seed", "--shard", "--merge-only")
TAKES_VALUE = ("--partition", "--gres", "--tasks", "--account", "--time", "--slurm-user",
               "--seed", "--shard")

USAGE = """
grading on a Slurm cluster (grading/README.md, "Grading on a Slurm cluster"):
  --slurm                submit the grading as a job array (one task per share of the
                         students) and a dependent job that merges the results into OUT;
                         OUT must be on a file system every node sees
  --partition P          the partition the jobs run in (default: the cluster's)
  --gres G               generic resources per task, e.g. gpu:1
  --tasks N              array tasks (default: one per 8 students still to grade, at most 64)
  --account A            the account the jobs are charged to
  --time T               each task's time limit (minutes, or Slurm's [D-]HH:MM:SS; default:
                         estimated from the rubric's limits, with a wide margin)
  --wait                 wait for the merge job and exit with its status
  --slurm-user USER      (as root) submit as USER; OUT is handed to USER
  --status               one progress line of the Slurm grading in OUT (--status OUT works)
  --merge-only           the grades, summary, plots, similarity and export from the results in
                         OUT (what the merge job runs); exit 2 when OUT holds no grading
  --shard ROUND:I        grade task I's share of round ROUND (what each array task runs)
"""


@dataclass
class SlurmOptions:
    submit: bool = False
    wait: bool = False
    merge_only: bool = False
    partition: str = ""
    gres: str = ""
    tasks_text: str = ""
    account: str = ""
    time: str = ""
    user: str = ""
    shard_text: str = ""
    tasks: int = 0
    shard: Optional[tuple] = None     # (round, task index)
    given: List[str] = None

    @property
    def active(self):
        return self.submit or self.merge_only or self.shard is not None


_usage = optwords.usage


def take(argv):
    """(the other words of ARGV, SlurmOptions), checked."""
    o = SlurmOptions(given=[])
    rest = []
    for name, val in optwords.scan(argv, valued=VALUED, flags=FLAGS):
        if name is None:
            rest.append(val)
            continue
        setattr(o, VALUED[name] if name in VALUED else FLAGS[name], val)
        o.given.append(name)
    check(o)
    return rest, o


def check(o):
    if o.tasks_text:
        if not re.fullmatch(r"[1-9][0-9]{0,4}", o.tasks_text):
            raise _usage("--tasks must be a positive integer, not '%s'" % o.tasks_text)
        o.tasks = int(o.tasks_text)
    if o.time and not re.fullmatch(r"[0-9]+(-[0-9]{1,2})?(:[0-9]{1,2}){0,2}", o.time):
        raise _usage("--time must be minutes or [D-]HH:MM:SS, not '%s'" % o.time)
    if o.shard_text:
        m = re.fullmatch(r"([0-9]{1,6}):([0-9]{1,5})", o.shard_text)
        if not m:
            raise _usage("--shard must be ROUND:INDEX, not '%s'" % o.shard_text)
        o.shard = (int(m.group(1)), int(m.group(2)))
    for n, v in (("--partition", o.partition), ("--account", o.account),
                 ("--gres", o.gres), ("--slurm-user", o.user)):
        if v and not re.fullmatch(r"[A-Za-z0-9._:,=+@-]+", v):
            raise _usage("%s takes a plain name, not '%s'" % (n, v))
    modes = sum(1 for x in (o.submit, o.merge_only, o.shard is not None) if x)
    if modes > 1:
        raise _usage("--slurm, --merge-only and --shard go alone")
    submit_only = [g for g in o.given if g in ("--partition", "--gres", "--tasks", "--account",
                                                  "--time", "--wait", "--slurm-user")]
    if submit_only and not o.submit:
        raise _usage("%s goes with --slurm" % submit_only[0])

