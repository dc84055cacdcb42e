"""The student folders: safe unique ids, links refused, every entry graded or listed.

The students of a submissions folder: one folder each, every entry graded or listed with why
not, and two names never sharing one results folder.

A folder name is data the grader does not control (accents, spaces, quotes, `$(...)`). Each
student gets an id that is safe as a path and in Markdown links: the name itself when it is
made of letters, digits and `._@+-` only, else that safe form with a short hash of the raw
name added (Zoë and Zoé both become `Zo_` plus their own hash). A linked folder is refused
with a reason (it is listed in the gradebook with no points); names starting with a dot and
plain files are listed as not graded.
"""
import hashlib
import os
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]")


@dataclass
class Student:
    name: str              # the folder's name as text (undecodable bytes shown as U+FFFD)
    id: str                # the results folder's name under OUT/students
    path: Optional[str]    # the submission folder (None when refused)
    refused: str = ""      # why the folder is not graded at all (a link)
    # the instructors' workflow (classlist.py): who the student is and where the work is
    login: str = ""        # the login on the roster (--roster; a folder's own name without)
    roster: str = ""       # matched | not-on-roster | missing (with --roster)
    person: object = None  # roster.Student of that login
    repo: Optional[str] = None   # a git repository: one commit's files are graded
    url: str = ""          # a repository to clone first (--repos)


def display(raw):
    """A file name as text: undecodable bytes become U+FFFD."""
    return raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


# the grader's boxes of the reference's build and runs (and REF_BOX-KEY): a student's box is
# named by the student's id, which never begins with "_", so no folder ("reference") takes one
REF_BOX = "_reference"


def safe_id(raw, hash_len=8):
    """The results-folder name of a student folder named RAW."""
    safe = _UNSAFE.sub("_", display(raw))[:64]
    if not safe or safe[0] in "._-":
        safe = "x" + safe
    if safe != raw:
        h = hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()
        safe = "%s-%s" % (safe, h[:hash_len])
    return safe


def scan(subs) -> Tuple[List[Student], List[Tuple[str, str]]]:
    """The students of folder SUBS, sorted by name, and the entries not graded (name, why)."""
    students, skipped = [], []
    with os.scandir(subs) as it:
        entries = sorted(it, key=lambda e: e.name.encode("utf-8", "surrogateescape"))
    taken = {}
    for e in entries:
        name = display(e.name)
        if e.name.startswith("."):
            skipped.append((name, "a hidden folder or file (its name starts with a dot); "
                                  "rename it to have it graded"))
            continue
        if e.is_symlink():
            st = Student(name, "", None, "the student's folder is a symbolic link, which the "
                                         "grader does not follow: hand in a real folder")
        elif e.is_dir(follow_symlinks=False):
            st = Student(name, "", os.path.join(subs, e.name))
        else:
            skipped.append((name, "not a folder (each student hands in a folder)"))
            continue
        sid = unique_id(e.name, taken)
        if sid is None:
            skipped.append((name, "its results folder would be the same as %s's"
                            % taken[safe_id(e.name)]))
            continue
        taken[sid] = name
        st.id = sid
        students.append(st)
    return students, skipped


def unique_id(raw, taken):
    """The id of RAW that no key of TAKEN has (longer hashes while it does), or None."""
    n = 8
    sid = safe_id(raw, n)
    while sid in taken and n < 64:
        n += 8
        sid = safe_id(raw, n)
    return None if sid in taken else sid
