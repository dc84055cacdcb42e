"""The grader's Slurm options, checked; what only the submission reads.

The options are described in grading/README.md, "Grading on a Slurm cluster"; cli reads them
as their argparse group. SUBMIT_ONLY: cli.task_words leaves these out of the words a job's
task is started with."""
import re
from dataclasses import dataclass, field
from typing import List, Optional

from ..base.tell import UsageError

# what only the submission reads: a task never sees these (nor --force nor --seed: the tasks
# read the seed back from OUT/grading.txt and never forget results)
SUBMIT_ONLY = ("--slurm", "--partition", "--gres", "--tasks", "--account", "--time", "--wait",
               "--slurm-user", "--force", "--seed", "--shard", "--merge-only")


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
    given: List[str] = field(default_factory=list)     # the options given

    @property
    def active(self):
        return self.submit or self.merge_only or self.shard is not None


def check(o):
    if o.tasks_text:
        if not re.fullmatch(r"[1-9][0-9]{0,4}", o.tasks_text):
            raise UsageError("--tasks must be a positive integer, not '%s'" % o.tasks_text)
        o.tasks = int(o.tasks_text)
    if o.time and not re.fullmatch(r"[0-9]+(-[0-9]{1,2})?(:[0-9]{1,2}){0,2}", o.time):
        raise UsageError("--time must be minutes or [D-]HH:MM:SS, not '%s'" % o.time)
    if o.shard_text:
        m = re.fullmatch(r"([0-9]{1,6}):([0-9]{1,5})", o.shard_text)
        if not m:
            raise UsageError("--shard must be ROUND:INDEX, not '%s'" % o.shard_text)
        o.shard = (int(m.group(1)), int(m.group(2)))
    for n, v in (("--partition", o.partition), ("--account", o.account),
                 ("--gres", o.gres), ("--slurm-user", o.user)):
        if v and not re.fullmatch(r"[A-Za-z0-9._:,=+@-]+", v):
            raise UsageError("%s takes a plain name, not '%s'" % (n, v))
    modes = sum(1 for x in (o.submit, o.merge_only, o.shard is not None) if x)
    if modes > 1:
        raise UsageError("--slurm, --merge-only and --shard go alone")
    submit_only = [g for g in o.given if g in ("--partition", "--gres", "--tasks", "--account",
                                                  "--time", "--wait", "--slurm-user")]
    if submit_only and not o.submit:
        raise UsageError("%s goes with --slurm" % submit_only[0])

