"""classlist.py: the class of a grading from folders, clones and --repos, matched to the
roster: who is matched, missing, not on the roster, a duplicate or ambiguous; --only's names;
the platform's times and extensions by any of a student's names; the points to export."""
import os
import subprocess
import unittest

import util
from kitgrade.course import wfopts
from kitgrade.driver.classlist import Roll, is_repo
from kitgrade.course.late import parse_time

FIX = os.path.join(util.HERE, "fixtures", "instructors")


def wf(**kw):
    w = wfopts.WfOptions()
    for k, v in kw.items():
        setattr(w, k, v)
        w.given.append(k)
    return w


def git_init(path, bare=False):
    subprocess.run(["git", "init", "-q"] + (["--bare"] if bare else []) + [path], check=True,
                   env={"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": "/dev/null",
                        "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"})


class Scan(util.TempCase):
    def setUp(self):
        super().setUp()
        self.subs = os.path.join(self.tmp, "subs")
        for name in ("lab03-janedoe-gh", "lab03-akim", "lab03-eve", "akim"):
            os.makedirs(os.path.join(self.subs, name))
        git_init(os.path.join(self.subs, "lab03-eve"))
        git_init(os.path.join(self.subs, "lab03-akim"), bare=True)

    def test_without_a_roster_every_folder_is_graded_and_clones_are_read_at_a_commit(self):
        sts, skipped = Roll(wf()).scan(self.subs)
        self.assertEqual([s.name for s in sts], ["akim", "lab03-akim", "lab03-eve",
                                                 "lab03-janedoe-gh"])
        self.assertEqual(skipped, [])
        by = {s.name: s for s in sts}
        self.assertIsNone(by["akim"].repo)
        self.assertEqual(by["lab03-eve"].repo, by["lab03-eve"].path)
        self.assertTrue(is_repo(by["lab03-akim"].path))          # a bare clone
        self.assertEqual((by["lab03-eve"].login, by["lab03-eve"].roster), ("lab03-eve", ""))

    def test_with_a_roster(self):
        r = Roll(wf(roster=os.path.join(FIX, "plain_roster.csv")))
        sts, skipped = r.scan(self.subs)
        by = {s.name: s for s in sts}
        # jdoe through the roster's github column; akim has two folders: `akim` is graded
        self.assertEqual((by["lab03-janedoe-gh"].login, by["lab03-janedoe-gh"].roster),
                         ("jdoe", "matched"))
        self.assertEqual((by["akim"].login, by["akim"].roster), ("akim", "matched"))
        self.assertEqual((by["lab03-eve"].login, by["lab03-eve"].roster),
                         ("eve", "not-on-roster"))
        self.assertNotIn("lab03-akim", by)
        self.assertEqual(skipped, [("lab03-akim", "duplicate: a second folder of akim; "
                                                  "'akim' is graded")])
        for login in ("jo-smith", "pnovak"):
            st = by[login]
            self.assertEqual((st.path, st.roster, st.id), (None, "missing", login))
        self.assertEqual(r.extension(by["jo-smith"]), "2d")
        self.assertEqual(r.extension(by["akim"]), "")
        self.assertTrue(r.has_extension_column())

    def test_ambiguous_and_prefix(self):
        util.put(os.path.join(self.tmp, "r.csv"), "login\nsmith\njo-smith\neve\n")
        os.makedirs(os.path.join(self.subs, "lab03-jo-smith"))
        sts, skipped = Roll(wf(roster=os.path.join(self.tmp, "r.csv"))).scan(self.subs)
        by = {s.name: s for s in sts}
        self.assertEqual(by["lab03-jo-smith"].login, "jo-smith")    # the class's prefix wins
        os.makedirs(os.path.join(self.tmp, "two", "x-jo-smith"))
        sts, skipped = Roll(wf(roster=os.path.join(self.tmp, "r.csv"))).scan(
            os.path.join(self.tmp, "two"))
        self.assertTrue(skipped and skipped[0][1].startswith("ambiguous: "), skipped)
        sts, skipped = Roll(wf(roster=os.path.join(self.tmp, "r.csv"), prefix="x")).scan(
            os.path.join(self.tmp, "two"))
        self.assertEqual([(s.name, s.login) for s in sts if s.path], [("x-jo-smith", "jo-smith")])

    def test_repos_list(self):
        lst = self.write("lists/repos.txt", "# class\nhttps://git.example/org/lab03-jdoe.git\n"
                                            "jo ../clones/lab03-jo\n")
        sts, _ = Roll(wf(repos=lst)).scan("")
        by = {s.name: s for s in sts}
        self.assertEqual((by["lab03-jdoe"].url, by["lab03-jdoe"].path), (
            "https://git.example/org/lab03-jdoe.git", None))
        self.assertEqual(os.path.normpath(by["jo"].repo),
                         os.path.join(self.tmp, "clones", "lab03-jo"))
        # with --submissions too: a name in both is an error
        self.write("lists/repos.txt", "akim /x\n")
        with self.assertRaisesRegex(ValueError, "in --submissions too"):
            Roll(wf(repos=lst)).scan(self.subs)

    def test_bad_roster(self):
        bad = self.write("bad.csv", "name,mail\nx,y\n")
        with self.assertRaises(ValueError):
            Roll(wf(roster=bad))


