"""occupancy.py: where a grading's time went, from the runs in results.json."""
import json
import os
import shutil
import tempfile
import unittest

import util  # noqa: F401  (puts grading/ on the path)
from kitgrade.scoring import occupancy


def write_results(out, who, runs, folder="students"):
    d = os.path.join(out, folder, who) if folder == "students" else os.path.join(out, folder)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump({"student": who, "runs": runs}, f)


class Occupancy(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        write_results(self.out, "ann", [
            {"name": "together", "at": 1.0, "wall_ms": 2000, "gpu": 0, "cores": [3]},
            {"name": "time-student-p1", "at": 5.0, "wall_ms": 1000, "gpu": 0, "cores": [2]},
        ])
        write_results(self.out, "bob\x1b]0;pwned\x07", [
            {"name": "together", "at": 2.0, "wall_ms": 2000, "gpu": 1, "cores": [4]},
            {"name": "time-student-p1", "at": 5.5, "wall_ms": 1000, "gpu": 0, "cores": [2]},
            {"name": "no start", "wall_ms": 1000, "gpu": 0},
        ])
        write_results(self.out, "reference", [
            {"name": "time-reference-p1", "at": 0.5, "wall_ms": 500, "gpu": 0, "cores": [2]}],
            folder="reference")

    def test_lanes_and_kinds(self):
        rows = occupancy.runs_of(self.out)
        self.assertEqual(occupancy.lane_order(rows), ["GPU 0", "GPU 1", "core 2", "core 3", "core 4"])
        gpu0 = sorted((r[1], r[2], r[3]) for r in rows if r[0] == "GPU 0")
        self.assertEqual(gpu0, [(0.5, 1.0, "timed"), (1.0, 3.0, "correctness"), (5.0, 6.0, "timed"),
                                (5.5, 6.5, "timed")])
        # a run without a start is left out; a student's name has no control character
        self.assertEqual(len(rows), 10)
        for r in rows:
            self.assertTrue(all(c.isprintable() for c in r[4]), r[4])

    def test_a_run_started_early_begins_at_its_gate(self):
        """Its bar begins when its gate opened: the wait, asleep, was another run's time."""
        write_results(self.out, "cy", [
            {"name": "time-student-p1", "at": 7.0, "wall_ms": 3000, "gated_s": 2.5, "gpu": 0,
             "cores": [5]},
            {"name": "time-student-p2", "at": 8.0, "wall_ms": 500, "gated_s": 9.0, "gpu": 0}])
        rows = [r for r in occupancy.runs_of(self.out) if r[4] == "cy"]
        self.assertEqual(sorted((r[0], r[1], r[2]) for r in rows),
                         [("GPU 0", 8.0, 8.5), ("GPU 0", 9.5, 10.0), ("core 5", 9.5, 10.0)])

    def test_totals_count_overlaps_once(self):
        line = occupancy.totals(occupancy.runs_of(self.out))
        # GPU 0: [0.5,1] + [1,3] + [5,6.5] = 4.0 s busy; timed alone 0.5 + 1.5 = 2.0 s
        self.assertIn("span 6.0 s", line)
        self.assertIn("GPU 0 busy 4.0 s (timed runs 2.0 s, correctness runs 2.0 s)", line)
        self.assertIn("GPU 1 busy 2.0 s", line)
        self.assertIn("3 cores", line)

    def test_draw_writes_the_data_and_the_picture(self):
        line, drawn = occupancy.draw(self.out)
        plots = os.path.join(self.out, "plots")
        with open(os.path.join(plots, "occupancy.tsv")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "lane\tstart_s\tend_s\tkind\tstudent\trun")
        self.assertEqual(len(lines), 11)
        self.assertNotIn("\x1b", "\n".join(lines))
        with open(os.path.join(plots, "occupancy.txt")) as f:
            self.assertEqual(f.read().strip(), line.split(" (no gnuplot")[0])
        if shutil.which("gnuplot"):
            self.assertTrue(drawn, line)
            with open(os.path.join(plots, "occupancy.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertTrue(os.path.getsize(os.path.join(plots, "occupancy.pdf")) > 0)

    def test_no_runs_no_picture(self):
        empty = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, empty)
        line, drawn = occupancy.draw(empty)
        self.assertFalse(drawn)
        self.assertIn("no run", line)
        self.assertFalse(os.path.exists(os.path.join(empty, "plots", "occupancy.png")))


if __name__ == "__main__":
    unittest.main()
