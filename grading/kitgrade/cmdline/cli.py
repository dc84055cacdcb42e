"""The grader's command line: one argparse parser, its option groups, their checks and --help.

The options are the bash grader's, plus --rubric, --print-cases and --kit, the instructors'
workflow and Slurm. Two things are settled before argparse reads the words, as the bash grader
read them: a value is the next word whatever it looks like (`--out --force`, `--ref -x`), and
`--only=a,b` is a list. argparse's complaints are said in the grader's words: one line, exit 2.
The values are checked after it, in a fixed order."""
import argparse
import os
import re
from dataclasses import dataclass
from typing import List, Optional

from ..base.tell import UsageError
from ..cluster import slurmopts
from ..course import wfopts

DESCRIPTION = """\
Grades every student folder of DIR (each holds the files that student edited, under the
skeleton's names) and writes OUT/grades.csv, OUT/students/ID/results.json and report.md, and
OUT/summary.md. Running it again resumes: students already graded are kept."""
EPILOG = "exit codes: 0 graded, 1 interrupted or the grader failed, 2 bad usage\n"


class _Help(argparse.RawDescriptionHelpFormatter):
    """--help at one width whatever the terminal (cli.USAGE is made once)."""

    def __init__(self, prog):
        super().__init__(prog, max_help_position=25, width=94)


class _Parser(argparse.ArgumentParser):
    def __init__(self):
        super().__init__(prog="grading/grade", add_help=False, allow_abbrev=False,
                         usage="grading/grade --lab NN --submissions DIR --out OUT [options]",
                         description=DESCRIPTION, epilog=EPILOG, formatter_class=_Help)

    def one_value(self):
        """The options that take one value."""
        return {s for s, a in self._option_string_actions.items() if a.nargs is None}

    def glued(self, argv):
        """ARGV with each option that takes one value glued to the next word (`--out=WORD`:
        a value is never read as an option, but `--` is no value), and `--only=a,b` as the
        words `--only a b`."""
        one = self.one_value()
        out, i = [], 0
        while i < len(argv):
            w = argv[i]
            name, eq, val = w.partition("=")
            if w in one and i + 1 < len(argv) and argv[i + 1] != "--":
                i += 1
                out.append(w + "=" + argv[i])
            elif name in one and val == "--":           # argparse would drop it
                out += [name, val]
            elif eq and name == "--only":
                listed = [x for x in val.split(",") if x]
                out += [name] + listed if listed else [name + "="]     # empty: an error
            else:
                out.append(w)
            i += 1
        return out

    def parse_known_args(self, args=None, namespace=None):
        return super().parse_known_args(self.glued(args), namespace)

    def error(self, message):
        """argparse's complaint in the grader's words (argparse says `argument NAME: WHAT`)."""
        name, _, what = message.partition(": ")
        name = name.replace("argument ", "").split("/")[-1]
        if what == "expected one argument":
            message = "option %s needs a value (try --help)" % name
        elif what == "expected at least one argument":          # --only, the one list
            message = "%s needs at least one login (--only akim jdoe)" % name
        elif what.startswith("ignored explicit argument"):
            message = "option %s takes no value" % name
        elif what:
            message = what
        raise UsageError(message)


class _Once(argparse.Action):
    """An instructors' option: one value, and given once."""

    def __call__(self, parser, namespace, value, option_string=None):
        if getattr(namespace, self.dest) is not None:
            raise argparse.ArgumentError(self, "option %s is given twice" % option_string)
        setattr(namespace, self.dest, value)