class Select(util.TempCase):
    def test_only_by_login_alias_or_folder(self):
        subs = os.path.join(self.tmp, "subs")
        for name in ("lab03-janedoe-gh", "lab03-akim", "lab03-eve"):
            os.makedirs(os.path.join(subs, name))
        r = Roll(wf(roster=os.path.join(FIX, "plain_roster.csv")))
        sts, _ = r.scan(subs)
        pick = [s.id for s in r.select(sts, ["JDOE", "lab03-eve,akim"])]
        self.assertEqual(pick, ["lab03-akim", "lab03-eve", "lab03-janedoe-gh"])
        self.assertEqual([s.id for s in r.select(sts, ["janedoe-gh"])], ["lab03-janedoe-gh"])
        with self.assertRaisesRegex(ValueError, "nobody in this class is named zed"):
            r.select(sts, ["akim", "zed"])


class Times(util.TempCase):
    def test_platform_time_by_any_name(self):
        r = Roll(wf(roster=os.path.join(FIX, "plain_roster.csv"),
                    submitted=os.path.join(FIX, "classroom_grades.csv")))
        subs = os.path.join(self.tmp, "subs")
        os.makedirs(os.path.join(subs, "lab03-jdoe"))
        os.makedirs(os.path.join(subs, "lab03-akim"))
        sts, _ = r.scan(subs)
        by = {s.login: s for s in sts}
        # jdoe is janedoe-gh on GitHub, the name GitHub Classroom's file gives
        self.assertEqual(r.platform_time(by["jdoe"]), parse_time("2025-03-14T21:30:00Z"))
        self.assertEqual(r.platform_time(by["akim"]), parse_time("2025-03-16T09:00:00Z"))
        self.assertIsNone(r.platform_time(by["pnovak"]))


class Points(unittest.TestCase):
    def rec(self, student, total, **kw):
        r = {"student": student, "id": student, "status": "ok",
             "points": {"total": total, "max": 30}}
        r.update(kw)
        return r

    def test_points_by_login(self):
        r = Roll(wf(roster=os.path.join(FIX, "canvas_gradebook.csv")))
        got = r.points_by_login([
            self.rec("lab03-whatever", 27, login="jdoe", roster="matched"),   # graded as jdoe
            self.rec("lab03-akim.git", 24, git={"commit": "c"}),    # matched by its name now
            self.rec("pnovak", 0, login="pnovak", roster="missing", status="missing"),
            self.rec("lab03-jo-smith", 0, status="skipped"),        # not graded yet: blank
            self.rec("lab03-eve", 11, login="eve", roster="not-on-roster")])
        self.assertEqual(got, {"jdoe": 27, "akim": 24, "pnovak": None, "eve": 11})


