"""The whole grader on the fake kit (grading/tests/fakekit): statuses and points of made-up
submissions, paths that are data (a space, a comma, a quote, $(...) and accents in the kit's,
the submissions' and OUT's paths), names, resuming, the secret seed. Speed points are not
asserted (nothing here is timed); only what the speed checks catch whatever the timings."""
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

import util
from kitgrade.cmdline import entry
from kitgrade.runs import keys

WEIRD = "a b,c'$(echo x)é"


def student(subs, name, lines):
    d = os.path.join(subs, name)
    os.makedirs(d)
    util.put(os.path.join(d, "fake.c"), "\n".join(lines) + "\nint fake_variant(int v) "
                                                           "{ return v; }\n")


def grade(args, quiet=True):
    env = dict(os.environ, KIT_GRADE_HOLD="0")
    old = dict(os.environ)
    os.environ.update(env)
    try:
        from io import StringIO
        err, sys.stderr = sys.stderr, StringIO()
        try:
            rc = entry.main(args + (["--quiet"] if quiet else []))
            text = sys.stderr.getvalue()
        finally:
            sys.stderr = err
    finally:
        os.environ.clear()
        os.environ.update(old)
    return rc, text


class Base(unittest.TestCase):
    lab = "99"

    @classmethod
    def more_args(cls):
        return []

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kitgrade-e2e-")
        cls.root = os.path.join(cls.tmp, WEIRD)
        cls.kit = os.path.join(cls.root, "kit")
        util.fake_kit(cls.kit)
        cls.subs = os.path.join(cls.root, "subs")
        cls.out = os.path.join(cls.root, "out")
        os.makedirs(cls.subs)
        cls.make_students()
        cls.rc, cls.log = grade(["--lab", cls.lab, "--submissions", cls.subs, "--out", cls.out,
                                 "--kit", cls.kit, "--sandbox", "none", "--timeout", "2",
                                 "--quick"] + cls.more_args())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rec(self, sid, out=None):
        with open(os.path.join(out or self.out, "students", sid, "results.json"),
                  encoding="utf-8") as f:
            return json.load(f)

    def expect(self, sid, status, correctness=None):
        r = self.rec(sid)
        self.assertEqual(r["status"], status, r["reason"])
        if correctness is not None:
            self.assertAlmostEqual(r["points"]["correctness"], correctness, places=1)
        return r


