"""Tests of kitgrade.course.gitsub over a class: a whole class at its deadline (the roster, the
late policy, the export), and a student graded again from a later copy (what the earlier copies
saw holds: gitdates.after_copies, history.copies_seen). The repositories are built locally, as
in test_gitsub.py, whose helpers these tests use."""

import csv
import io
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kitgrade.course import gitsub  # noqa: E402
from kitgrade.course.export import export_canvas, export_moodle  # noqa: E402
from kitgrade.course.gitsub import take  # noqa: E402
from kitgrade.course.late import assess, parse_policy, parse_time, student_deadline  # noqa: E402
from kitgrade.course.roster import match_submissions, read_roster  # noqa: E402
from test_gitsub import CLONED, DEADLINE, FIX, LAB, Base, latest_times  # noqa: E402


class EarlierCopies(unittest.TestCase):
    """A student graded again from a later copy: commits the line has now beyond what an
    earlier copy saw were pushed after it, whatever their dates (gitdates.after_copies)."""

    def chain(self, *dates):
        # newest first, as first_parents gives the line
        t = [parse_time(d) for d in dates]
        return [gitsub.Commit(id="c%d" % i + "0" * 11, parents=[], time=x, author_time=x)
                for i, x in enumerate(t)]

    def test_pushed_after_the_copy_counts_from_it(self):
        chain = self.chain("2025-03-13T12:00:00Z", "2025-03-10T10:00:00Z")
        copy = parse_time("2025-03-15T00:10:00Z")
        dated = gitsub.effective_times(chain)
        # the earlier copy graded c1 with nothing newer: c0 came after it, though dated before
        times, flags = gitsub.after_copies(chain, dated, [(chain[1].id, 0, copy)])
        self.assertEqual(times, [copy, dated[1]])
        self.assertEqual(len(flags), 1)
        self.assertIn("after-earlier-copy: commit c00000000000 was not on the line", flags[0])
        until = parse_time("2025-03-14T23:59:00Z")
        self.assertIs(gitsub.pick_commit(chain, until, times), chain[1])
        self.assertIs(gitsub.pick_commit(chain, until), chain[0])     # by its date alone
        # c0 was there already (one commit newer than the one graded): nothing moves
        self.assertEqual(gitsub.after_copies(chain, dated, [(chain[1].id, 1, copy)]),
                         (dated, []))
        # the commit graded then is gone: the line was rewritten, every commit from the copy
        times, flags = gitsub.after_copies(chain, dated, [("f" * 40, 0, copy)])
        self.assertEqual(times, [copy, copy])
        self.assertIn("rewritten: commit ffffffffffff", flags[0])
        # a copy whose newest commit then (one dated after the deadline, say) is gone now,
        # replaced by a backdated one: the new one counts from the copy too
        times, flags = gitsub.after_copies(chain, dated, [(chain[1].id, 1, copy, "e" * 40)])
        self.assertEqual(times, [copy, dated[1]])
        self.assertIn("after-earlier-copy", flags[0])
        # that copy's newest commit still there: nothing moves
        self.assertEqual(gitsub.after_copies(chain, dated, [(chain[1].id, 1, copy,
                                                             chain[0].id)]), (dated, []))

    def test_copies_seen_reads_the_archived_results(self):
        from kitgrade.course import history
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(history.copies_seen(out, "alice"), [])
            h = Path(out) / "history" / "alice"
            h.mkdir(parents=True)
            (h / "1-results.json").write_text(
                '{"git": {"commit": "abc", "newer_commits": 2, '
                '"clone_time": "2025-03-15T00:10:00+00:00"}}')
            (h / "2-results.json").write_text("not json")
            (h / "3-results.json").write_text('{"git": {"commit": "abc"}}')   # no copy time
            self.assertEqual(history.copies_seen(out, "alice"),
                             [("abc", 2, parse_time("2025-03-15T00:10:00Z"), None)])


