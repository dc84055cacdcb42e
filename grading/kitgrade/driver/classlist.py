"""The class of one grading: folders, clones and --repos, matched to the roster.

Part of the instructors' workflow. A folder of --submissions that is a git repository is read
at a commit, and a student on the roster without a submission is `missing` (the matching is
roster.py's). Roll(wf) reads and checks the options' files (RosterError or ValueError: one
line); Roll.scan gives (students sorted by name, skipped as (name, why)), and after it
Roll.platform_time gives each student's --submitted time.

Two folders of one name but a bare clone's `.git` (alice, alice.git) are one student's two
folders: with a roster the duplicate rule of roster.py grades one and names both; without one
each is graded under its own name.

--submitted: a row names a student by the column of the same kind only: a GitHub user name the
student's GitHub name on the roster (the `github` column, the classroom roster's link; the login
where the roster gives none), an e-mail address their e-mail, a login their login, a GitHub
Classroom identifier their login, id, SIS id or e-mail (as link_classroom reads it). A folder
not on the roster is named by its login and its folder name. A row that names two students, or a
student named by rows of different names that give different times, stops the grading with a
line (ValueError from scan): the file is the platform's, and only the instructor can tell.
The rows and their kinds: gitsub.submitted_rows.
"""
import os
from typing import Dict, List, Optional, Tuple

from ..base.safetext import one_line
from ..base.tell import say
from ..course import gitsub, history, late, roster
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


KIND_WORDS = {"github": "GitHub account", "identifier": "identifier", "email": "e-mail",
              "login": "login"}


def _row_words(keys):
    return ", ".join("%s %s" % (KIND_WORDS[k], one_line(v, 120)) for k, v in sorted(keys.items()))


class Roll:
    def __init__(self, wf, extension_column=None):
        self.wf = wf
        self.roster = None
        self.notes: List[str] = []          # said once, at the start
        self.submitted: List[Tuple[int, Dict[str, str], object]] = []
        self.times: Dict[str, object] = {}  # student id -> the platform's time (after scan)
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
            self.submitted = gitsub.submitted_rows(wf.submitted, default_tz=wf.submitted_tz)

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
        self.times = self._platform_times(students)
        return students, skipped

    def _match(self, students, taken):
        # Keyed by the results folder's name (unique): alice and alice.git are two folders
        # of one name, which the duplicate rule settles.
        by_id = {st.id: st for st in students}
        entries = roster.match_submissions(self.roster, by_id, prefix=self.wf.prefix or None,
                                           names={k: match_name(st) for k, st in by_id.items()})
        kept, skipped = [], []
        for e in entries:
            st = by_id.get(e.folder) if e.folder is not None else None
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
        """The students --only names: a results folder or a folder exactly, else a login
        exactly, else either in another letter case; several students of one name refused."""
        available = []
        for st in students:
            keys = [st.name, st.login, match_name(st)]
            if st.person is not None:
                keys += st.person.logins()
            available += [(k, st.id) for k in keys if k]
        try:
            ids, unknown = history.select_only(available, only)
        except history.HistoryError as e:
            raise ValueError(str(e)) from None
        if unknown:
            raise ValueError("--only: nobody in this class is named %s"
                             % ", ".join(one_line(x, 120) for x in unknown))
        return [st for st in students if st.id in ids]

    # ------------------------------------------------------------------ one student
    @staticmethod
    def claims(st):
        """(kind, name in lower case) of each name a row of --submitted may give the student
        by (gitsub.submitted_rows's kinds)."""
        p, out = st.person, []
        if p is not None:
            out += [("login", p.login), ("email", p.email)]
            out += [("github", g) for g in (p.github or (p.login,))]
            out += [("identifier", x) for x in (p.login, p.id, p.sis_id, p.email)]
        else:
            for x in (st.login, match_name(st)):
                out += [("login", x), ("github", x), ("identifier", x)]
        return {(k, x.strip().lower()) for k, x in out if x and x.strip()}

    def _platform_times(self, students):
        """student id -> the time --submitted gives them (ValueError: a row that names two
        students, or rows of different names that disagree on one)."""
        if not self.submitted:
            return {}
        who, claimed = {}, {}
        for st in students:
            who[st.id] = st
            for c in self.claims(st):
                claimed.setdefault(c, []).append(st.id)
        rows: Dict[str, dict] = {}     # student id -> {the row's names: (line, time)}
        src = self.wf.submitted
        for n, keys, t in self.submitted:
            hits = sorted({sid for k, v in keys.items() for sid in claimed.get((k, v), ())},
                          key=lambda i: (who[i].login or who[i].name, i))
            if len(hits) > 1:
                raise ValueError("%s:%d: %s names two students, %s and %s: correct the row or "
                                 "the roster" % (src, n, _row_words(keys), _who(who[hits[0]]),
                                                 _who(who[hits[1]])))
            if hits:
                mine = rows.setdefault(hits[0], {})
                same = tuple(sorted(keys.items()))      # one name listed again: the latest
                if same not in mine or t > mine[same][1]:
                    mine[same] = (n, t)
        out = {}
        for sid, mine in rows.items():
            by_time: Dict[object, list] = {}
            for keys, (n, t) in mine.items():
                by_time.setdefault(t, []).append((n, dict(keys), t))
            times = sorted(by_time)
            for i, t1 in enumerate(times):
                for t2 in times[i + 1:]:
                    for a in by_time[t1]:
                        b = next((b for b in by_time[t2] if not _same_name(a[1], b[1])), None)
                        if b is not None:
                            a, b = sorted((a, b))
                            raise ValueError(
                                "%s: %s is named by rows that disagree: line %d (%s) at %s, "
                                "line %d (%s) at %s: remove the row that is not theirs"
                                % (src, _who(who[sid]), a[0], _row_words(a[1]),
                                   late.format_time(a[2]), b[0], _row_words(b[1]),
                                   late.format_time(b[2])))
            out[sid] = times[-1]
        return out

    def platform_time(self, st):
        return self.times.get(st.id)

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
        out: the export leaves that grade blank. A record matched now by the duplicate or the
        ambiguity rule of the roster is left out too, with a line."""
        by_id, match, points = {}, {}, {}
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
            key = r.get("id") or r["student"]
            by_id[key], match[key] = r, name
        for e in roster.match_submissions(self.roster, by_id, prefix=self.wf.prefix or None,
                                          names=match):
            shown = one_line(by_id[e.folder]["student"], 120) if e.folder is not None else ""
            if e.status == "matched" and e.login in points:
                say("not exported: %s: a second record of %s" % (shown, one_line(e.login, 120)))
            elif e.status in ("matched", "not-on-roster"):
                points[e.login] = by_id[e.folder]["points"]["total"]
            elif e.folder is not None:
                say("not exported: %s: %s: %s" % (shown, e.status, e.reason))
        return points


def _same_name(a, b):
    """Do two rows of --submitted give the same name (the same account listed again): the same
    name in every column both fill, and at least one such column?"""
    both = set(a) & set(b)
    return bool(both) and all(a[k] == b[k] for k in both)


def _who(st):
    """A student, for a message: the login, else the folder's name."""
    return "'%s'" % one_line(st.login or st.name, 120)
