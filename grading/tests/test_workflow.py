"""workflow.py: the driver's hooks of the instructors' workflow: the cutoff of a student's
commits, a git submission taken into the folder the build reads (or the status that decides
without a build), the late penalty on a record, regrades, the export and the labels of
earlier years."""
import io
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import util
from kitgrade.box import uidpool
from kitgrade.cmdline import cli
from kitgrade.course import late, wfopts
from kitgrade.lab.names import Student
from kitgrade.driver.setup import Fatal
from kitgrade.driver.workflow import Workflow, export_only, year_label

FIX = os.path.join(util.HERE, "fixtures", "instructors")
DEADLINE = "2025-03-14T23:59:00+01:00"
LAB = "labs/03_global_mem"


def options(out, *args):
    return cli.parse(["--lab", "03", "--out", out] + list(args))


def sgit(repo, *args, date=None):
    env = {"PATH": os.environ["PATH"], "HOME": "/nonexistent", "GIT_CONFIG_GLOBAL": "/dev/null",
           "GIT_CONFIG_NOSYSTEM": "1"}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return subprocess.run(["git", "-C", repo, "-c", "user.name=S", "-c", "user.email=s@x",
                           "-c", "commit.gpgSign=false"] + list(args), env=env, check=True,
                          stdout=subprocess.PIPE).stdout.decode().strip()


def commit(repo, date, text, path=LAB + "/conv.cu"):
    if not os.path.isdir(os.path.join(repo, ".git")):
        os.makedirs(repo, exist_ok=True)
        sgit(repo, "init", "-q", "-b", "main")
    os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
    util.put(os.path.join(repo, path), text)
    sgit(repo, "add", "-A")
    sgit(repo, "commit", "-q", "-m", "w", date=date)
    return sgit(repo, "rev-parse", "HEAD")


class Base(util.TempCase):
    def setUp(self):
        super().setUp()
        os.chmod(self.tmp, 0o755)           # the unprivileged reader (as root) gets in
        self.out = os.path.join(self.tmp, "out")
        self.subs = os.path.join(self.tmp, "subs")
        os.makedirs(os.path.join(self.out, "students"))
        os.makedirs(self.subs)

    def ctx(self, w, policy_line=None):
        pool = uidpool.UidPool(lock_dir=os.path.join(self.tmp, "uids")) \
            if os.geteuid() == 0 else None
        rub = SimpleNamespace(late=late.parse_policy(policy_line) if policy_line else None)
        lab = SimpleNamespace(srcs=["conv.cu"], name="03_global_mem")
        c = SimpleNamespace(out=self.out, home=self.tmp, seed=77, lab=lab, rub=rub,
                            sandbox=SimpleNamespace(_pool=pool), pristine=self.tmp,
                            opts=SimpleNamespace(quiet=True))
        w.start(c)
        return c

    def workflow(self, *args, policy=None):
        w = Workflow(options(self.out, "--submissions", self.subs, *args))
        self.addCleanup(w.close)
        self.c = self.ctx(w, policy)
        return w

    def student(self, w, name):
        return next(s for s in w.scan(self.subs)[0] if s.name == name)


class Cutoff(Base):
    def test_until(self):
        w = self.workflow("--roster", os.path.join(FIX, "plain_roster.csv"))
        commit(os.path.join(self.subs, "lab03-jo-smith"), DEADLINE, "x")
        jo = self.student(w, "lab03-jo-smith")
        self.assertIsNone(w.until(jo))                      # no --deadline: HEAD
        w = self.workflow("--roster", os.path.join(FIX, "plain_roster.csv"), "--deadline",
                          DEADLINE)
        jo = self.student(w, "lab03-jo-smith")
        self.assertEqual(late.format_time(w.until(jo)), "2025-03-16T23:59:00+01:00")  # 2d
        w = self.workflow("--roster", os.path.join(FIX, "plain_roster.csv"), "--deadline",
                          DEADLINE, policy="late penalty=10%/day last=7d")
        jo = self.student(w, "lab03-jo-smith")
        self.assertEqual(late.format_time(w.until(jo)), "2025-03-23T23:59:00+01:00")
        w = self.workflow("--roster", os.path.join(FIX, "plain_roster.csv"), "--deadline",
                          DEADLINE, policy="late penalty=10%/day")
        self.assertIsNone(w.until(self.student(w, "lab03-jo-smith")))   # every commit counts

    def test_a_bad_extension_stops_the_grading(self):
        r = self.write("r.csv", "login,extension\nakim,soon\n")
        with self.assertRaisesRegex(Fatal, "akim: extension 'soon'"):
            self.workflow("--roster", r, "--deadline", DEADLINE)
        self.workflow("--roster", r)                        # no deadline: nothing to move

    def test_a_huge_cell_is_one_line_not_a_traceback(self):
        """A roster or submission-times cell past the csv module's limit (128 KiB): Fatal
        (one line, exit 2), not csv.Error's traceback."""
        r = self.write("r.csv", "login,name\nalice,%s\n" % ("A" * 200000))
        with self.assertRaisesRegex(Fatal, "cannot be read as CSV"):
            self.workflow("--roster", r)
        s = self.write("s.csv", "github_username,roster_identifier,submission_timestamp\n"
                                "alice,%s,2025-03-14T20:00:00Z\n" % ("A" * 200000))
        with self.assertRaisesRegex(Fatal, "cannot be read as CSV"):
            self.workflow("--submitted", s)


