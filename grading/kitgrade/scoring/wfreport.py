"""The workflow's lines in the outputs: a report's top, grades.csv's columns, the summary's.

What the instructors' workflow adds to the outputs, made from results.json like the rest:
the top of a student's report (the roster, the commit graded and its dates, the late penalty,
earlier gradings), grades.csv's columns after the twelve of the contract, and the summary's
lines on the roster, lateness, doubtful dates and similarity. A record without any of it
(no roster, no git, no deadline) changes nothing."""
import os

from ..base.safetext import md
from ..course import history

COLUMNS = ["login", "roster", "commit", "commit_time", "submitted_at", "late",
           "points_before_late", "late_penalty_pct", "flags"]
_KEYS = ("login", "roster", "git", "late")


def _git(rec):
    g = rec.get("git")
    return g if isinstance(g, dict) else None


def _late(rec):
    x = rec.get("late")
    return x if isinstance(x, dict) else None


def flag_kinds(flags):
    """`out-of-order: commit ...` -> out-of-order, each kind once, in order."""
    out = []
    for f in flags or []:
        k = f.split(":", 1)[0].strip()
        if k and k not in out:
            out.append(k)
    return out


# --------------------------------------------------------------------------- report.md
def top(sd, rec):
    """Lines for the top of report.md (after the status), or []."""
    L = []
    if rec.get("roster"):
        what = {"matched": "on the roster", "not-on-roster": "**not on the roster**",
                "missing": "on the roster, **no submission**"}.get(rec["roster"], rec["roster"])
        L.append("Student: %s, %s.\n" % (md(rec.get("login") or rec["student"]), what))
    g = _git(rec)
    if g:
        if g.get("commit"):
            how = "the tip of %s" % md(g.get("ref") or "HEAD")
            if g.get("until"):
                how = "the last commit of %s dated at or before %s" % (md(g.get("ref") or "HEAD"),
                                                                     g["until"])
                if g.get("newer_commits"):
                    how += " (%d newer not graded)" % g["newer_commits"]
            L.append("Commit graded: `%s`, dated %s: %s. Read from the repository without "
                     "checking anything out; its hooks and configuration are not obeyed.\n"
                     % (g["commit"], g.get("commit_time") or "?", how))
            src = "the learning platform" if g.get("submitted_from") == "platform" else \
                "the commit's date"
            if g.get("submitted_at"):
                L.append("Handed in: %s (from %s).\n" % (g["submitted_at"], src))
            if g.get("files"):
                L.append("Taken: %s.\n" % ", ".join(
                    "%s as %s" % (md(p), md(n)) for n, p in sorted(g["files"].items())))
        else:
            L.append("No commit graded: %s\n" % md(g.get("reason") or g.get("status")))
        if g.get("skipped"):
            L.append("Not taken from the repository:\n")
            L += ["- %s" % md(s) for s in g["skipped"]] + [""]
        if g.get("flags"):
            L.append("Dates to look at (a commit's date is set by the student's machine):\n")
            L += ["- %s" % md(f) for f in g["flags"]] + [""]
    lt = _late(rec)
    if lt:
        st, why = lt.get("status"), md(lt.get("reason") or lt.get("status"))
        if st == "on-time":
            L.append("On time: handed in %s, deadline %s.\n" % (lt.get("submitted"),
                                                                lt.get("deadline")))
        elif st in ("no-time", "grace") or not lt.get("penalty_pct"):
            L.append("Lateness: %s (deadline %s).\n" % (why, lt.get("deadline")))
        else:
            L.append("Late: %s. Deadline %s, handed in %s. **%s points before the late "
                     "penalty, %s after.**\n" % (why, lt.get("deadline"), lt.get("submitted"),
                                                  _n(lt.get("points_before")),
                                                  _n(lt.get("points_after"))))
    if os.path.basename(os.path.dirname(sd)) == "students":
        entries = history.load(os.path.dirname(os.path.dirname(sd)), rec["id"])
        if entries:
            L.append("## Earlier gradings\n")
            L.append("Each regrade keeps what the student had before it (the whole result in "
                     "the grader's history folder).\n")
            L.append(history.markdown(entries, show_seed=False))
    return L


def _n(x):
    return "-" if x is None else "%g" % round(x, 2)


# --------------------------------------------------------------------------- grades.csv
def grade_columns(recs, quote):
    """(",col,..." for the header, a function of a record -> ",cell,...") when any record has
    the workflow's data, else None (grades.csv as before)."""
    if not any(rec.get(k) for rec in recs for k in _KEYS):
        return None

    def cells(rec):
        g = _git(rec) or {}
        lt = _late(rec) or {}
        before = lt.get("points_before")
        row = [quote(rec.get("login") or ""), quote(rec.get("roster") or ""),
               g.get("commit") or "", g.get("commit_time") or "",
               g.get("submitted_at") or lt.get("submitted") or "",
               quote(lt.get("status") or ""), "" if before is None else "%.1f" % before,
               "" if not lt else "%g" % lt.get("penalty_pct", 0),
               quote(";".join(flag_kinds(g.get("flags"))))]
        return "," + ",".join(str(x) for x in row)
    return "," + ",".join(COLUMNS), cells


# --------------------------------------------------------------------------- summary.md
def summary_lines(out, recs):
    """The summary's lines on the roster, lateness, doubtful dates and similarity."""
    L = []
    rost = [r for r in recs if r.get("roster")]
    if rost:
        count = {k: sum(1 for r in rost if r["roster"] == k)
                 for k in ("matched", "missing", "not-on-roster")}
        L.append("Roster: %d students with a submission, %d missing (0 points), %d "
                 "submissions of nobody on the roster (graded)%s.\n" % (
                     count["matched"], count["missing"], count["not-on-roster"],
                     ": " + ", ".join(md(r["student"]) for r in rost
                                      if r["roster"] == "not-on-roster")
                     if count["not-on-roster"] else ""))
    lates = [_late(r) for r in recs if _late(r)]
    if lates:
        words = {"on-time": "on time", "grace": "within the grace period", "late": "late",
                 "too-late": "past the last day (0 points)", "no-time": "with no known time"}
        parts = ["%d %s" % (sum(1 for x in lates if x.get("status") == k), w)
                 for k, w in words.items() if any(x.get("status") == k for x in lates)]
        L.append("Lateness: %s.\n" % ", ".join(parts))
    flagged = [r for r in recs if (_git(r) or {}).get("flags")]
    if flagged:
        L.append("Commit dates to look at (each report says why): %s.\n" % ", ".join(
            "%s (%s)" % (md(r["student"]), ", ".join(flag_kinds(_git(r)["flags"])))
            for r in flagged))
    if os.path.isfile(os.path.join(out, "similarity.md")):
        L.append("Similarity across the class: [similarity.md](similarity.md).\n")
    return L
