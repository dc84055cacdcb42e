"""The class list (--roster FILE) and which submission belongs to whom.

A roster is read as the learning platform exports it, recognised by its header:
- Canvas, the gradebook export (Grades > Export): `Student, ID, SIS User ID, SIS Login ID,
  Section`, then one column per assignment and Canvas's totals; the second row,
  `Points Possible`, is skipped, and so is Canvas's own test student ("Student, Test").
  The login is `SIS Login ID`; id `ID`; sis_id `SIS User ID`.
- Moodle, the grade export (Grades > Export > Plain text file) with its default user fields
  `First name, Last name (or Surname), ID number, Institution, Department, Email address`, or
  the participants download (it has `Username` and `Groups` where the site shows them). The
  login is `Username` where there is one, else the part of `Email address` before the @; id
  and sis_id `ID number`; section `Groups`.
- GitHub Classroom, its roster download `identifier, github_username, github_id, name`: the
  login is the GitHub user name and id the roster identifier.
- Anything else is a plain CSV with a header naming at least `login`; `name`, `id`, `email`,
  `section` are read where present (any letter case), and every other column is kept in
  Student.extra (an `extension` column for the late policy, a `github` column: the student's
  GitHub user name, matched as well as the login).
The separator (comma, semicolon or tab) is taken from the header line; a UTF-8 byte-order mark is
skipped. login_column= picks another column as the login (e.g. "SIS User ID").

Submissions map to students by login, without regard to letter case: a folder named LOGIN, or
PREFIX-LOGIN (GitHub Classroom names repositories ASSIGNMENT-LOGIN). Without prefix= the prefix
is inferred: where a folder could be two students (`lab03-jo-smith`: `jo-smith`, or `smith` with
prefix `lab03-jo`), the reading whose prefix the other folders share wins.

GitHub Classroom keeps its own roster, whose identifiers are what the course imported (an
e-mail address, a student number, a login) and which links each to a GitHub account:
link_classroom() adds each linked GitHub user name to the student whose login, id, SIS id or
e-mail address equals the identifier, so that ASSIGNMENT-GITHUBNAME folders find the student
of a Canvas or Moodle roster. A GitHub name linked to one student that is another student's
login (or another student's GitHub name) is a clash: a folder named after it fits both, and is
matched to nobody (`ambiguous`), never given to either.

Interface:
    read_roster(path, *, login_column=None) -> Roster           (RosterError: a plain reason)
    parse_roster(text, *, login_column=None, source="roster") -> Roster
    link_classroom(roster, classroom) -> List[str]   (classroom: a Roster of kind 'classroom';
        returns a sentence for each entry it could not link; the roster is changed in place)
    match_submissions(roster, folders, *, prefix=None, names=None) -> List[Entry]
        names: folder -> the name it is matched by (default: its own; a bare clone's without
        `.git`): two folders of one name are one student's two folders
Student.github: the student's GitHub user names as the roster (a `github` column) or the
classroom roster (link_classroom, clashes included) gives them; Roster.clashes: the GitHub
names link_classroom found to be two students' (lower case -> why).
Entry.status:
    'matched'        a folder of a student on the roster
    'missing'        a student on the roster without a folder: not graded, 0 points
    'not-on-roster'  a folder nobody on the roster owns: graded all the same, and listed
    'duplicate'      a second folder of a student already matched (not graded; the reason
                     names the folder that is); the folder named after the student's GitHub
                     name (Student.github) wins, then the one named exactly LOGIN (the letter
                     case too), else the first in sorted order
    'ambiguous'      a folder that fits two students equally well (not graded; the reason
                     names both; give prefix= to settle it), or one named after a clash
Entries come sorted by login, then folder. Standard library only; Python 3.8+.
"""
import csv
import io
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

from ..base.safetext import one_line

MAX_ROSTER_BYTES = 16 << 20


def _show(x) -> str:
    """A name a roster or a student wrote, for a message: one line, no control character."""
    return one_line(x, 120)


class RosterError(ValueError):
    pass


@dataclass
class Student:
    login: str                      # what submissions are matched by ("" when unknown)
    name: str = ""
    id: str = ""                    # the platform's own user id (Canvas ID, plain `id`)
    email: str = ""
    section: str = ""
    sis_id: str = ""                # Canvas SIS User ID, Moodle ID number
    aliases: Tuple[str, ...] = ()   # more logins matched (a GitHub user name)
    extra: Dict[str, str] = field(default_factory=dict)   # the other columns, as read
    row: Dict[str, str] = field(default_factory=dict)     # the whole row, as read
    github: Tuple[str, ...] = ()    # GitHub user names the roster or the classroom roster give

    def logins(self) -> List[str]:
        return [x for x in (self.login,) + tuple(self.aliases) if x]