class Source(Base):
    def test_git_submission_taken_and_late(self):
        repo = os.path.join(self.subs, "lab03-akim")
        c1 = commit(repo, "2025-03-14T10:00:00+01:00", "one\n")
        c2 = commit(repo, "2025-03-15T10:00:00+01:00", "two\n")
        commit(repo, "2025-04-01T10:00:00+01:00", "three\n")
        w = self.workflow("--roster", os.path.join(FIX, "plain_roster.csv"), "--deadline",
                          DEADLINE, policy="late penalty=10%/day last=7d")
        st = self.student(w, "lab03-akim")
        sd = os.path.join(self.out, "students", st.id)
        os.makedirs(sd)
        extra = {}
        src, fixed = w.source(st, sd, extra)
        self.assertIsNone(fixed)
        self.assertEqual(src, os.path.join(sd, "submitted"))
        self.assertEqual(util.read(os.path.join(src, "conv.cu")), "two\n")
        self.assertEqual((extra["login"], extra["roster"]), ("akim", "matched"))
        self.assertEqual((extra["git"]["commit"], extra["git"]["newer_commits"]), (c2, 1))
        rec = {"id": st.id, "status": "ok", "points": {"total": 20.0, "max": 30.0}}
        w.finish(rec)
        self.assertEqual((rec["late"]["periods"], rec["late"]["points_before"],
                          rec["points"]["total"]), (1, 20.0, 18.0))
        self.assertNotEqual(c1, c2)

    def test_statuses_that_decide_without_a_build(self):
        repo = os.path.join(self.subs, "lab03-akim")
        commit(repo, "2025-03-20T10:00:00+01:00", "late\n")
        commit(os.path.join(self.subs, "lab03-jdoe"), "2025-03-10T10:00:00+01:00", "x\n",
               path="elsewhere/conv.cu")
        w = self.workflow("--roster", os.path.join(FIX, "plain_roster.csv"), "--deadline",
                          DEADLINE)
        sts = {s.login: s for s in w.scan(self.subs)[0]}
        for login, status, why in (("akim", "no-commit", "no commit on HEAD is dated at or "
                                                         "before 2025-03-14T23:59:00+01:00"),
                                   ("jdoe", "no-files", "none of conv.cu"),
                                   ("pnovak", "missing", "no submission: 0 points")):
            sd = os.path.join(self.out, "students", sts[login].id)
            extra = {}
            src, fixed = w.source(sts[login], sd, extra)
            self.assertIsNone(src)
            self.assertEqual(fixed[0], status)
            self.assertIn(why, fixed[1])
            rec = {"id": sts[login].id, "status": status, "points": {"total": 0, "max": 30}}
            w.finish(rec)
            self.assertNotIn("late", rec)            # nothing handed in: no lateness

    def test_plain_folder_and_platform_time(self):
        os.makedirs(os.path.join(self.subs, "lab03-akim"))
        w = self.workflow("--roster", os.path.join(FIX, "plain_roster.csv"), "--deadline",
                          DEADLINE, "--submitted", os.path.join(FIX, "classroom_grades.csv"),
                          policy="late penalty=5%/hour")
        st = self.student(w, "lab03-akim")
        src, fixed = w.source(st, "/nonexistent", {})
        self.assertEqual((src, fixed), (st.path, None))
        rec = {"id": st.id, "status": "ok", "points": {"total": 10.0, "max": 30.0}}
        w.finish(rec)
        # handed in 2025-03-16 09:00 UTC: 34 hours and a minute late, 35 hours at 5%: capped
        self.assertEqual((rec["late"]["periods"], rec["late"]["penalty_pct"],
                          rec["points"]["total"]), (35, 100.0, 0.0))

    def test_url_cloned_when_graded(self):
        work = os.path.join(self.tmp, "work", "lab03-eve")
        c1 = commit(work, "2025-03-14T10:00:00+01:00", "eve\n")
        lst = self.write("repos.txt", "file://%s\nlab03-gone file://%s/none\n" % (work, self.tmp))
        w = Workflow(options(self.out, "--repos", lst))
        self.addCleanup(w.close)
        self.ctx(w)
        sts = {s.name: s for s in w.scan("")[0]}
        extra = {}
        src, fixed = w.source(sts["lab03-eve"], os.path.join(self.out, "students", "e"), extra)
        self.assertIsNone(fixed)
        self.assertEqual(util.read(os.path.join(src, "conv.cu")), "eve\n")
        self.assertEqual((extra["git"]["commit"], extra["git"]["repo"]), (c1, "file://" + work))
        self.assertTrue(os.path.isdir(os.path.join(self.tmp, "repos", "lab03-eve.git")))
        self.assertIsNotNone(extra["git"]["clone_time"])
        src, fixed = w.source(sts["lab03-gone"], os.path.join(self.out, "students", "g"), extra)
        self.assertEqual(fixed[0], "refused")
        self.assertIn("cloning", fixed[1])