class ClassAtTheDeadline(Base):
    """A whole class: roster, clones, deadline, extension, late policy, both exports."""

    def test_class(self):
        c = self.root / "clones"
        c.mkdir()
        r = self.r

        def repo(name, commits):
            p = r.new("clones/" + name)
            return [r.commit(p, {LAB + "/conv.cu": "points=%s\n" % pts}, date)
                    for date, pts in commits]

        jdoe = repo("lab03-janedoe-gh", [("2025-03-13T10:00:00+01:00", 20),
                                         ("2025-03-14T20:00:00+01:00", 25),
                                         ("2025-03-15T09:00:00+01:00", 30)])   # a late fix
        smith = repo("lab03-jo-smith", [("2025-03-16T12:00:00+01:00", 28)])     # extension 2d
        akim = repo("lab03-akim", [("2025-03-14T10:00:00+01:00", 10),
                                   ("2025-03-15T12:00:00+01:00", 26),
                                   ("2025-03-14T22:00:00+01:00", 30)])           # backdated
        repo("lab03-eve", [("2025-03-14T12:00:00+01:00", 15)])                   # not on roster

        roster = read_roster(FIX / "plain_roster.csv")
        found, _ = gitsub.find_repos(c)
        paths = dict(found)
        entries = match_submissions(roster, paths)
        self.assertEqual({(e.login, e.status) for e in entries}, {
            ("jdoe", "matched"), ("jo-smith", "matched"), ("akim", "matched"),
            ("pnovak", "missing"), ("eve", "not-on-roster")})

        policy = parse_policy("late penalty=10%/day grace=15m last=7d extension=extension")
        submitted = latest_times(FIX / "classroom_grades.csv")

        def grade(until_of, use_platform):
            points, seen = {}, {}
            for e in entries:
                if e.status == "missing":
                    points[e.login] = None
                    continue
                ext = e.student.extra.get(policy.extension_column, "") if e.student else ""
                until = until_of(ext)
                plat = None
                if use_platform and e.student:
                    plat = next((submitted[k.lower()] for k in e.student.logins()
                                 if k.lower() in submitted), None)
                d = self.dest()
                s = take(paths[e.folder], d, files=["conv.cu"], lab_dir=LAB, login=e.login,
                         until=until, submitted_at=plat, clone_time=CLONED, reader=self.reader)
                self.assertEqual(s.status, "ok", s.reason)
                earned = float((d / "conv.cu").read_text().split("=")[1])
                lt = assess(policy, deadline=DEADLINE, submitted=parse_time(s.submitted_at),
                            points=earned, max_points=30, extension=ext)
                points[e.login] = lt.points_after
                seen[e.login] = (s, lt)
            return points, seen

        # First pass, at the deadline: the last commit at or before each student's deadline.
        points, seen = grade(lambda ext: student_deadline(DEADLINE, ext), False)
        self.assertEqual(seen["jdoe"][0].commit, jdoe[1])
        self.assertEqual(seen["jo-smith"][0].commit, smith[0])        # within the extension
        self.assertEqual(seen["akim"][0].commit, akim[0])             # backdated one not taken
        self.assertEqual(points, {"jdoe": 25, "jo-smith": 28, "akim": 10, "eve": 15,
                                  "pnovak": None})

        # Late work accepted (last=7d): the newest commits, with their penalties, by commit
        # times; akim's backdated commit counts at the date of the commit before it.
        def late(ext):
            return student_deadline(DEADLINE, ext) + policy.last

        points, seen = grade(late, False)
        s, lt = seen["jdoe"]
        self.assertEqual((s.commit, lt.status, lt.periods, lt.points_before, lt.points_after),
                         (jdoe[2], "late", 1, 30, 27))
        s, lt = seen["jo-smith"]
        self.assertEqual((lt.status, lt.points_after), ("on-time", 28))
        s, lt = seen["akim"]
        self.assertEqual((s.commit, s.submitted_at), (akim[2], "2025-03-15T12:00:00+01:00"))
        self.assertTrue(any(f.startswith("out-of-order") for f in s.flags))
        self.assertTrue(any(f.startswith("backdated") for f in s.flags))
        self.assertEqual((lt.periods, lt.points_after), (1, 27))

        # With the platform's submission times (--submitted), they rule: jdoe submitted before
        # the deadline (the later commit is flagged for a person to look at), akim 1 d 10 h late.
        _, seen_p = grade(late, True)
        s, lt = seen_p["jdoe"]
        self.assertEqual((s.submitted_from, lt.status, lt.points_after), ("platform", "on-time",
                                                                          30))
        self.assertTrue(any(f.startswith("committed-after-submission") for f in s.flags))
        s, lt = seen_p["akim"]
        self.assertEqual((lt.periods, lt.points_after), (2, 24))
        self.assertEqual(seen_p["jo-smith"][0].submitted_from, "commit")

        canvas = list(csv.reader(io.StringIO(export_canvas(
            roster, points, assignment="Lab 3 (56789)", max_points=30).text)))
        self.assertEqual([row[3:] for row in canvas], [
            ["SIS Login ID", "Section", "Lab 3 (56789)"], ["", "", "30"],
            ["jdoe", "A", "27"], ["jo-smith", "A", "28"], ["akim", "B", "27"],
            ["pnovak", "B", "0"]])
        ex = export_moodle(roster, points, assignment="Lab 3")
        moodle = list(csv.reader(io.StringIO(ex.text)))
        self.assertEqual(moodle[1:], [["Jane", "Doe", "jdoe@uni.example", "27"],
                                      ["Jo", "Smith", "jo-smith@uni.example", "28"],
                                      ["Ana", "Kim", "akim@uni.example", "27"],
                                      ["Petr", "Novak", "pnovak@uni.example", "0"]])
        self.assertEqual(ex.skipped, ["eve: not on the roster, not exported"])
        self.assertNoTrap()


if __name__ == "__main__":
    unittest.main()