class Collisions(util.TempCase):
    """Two folders, or two rows, that could be one student: refused or settled by the
    duplicate rule, and said; never a silent reassignment."""
    ROSTER = "login,name,email,github\nalice,Alice A,alice@uni.edu,alicegh\n" \
             "eve,Eve E,eve@uni.edu,evegh\n"

    def folders(self, *names, bare=()):
        subs = os.path.join(self.tmp, "subs")
        for n in names:
            os.makedirs(os.path.join(subs, n))
        for n in bare:
            git_init(os.path.join(subs, n), bare=True)
        return subs

    def test_a_github_name_that_is_another_students_login_takes_no_grade(self):
        r = self.write("r.csv", "login,name,email\nalice,A,alice@uni.edu\neve,E,eve@uni.edu\n")
        c = self.write("c.csv", "identifier,github_username,github_id,name\n"
                                "alice@uni.edu,alicegh,1,\neve@uni.edu,alice,2,\n")
        roll = Roll(wf(roster=r, classroom_roster=c))
        self.assertEqual(len(roll.notes), 1)
        self.assertIn("GitHub account alice is eve's", roll.notes[0])
        sts, skipped = roll.scan(self.folders("lab01-alicegh", "lab01-alice"))
        by = {s.login: s for s in sts}
        self.assertEqual((by["alice"].name, by["alice"].roster), ("lab01-alicegh", "matched"))
        self.assertEqual(by["eve"].roster, "missing")
        self.assertEqual([n for n, _ in skipped], ["lab01-alice"])
        self.assertTrue(skipped[0][1].startswith(
            "ambiguous: folder 'lab01-alice' is matched to nobody: GitHub account alice is "
            "eve's by the classroom roster (identifier eve@uni.edu) and alice's login"), skipped)

    def test_a_bare_clone_of_the_same_name_is_a_duplicate_not_a_replacement(self):
        subs = self.folders("alice", bare=["alice.git"])
        roll = Roll(wf(roster=self.write("r.csv", "login\nalice\nbob\n")))
        sts, skipped = roll.scan(subs)
        self.assertEqual([(s.name, s.login, s.roster) for s in sts],
                         [("alice", "alice", "matched"), ("bob", "bob", "missing")])
        self.assertEqual(skipped, [("alice.git", "duplicate: a second folder of alice; "
                                                 "'alice' is graded")])
        # without a roster each is graded under its own name
        sts, skipped = Roll(wf()).scan(subs)
        self.assertEqual([s.id for s in sts], ["alice", "alice.git"])

    def test_the_export_does_not_let_a_bare_clone_overwrite_the_folder(self):
        roll = Roll(wf(roster=self.write("r.csv", "login\nalice\nbob\n")))
        recs = [{"student": "alice", "id": "alice", "status": "ok",
                 "points": {"total": 30, "max": 30}},
                {"student": "alice.git", "id": "alice.git", "status": "ok", "git": {},
                 "points": {"total": 0, "max": 30}}]
        for order in (recs, recs[::-1]):
            with Said() as said:
                self.assertEqual(roll.points_by_login(order), {"alice": 30})
            self.assertEqual(said, ["not exported: alice.git: duplicate: a second folder of "
                                    "alice; 'alice' is graded"])

    def test_only_an_exact_name_wins_and_letter_case_alone_is_refused(self):
        roll = Roll(wf())
        sts, _ = roll.scan(self.folders("alice", "ALICE"))
        self.assertEqual([s.id for s in roll.select(sts, ["alice"])], ["alice"])
        self.assertEqual([s.id for s in roll.select(sts, ["ALICE"])], ["ALICE"])
        with self.assertRaisesRegex(ValueError, "^--only: 'Alice' fits 2 students in another "
                                                "letter case: 'ALICE', 'alice'; name one"):
            roll.select(sts, ["Alice"])

    def submitted(self, rows):
        return self.write("submitted.csv", "github_username,roster_identifier,"
                                           "submission_timestamp\n" + rows)

    def test_platform_times_match_names_of_the_same_kind_only(self):
        # eve's second GitHub account is named "alice"; alice's GitHub name is alicegh
        sub = self.submitted("alicegh,alice@uni.edu,2025-03-14T20:00Z\n"
                             "evegh,eve@uni.edu,2025-03-14T21:00Z\n"
                             "alice,,2025-04-30T00:00Z\n")
        roll = Roll(wf(roster=self.write("r.csv", self.ROSTER), submitted=sub))
        sts, _ = roll.scan(self.folders("lab01-alicegh", "lab01-evegh"))
        by = {s.login: s for s in sts}
        self.assertEqual(roll.platform_time(by["alice"]), parse_time("2025-03-14T20:00:00Z"))
        self.assertEqual(roll.platform_time(by["eve"]), parse_time("2025-03-14T21:00:00Z"))

    def test_a_row_that_names_two_students_is_refused(self):
        # the GitHub account is eve's, the identifier alice's
        sub = self.submitted("evegh,alice@uni.edu,2025-03-14T20:00Z\n")
        roll = Roll(wf(roster=self.write("r.csv", self.ROSTER), submitted=sub))
        with self.assertRaisesRegex(ValueError, r"submitted.csv:2: GitHub account evegh, "
                                    r"identifier alice@uni.edu names two students, 'alice' "
                                    r"and 'eve'"):
            roll.scan(self.folders("lab01-alicegh", "lab01-evegh"))

    def test_rows_of_different_names_that_disagree_are_refused(self):
        # no GitHub name on the roster: alice's is taken to be her login, and the account
        # "alice" says otherwise than her linked row
        sub = self.submitted("alicegh,alice@uni.edu,2025-03-14T20:00Z\n"
                             "alice,,2025-04-30T00:00Z\n")
        roll = Roll(wf(roster=self.write("r.csv", "login,email\nalice,alice@uni.edu\n"),
                       submitted=sub))
        subs = self.folders("lab01-alice")
        with self.assertRaisesRegex(ValueError, r"submitted.csv: 'alice' is named by rows that "
                                    r"disagree: line 2 \(GitHub account alicegh, identifier "
                                    r"alice@uni.edu\) at 2025-03-14T20:00:00\+00:00, line 3 "
                                    r"\(GitHub account alice\)"):
            roll.scan(subs)
        # the same account listed again: the latest, as before
        sub = self.submitted("alicegh,alice@uni.edu,2025-03-14T20:00Z\n"
                             "alicegh,,2025-03-14T22:00Z\n")
        roll = Roll(wf(roster=self.write("r.csv", self.ROSTER), submitted=sub))
        sts, _ = roll.scan(subs)
        self.assertEqual(roll.platform_time([s for s in sts if s.login == "alice"][0]),
                         parse_time("2025-03-14T22:00:00Z"))


class Said:
    """The lines the grader says (base.tell.say) while it is in force."""

    def __enter__(self):
        from kitgrade.driver import classlist
        self.module, self.old, self.lines = classlist, classlist.say, []
        classlist.say = self.lines.append
        return self.lines

    def __exit__(self, *exc):
        self.module.say = self.old


if __name__ == "__main__":
    unittest.main()
