"""The grader's command line: its options, their checks and --help.

The grader's command line: its options, their checks and --help (the same command line as
the bash grader it replaced, plus --rubric, --print-cases and --kit)."""
import os
import re
from dataclasses import dataclass
from typing import List, Optional

from ..base.optwords import UsageError
from ..cluster import slurmopts
from ..course import wfopts

USAGE = """\
usage: grading/grade --lab NN --submissions DIR --out OUT [options]

Grades every student folder of DIR (each holds the files that student edited, under the
skeleton's names) and writes OUT/grades.csv, OUT/students/ID/results.json and report.md, and
OUT/summary.md. Running it again resumes: students already graded are kept.

options:
  --lab NN               the lab (01, 03, ...; labs/NN_name and grading/rubrics/labNN.rubric)
  --submissions DIR      one folder per student
  --out OUT              where the grades, reports and work folders go
  --jobs N               builds and correctness runs at once (default: every core)
  --gpus LIST            GPUs to run on, e.g. 0,1; timed runs alone on each (default: all)
  --gpu-share N          correctness runs at once on one GPU (default: the --jobs count)
  --timeout S            wall-clock limit of one run in seconds (default: the rubric's)
  --seed S               the grading seed the hidden cases are drawn from (default: a random
                         one, kept secret in OUT/grading.txt and kept on resume)
  --rubric FILE          another rubric than grading/rubrics/labNN.rubric
  --profile              profiler metrics of every passing GPU variant (Nsight Compute)
  --sanitize             also run each variant under a sanitizer (compute-sanitizer memcheck
                         for GPU labs, AddressSanitizer for CPU labs)
  --sandbox auto|bwrap|none   bubblewrap when it works (auto), required, or not used
  --force                regrade everyone; forget earlier results
  --quick                small hidden cases and short timings (tests and demos)
  --keep-work            keep each student's box (its build and run folders)
  --print-cases          print the hidden cases the seed draws (--lab and --seed) and stop
  --quiet                no progress line
  --help                 this text

exit codes: 0 graded, 1 interrupted or the grader failed, 2 bad usage
"""

USAGE = USAGE.replace("\nexit codes:", wfopts.USAGE + slurmopts.USAGE + "\nexit codes:")

VALUED = _VALUED = ("--lab", "--submissions", "--out", "--jobs", "--gpu-share", "--gpus",
                    "--timeout", "--seed", "--sandbox", "--rubric", "--kit")
_FLAGS = ("--profile", "--sanitize", "--force", "--quick", "--keep-work", "--quiet",
          "--print-cases", "--help", "-h")


@dataclass
class Options:
    lab: str = ""
    submissions: str = ""
    out: str = ""
    jobs: int = 0
    gpu_share: int = 0      # 0: the --jobs count
    gpus: Optional[List[str]] = None
    timeout: Optional[int] = None
    seed: Optional[int] = None
    sandbox: str = "auto"
    rubric: str = ""
    kit: str = ""
    profile: bool = False
    sanitize: bool = False
    force: bool = False
    quick: bool = False
    keep_work: bool = False
    quiet: bool = False
    print_cases: bool = False
    help: bool = False
    wf: object = None       # wfopts.WfOptions: the instructors' options
    slurm: object = None    # slurmopts.SlurmOptions: grading on a Slurm cluster