@dataclass
class Roster:
    kind: str                       # 'canvas', 'moodle', 'classroom' or 'plain'
    columns: List[str]
    students: List[Student]
    source: str = "roster"
    skipped: List[str] = field(default_factory=list)   # rows left out or read otherwise, why
    clashes: Dict[str, str] = field(default_factory=dict)  # GitHub name (lower) -> why refused

    def find(self, login: str) -> Optional[Student]:
        key = login.strip().lower()
        for s in self.students:
            if key in (x.lower() for x in s.logins()):
                return s
        return None


@dataclass
class Entry:
    login: str
    folder: Optional[str]
    student: Optional[Student]
    status: str
    reason: str = ""


def read_roster(path, *, login_column: Optional[str] = None) -> Roster:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_ROSTER_BYTES + 1)
    except OSError as e:
        raise RosterError("cannot read the roster %s: %s" % (path, e.strerror)) from None
    if len(data) > MAX_ROSTER_BYTES:
        raise RosterError("the roster %s is larger than %d MB" % (path, MAX_ROSTER_BYTES >> 20))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Spreadsheet programs on some systems still save Windows-1252.
        text = data.decode("cp1252", errors="replace")
    return parse_roster(text, login_column=login_column, source=os.fspath(path))


def _norm(h: str) -> str:
    return " ".join(h.strip().lower().split())


def delimiter(text: str) -> str:
    """The separator of a CSV export, from its first line: the most frequent of comma,
    semicolon and tab (a comma where they tie)."""
    first = text.split("\n", 1)[0]
    counts = {d: first.count(d) for d in (",", ";", "\t")}
    return max(counts, key=lambda d: (counts[d], d == ","))


def parse_roster(text: str, *, login_column: Optional[str] = None,
                 source: str = "roster") -> Roster:
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=delimiter(text)))
    while rows and not any(c.strip() for c in rows[0]):
        rows.pop(0)
    if not rows:
        raise RosterError("%s: empty" % source)
    header = [h.strip() for h in rows[0]]
    idx: Dict[str, int] = {}
    for i, h in enumerate(header):
        idx.setdefault(_norm(h), i)
    if len([h for h in header if h]) != len({_norm(h) for h in header if h}):
        dup = [h for h, n in Counter(_norm(h) for h in header if h).items() if n > 1]
        raise RosterError("%s: column %s appears twice" % (source, ", ".join(dup)))

    def has(*names):
        return all(_norm(n) in idx for n in names)

    if has("Student", "ID") and (has("SIS Login ID") or has("SIS User ID")):
        kind = "canvas"
    elif has("First name", "Email address") and (has("Last name") or has("Surname")):
        kind = "moodle"
    elif has("identifier", "github_username"):
        kind = "classroom"
    elif has("login") or login_column:
        kind = "plain"
    else:
        raise RosterError("%s: not a roster this grader knows: a Canvas gradebook export "
                          "(Student, ID, SIS User ID, SIS Login ID, Section), a Moodle grade "
                          "export (First name, Last name, ID number, Email address), a GitHub "
                          "Classroom roster (identifier, github_username) or a CSV with a "
                          "'login' column" % source)
    if login_column is not None and _norm(login_column) not in idx:
        raise RosterError("%s: no column '%s' (columns: %s)"
                          % (source, login_column, ", ".join(h for h in header if h)))

    roster = Roster(kind=kind, columns=header, students=[], source=source)
    used = set()

    def get(row, name):
        i = idx.get(_norm(name))
        used.add(i)
        return row[i].strip() if i is not None and i < len(row) else ""

    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        used.clear()
        s = Student(login="")
        if kind == "canvas":
            s.name = get(row, "Student")
            if s.name.strip().lower().endswith("points possible") or s.name == "":
                # The Points Possible row, and the older exports' "Muted" row.
                if not get(row, "ID"):
                    roster.skipped.append("line %d: %s" % (n, s.name.strip() or "no student"))
                    continue
            if s.name in ("Student, Test", "Test Student"):
                roster.skipped.append("line %d: Canvas's test student" % n)
                continue
            s.id, s.sis_id = get(row, "ID"), get(row, "SIS User ID")
            s.login, s.section = get(row, "SIS Login ID"), get(row, "Section")
        elif kind == "moodle":
            last = get(row, "Last name") if has("Last name") else get(row, "Surname")
            s.name = " ".join(x for x in (get(row, "First name"), last) if x)
            s.email, s.sis_id = get(row, "Email address"), get(row, "ID number")
            s.id = s.sis_id
            s.section = get(row, "Groups")
            s.login = get(row, "Username") if has("Username") else s.email.split("@", 1)[0]
        elif kind == "classroom":
            s.login, s.id = get(row, "github_username"), get(row, "identifier")
            s.name = get(row, "name")
            get(row, "github_id")
        else:
            s.login, s.name, s.id = get(row, "login"), get(row, "name"), get(row, "id")
            s.email, s.section = get(row, "email"), get(row, "section")
        if login_column is not None:
            s.login = get(row, login_column)
        if kind == "plain" and has("github") and get(row, "github"):
            s.aliases = s.github = (get(row, "github"),)
        s.row = {h: (row[i] if i < len(row) else "") for i, h in enumerate(header) if h}
        s.extra = {h: (row[i].strip() if i < len(row) else "")
                   for i, h in enumerate(header) if h and i not in used}
        roster.students.append(s)

    if kind == "moodle" and not has("Username") and login_column is None:
        # a login made from the e-mail's local part, which students can often edit: where two
        # share one (alice@uni.example, alice@elsewhere.example), each keeps its whole address,
        # not one row stopping the class's grading
        local = Counter(s.login.lower() for s in roster.students)
        for s in roster.students:
            if local[s.login.lower()] > 1 and s.email:
                roster.skipped.append("%s: login '%s' is two students' e-mail name: %s is "
                                      "matched by the whole address" % (
                                          _show(source), _show(s.login), _show(s.email)))
                s.login = s.email
    seen: Dict[str, int] = {}
    for s in roster.students:
        for x in s.logins():
            if x.lower() in seen:
                raise RosterError("%s: login '%s' belongs to two students (pick another "
                                  "column as the login)" % (_show(source), _show(x)))
            seen[x.lower()] = 1
        if "/" in s.login or s.login in (".", ".."):
            raise RosterError("%s: login '%s' cannot name a folder"
                              % (_show(source), _show(s.login)))
    return roster