class Regrade(Base):
    def test_seed_and_archive(self):
        util.put(os.path.join(self.out, "grading.txt"), "lab: 03\nseed: 4242\n")
        w = self.workflow("--only", "akim")
        w.regrade_seed()
        self.assertEqual(w.opts.seed, 4242)
        w2 = Workflow(options(self.out, "--submissions", self.subs, "--only", "akim", "--seed",
                              "1"))
        with self.assertRaisesRegex(Fatal, "same seed"):
            w2.regrade_seed()
        empty = os.path.join(self.tmp, "empty")
        with self.assertRaisesRegex(Fatal, "grade the class first"):
            Workflow(options(empty, "--submissions", self.subs, "--only", "x")).regrade_seed()
        os.makedirs(os.path.join(self.subs, "akim"))
        os.makedirs(os.path.join(self.subs, "bea"))
        sts, _ = w.scan(self.subs)
        chosen = w.select(sts, [])
        self.assertEqual([s.id for s in chosen], ["akim"])
        for s in sts:
            self.write(os.path.join(self.out, "students", s.id, "results.json"),
                     json.dumps({"points": {"total": 5, "max": 9}, "status": "ok"}))
            w.before_wipe(s)
        self.assertEqual(os.listdir(os.path.join(self.out, "history")), ["akim"])
        with self.assertRaisesRegex(Fatal, "nobody in this class is named zed"):
            Workflow(options(self.out, "--submissions", self.subs, "--only", "zed")).select(
                sts, [])


class Export(Base):
    def test_export_from_the_results(self):
        for sid, login, roster, total in (("lab03-jdoe", "jdoe", "matched", 27.5),
                                          ("pnovak", "pnovak", "missing", 0.0),
                                          ("lab03-eve", "eve", "not-on-roster", 3.0)):
            self.write(os.path.join(self.out, "students", sid, "results.json"), json.dumps({
                "student": sid, "id": sid, "status": "ok", "login": login, "roster": roster,
                "points": {"total": total, "max": 30.0}}))
        o = options(self.out, "--roster", os.path.join(FIX, "canvas_gradebook.csv"), "--export",
                    "canvas", "--assignment", "Lab 3")
        self.assertTrue(wfopts.export_only(o))
        err, sys.stderr = sys.stderr, io.StringIO()
        try:
            self.assertEqual(export_only(o, Workflow(o)), 0)
            said = sys.stderr.getvalue()
        finally:
            sys.stderr = err
        rows = util.read(os.path.join(self.out, "canvas.csv")).splitlines()
        self.assertEqual(rows[0], "Student,ID,SIS User ID,SIS Login ID,Section,Lab 3 (56789)")
        self.assertEqual(rows[2:], ['"Doe, Jane",1234,s001,jdoe,CUDA Lab A,27.5',
                                    '"Smith, Jo",1235,s002,jo-smith,CUDA Lab A,',
                                    '"Kim, Ana",1236,s003,akim,CUDA Lab B,',
                                    '"Novak, Petr",1237,s004,pnovak,CUDA Lab B,0'])
        self.assertIn("eve: not on the roster, not exported", said)
        self.assertIn("jo-smith: no grade, left blank", said)
        with self.assertRaisesRegex(Fatal, "holds no graded student"):
            export_only(options(os.path.join(self.tmp, "none"), "--roster", os.path.join(
                FIX, "canvas_gradebook.csv"), "--export", "canvas", "--assignment", "x"), None)

    def test_year_labels(self):
        taken = set()
        self.assertEqual(year_label("/c/2024/lab03", taken), "lab03/")
        self.assertEqual(year_label("/c/2023/lab03/", taken), "2023/lab03/")
        self.assertEqual(year_label("/d/2023/lab03", taken), "lab03-2/")


if __name__ == "__main__":
    util.unittest.main()