def _parser():
    p = _Parser()
    g = p.add_argument_group("options")
    g.add_argument("--lab", metavar="NN",
                   help="the lab (01, 03, ...; labs/NN_name and grading/rubrics/labNN.rubric)")
    g.add_argument("--submissions", metavar="DIR", help="one folder per student")
    g.add_argument("--out", metavar="OUT", help="where the grades, reports and work folders go")
    g.add_argument("--jobs", metavar="N",
                   help="builds and correctness runs at once (default: every core)")
    g.add_argument("--gpus", metavar="LIST",
                   help="GPUs to run on, e.g. 0,1; timed runs alone on each (default: all)")
    g.add_argument("--gpu-share", metavar="N",
                   help="correctness runs at once on one GPU (default: the --jobs count, at most 16)")
    g.add_argument("--timeout", metavar="S",
                   help="time limit of one run in seconds (default: the rubric's; on a GPU "
                   "shared by correctness runs, its share of the wall clock)")
    g.add_argument("--seed", metavar="S",
                   help="the grading seed the hidden cases are drawn from (default: a random "
                   "one, kept secret in OUT/grading.txt and kept on resume)")
    g.add_argument("--rubric", metavar="FILE",
                   help="another rubric than grading/rubrics/labNN.rubric")
    g.add_argument("--kit", help=argparse.SUPPRESS)     # another kit (the tests' fake one)
    g.add_argument("--profile", action="store_true",
                   help="profiler metrics of every passing GPU variant (Nsight Compute)")
    g.add_argument("--sanitize", action="store_true",
                   help="also run each variant under a sanitizer (compute-sanitizer memcheck "
                   "for GPU labs, AddressSanitizer for CPU labs)")
    g.add_argument("--sandbox", metavar="auto|bwrap|none",
                   help="bubblewrap when it works (auto), required, or not used")
    g.add_argument("--force", action="store_true",
                   help="regrade everyone; forget earlier results")
    g.add_argument("--quick", action="store_true",
                   help="small hidden cases and short timings (tests and demos)")
    g.add_argument("--keep-work", action="store_true",
                   help="keep each student's box (its build and correctness runs' "
                        "folders; the timed runs' outputs go, to leave the disk to the next)")
    g.add_argument("--print-cases", action="store_true",
                   help="print the hidden cases the seed draws (--lab and --seed) and stop")
    g.add_argument("--quiet", action="store_true", help="no progress line")
    g.add_argument("-h", "--help", action="store_true", help="this text")

    w = p.add_argument_group("the instructors' workflow (grading/README.md, \"A whole "
                             "assignment\")")
    w.add_argument("--roster", action=_Once, metavar="FILE",
                   help="the class list: Canvas's or Moodle's export as it comes, GitHub "
                   "Classroom's roster, or a CSV with login (name, id, email, section); "
                   "students without a submission are `missing` (0 points), folders of nobody "
                   "on it are graded and listed as not-on-roster")
    w.add_argument("--roster-login", action=_Once, metavar="COLUMN",
                   help="another roster column as the login")
    w.add_argument("--classroom-roster", action=_Once, metavar="FILE",
                   help="GitHub Classroom's roster: GitHub accounts linked to the roster")
    w.add_argument("--prefix", action=_Once, metavar="PREFIX",
                   help="submissions are named PREFIX-LOGIN (default: found from the names)")
    w.add_argument("--repos", action=_Once, metavar="LIST",
                   help="git repositories, one a line (a path or a URL; NAME LOCATION to name "
                   "it); a URL is cloned (bare) when its student is graded. A folder of clones "
                   "works as --submissions too: a repository is read at one commit, never "
                   "checked out, its hooks and config not obeyed")
    w.add_argument("--ref", action=_Once, metavar="REF",
                   help="the branch or tag graded (default HEAD)")
    w.add_argument("--deadline", action=_Once, dest="deadline_text", metavar="TIME",
                   help="ISO 8601 with its zone (2025-03-14T23:59:00+01:00): the commit graded "
                   "is the last one at or before the student's deadline (its extension and the "
                   "rubric's late policy counted); lateness is charged")
    w.add_argument("--submitted", action=_Once, metavar="FILE",
                   help="when each student handed in on the learning platform (login, "
                   "submitted_at): rules over commit dates")
    w.add_argument("--submitted-tz", action=_Once, dest="submitted_tz_text", metavar="ZONE",
                   help="the zone of --submitted times that carry none (+01:00)")
    w.add_argument("--only", nargs="+", action="extend", metavar="LOGIN",
                   help="regrade these students (logins or folder names) with the grading's "
                   "seed, each earlier result kept in OUT/history; the others stay")
    w.add_argument("--export", action=_Once, metavar="canvas|moodle",
                   help="write OUT/canvas.csv or OUT/moodle.csv (needs --roster and "
                   "--assignment); without --submissions or --repos, only that, from the "
                   "results in OUT")
    w.add_argument("--assignment", action=_Once, metavar="NAME",
                   help="the assignment's name in the gradebook (with --export)")
    w.add_argument("--moodle-id", action=_Once, metavar="email|username|idnumber",
                   help="the identifier column of the Moodle file")
    w.add_argument("--compare-with", action="append", default=[], metavar="DIR",
                   help="an earlier year's submissions, for the similarity report (again for "
                   "more years)")
    w.add_argument("--similarity-threshold", action=_Once, dest="threshold_text", metavar="P",
                   help="pairs with at least P %% in common are listed (default 40)")

    s = p.add_argument_group("grading on a Slurm cluster (grading/README.md, \"Grading on a "
                             "Slurm cluster\")")
    s.add_argument("--slurm", dest="submit", action="store_true",
                   help="submit the grading as a job array (one task per share of the "
                   "students) and a dependent job that merges the results into OUT; OUT must "
                   "be on a file system every node sees")
    s.add_argument("--partition", metavar="P",
                   help="the partition the jobs run in (default: the cluster's)")
    s.add_argument("--gres", metavar="G", help="generic resources per task, e.g. gpu:1")
    s.add_argument("--tasks", dest="tasks_text", metavar="N",
                   help="array tasks (default: one per 8 students still to grade, at most 64)")
    s.add_argument("--account", metavar="A", help="the account the jobs are charged to")
    s.add_argument("--time", metavar="T",
                   help="each task's time limit (minutes, or Slurm's [D-]HH:MM:SS; default: "
                   "estimated from the rubric's limits, with a wide margin)")
    s.add_argument("--wait", action="store_true",
                   help="wait for the merge job and exit with its status")
    s.add_argument("--slurm-user", dest="user", metavar="USER",
                   help="(as root) submit as USER; OUT is handed to USER")
    s.add_argument("--status", nargs="?", const="", metavar="OUT",
                   help="one progress line of the Slurm grading in OUT (--out OUT works too)")
    s.add_argument("--merge-only", action="store_true",
                   help="the grades, summary, plots, similarity and export from the results in "
                   "OUT (what the merge job runs); exit 2 when OUT holds no grading")
    s.add_argument("--shard", dest="shard_text", metavar="ROUND:I",
                   help="grade task I's share of round ROUND (what each array task runs)")
    p.groups = {"wf": w, "slurm": s}
    return p