class CpuLab(Base):
    @classmethod
    def make_students(cls):
        s = cls.subs
        student(s, "correct", ["// v1 correct"])
        student(s, "wrong", ["// v2 wrong"])
        student(s, "partial", ["// v3 notimpl"])
        student(s, "replay", ["// v2 replay"])
        student(s, "crash", ["// v2 crash"])
        student(s, "hang", ["// v3 hang"])
        student(s, "hang2", ["// v2 hang"])
        student(s, "crowded", ["// v2 crowded"])
        student(s, "fork", ["// v3 fork"])
        student(s, "exit0", ["// exit0"])
        student(s, "compile", ["int x = ;"])
        student(s, "forbidden", ["int kit_ref_conv(void) { return 1; }"])
        student(s, "swap", ["// v1 swap"])
        student(s, "swapback", ["// v2 swapback"])
        student(s, "Zoë", ["// v1 correct"])
        student(s, "Zoé", ["// v1 correct"])
        student(s, ".hidden", ["// v1 correct"])
        # folders named like the grader's own boxes of the reference: graded as any other
        # (a build that fails: the cheapest grading there is)
        student(s, "reference", ["int x = ;"])
        student(s, "reference-0", ["int x = ;"])
        os.symlink(os.path.join(s, "correct"), os.path.join(s, "linked"))

    def test_graded_everyone_once(self):
        self.assertEqual(self.rc, 0, self.log)
        with open(os.path.join(self.out, "grades.csv"), encoding="utf-8") as f:
            rows = f.read().splitlines()
        self.assertEqual(rows[0].split(",")[:11], ["student", "lab", "build", "tests_passed",
                                                   "tests_total", "correctness_pts", "perf_pts",
                                                   "total_pts", "max_pts", "status", "reason"])
        self.assertEqual(len(rows), 20)     # 19 folders (the linked one refused, .hidden listed)

    def test_statuses(self):
        self.expect("correct", "ok", 30)
        self.expect("reference", "compile-error", 0)
        self.expect("reference-0", "compile-error", 0)
        self.expect("wrong", "wrong", 20)
        self.expect("partial", "not-implemented", 20)
        r = self.expect("replay", "replayed", 20)
        self.assertEqual(r["points"]["perf"] <= 10, True)
        self.assertRegex(r["reason"], "content the grader handed it|for fresh content")
        r = self.expect("crash", "crash", 20)
        # v2 crashed in its run of its own: the cases left run again in one run without it,
        # and it runs alone in each
        names = [x["name"] for x in r["runs"] if not x["name"].startswith("time-")]
        self.assertEqual(names, ["together", "one", "one-v2", "one-v3", "together-2", "small-v2",
                                 "odd-v2", "perf1-v2"])
        r = self.expect("hang", "timeout", 20)
        self.assertTrue(any("not run: it ran past the time limit" in c["reason"]
                            for c in r["cases"]))
        # v3 hung before the case's first variant had ended (which one is not known): the
        # case's variants alone, then the cases left in one run, v3 left out
        names = [x["name"] for x in r["runs"] if not x["name"].startswith("time-")]
        self.assertEqual(names, ["together", "small-v1", "small-v2", "small-v3", "together-2"])
        # v2 hung (on its core) in the run of every case after v1 ended: it alone is blamed,
        # never run again, and the cases go again in one run without it. Where the machine
        # gave the loop less than half of its time (other work on its cores, a virtual
        # machine's stolen time), it is not told from a run that waited and gets the benefit
        # of the doubt: it runs once alone, times out there too, and is not run again
        r = self.expect("hang2", "timeout", 20)
        names = [x["name"] for x in r["runs"] if not x["name"].startswith("time-")]
        self.assertIn(names, (["together", "together-2"], ["together", "together-2", "one-v2"]))
        self.assertEqual([(c["case"], c["status"]) for c in r["cases"] if c["variant"] == "2"],
                         [("one", "timeout")] + [(c, "timeout") for c in ("small", "odd",
                                                                          "perf1")])
        # v2 ran past the limit in the run of every case waiting, off its core (as a run slowed
        # by the others on a busy GPU): alone in each case it passes, and nothing is lost
        r = self.expect("crowded", "ok", 30)
        names = [x["name"] for x in r["runs"] if not x["name"].startswith("time-")]
        self.assertEqual(names, ["together", "together-2", "one-v2", "small-v2", "odd-v2",
                                 "perf1-v2"])
        r = self.expect("fork", "extra-processes", 30)
        self.assertEqual(r["variants"][2]["perf_pts"], 0.0)
        self.expect("exit0", "no-output", 0)
        r = self.expect("compile", "compile-error", 0)
        self.assertIn("‘;’", r["reason"])           # the compiler's quotes kept
        self.assertEqual(r["build"]["status"], "failed")
        r = self.expect("forbidden", "forbidden", 0)
        self.assertIn("defines kit_ref_conv", r["reason"])
        # a run that put another program in its own place: no later run starts it (the
        # program built and checked is the one timed), the student is forbidden
        r = self.expect("swap", "forbidden", 0)
        self.assertIn("replaced its program out/lab99", r["reason"])
        self.assertFalse([x for x in r["runs"] if x["name"].startswith("time-")])
        # and one that puts its own back in a later run, before the checks: seen after the run
        # that swapped it
        r = self.expect("swapback", "forbidden", 0)
        self.assertIn("replaced its program out/lab99", r["reason"])

    def test_names(self):
        ids = sorted(os.listdir(os.path.join(self.out, "students")))
        zo = [i for i in ids if i.startswith("Zo_-")]
        self.assertEqual(len(zo), 2)
        self.assertEqual({self.rec(i)["student"] for i in zo}, {"Zoë", "Zoé"})
        r = self.expect("linked", "refused", 0)
        self.assertIn("symbolic link", r["reason"])
        with open(os.path.join(self.out, "summary.md"), encoding="utf-8") as f:
            s = f.read()
        self.assertIn(".hidden", s)
        self.assertIn("Not graded:", s)

    def test_results_json(self):
        r = self.rec("correct")
        self.assertEqual(r["schema"], "kitgrade-results/1")
        v2 = r["variants"][1]
        t = v2["timing"]
        self.assertEqual((t["status"], t["case"], t["clock"]), ("ok", "perf1", "cpu"))
        self.assertGreaterEqual(len(t["pairs"]), 1)
        self.assertEqual(len(t["pairs"][0]["checked"]), 3)   # the last and two picked after
        self.assertLessEqual(t["spread"][0], t["ratio"])
        self.assertTrue(all(c["status"] in ("pass", "n/a") for c in r["cases"]))
        self.assertIsNone(r["variants"][0]["timing"])    # v1 has no speed points: not timed
        # each run says when it started, inside the student's grading
        total = r["phases"]["total"]
        self.assertTrue(r["runs"])
        for x in r["runs"]:
            self.assertLessEqual(total[0] - 0.01, x["at"])
            self.assertLessEqual(x["at"] + x["wall_ms"] / 1000.0, total[1] + 0.01)
        self.assertEqual(set(r["run_parts"]), {"gate", "runs", "checks"})
        # CPU time: a pair's two runs at once, in lockstep on the same core
        runs = {x["name"]: x for x in r["runs"]}
        a, b = runs["time-reference-p1"], runs["time-student-p1"]
        self.assertLess(max(a["at"], b["at"]),
                        min(a["at"] + a["wall_ms"] / 1e3, b["at"] + b["wall_ms"] / 1e3))

    def test_grading_txt_and_secret_seed(self):
        with open(os.path.join(self.out, "grading.txt"), encoding="utf-8") as f:
            g = f.read()
        seed = [ln for ln in g.splitlines() if ln.startswith("seed: ")][0][6:]
        self.assertTrue(seed.isdigit())
        self.assertIn("sandbox: none (no sandbox (--sandbox none)", g)
        self.assertIn("not-enforced: ", g)
        # where the time before the first student went: each step's seconds, and their sum
        setup = [ln for ln in g.splitlines() if ln.startswith("set-up: ")]
        self.assertEqual(len(setup), 1, g)
        m = re.fullmatch(r"set-up: ([0-9.]+) s \((.*)\)", setup[0])
        self.assertIsNotNone(m, setup[0])
        steps = dict(re.fullmatch(r"(.+) ([0-9.]+)", x).groups() for x in m.group(2).split(", "))
        for name in ("grader's programs", "lab's description", "cases' outputs", "pristine kit",
                     "sandbox", "host ceiling", "holds"):
            self.assertIn(name, steps, setup[0])
        self.assertAlmostEqual(float(m.group(1)), sum(map(float, steps.values())),
                               delta=0.1 * len(steps))
        # the seed is in no student's report
        for sid in os.listdir(os.path.join(self.out, "students")):
            self.assertNotIn(seed, util.read(os.path.join(self.out, "students", sid,
                                                          "report.md")))

    def test_resume_and_refusals(self):
        before = {s: self.rec(s)["graded_at"] for s in ("correct", "wrong")}
        rc, log = grade(["--lab", "99", "--submissions", self.subs, "--out", self.out,
                         "--kit", self.kit, "--sandbox", "none", "--quick"], quiet=False)
        self.assertEqual(rc, 0, log)
        self.assertIn("19 students (19 graded before)", log)
        self.assertEqual({s: self.rec(s)["graded_at"] for s in before}, before)
        rc, log = grade(["--lab", "99", "--submissions", self.subs, "--out", self.out,
                         "--kit", self.kit, "--sandbox", "none", "--quick", "--seed", "1"])
        self.assertEqual(rc, 2)
        self.assertIn("resuming needs the same seed", log)
        rc, log = grade(["--lab", "99", "--submissions", self.subs, "--out", self.out,
                         "--kit", self.kit, "--sandbox", "none"])
        self.assertEqual(rc, 2)
        self.assertIn("without --quick", log.replace("with --quick", "without --quick"))

    def test_one_students_internal_error_stops_no_one_else(self):
        """The grader failing on one student (planted here) leaves that student ungraded and
        named, its traceback kept without control bytes, every other student graded, exit 1;
        the next run grades it."""
        from unittest import mock
        from kitgrade.driver import schedule
        subs, out = os.path.join(self.root, "subs-crash"), os.path.join(self.root, "out-crash")
        student(subs, "fine", ["// v1 correct"])
        student(subs, "boom", ["// v1 correct"])
        real = schedule.Grading.student

        def planted(g, st, i, give_back=None):
            if st.name == "boom":
                raise RuntimeError("planted \x1b[2J failure")
            return real(g, st, i, give_back)
        args = ["--lab", "99", "--submissions", subs, "--out", out, "--kit", self.kit,
                "--sandbox", "none", "--timeout", "2", "--quick"]
        with mock.patch.object(schedule.Grading, "student", planted):
            rc, log = grade(args, quiet=False)
        self.assertEqual(rc, 1, log)
        self.assertIn("the grader failed on 1 student(s), not graded: boom", log)
        self.assertNotIn("\x1b", log)
        with open(os.path.join(out, "grades.csv"), encoding="utf-8") as f:
            rows = [r.split(",")[0] for r in f.read().splitlines()[1:]]
        self.assertEqual(rows, ['"fine"'])
        text = util.read(os.path.join(out, "internal-errors.txt"))
        self.assertIn("RuntimeError: planted", text)
        self.assertNotIn("\x1b", text)
        rc, log = grade(args)
        self.assertEqual(rc, 0, log)
        self.assertEqual(self.rec("boom", out)["status"], "ok")

    def test_print_cases(self):
        from io import StringIO
        out, sys.stdout = sys.stdout, StringIO()
        try:
            rc = entry.main(["--lab", "99", "--kit", self.kit, "--print-cases", "--seed",
                                "5"])
            text = sys.stdout.getvalue()
        finally:
            sys.stdout = out
        self.assertEqual(rc, 0)
        self.assertTrue(text.startswith("case\tone\t1,2,3\t--size 1x1 --seed "))


