"""Tests of kitgrade.course.history: regrades keep what a student had, with the grading's seed."""

import json
import os
import sys
import tempfile
import unittest
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kitgrade.course.history import (HistoryError, archive, load, markdown,  # noqa: E402
                              recorded_seed, regrade_seed, select_only, summary)


def result(points, commit, status="ok", late=None):
    r = {"student": "lab03-akim", "graded_at": "2025-03-15T08:00:00+01:00", "seed": 20250315,
         "git": {"commit": commit, "commit_time": "2025-03-14T20:00:00+01:00"},
         "total_pts": points, "max_pts": 30, "status": status, "reason": ""}
    if late:
        r["late"] = late
    return r


class Seed(unittest.TestCase):
    def test_from_grading_txt_and_json(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(recorded_seed(d))
            with self.assertRaises(HistoryError):
                regrade_seed(d)
            Path(d, "grading.txt").write_text("lab: 03\nseed: 20250315\nrubric: abc\n")
            self.assertEqual(regrade_seed(d), "20250315")
            self.assertEqual(regrade_seed(d, "20250315"), "20250315")
            with self.assertRaises(HistoryError):
                regrade_seed(d, "1")             # a regrade cannot change the inputs
            Path(d, "grading.json").write_text(json.dumps({"seed": 77}))
            self.assertEqual(recorded_seed(d), "77")

    def test_link_refused(self):
        with tempfile.TemporaryDirectory() as d:
            Path(d, "elsewhere.txt").write_text("seed: 5\n")
            os.symlink(Path(d, "elsewhere.txt"), Path(d, "grading.txt"))
            with self.assertRaises(OSError):
                recorded_seed(d)


class Only(unittest.TestCase):
    def test_select(self):
        available = {"akim": "lab03-akim", "jdoe": "lab03-jdoe", "eve": "eve"}
        names, unknown = select_only(available, ["AKIM", "lab03-jdoe,eve", "akim", "bob"])
        self.assertEqual(names, ["lab03-akim", "lab03-jdoe", "eve"])
        self.assertEqual(unknown, ["bob"])

    def test_an_exact_name_wins_and_letter_case_alone_is_refused(self):
        # folders alice and ALICE: each is its own name; Alice could be either
        available = [("alice", "alice"), ("ALICE", "ALICE")]
        self.assertEqual(select_only(available, ["alice"]), (["alice"], []))
        self.assertEqual(select_only(available, ["ALICE"]), (["ALICE"], []))
        with self.assertRaisesRegex(HistoryError, "^--only: 'Alice' fits 2 students in another "
                                                  "letter case: 'ALICE', 'alice'"):
            select_only(available, ["Alice"])
        # a results folder's own name before a login; one login of two folders refused
        available = [("alice", "alice"), ("alice", "alice.git"), ("zed", "lab01-zed"),
                     ("zed", "lab02-zed")]
        self.assertEqual(select_only(available, ["alice"]), (["alice"], []))
        with self.assertRaisesRegex(HistoryError, "'zed' fits 2 students: 'lab01-zed', "
                                                  "'lab02-zed'"):
            select_only(available, ["zed"])
        with self.assertRaisesRegex(HistoryError, "^--only: 'a b' fits 2 students: 'x', 'y'"):
            select_only([("a\x1bb", "x"), ("a\x1bb", "y")], ["a\x1bb"])    # no escape said


class Archive(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = Path(self.tmp.name)
        (self.out / "students" / "lab03-akim").mkdir(parents=True)

    def tearDown(self):
        self.tmp.cleanup()

    def grade(self, r):
        (self.out / "students" / "lab03-akim" / "results.json").write_text(json.dumps(r))

    def test_nothing_to_keep(self):
        self.assertIsNone(archive(self.out, "lab03-akim"))
        self.assertEqual(load(self.out, "lab03-akim"), [])
        self.assertEqual(markdown([]), "")

    def test_two_regrades_keep_both_earlier_results(self):
        first = result(24, "a" * 40)
        self.grade(first)
        t1 = datetime(2025, 3, 16, 9, 0, tzinfo=timezone.utc)
        e1 = archive(self.out, "lab03-akim", why="regrade: late work", now=t1)
        self.assertEqual((e1["points"], e1["commit"], e1["seed"], e1["graded_at"]),
                         (24, "a" * 40, "20250315", "2025-03-15T08:00:00+01:00"))
        # The driver may wipe the student's folder now: the history is elsewhere.
        (self.out / "students" / "lab03-akim" / "results.json").unlink()
        second = result(30, "b" * 40, late={"status": "late", "points_before": 30,
                                            "points_after": 27})
        self.grade(second)
        archive(self.out, "lab03-akim", seed="20250315",
                now=datetime(2025, 3, 17, 9, 0, tzinfo=timezone.utc))
        h = load(self.out, "lab03-akim")
        self.assertEqual([(e["points"], e["points_before"], e["commit"][:1]) for e in h],
                         [(24, 24, "a"), (27, 30, "b")])
        self.assertEqual(h[0]["why"], "regrade: late work")
        self.assertEqual(h[0]["archived_at"], "2025-03-16T09:00:00+00:00")
        kept = self.out / "history" / "lab03-akim"
        self.assertEqual(json.loads((kept / h[0]["result"]).read_text()), first)
        self.assertEqual(json.loads((kept / h[1]["result"]).read_text()), second)
        md = markdown(h)
        self.assertIn("27 (30 before the penalty) of 30", md)
        self.assertIn("aaaaaaaaaaaa (2025-03-14T20:00:00+01:00)", md)
        self.assertEqual(len(md.strip().splitlines()), 4)

    def test_summary_of_a_flat_result(self):
        s = summary({"commit": "c" * 40, "total_pts": 5, "status": "wrong"}, seed=9,
                    time="2025-03-15T08:00:00Z")
        self.assertEqual((s["seed"], s["points"], s["graded_at"], s["late"]),
                         ("9", 5, "2025-03-15T08:00:00Z", None))

    def test_markdown_escapes(self):
        md = markdown([{"graded_at": "x", "seed": "1", "commit": "c", "points": 1,
                        "status": "ok|<b>`x`", "archived_at": "t", "why": "a\nb"}])
        self.assertNotIn("<b>", md)
        self.assertNotIn("ok|", md)
        self.assertEqual(len(md.strip().splitlines()), 3)

    def test_bad_names_and_broken_lines(self):
        for bad in ("../x", ".hidden", "a/b", ""):
            with self.assertRaises(HistoryError):
                archive(self.out, bad)
        self.grade(result(1, "d" * 40))
        archive(self.out, "lab03-akim")
        with open(self.out / "history" / "lab03-akim" / "history.jsonl", "a") as f:
            f.write('{"cut short')                         # a crash in the middle of a line
        self.assertEqual(len(load(self.out, "lab03-akim")), 1)
        (self.out / "students" / "lab03-akim" / "results.json").write_text("not json")
        e = archive(self.out, "lab03-akim")
        self.assertEqual(e["status"], "unreadable")
        h = load(self.out, "lab03-akim")
        self.assertEqual([x["result"] for x in h], ["1-results.json", "2-results.json"])


if __name__ == "__main__":
    unittest.main()