def link_classroom(roster: Roster, classroom: Roster) -> List[str]:
    if classroom.kind != "classroom":
        raise RosterError("%s is not GitHub Classroom's roster (identifier, github_username)"
                          % _show(classroom.source))
    notes = []
    owner = {x.lower(): s for s in roster.students for x in s.logins()}
    for c in classroom.students:
        ident, gh = c.id.strip().lower(), c.login.strip()
        if not gh:
            continue                        # nobody has claimed this entry yet
        owners = [s for s in roster.students
                  if ident and ident in (x.strip().lower() for x in
                                         (s.login, s.id, s.sis_id, s.email) if x)]
        if len(owners) != 1:
            notes.append("GitHub account %s (identifier %s): %s on the roster"
                         % (_show(gh), _show(c.id or "none"),
                            "nobody" if not owners else "two students"))
            continue
        s, low = owners[0], gh.lower()
        if low not in (x.lower() for x in s.github):
            s.github = tuple(s.github) + (gh,)
        other = owner.get(low)
        if other is s:
            continue
        if other is not None or low in roster.clashes:
            # The GitHub name is another student's login (or GitHub name): a folder named
            # after it could be either's. Neither gets it.
            whose = "another student's GitHub name too" if other is None else \
                "%s's %s on the roster" % (_show(other.login or other.name),
                                           "login" if other.login.lower() == low
                                           else "GitHub name")
            why = ("GitHub account %s is %s's by the classroom roster (identifier %s) and %s"
                   % (_show(gh), _show(s.login or s.name), _show(c.id), whose))
            roster.clashes[low] = why
            notes.append("%s: a folder named after it is matched to nobody" % why)
            continue
        s.aliases = tuple(s.aliases) + (gh,)
        owner[low] = s
    return notes


