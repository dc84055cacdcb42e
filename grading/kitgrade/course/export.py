"""The gradebook in a learning platform's import format (--export canvas|moodle --assignment NAME).

Canvas (Grades > Import; the columns its gradebook export has and its import reads):
    Student,ID,SIS User ID,SIS Login ID,Section,NAME (ID)
    "    Points Possible",,,,,MAX
    "Doe, Jane",1234,s001,jdoe,CUDA 1,7.2
Canvas finds each student by these columns (copied as they were when the roster is Canvas's own
export) and the assignment by the id in parentheses; a header without an id makes a new
assignment. The assignment column is the roster's own column when the roster has one of that
name (`Lab 3` finds `Lab 3 (56789)`); otherwise NAME as given (`--assignment "Lab 3 (56789)"`
names the id). The Points Possible row is the one Canvas writes into its exports.

Moodle (Grades > Import > CSV file): an identifier column that the import page maps ("Map from")
to a user field ("Map to": useremail, username or useridnumber), and the grade column, mapped
there to the grade item:
    First name,Last name,Email address,Lab 3
Headers are those of Moodle's own grade export; identifier='email' (default, in every Moodle
export), 'username' or 'idnumber' picks the column written ("Email address", "Username",
"ID number"). The grade column keeps the name of the roster's own column when the roster is a
Moodle export with one for the assignment (`Assignment: Lab 3 (Real)`).

Both: one row per student on the roster, in the roster's order; the points are those after the
late penalty; a `missing` student gets 0; a student the grades do not name is left blank (no
grade is changed) and listed in skipped; graded folders that are not on the roster cannot be
uploaded and are listed in skipped too. Numbers are written with at most 2 decimals; a cell
that a spreadsheet would take as a formula (a roster name beginning with =, +, -, @) gets a
leading apostrophe, and control characters are replaced (safetext.cell).

Interface:
    export_canvas(roster, points, *, assignment, max_points) -> Export
    export_moodle(roster, points, *, assignment, identifier="email") -> Export
    export(kind, roster, points, *, assignment, max_points, identifier="email") -> Export
    Export.text (the CSV, \\r\\n line ends as both platforms write them), Export.skipped
    (List[str]), Export.write(path) (atomic)
points: Dict[str, Optional[float]] from login (any letter case; a student's aliases count) to
the points after the penalty; None for a missing student (written as 0). Standard library only;
Python 3.8+.
"""
import csv
import io
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ..base import fsutil
from ..base.safetext import cell
from .roster import Roster, Student

CANVAS_ID_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS_ROW = "    Points Possible"
MOODLE_IDENTIFIERS = {"email": "Email address", "username": "Username", "idnumber": "ID number"}


class ExportError(ValueError):
    pass


@dataclass
class Export:
    text: str
    skipped: List[str] = field(default_factory=list)

    def write(self, path) -> None:
        fsutil.atomic_write(os.fspath(path), self.text)


def _num(x: float) -> str:
    s = "%.2f" % x
    return s.rstrip("0").rstrip(".") if "." in s else s


def _lookup(points: Dict[str, Optional[float]]):
    """(grade, POINTS by lower-case name): grade(student, skipped) is the student's cell, the
    points (0 for None), or "" - left blank, and said in SKIPPED - when POINTS has none."""
    low = {k.lower(): v for k, v in points.items()}

    def grade(s: Student, skipped: List[str]) -> str:
        for x in s.logins():
            if x.lower() in low:
                p = low[x.lower()]
                return _num(p if p is not None else 0.0)
        skipped.append("%s: no grade, left blank" % (s.login or s.name))
        return ""
    return grade, low


def _leftovers(roster: Roster, low) -> List[str]:
    known = {x.lower() for s in roster.students for x in s.logins()}
    return ["%s: not on the roster, not exported" % k for k in sorted(low) if k not in known]


def _assignment_column(roster: Roster, assignment: str) -> Optional[str]:
    want = " ".join(assignment.split()).lower()
    for h in roster.columns:
        base = h
        if roster.kind == "canvas":
            base = re.sub(r"\s*\(\d+\)\s*$", "", h)
        elif roster.kind == "moodle":
            base = re.sub(r"^[^:]+:\s*", "", re.sub(r"\s*\([^()]*\)\s*$", "", h))
        if " ".join(h.split()).lower() == want or " ".join(base.split()).lower() == want:
            return h
    return None


def _csv(rows: List[List[str]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerows([cell(c) for c in row] for row in rows)
    return out.getvalue()


def export_canvas(roster: Roster, points: Dict[str, Optional[float]], *, assignment: str,
                  max_points: float) -> Export:
    if not assignment.strip():
        raise ExportError("--assignment: give the assignment's name as Canvas shows it")
    column = (_assignment_column(roster, assignment) if roster.kind == "canvas" else None) \
        or assignment.strip()
    grade, low = _lookup(points)
    rows = [CANVAS_ID_COLUMNS + [column],
            [CANVAS_POINTS_ROW, "", "", "", "", _num(max_points)]]
    skipped = []
    for s in roster.students:
        if roster.kind == "canvas":
            ident = [s.row.get(c, "") for c in CANVAS_ID_COLUMNS]
        else:
            ident = [s.name, s.id, s.sis_id, s.login, s.section]
        rows.append(ident + [grade(s, skipped)])
    return Export(_csv(rows), skipped + _leftovers(roster, low))


def export_moodle(roster: Roster, points: Dict[str, Optional[float]], *, assignment: str,
                  identifier: str = "email") -> Export:
    if identifier not in MOODLE_IDENTIFIERS:
        raise ExportError("identifier: one of %s" % ", ".join(MOODLE_IDENTIFIERS))
    if not assignment.strip():
        raise ExportError("--assignment: give the grade item's name as Moodle shows it")
    column = (_assignment_column(roster, assignment) if roster.kind == "moodle" else None) \
        or assignment.strip()
    ident_col = MOODLE_IDENTIFIERS[identifier]
    grade, low = _lookup(points)
    rows = [["First name", "Last name", ident_col, column]]
    skipped = []
    for s in roster.students:
        if roster.kind == "moodle":
            first = s.row.get("First name", "").strip()
            last = (s.row.get("Last name") or s.row.get("Surname") or "").strip()
        else:
            if "," in s.name:                       # Canvas's "Last, First"
                last, _, first = (x.strip() for x in s.name.partition(","))
            else:
                first, _, last = s.name.strip().partition(" ")
        key = {"email": s.email, "username": s.login, "idnumber": s.sis_id or s.id}[identifier]
        if not key:
            who = s.login or s.name
            skipped.append("%s: no %s on the roster, not exported" % (who, ident_col))
            continue
        rows.append([first, last, key, grade(s, skipped)])
    return Export(_csv(rows), skipped + _leftovers(roster, low))


def export(kind: str, roster: Roster, points: Dict[str, Optional[float]], *, assignment: str,
           max_points: float, identifier: str = "email") -> Export:
    if kind == "canvas":
        return export_canvas(roster, points, assignment=assignment, max_points=max_points)
    if kind == "moodle":
        return export_moodle(roster, points, assignment=assignment, identifier=identifier)
    raise ExportError("--export: canvas or moodle, not '%s'" % kind)
