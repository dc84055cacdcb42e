"""The instructors' options: roster, repositories, deadline, regrades, export, similarity.

They are described in grading/README.md, "A whole assignment"; submission times are among
them too. cli reads them (their argparse group) into a WfOptions and checks them with the rest
(check). Without any of them the grader works as it did.
"""
import os
import re
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import List, Optional

from ..base.tell import UsageError
from . import late

# option -> attribute: the options of one value, in the order grading.txt's command gives them
VALUED = {"--roster": "roster", "--roster-login": "roster_login",
          "--classroom-roster": "classroom_roster", "--prefix": "prefix", "--repos": "repos",
          "--ref": "ref", "--deadline": "deadline_text", "--submitted": "submitted",
          "--submitted-tz": "submitted_tz_text", "--export": "export",
          "--assignment": "assignment", "--moodle-id": "moodle_id",
          "--similarity-threshold": "threshold_text"}


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
    given: List[str] = field(default_factory=list)      # the options given
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
            raise UsageError("%s %s is not a file" % (opt, path))
    for d in wf.compare_with:
        if not os.path.isdir(d):
            raise UsageError("--compare-with %s is not a folder" % d)
    needs_roster = [x for x in ("--roster-login", "--classroom-roster", "--prefix", "--export")
                    if x in wf.given]
    if needs_roster and not wf.roster:
        raise UsageError("%s needs --roster" % needs_roster[0])
    if wf.export:
        if wf.export not in ("canvas", "moodle"):
            raise UsageError("--export must be canvas or moodle, not '%s'" % wf.export)
        if not wf.assignment.strip():
            raise UsageError("--export needs --assignment NAME (the assignment's name in the "
                         "gradebook, e.g. \"Lab 3\" or \"Lab 3 (56789)\")")
    elif wf.assignment:
        raise UsageError("--assignment goes with --export")
    if wf.moodle_id:
        if wf.export != "moodle":
            raise UsageError("--moodle-id goes with --export moodle")
        if wf.moodle_id not in ("email", "username", "idnumber"):
            raise UsageError("--moodle-id must be email, username or idnumber, not '%s'"
                         % wf.moodle_id)
    if wf.deadline_text:
        try:
            wf.deadline = late.parse_time(wf.deadline_text)
        except ValueError as e:
            raise UsageError("--deadline: %s" % e)
    if wf.submitted_tz_text:
        if not wf.submitted:
            raise UsageError("--submitted-tz goes with --submitted")
        try:
            wf.submitted_tz = zone(wf.submitted_tz_text)
        except ValueError as e:
            raise UsageError("--submitted-tz: %s" % e)
    if wf.threshold_text:
        try:
            wf.threshold = float(wf.threshold_text)
        except ValueError:
            wf.threshold = -1.0
        if not 0 < wf.threshold <= 100:
            raise UsageError("--similarity-threshold must be a percentage above 0, up to 100, "
                         "not '%s'" % wf.threshold_text)
    if wf.ref and (wf.ref.startswith("-") or not wf.ref.strip()):
        raise UsageError("--ref '%s' is not a branch, tag or commit" % wf.ref)
    if wf.only is not None and o.force:
        raise UsageError("--only regrades some students, --force everyone: give one of them")
    if wf.export and not o.submissions and not wf.repos and (wf.only or wf.deadline_text):
        raise UsageError("--only and --deadline grade: give --submissions or --repos too")


def export_only(o):
    """Only the export from the results in OUT (--export, nothing to grade)."""
    return bool(o.wf.export) and not o.submissions and not o.wf.repos