class GpuLab(Base):
    lab = "98"

    @classmethod
    def make_students(cls):
        s = cls.subs
        student(s, "correct", ["// v1 correct"])
        student(s, "token", ["// v1 token"])
        student(s, "nokernel", ["// v2 nokernel"])
        student(s, "copies", ["// v3 copies"])
        student(s, "replay", ["// v2 replay"])
        student(s, "liar", ["// v3 liar"])
        student(s, "early", ["// v1 correct", "__attribute__((constructor)) static void "
                             "before_main(void) { }"])

    def test_timed_runs_start_early_only_without_code_before_main(self):
        """A student's timed run is started while the one before it is timed and held at its
        gate (results.json: the seconds it waited there); one whose objects run code before
        main is graded the same way but never started early."""
        gated = 0
        for sid in ("correct", "token", "nokernel", "copies", "replay", "liar"):
            r = self.rec(sid)
            self.assertEqual(r["early_start"], "yes")
            gated += sum(1 for x in r["runs"] if x.get("gated_s") is not None)
        self.assertGreater(gated, 0)
        r = self.expect("early", "ok", 24)
        self.assertIn("before main", r["early_start"])
        self.assertIn("fake.c", r["early_start"])
        self.assertFalse([x for x in r["runs"] if x.get("gated_s") is not None])

    def test_speed_checks(self):
        self.assertEqual(self.rc, 0, self.log)
        r = self.expect("correct", "ok", 24)
        self.assertEqual(r["variants"][0]["timing"]["clock"], "gpu")
        r = self.expect("token", "impossible-time", 16)
        self.assertIn("above the 1 GB/s", r["reason"])
        self.expect("nokernel", "no-kernel", 16)
        r = self.expect("copies", "copies-in-launcher", 24)
        self.assertEqual(r["variants"][2]["perf_pts"], 0.0)
        self.expect("replay", "replayed", 16)
        self.expect("liar", "impossible-time", 16)



