"""The class of one grading: folders, clones and --repos, matched to the roster.

The class of one grading, for the instructors' workflow: the student folders of
--submissions (a folder that is a git repository is read at a commit), the repositories of
--repos, each matched to its student on the roster (--roster; roster.py), the students on the
roster without a submission (`missing`), and the students --only names.

Interface:
    Roll(wf, out)                       the files of the options read and checked (RosterError,
                                        ValueError: bad input, one line)
    Roll.scan(subs) -> (students, skipped)      names.Student each, sorted by name; skipped:
                                        (name, why) of what is not graded
    Roll.select(students, only) -> [names.Student]     (ValueError: a name nobody has)
    Roll.platform_time(st) -> datetime or None         (--submitted)
    Roll.extension(st) -> str           the student's extension (the roster's column)
    Roll.points_by_login(recs) -> {login: points or None}     for the export
"""
import os
from typing import Dict, List, Optional, Tuple

from ..course import gitsub, history, roster
from ..lab import names

EXTENSION_COLUMN = "extension"      # read when the late policy names no column


def is_repo(path):
    """Is the folder PATH a git repository (a clone with .git, or a bare one)?"""
    return os.path.lexists(os.path.join(path, ".git")) or (
        os.path.isfile(os.path.join(path, "HEAD")) and
        os.path.isdir(os.path.join(path, "objects")))


def match_name(st):
    """The name a submission is matched by: a bare clone's `.git` left out."""
    return st.name[:-4] if st.repo and st.name.endswith(".git") and len(st.name) > 4 \
        else st.name


class Roll:
    def __init__(self, wf, extension_column=None):
        self.wf = wf
        self.roster = None
        self.notes: List[str] = []          # said once, at the start
        self.submitted: Dict[str, object] = {}
        self.repo_list: List[Tuple[str, str]] = []
        self.extension_column = extension_column or EXTENSION_COLUMN
        if wf.roster:
            self.roster = roster.read_roster(wf.roster, login_column=wf.roster_login or None)
            self.notes += ["roster: %s" % x for x in self.roster.skipped]
            if wf.classroom_roster:
                cr = roster.read_roster(wf.classroom_roster)
                self.notes += ["classroom roster: %s" % x
                               for x in roster.link_classroom(self.roster, cr)]
        if wf.repos:
            self.repo_list = gitsub.read_repo_list(wf.repos)
        if wf.submitted:
            self.submitted = gitsub.read_submitted(wf.submitted, default_tz=wf.submitted_tz)

    # ------------------------------------------------------------------ the class
    def scan(self, subs):
        students, skipped = names.scan(subs) if subs else ([], [])
        for st in students:
            if st.path and not st.refused and is_repo(st.path):
                st.repo = st.path
        taken = {st.id: st.name for st in students}
        base = os.path.dirname(os.path.abspath(self.wf.repos)) if self.wf.repos else ""
        for name, loc in self.repo_list:
            if any(st.name == name for st in students):
                raise ValueError("%s: %s is in --submissions too" % (self.wf.repos, name))
            sid = names.unique_id(name, taken)
            taken[sid] = name
            st = names.Student(name, sid, None)
            if gitsub.is_url(loc):
                st.url = loc
            else:
                st.path = st.repo = os.path.join(base, os.path.expanduser(loc))
            students.append(st)
        for st in students:
            st.login = match_name(st)
        if self.roster is not None:
            students, more = self._match(students, taken)
            skipped += more
        students.sort(key=lambda s: (s.name.encode("utf-8", "surrogateescape"), s.id))
        return students, skipped

    def _match(self, students, taken):
        by_name = {match_name(st): st for st in students}
        entries = roster.match_submissions(self.roster, by_name,
                                           prefix=self.wf.prefix or None)
        kept, skipped = [], []
        for e in entries:
            st = by_name.get(e.folder) if e.folder is not None else None
            if e.status in ("matched", "not-on-roster"):
                st.login, st.roster, st.person = e.login, e.status, e.student
                kept.append(st)
            elif e.status == "missing":
                sid = names.unique_id(e.login or e.student.name, taken)
                taken[sid] = e.login
                kept.append(names.Student(e.login or e.student.name, sid, None,
                                          login=e.login, roster="missing", person=e.student))
            else:                               # duplicate, ambiguous: not graded
                skipped.append((st.name, "%s: %s" % (e.status, e.reason)))
        return kept, skipped

    def select(self, students, only):
        """The students --only names (logins, folder names or results folders)."""
        available = {}
        for st in students:
            available.setdefault(st.id, st.id)
            for key in (st.login, st.name, match_name(st)):
                if key:
                    available.setdefault(key, st.id)
            if st.person is not None:
                for key in st.person.logins():
                    available.setdefault(key, st.id)
        ids, unknown = history.select_only(available, only)
        if unknown:
            raise ValueError("--only: nobody in this class is named %s" % ", ".join(unknown))
        return [st for st in students if st.id in ids]

    # ------------------------------------------------------------------ one student
    def keys(self, st):
        """Every name a student may be known by on a platform (lower case)."""
        out = [st.login, st.name, match_name(st)]
        p = st.person
        if p is not None:
            out += list(p.logins()) + [p.email, p.id, p.sis_id]
        return [k.strip().lower() for k in out if k and k.strip()]

    def platform_time(self, st):
        for k in self.keys(st):
            if k in self.submitted:
                return self.submitted[k]
        return None

    def extension(self, st):
        p = st.person
        if p is None:
            return ""
        want = self.extension_column.strip().lower()
        for col, val in p.row.items():
            if col.strip().lower() == want:
                return val.strip()
        return ""

    def has_extension_column(self):
        want = self.extension_column.strip().lower()
        return self.roster is not None and any(c.strip().lower() == want
                                               for c in self.roster.columns)

    # ------------------------------------------------------------------ the export
    def points_by_login(self, recs) -> Dict[str, Optional[float]]:
        """login -> points after the penalty of every record of OUT, matched to the roster as
        at grading; None (0 in the export) for a student the grading found `missing`. A
        student with no record, or one not really graded yet (skipped: no GPU here), is left
        out: the export leaves that grade blank."""
        by_name, points = {}, {}
        known = {x.lower() for s in self.roster.students for x in s.logins()}
        for r in recs:
            if r.get("roster") == "missing":
                points[r.get("login") or r["student"]] = None
                continue
            if r.get("status") == "skipped":
                continue
            if (r.get("login") or "").lower() in known:     # matched at grading
                points[r["login"]] = r["points"]["total"]
                continue
            name = r["student"]
            if isinstance(r.get("git"), dict) and name.endswith(".git") and len(name) > 4:
                name = name[:-4]
            by_name[name] = r
        for e in roster.match_submissions(self.roster, by_name, prefix=self.wf.prefix or None):
            if e.status in ("matched", "not-on-roster"):
                points[e.login] = by_name[e.folder]["points"]["total"]
        return points
