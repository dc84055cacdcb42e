"""speedloss: a variant that passed every test and lost performance points says why in
results.json and report.md: the pairs below the ratio of full points (their repetitions), or
the run that broke a check, and what else ran on its GPU and cores then. The whole grader on
the fake kit: a submission whose v2 does twenty times the work loses its points and says so."""
import json
import os
import shutil
import tempfile
import unittest

import util
from kitgrade.lab import rubric
from kitgrade.runs import speedloss
from test_e2e import grade

RUB = rubric.parse("x", "points 1 10 10\ncase a all --x\nperf all --x\n")


def variant(pts, status="ok", pairs=(), breach_run=None):
    return {"variant": "1", "max_perf": 10, "perf_pts": pts, "tests_passed": 3,
            "tests_total": 3, "timing": {"status": status, "reason": "why" if status != "ok"
                                         else "", "ratio": 0.5, "pairs": list(pairs),
                                         "breach_run": breach_run}}


class Explain(unittest.TestCase):
    def setUp(self):
        self.log = log = speedloss.RunLog()
        self.stu = log.start(10.0, "bob", "time-student-p1", "0", [2])
        self.ref = log.start(8.0, "bob", "time-reference-p1-before", "0", [2])
        self.stu["end"], self.ref["end"] = 11.0, 9.5
        log.start(10.5, "alice", "together", "0", [4])["end"] = 12.0      # same GPU
        log.start(9.0, "carol", "build", None, [2])["end"] = 10.2           # same core
        log.start(3.0, "dan", "together", "0", [5])["end"] = 4.0            # before: not listed
        log.start(10.9, "erin", "one-v2", "1", [7])                         # on, another GPU

    def pair(self, ratio):
        return {"ratio": ratio, "ref_ms": 1.0, "student_ms": 1.0 / ratio,
                "student_reps_ms": [1.9, 2.0, 4.1], "ref_reps_ms": [1.0, 1.0, 1.0],
                "student_run": self.stu["seq"], "ref_run": self.ref["seq"]}

    def test_pairs_below_full_and_what_ran(self):
        self.assertEqual(speedloss.full_ratio(RUB), 0.8)
        v = variant(6.0, pairs=[self.pair(0.5), self.pair(0.9)])
        s = speedloss.explain(RUB, v, self.log, "bob")
        self.assertEqual((s["lost"], s["full_ratio"], s["status"]), (4.0, 0.8, "ok"))
        self.assertEqual([p["pair"] for p in s["pairs"]], [1])          # 0.9 is above 0.8
        p = s["pairs"][0]
        self.assertEqual((p["slowest_rep"], p["student_run"]["run"]), (3, "time-student-p1"))
        what = [(o["what"], o["shared"]) for o in p["others"]]
        self.assertEqual(what, [("a build of another submission", ["core 2"]),
                                ("a correctness run of another submission", ["GPU 0"]),
                                ("a correctness run of another submission", [])])
        self.assertIsNone(p["others"][2]["end"])                          # still running
        v["speed_loss"] = s
        text = "\n".join(speedloss.lines(v, "v1"))
        self.assertIn("the full points start at 0.8", text)
        self.assertIn("pair 1: ratio 0.50", text)
        self.assertIn("repetition 3 the slowest", text)
        self.assertIn("shared: GPU 0", text)
        for who in ("alice", "carol", "erin"):
            self.assertNotIn(who, text + json.dumps(s))                   # nobody else named

    def test_what_ran_counts_from_the_gate_not_the_wait(self):
        # the student's run waited at its gate from 10.0 s and held the GPU from 10.8 s:
        # carol's build (to 10.2) ran only while it waited; alice's run (from 10.5) and
        # erin's (from 10.9) go on past 10.8, so only theirs are listed
        self.stu["held"] = 10.8
        pair = self.pair(0.5)
        pair["ref_run"] = None                      # the student's run alone
        v = variant(6.0, pairs=[pair])
        s = speedloss.explain(RUB, v, self.log, "bob")
        p = s["pairs"][0]
        self.assertEqual([(o["what"], o["shared"]) for o in p["others"]],
                         [("a correctness run of another submission", ["GPU 0"]),
                          ("a correctness run of another submission", [])])

    def test_breach_and_none(self):
        s = speedloss.explain(RUB, variant(0.0, "unverified", breach_run=self.stu["seq"]),
                              self.log, "bob")
        self.assertEqual((s["status"], s["breach_run"]["run"]), ("unverified", "time-student-p1"))
        self.assertEqual(len(s["others"]), 3)
        # a check of every pair (work hidden outside the windows): each of its timed runs
        s = speedloss.explain(RUB, variant(0.0, "impossible-time", pairs=[self.pair(0.9)]),
                              self.log, "bob")
        self.assertEqual(s["breach_run"]["run"], "time-student-p1")
        self.assertEqual([p["ratio"] for p in s["pairs"]], [0.9])     # every pair shown
        self.assertIsNone(speedloss.explain(RUB, variant(10.0), self.log, "bob"))
        failed = variant(0.0)
        failed["tests_passed"] = 2                  # a failed test says why, not the speed
        self.assertIsNone(speedloss.explain(RUB, failed, self.log, "bob"))


class Graded(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kitgrade-speedloss-")
        kit = util.fake_kit(os.path.join(cls.tmp, "kit"))
        subs = os.path.join(cls.tmp, "subs")
        for name, line in (("same", "// v1 correct"), ("slow", "// v2 slow 20")):
            os.makedirs(os.path.join(subs, name))
            util.put(os.path.join(subs, name, "fake.c"),
                     line + "\nint fake_variant(int v) { return v; }\n")
        cls.out = os.path.join(cls.tmp, "out")
        cls.rc, cls.log = grade(["--lab", "99", "--submissions", subs, "--out", cls.out,
                                 "--kit", kit, "--sandbox", "none", "--timeout", "4"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_slow_says_why(self):
        self.assertEqual(self.rc, 0, self.log)
        sd = os.path.join(self.out, "students", "slow")
        with open(os.path.join(sd, "results.json"), encoding="utf-8") as f:
            r = json.load(f)
        v2 = r["variants"][1]
        s = v2["speed_loss"]
        self.assertGreater(s["lost"], 5)
        self.assertTrue(s["pairs"])
        for p in s["pairs"]:
            self.assertLess(p["ratio"], s["full_ratio"])
            self.assertEqual(len(p["student_reps_ms"]), 3)
            self.assertTrue(p["student_run"]["run"].startswith("time-student-p"))
            self.assertTrue(p["student_run"]["cores"])
        self.assertTrue(all(x.get("cores") for x in r["runs"]))
        report = util.read(os.path.join(sd, "report.md"))
        self.assertIn("## Speed points lost", report)
        self.assertIn("v2: %.1f of 10 performance points lost" % s["lost"], report)
        self.assertIn("pair 1: ratio", report)


if __name__ == "__main__":
    unittest.main()
