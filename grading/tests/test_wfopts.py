"""wfopts.py: the instructors' options taken out of the command line and checked; without
them the command line is read as before."""
import os
import unittest

import util
from kitgrade.cmdline import cli
from kitgrade.course import wfopts

FIX = os.path.join(util.HERE, "fixtures", "instructors")
ROSTER = os.path.join(FIX, "plain_roster.csv")


class Options(unittest.TestCase):
    def setUp(self):
        self.d = util.tempfile.mkdtemp()

    def tearDown(self):
        util.shutil.rmtree(self.d)

    def parse(self, *a):
        return cli.parse(["--lab", "01", "--out", "o"] + list(a))

    def bad(self, msg, *a):
        with self.assertRaisesRegex(cli.UsageError, msg):
            self.parse(*a)

    def test_none_given_is_as_before(self):
        o = self.parse("--submissions", self.d)
        self.assertFalse(o.wf.active)
        self.assertIsNone(o.wf.only)
        self.assertEqual(o.wf.words(), [])

    def test_every_option(self):
        o = self.parse("--submissions", self.d, "--roster", ROSTER, "--roster-login=login",
                       "--prefix", "lab03", "--ref", "submitted",
                       "--deadline", "2025-03-14T23:59:00+01:00", "--submitted", ROSTER,
                       "--submitted-tz", "+01:00", "--only", "akim", "jdoe,eve", "--quick",
                       "--export", "moodle", "--assignment", "Lab 3", "--moodle-id",
                       "username", "--compare-with", self.d, "--compare-with=" + self.d,
                       "--similarity-threshold", "55.5")
        w = o.wf
        self.assertTrue(o.quick)                    # --only stopped at the next option
        self.assertEqual(w.only, ["akim", "jdoe,eve"])
        self.assertEqual((w.roster_login, w.prefix, w.ref, w.export, w.moodle_id),
                         ("login", "lab03", "submitted", "moodle", "username"))
        self.assertEqual(w.deadline.isoformat(), "2025-03-14T23:59:00+01:00")
        self.assertEqual(w.submitted_tz.utcoffset(None).total_seconds(), 3600)
        self.assertEqual(w.compare_with, [self.d, self.d])
        self.assertEqual(w.threshold, 55.5)
        self.assertIn("--deadline", w.words())
        self.assertEqual(w.words().count("--compare-with"), 2)

    def test_only_forms(self):
        o = self.parse("--submissions", self.d, "--only=akim,jdoe")
        self.assertEqual(o.wf.only, ["akim", "jdoe"])
        o = self.parse("--only", "akim", "--submissions", self.d)
        self.assertEqual((o.wf.only, o.submissions), (["akim"], self.d))
        self.bad("needs at least one login", "--submissions", self.d, "--only")
        self.bad("needs at least one login", "--only", "--submissions", self.d)

    def test_what_replaces_submissions(self):
        lst = util.os.path.join(self.d, "repos.txt")
        util.put(lst, "x /nowhere\n")
        o = self.parse("--repos", lst)
        self.assertEqual(o.submissions, "")
        o = self.parse("--roster", ROSTER, "--export", "canvas", "--assignment", "Lab 3")
        self.assertTrue(wfopts.export_only(o))
        self.bad("--submissions is required")
        self.bad("give --submissions or --repos", "--roster", ROSTER, "--export", "canvas",
                 "--assignment", "x", "--only", "akim")

    def test_bad_values(self):
        s = ["--submissions", self.d]
        self.bad("no time zone", *s, "--deadline", "2025-03-14T23:59:00")
        self.bad("not an ISO 8601", *s, "--deadline", "friday")
        self.bad("canvas or moodle", *s, "--roster", ROSTER, "--export", "excel",
                 "--assignment", "x")
        self.bad("needs --assignment", *s, "--roster", ROSTER, "--export", "canvas")
        self.bad("needs --roster", *s, "--export", "canvas", "--assignment", "x")
        self.bad("goes with --export", *s, "--assignment", "x")
        self.bad("goes with --export moodle", *s, "--roster", ROSTER, "--export", "canvas",
                 "--assignment", "x", "--moodle-id", "email")
        self.bad("email, username or idnumber", *s, "--roster", ROSTER, "--export", "moodle",
                 "--assignment", "x", "--moodle-id", "uid")
        self.bad("needs --roster", *s, "--prefix", "lab03")
        self.bad("needs --roster", *s, "--classroom-roster", ROSTER)
        self.bad("is not a file", *s, "--roster", self.d)
        self.bad("is not a folder", *s, "--compare-with", ROSTER)
        self.bad("goes with --submitted", *s, "--submitted-tz", "+01:00")
        self.bad("zone offset", *s, "--submitted", ROSTER, "--submitted-tz", "Europe/Rome")
        self.bad("percentage", *s, "--similarity-threshold", "0")
        self.bad("percentage", *s, "--similarity-threshold", "many")
        self.bad("not a branch", *s, "--ref", "--output=x")
        self.bad("give one of them", *s, "--only", "akim", "--force")
        self.bad("given twice", *s, "--roster", ROSTER, "--roster", ROSTER)
        self.bad("needs a value", *s, "--roster")
        self.bad("needs a value", *s, "--roster=")

    def test_help_lists_them(self):
        for opt in ("--roster FILE", "--repos LIST", "--deadline TIME", "--only LOGIN",
                    "--export canvas|moodle", "--compare-with DIR", "--submitted FILE"):
            self.assertIn(opt, cli.USAGE)
        self.assertTrue(cli.USAGE.rstrip().endswith("2 bad usage"))

    def test_zone(self):
        self.assertEqual(wfopts.zone("Z").utcoffset(None).total_seconds(), 0)
        self.assertEqual(wfopts.zone("-0530").utcoffset(None).total_seconds(), -19800)
        with self.assertRaises(ValueError):
            wfopts.zone("+25:00")


if __name__ == "__main__":
    unittest.main()
