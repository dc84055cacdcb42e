"""score.py with injected outcomes and timings: points, penalties, the status and its reason,
and identical timings giving identical points."""
import unittest

import util  # noqa: F401  (the package on the path)
from kitgrade.lab import rubric
from kitgrade.scoring import score
from kitgrade.lab.names import Student
from kitgrade.runs.run import Outcome
from kitgrade.runs.timing import VarTiming

RUB = """points 1 10 0
points 2 10 10
points 3 10 10
perf_scale 0.8:1 0.6:0.6 0.4:0.3
penalty copies-in-launcher=lab
case a all --x
case b 1,2 --x
perf all --x
"""


def oc(case, v, st, why="", kind="case"):
    return Outcome(case, "", v, st, why, kind)


def all_pass():
    return [oc(c, v, "pass") for c in ("a", "perf1") for v in (1, 2, 3)] + \
        [oc("b", v, "pass") for v in (1, 2)]


def timed(v, ratio, status="ok", reason=""):
    t = VarTiming(str(v), "perf1", status=status, reason=reason, clock="cpu", reps=10)
    if status == "ok":
        t.ratio, t.ref_ms, t.student_ms, t.spread = ratio, 1.0, 1.0 / ratio, [ratio, ratio]
        t.pairs = [{"ref_ms": 1.0, "student_ms": 1.0 / ratio, "ratio": ratio}]
    return t


class Score(unittest.TestCase):
    def setUp(self):
        self.r = rubric.parse("x", RUB)
        self.st = Student("Zoë <b>", "Zo_-1234", "/x")

    def rec(self, outs, timings=None, fixed=None, build=None):
        return score.result(self.r, self.st, "01", build or {"status": "ok"}, ["fake.c: used"],
                            outs, timings or {}, fixed=fixed)

    def test_full_marks(self):
        rec = self.rec(all_pass(), {"2": timed(2, 1.0), "3": timed(3, 1.3)})
        self.assertEqual((rec["status"], rec["reason"]), ("ok", "every hidden test passed"))
        self.assertEqual(rec["points"], {"correctness": 30.0, "perf": 20.0, "total": 50.0,
                                         "max": 50.0})
        self.assertEqual(rec["tests"], {"passed": 8, "total": 8})
        self.assertEqual(score.grades_row(rec)[:10], ["Zoë <b>", "01", "ok", 8, 8, "30.0",
                                                      "20.0", "50.0", "50", "ok"])

    def test_smooth_speed_points(self):
        rec = self.rec(all_pass(), {"2": timed(2, 0.7), "3": timed(3, 0.5)})
        v = score.by_variant(rec)
        self.assertAlmostEqual(v["2"]["perf_pts"], 8.0)
        self.assertAlmostEqual(v["3"]["perf_pts"], 4.5)

    def test_identical_code_identical_points(self):
        pts = {self.rec(all_pass(), {"2": timed(2, r), "3": timed(3, r)})["points"]["total"]
               for r in (0.86, 0.95, 1.0, 1.04, 1.2)}
        self.assertEqual(pts, {50.0})

    def test_failures_share_out_correctness(self):
        outs = all_pass()
        outs[0] = oc("a", 1, "wrong", "3 of 9 values wrong")
        outs.append(oc("a", 3, "n/a", "v3 cannot take it"))
        rec = self.rec(outs, {"2": timed(2, 1.0)})
        v = score.by_variant(rec)
        self.assertAlmostEqual(v["1"]["correctness_pts"], 10 * 2 / 3.0, places=3)
        self.assertEqual(v["3"]["tests_total"], 2)
        self.assertEqual(rec["status"], "wrong")
        self.assertEqual(rec["reason"], "v1 wrong in case a: 3 of 9 values wrong")

    def test_penalties(self):
        t = {"2": timed(2, 1.0, "replayed", "repetition 3's output is wrong"),
             "3": timed(3, 1.0)}
        rec = self.rec(all_pass(), t)
        v = score.by_variant(rec)
        self.assertEqual((v["2"]["correctness_pts"], v["2"]["perf_pts"]), (0.0, 0.0))
        self.assertEqual(v["3"]["perf_pts"], 10.0)
        self.assertEqual(rec["status"], "replayed")
        self.assertIn("v2 replayed in its timed runs (no points for the variant): repetition 3",
                      rec["reason"])
        t = {"2": timed(2, 1.0, "extra-processes", "left 1 process"), "3": timed(3, 1.0)}
        v = score.by_variant(self.rec(all_pass(), t))
        self.assertEqual((v["2"]["correctness_pts"], v["2"]["perf_pts"]), (10.0, 0.0))
        t = {"2": timed(2, 1.0, "copies-in-launcher", "copied"), "3": timed(3, 1.0)}
        rec = self.rec(all_pass(), t)
        self.assertEqual(rec["points"]["total"], 0.0)
        self.assertIn("no points for the lab", rec["reason"])

    def test_not_timed_costs_speed_only_and_is_no_status(self):
        t = {"2": timed(2, 1.0, "not-timed", "the reference's timed run failed"),
             "3": timed(3, 1.0)}
        rec = self.rec(all_pass(), t)
        self.assertEqual(rec["status"], "ok")
        self.assertEqual(rec["points"]["total"], 40.0)

    def test_fixed_and_grouped_reasons(self):
        rec = self.rec([], fixed=("compile-error", "conv.c:3: error: ‘x’ undeclared"),
                       build={"status": "failed"})
        self.assertEqual(rec["points"]["total"], 0.0)
        self.assertIn("‘x’", rec["reason"])
        outs = [oc("a", v, "not-implemented") for v in (2, 3)] + [oc("a", 1, "pass")]
        self.assertEqual(self.rec(outs)["reason"], "v2, v3 not implemented")
        self.assertEqual(score.worst(["wrong", "timeout", "not-implemented"]), "timeout")
        self.assertEqual(score.worst(["wrong", "replayed"]), "replayed")


if __name__ == "__main__":
    unittest.main()