def parse(argv):
    """Options from ARGV, or UsageError."""
    o = Options()
    argv, o.slurm = slurmopts.take(argv)
    argv, o.wf = wfopts.take(argv)
    vals = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--") and "=" in a:
            k, v = a.split("=", 1)
            i += 1
        elif a in _VALUED:
            if i + 1 >= len(argv):
                raise UsageError("option %s needs a value (try --help)" % a)
            k, v = a, argv[i + 1]
            i += 2
        elif a in _FLAGS:
            k, v = a, None
            i += 1
        else:
            raise UsageError("unknown option '%s' (try --help)" % a)
        if k in _VALUED and v is None:
            raise UsageError("option %s needs a value (try --help)" % k)
        if k not in _VALUED and k not in _FLAGS:
            raise UsageError("unknown option '%s' (try --help)" % k)
        if k in _FLAGS and v is not None:
            raise UsageError("option %s takes no value" % k)
        vals[k] = v
    o.help = "--help" in vals or "-h" in vals
    if o.help:
        return o
    o.profile = "--profile" in vals
    o.sanitize = "--sanitize" in vals
    o.force = "--force" in vals
    o.quick = "--quick" in vals
    o.keep_work = "--keep-work" in vals
    o.quiet = "--quiet" in vals
    o.print_cases = "--print-cases" in vals
    o.lab = vals.get("--lab", "") or ""
    o.submissions = vals.get("--submissions", "") or ""
    o.out = vals.get("--out", "") or ""
    o.rubric = vals.get("--rubric", "") or ""
    o.kit = vals.get("--kit", "") or ""
    o.sandbox = vals.get("--sandbox", "auto")
    if not o.lab:
        raise UsageError("--lab is required (try --help)")
    m = re.match(r"^(\d{1,2})(_.*)?$", o.lab)
    if not m:
        raise UsageError("--lab must be a lab number like 01, not '%s'" % o.lab)
    o.lab = "%02d" % int(m.group(1))
    if not o.print_cases:
        if not o.submissions and not o.wf.repos and not o.wf.export:
            raise UsageError("--submissions is required (try --help)")
        if not o.out:
            raise UsageError("--out is required (try --help)")
        if o.submissions and not os.path.isdir(o.submissions):
            raise UsageError("--submissions %s is not a folder" % o.submissions)
    jobs = vals.get("--jobs")
    if jobs is not None:
        if not re.fullmatch(r"[1-9][0-9]*", jobs):
            raise UsageError("--jobs must be a positive integer, not '%s'" % jobs)
        o.jobs = int(jobs)
    share = vals.get("--gpu-share")
    if share is not None:
        if not re.fullmatch(r"[1-9][0-9]*", share):
            raise UsageError("--gpu-share must be a positive integer, not '%s'" % share)
        o.gpu_share = int(share)
    t = vals.get("--timeout")
    if t is not None:
        if not re.fullmatch(r"[1-9][0-9]*", t):
            raise UsageError("--timeout must be whole seconds, not '%s'" % t)
        o.timeout = int(t)
    s = vals.get("--seed")
    if s is not None:
        if not re.fullmatch(r"[0-9]{1,19}", s) or int(s) >= 1 << 64:
            raise UsageError("--seed must be a non-negative integer, not '%s'" % s)
        o.seed = int(s)
    g = vals.get("--gpus")
    if g is not None:
        if not re.fullmatch(r"[0-9]+(,[0-9]+)*", g):
            raise UsageError("--gpus must be a list like 0,1, not '%s'" % g)
        o.gpus = g.split(",")
    if o.sandbox not in ("auto", "bwrap", "none"):
        raise UsageError("--sandbox must be auto, bwrap or none, not '%s'" % o.sandbox)
    wfopts.check(o)
    return o


def task_words(argv):
    """ARGV (the command line as given) less what only the submission reads; the paths of
    --submissions, --out, --rubric and --kit made absolute (a value is never read as an
    option)."""
    valued = set(VALUED) | set(wfopts.VALUED) | set(wfopts.REPEATED) | set(slurmopts.TAKES_VALUE)
    paths = ("--submissions", "--out", "--rubric", "--kit")
    out = []
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, v = a.partition("=") if a.startswith("--") else (a, "", "")
        takes = name in valued and not eq
        if not eq and takes and i + 1 < len(argv):
            v = argv[i + 1]
        i += 2 if takes else 1
        if name in slurmopts.SUBMIT_ONLY:
            continue
        if name in paths and v:
            v = os.path.abspath(v)
        out += ([name + "=" + v] if eq else [name, v]) if name in valued else [a]
    return out
