"""The instructors' options: roster, repositories, deadline, regrades, export, similarity.

The instructors' options of the command line (grading/README.md, "A whole assignment"):
the roster, git repositories at a deadline, submission times, regrading some students, the
gradebook export and the similarity report. cli.parse takes them out of the command line first
(take) and checks them with the rest (check); without any of them the grader works as it did.
"""
import os
import re
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import List, Optional

from ..base import optwords
from . import late

# option -> attribute; each takes one value
VALUED = {"--roster": "roster", "--roster-login": "roster_login",
          "--classroom-roster": "classroom_roster", "--prefix": "prefix", "--repos": "repos",
          "--ref": "ref", "--deadline": "deadline_text", "--submitted": "submitted",
          "--submitted-tz": "submitted_tz_text", "--export": "export",
          "--assignment": "assignment", "--moodle-id": "moodle_id",
          "--similarity-threshold": "threshold_text"}
REPEATED = {"--compare-with": "compare_with"}      # may be given again
LISTED = {"--only": "only"}                        # takes every word up to the next option

USAGE = """
the instructors' workflow (grading/README.md, "A whole assignment"):
  --roster FILE          the class list: Canvas's or Moodle's export as it comes, GitHub
                         Classroom's roster, or a CSV with login (name, id, email, section);
                         students without a submission are `missing` (0 points), folders of
                         nobody on it are graded and listed as not-on-roster
  --roster-login COLUMN  another roster column as the login
  --classroom-roster FILE  GitHub Classroom's roster: GitHub accounts linked to the roster
  --prefix PREFIX        submissions are named PREFIX-LOGIN (default: found from the names)
  --repos LIST           git repositories, one a line (a path or a URL; NAME LOCATION to
                         name it); a URL is cloned (bare) when its student is graded. A
                         folder of clones works as --submissions too: a repository is read
                         at one commit, never checked out, its hooks and config not obeyed
  --ref REF              the branch or tag graded (default HEAD)
  --deadline TIME        ISO 8601 with its zone (2025-03-14T23:59:00+01:00): the commit graded
                         is the last one at or before the student's deadline (its extension
                         and the rubric's late policy counted); lateness is charged
  --submitted FILE       when each student handed in on the learning platform (login,
                         submitted_at): rules over commit dates
  --submitted-tz ZONE    the zone of --submitted times that carry none (+01:00)
  --only LOGIN...        regrade these students (logins or folder names) with the grading's
                         seed, each earlier result kept in OUT/history; the others stay
  --export canvas|moodle --assignment NAME
                         write OUT/canvas.csv or OUT/moodle.csv (needs --roster); without
                         --submissions or --repos, only that, from the results in OUT
  --moodle-id email|username|idnumber   the identifier column of the Moodle file
  --compare-with DIR     an earlier year's submissions, for the similarity report (again for
                         more years)
  --similarity-threshold P   pairs with at least P % in common are listed (default 40)
"""


@dataclass
class WfOptions:
    roster: str = ""
    roster_login: str = ""
    classroom_roster: str = ""
    prefix: str = ""
    repos: str = ""
    ref: str = ""
    deadline_text: str = ""
    submitted: str = ""
    submitted_tz_text: str = ""
    export: str = ""
    assignment: str = ""
    moodle_id: str = ""
    threshold_text: str = ""
    compare_with: List[str] = field(default_factory=list)
    only: Optional[List[str]] = None
    given: List[str] = field(default_factory=list)      # the options given, in order
    # checked values
    deadline: object = None           # datetime
    submitted_tz: Optional[tzinfo] = None
    threshold: float = 40.0

    @property
    def active(self):
        return bool(self.given)

    def words(self):
        """The options as a command line's words (grading.txt's command)."""
        out = []
        for opt, attr in list(VALUED.items()):
            v = getattr(self, attr)
            if v:
                out += [opt, v]
        for d in self.compare_with:
            out += ["--compare-with", d]
        return out


_usage = optwords.usage


