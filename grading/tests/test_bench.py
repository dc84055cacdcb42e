"""grading/bench/scale_summary.py on made-up gradings: the floor from the timed runs after their
gates, the busiest GPU's; the speed-up against one GPU and the goals; identical copies."""
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import scale_summary  # noqa: E402


def student(out, g, who, points, runs):
    d = os.path.join(out, "g%d" % g, "students", who)
    os.makedirs(d)
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump({"student": who, "points": {"total": points}, "runs": runs}, f)


class Scale(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def report(self, lab="03", gpu_lab="1", cores="16"):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = scale_summary.main([self.out, lab, gpu_lab, cores])
        return rc, buf.getvalue()

    def test_floor_speedup_and_goals(self):
        timed = {"name": "time-student-p1", "wall_ms": 3000, "gated_s": 2.0, "gpu": "0"}
        for k in range(4):          # one GPU: 4 timed runs of 1 s after their gates
            student(self.out, 1, "s%d-correct" % k, 68, [dict(timed), {"name": "together",
                                                                       "wall_ms": 9000,
                                                                       "gpu": "0"}])
        for k in range(4):          # two GPUs: 3 runs on GPU 0, one on GPU 1
            student(self.out, 2, "s%d-correct" % k, 68 if k else 67.5,
                    [dict(timed, gpu="0" if k < 3 else "1")])
        with open(os.path.join(self.out, "times.txt"), "w") as f:
            f.write("1 0 5.0\n2 0 2.5\n")
        with open(os.path.join(self.out, "g2", "grading.txt"), "w") as f:
            f.write("lab: 03\nset-up: 3.0 s (pristine kit 2.0, GPU 0 ceiling 1.0)\n")
        rc, text = self.report()
        self.assertIn("\n  set-up: 3.0 s (pristine kit 2.0, GPU 0 ceiling 1.0)\n", text)
        self.assertEqual(text.count("set-up: "), 1)           # g1 has no grading.txt
        self.assertIn("lab 03 on 1 GPU: 4 graded in 5.0 s", text)
        self.assertIn("floor 4.0 s: the timed runs' GPU time after their gates (GPU 0 4.0 s); "
                      "1.25x the floor", text)
        self.assertIn("goal one GPU within 1.3x of the floor: met", text)
        self.assertIn("floor 3.0 s", text)                       # the busiest of the two
        self.assertIn("2.00x as fast as one GPU", text)
        self.assertIn("goal 2 GPUs 1.8x as fast as one: met", text)
        self.assertIn("the reference's 4 copies: 67.5 to 68 points", text)
        self.assertIn("goal identical copies, identical points: NOT met", text)
        self.assertEqual((rc, text.splitlines()[-1]), (1, "goals: 3 of 4 met"))

    def test_nothing_graded_is_a_goal_missed(self):
        os.makedirs(os.path.join(self.out, "g0"))
        with open(os.path.join(self.out, "times.txt"), "w") as f:
            f.write("0 2 1.0\n")
        rc, text = self.report("01", "0", "2")
        self.assertIn("lab 01 on 2 cores: 0 graded in 1.0 s (grade's exit 2)", text)
        self.assertEqual(rc, 1)


if __name__ == "__main__":
    unittest.main()