PARSER = _parser()
USAGE = PARSER.format_help()


@dataclass
class Options:
    lab: str = ""
    submissions: str = ""
    out: str = ""
    jobs: int = 0
    gpu_share: int = 0      # 0: the --jobs count, at least 2 and at most 16
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
    status: Optional[str] = None    # --status [OUT]: only the progress line
    wf: object = None       # wfopts.WfOptions: the instructors' options
    slurm: object = None    # slurmopts.SlurmOptions: grading on a Slurm cluster


def _group(ns, name, cls):
    """The values of group NAME (its actions' dests) as a CLS; an empty value is a missing one."""
    acts = PARSER.groups[name]._group_actions
    for a in acts:
        if a.nargs is None and getattr(ns, a.dest) == "":
            raise UsageError("option %s needs a value (try --help)" % a.option_strings[0])
    vals = {a.dest: getattr(ns, a.dest) for a in acts if a.dest != "status"}
    given = [a.option_strings[0] for a in acts if getattr(ns, a.dest) not in (None, False, [])]
    return cls(given=given, **{k: v for k, v in vals.items() if v is not None})


def parse(argv):
    """Options from ARGV, or UsageError."""
    ns, rest = PARSER.parse_known_args(list(argv))
    o = Options(status=ns.status, out=ns.out or "")
    if o.status is not None:                    # --status reads OUT, nothing else
        return o
    o.slurm = _group(ns, "slurm", slurmopts.SlurmOptions)
    slurmopts.check(o.slurm)
    o.wf = _group(ns, "wf", wfopts.WfOptions)
    if "" in (o.wf.only or ()):
        raise UsageError("--only needs at least one login (--only akim jdoe)")
    if rest:
        w = rest[0]
        raise UsageError("unknown option '%s' (try --help)"
                         % (w.partition("=")[0] if w.startswith("--") else w))
    o.help = ns.help
    if o.help:
        return o
    for f in ("profile", "sanitize", "force", "quick", "keep_work", "quiet", "print_cases"):
        setattr(o, f, getattr(ns, f))
    o.lab, o.submissions = ns.lab or "", ns.submissions or ""
    o.rubric, o.kit = ns.rubric or "", ns.kit or ""
    o.sandbox = "auto" if ns.sandbox is None else ns.sandbox
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
    if ns.jobs is not None:
        o.jobs = _count(ns.jobs, "--jobs must be a positive integer")
    if ns.gpu_share is not None:
        o.gpu_share = _count(ns.gpu_share, "--gpu-share must be a positive integer")
    if ns.timeout is not None:
        o.timeout = _count(ns.timeout, "--timeout must be whole seconds")
    s = ns.seed
    if s is not None:
        if not re.fullmatch(r"[0-9]{1,19}", s) or int(s) >= 1 << 64:
            raise UsageError("--seed must be a non-negative integer, not '%s'" % s)
        o.seed = int(s)
    g = ns.gpus
    if g is not None:
        if not re.fullmatch(r"[0-9]+(,[0-9]+)*", g):
            raise UsageError("--gpus must be a list like 0,1, not '%s'" % g)
        o.gpus = g.split(",")
    if o.sandbox not in ("auto", "bwrap", "none"):
        raise UsageError("--sandbox must be auto, bwrap or none, not '%s'" % o.sandbox)
    wfopts.check(o)
    return o


def _count(text, must):
    """TEXT as a positive integer, or UsageError MUST."""
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise UsageError("%s, not '%s'" % (must, text))
    return int(text)


def task_words(argv):
    """ARGV (the command line as given) less what only the submission reads; the paths of
    --submissions, --out, --rubric and --kit made absolute (a value is never read as an
    option)."""
    one = PARSER.one_value()
    paths = ("--submissions", "--out", "--rubric", "--kit")
    out = []
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, v = a.partition("=") if a.startswith("--") else (a, "", "")
        takes = name in one and not eq
        if not eq and takes and i + 1 < len(argv):
            v = argv[i + 1]
        i += 2 if takes else 1
        if name in slurmopts.SUBMIT_ONLY:
            continue
        if name in paths and v:
            v = os.path.abspath(v)
        out += ([name + "=" + v] if eq else [name, v]) if name in one else [a]
    return out