def take(argv):
    """(the other words of ARGV, WfOptions): the instructors' options taken out."""
    wf = WfOptions()
    rest = []
    for name, val in optwords.scan(argv, valued=set(VALUED) | set(REPEATED), listed=LISTED):
        if name is None:
            rest.append(val)
        elif name in LISTED:
            if not val:
                raise _usage("--only needs at least one login (--only akim jdoe)")
            wf.only = (wf.only or []) + val
            wf.given.append(name)
        elif name in VALUED:
            if name in wf.given:
                raise _usage("option %s is given twice" % name)
            setattr(wf, VALUED[name], val)
            wf.given.append(name)
        else:
            getattr(wf, REPEATED[name]).append(val)
            wf.given.append(name)
    return rest, wf


def zone(text):
    """A zone offset (+01:00, -0500, Z, UTC) as a tzinfo; ValueError otherwise."""
    if not re.fullmatch(r"[+-]\d{2}(:?\d{2})?|Z|UTC|GMT", text.strip(), re.IGNORECASE):
        raise ValueError("'%s' is not a zone offset like +01:00 or Z" % text)
    return late.parse_time("2000-01-01T00:00:00" + text.strip()).tzinfo


def check(o):
    """Check the instructors' options of cli.Options O (o.wf); UsageError with one line."""
    wf = o.wf
    if not wf.active:
        return
    for path, opt in ((wf.roster, "--roster"), (wf.classroom_roster, "--classroom-roster"),
                      (wf.repos, "--repos"), (wf.submitted, "--submitted")):
        if path and not os.path.isfile(path):
            raise _usage("%s %s is not a file" % (opt, path))
    for d in wf.compare_with:
        if not os.path.isdir(d):
            raise _usage("--compare-with %s is not a folder" % d)
    needs_roster = [x for x in ("--roster-login", "--classroom-roster", "--prefix", "--export")
                    if x in wf.given]
    if needs_roster and not wf.roster:
        raise _usage("%s needs --roster" % needs_roster[0])
    if wf.export:
        if wf.export not in ("canvas", "moodle"):
            raise _usage("--export must be canvas or moodle, not '%s'" % wf.export)
        if not wf.assignment.strip():
            raise _usage("--export needs --assignment NAME (the assignment's name in the "
                         "gradebook, e.g. \"Lab 3\" or \"Lab 3 (56789)\")")
    elif wf.assignment:
        raise _usage("--assignment goes with --export")
    if wf.moodle_id:
        if wf.export != "moodle":
            raise _usage("--moodle-id goes with --export moodle")
        if wf.moodle_id not in ("email", "username", "idnumber"):
            raise _usage("--moodle-id must be email, username or idnumber, not '%s'"
                         % wf.moodle_id)
    if wf.deadline_text:
        try:
            wf.deadline = late.parse_time(wf.deadline_text)
        except ValueError as e:
            raise _usage("--deadline: %s" % e)
    if wf.submitted_tz_text:
        if not wf.submitted:
            raise _usage("--submitted-tz goes with --submitted")
        try:
            wf.submitted_tz = zone(wf.submitted_tz_text)
        except ValueError as e:
            raise _usage("--submitted-tz: %s" % e)
    if wf.threshold_text:
        try:
            wf.threshold = float(wf.threshold_text)
        except ValueError:
            wf.threshold = -1.0
        if not 0 < wf.threshold <= 100:
            raise _usage("--similarity-threshold must be a percentage above 0, up to 100, "
                         "not '%s'" % wf.threshold_text)
    if wf.ref and (wf.ref.startswith("-") or not wf.ref.strip()):
        raise _usage("--ref '%s' is not a branch, tag or commit" % wf.ref)
    if wf.only is not None and o.force:
        raise _usage("--only regrades some students, --force everyone: give one of them")
    if wf.export and not o.submissions and not wf.repos and (wf.only or wf.deadline_text):
        raise _usage("--only and --deadline grade: give --submissions or --repos too")


def export_only(o):
    """Only the export from the results in OUT (--export, nothing to grade)."""
    return bool(o.wf.export) and not o.submissions and not o.wf.repos