def match_submissions(roster: Roster, folders: Iterable[str], *,
                      prefix: Optional[str] = None,
                      names: Optional[Mapping[str, str]] = None) -> List[Entry]:
    folders = sorted(set(folders))
    name = {f: (names.get(f, f) if names is not None else f) for f in folders}
    by_login: Dict[str, Tuple[str, Student]] = {}
    for s in roster.students:
        for x in s.logins():
            by_login[x.lower()] = (x, s)

    order = {key: i for i, key in enumerate(by_login)}
    # Every reading of each folder: (implied prefix, student, the login it is read as).
    readings: Dict[str, List[Tuple[str, Student, str]]] = {}
    for f in folders:
        n = name[f]
        low = n.lower()
        # the logins the name is, or ends in after a "-" (looked up, not compared with
        # every login: a roster of 200,000 rows took 75 ms a folder), in the roster's order
        keys = {low} | {low[i + 1:] for i in range(1, len(low) - 1) if low[i] == "-"}
        cands = []
        for key in sorted((k for k in keys if k in by_login), key=order.__getitem__):
            s = by_login[key][1]
            cands.append(("", s, key) if key == low else (n[:len(n) - len(key) - 1], s, key))
        if prefix is not None:
            p = prefix.rstrip("-").lower()
            cands = [c for c in cands if c[0].lower() in ("", p)]
        readings[f] = cands
    # How many folders of one reading only share each prefix.
    share = Counter(cs[0][0].lower() for cs in readings.values() if len(cs) == 1)

    entries: List[Entry] = []
    tied: List[str] = []
    if prefix is None:
        # No prefix given: the class's is the prefix of a reading that most folders' names
        # begin with (then the one most folders of one reading have), and a folder is read
        # only with it or with none: "lab01-a-alice", a stranger's account a-alice, is not
        # alice's where the class's folders are lab01-NAME (every lab01-a-... folder begins
        # with lab01- too). Where two tie, RosterError: the instructor gives the prefix.
        begins: Counter = Counter()
        for f in folders:
            low = name[f].lower()
            begins.update({low[:i] for i in range(1, len(low)) if low[i] == "-"})
        rank = {c[0].lower(): (begins[c[0].lower()], share[c[0].lower()])
                for cs in readings.values() for c in cs if c[0]}
        best = max(rank.values(), default=None)
        tied = sorted(p for p, r in rank.items() if r == best)
        # a class of folders named LOGIN alone: more of them than folders of any prefix, and a
        # stray zz-alice is read as nobody's
        bare = sum(1 for f in folders if "-" not in name[f] or
                   any(c[0] == "" for c in readings[f]))
        if best is not None and bare > best[0]:
            tied = [""]
        if len(tied) > 1 and not best[1]:
            tied = []               # no folder of one reading says: each folder as it reads
        if len(tied) > 1:
            # a grading of zeros for everyone would be worse than none: the instructor says
            raise RosterError("the folders share no one prefix (%s, as many folders each): give "
                              "the prefix (--prefix)" % " or ".join(_show(p) for p in tied))
        for f in folders:
            if tied:
                readings[f] = [c for c in readings[f] if c[0].lower() in ("", tied[0])]
    owner: Dict[int, List[Tuple[Tuple[bool, bool, bool], str]]] = {}
    for f in folders:
        cands = readings[f]
        if not cands:
            continue
        ranked = sorted(cands, key=lambda c: (-share[c[0].lower()], -len(c[1].login)))
        if len(ranked) > 1 and share[ranked[0][0].lower()] == share[ranked[1][0].lower()] \
                and ranked[0][1] is not ranked[1][1]:
            entries.append(Entry(login=name[f], folder=f, student=None, status="ambiguous",
                                 reason="folder '%s' fits both %s and %s: give the prefix"
                                 % (_show(f), _show(ranked[0][1].login),
                                    _show(ranked[1][1].login))))
            readings[f] = []
            continue
        pre, s, key = ranked[0]
        if key in roster.clashes:
            entries.append(Entry(login=name[f], folder=f, student=None, status="ambiguous",
                                 reason="folder '%s' is matched to nobody: %s"
                                 % (_show(f), roster.clashes[key])))
            readings[f] = []
            continue
        # The duplicate rule's rank: by the student's GitHub name, named exactly LOGIN,
        # the letter case as the roster has it.
        spelt = by_login[key][0]
        n = name[f]
        rank = (key not in (g.lower() for g in s.github), pre != "",
                not (n == spelt or n.endswith("-" + spelt)))
        owner.setdefault(id(s), []).append((rank, f))
        readings[f] = [ranked[0]]

    common = prefix.rstrip("-").lower() if prefix is not None else \
        tied[0] if len(tied) == 1 else ""
    refused = {e.folder for e in entries}
    for f in folders:
        if readings[f] or f in refused:
            continue
        login = n = name[f]
        if common and n.lower().startswith(common + "-") and len(n) > len(common) + 1:
            login = n[len(common) + 1:]
        entries.append(Entry(login=login, folder=f, student=None, status="not-on-roster",
                             reason="folder '%s' matches nobody on the roster; graded"
                             % _show(f)))

    for s in roster.students:
        mine = owner.get(id(s), [])
        if not mine:
            entries.append(Entry(login=s.login, folder=None, student=s, status="missing",
                                 reason="no submission: 0 points"))
            continue
        mine.sort()
        entries.append(Entry(login=s.login, folder=mine[0][1], student=s, status="matched"))
        for _, f in mine[1:]:
            entries.append(Entry(login=s.login, folder=f, student=s, status="duplicate",
                                 reason="a second folder of %s; '%s' is graded"
                                 % (_show(s.login), _show(mine[0][1]))))
    entries.sort(key=lambda e: (e.login.lower(), e.folder or ""))
    return entries
