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


if __name__ == "__main__":
    unittest.main()