class GpuParts(Base):
    """Lab 97: lab 98 in two parts whose variant numbers repeat, timed in one process a pair
    (perf_one_process: the key channel names the part)."""
    lab = "97"

    @classmethod
    def make_students(cls):
        student(cls.subs, "correct", ["// v1 correct"])
        student(cls.subs, "replay", ["// v2 replay"])

    def test_one_timed_process_for_both_parts(self):
        self.assertEqual(self.rc, 0, self.log)
        r = self.expect("correct", "ok", 24)
        timed = sorted(x["name"] for x in r["runs"] if x["name"].startswith("time-student"))
        self.assertEqual(timed[:1], ["time-student-p1"])     # one process, no group label
        self.assertTrue(all("-a" not in n and "-b" not in n for n in timed), timed)
        # where each timed run's time went, from its key channel; summed in summary.md
        for x in r["runs"]:
            if x["name"].startswith("time-"):
                self.assertEqual(sorted(x["split_s"]), sorted(keys.SPLIT), x["name"])
                self.assertGreater(x["split_s"]["variant"], 0.0, x["name"])
        summ = util.read(os.path.join(self.out, "summary.md"))
        self.assertRegex(summ, r"Of the [0-9]+ timed runs \(the students' and the reference's\): "
                               r"starting \(process, inputs, CUDA\) [0-9.]+ s")
        for v in r["variants"]:
            self.assertEqual((v["timing"]["clock"], v["timing"]["status"]), ("gpu", "ok"),
                             v["variant"])
        self.assertEqual(sorted(v["variant"] for v in r["variants"]),
                         ["a:1", "a:2", "a:3", "b:1", "b:2", "b:3"])
        r = self.expect("replay", "replayed", 16)
        self.assertIn("a:2", r["reason"])
        self.assertIn("b:2", r["reason"])


class GpuGroups(GpuParts):
    """The same lab without perf_one_process: one timed process per group of parts (a
    variant number twice), each group with its own chain, its runs named by the group."""

    @classmethod
    def more_args(cls):
        text = util.read(os.path.join(cls.kit, "grading", "rubrics", "lab97.rubric"))
        path = os.path.join(cls.tmp, "groups.rubric")
        util.put(path, text.replace("perf_one_process yes", "perf_one_process no"))
        return ["--rubric", path]

    def test_one_timed_process_for_both_parts(self):
        self.assertEqual(self.rc, 0, self.log)
        r = self.expect("correct", "ok", 24)
        timed = sorted(x["name"] for x in r["runs"] if x["name"].startswith("time-student"))
        self.assertEqual(timed, ["time-student-p1-a", "time-student-p1-b"])
        for v in r["variants"]:
            self.assertEqual((v["timing"]["clock"], v["timing"]["status"]), ("gpu", "ok"),
                             v["variant"])
        r = self.expect("replay", "replayed", 16)

if __name__ == "__main__":
    unittest.main()
