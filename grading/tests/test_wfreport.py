"""wfreport.py: what the workflow adds to report.md, grades.csv and summary.md, from the
records alone; nothing without its data; what a student controls escaped."""
import csv
import io
import json
import os

import util
from kitgrade.course import history
from kitgrade.scoring import summary, wfreport

GIT = {"login": "akim", "repo": "/r", "ref": "HEAD", "status": "ok", "reason": "",
       "commit": "c" * 40, "commit_time": "2025-03-15T10:00:00+01:00",
       "until": "2025-03-21T23:59:00+01:00", "newer_commits": 1,
       "submitted_at": "2025-03-15T10:00:00+01:00", "submitted_from": "commit",
       "clone_time": None, "files": {"conv.cu": "labs/03_global_mem/conv.cu"},
       "skipped": ["conv.cu: ignored, labs/03_global_mem/conv.cu was taken"],
       "flags": ["out-of-order: commit cccc is dated x, before its parent",
                 "backdated: commit cccc ...", "out-of-order: another"]}
LATE = {"status": "late", "deadline": "2025-03-14T23:59:00+01:00",
        "submitted": "2025-03-15T10:00:00+01:00", "late_s": 36060.0, "periods": 1,
        "penalty_pct": 10.0, "points_before": 20.0, "points_after": 18.0,
        "reason": "late by 10 h 1 min: 1 day counted, 10% off (20 -> 18 points)"}


def rec(sid, **kw):
    r = {"student": sid, "id": sid, "lab": "03", "status": "ok", "reason": "",
         "build": {"status": "ok"}, "tests": {"passed": 1, "total": 1}, "files": [],
         "points": {"correctness": 20.0, "perf": 0.0, "total": 20.0, "max": 30.0},
         "variants": [], "cases": []}
    r.update(kw)
    return r


class Columns(util.TempCase):
    def test_none_without_workflow_data(self):
        self.assertIsNone(wfreport.grade_columns([rec("a"), rec("b")], str))
        summary.write_grades(self.tmp, [rec("a")])
        self.assertEqual(util.read(os.path.join(self.tmp, "grades.csv")).splitlines()[0],
                         summary.HEADER)

    def test_columns_after_the_twelve(self):
        recs = [rec("lab03-akim", login="akim", roster="matched", git=GIT,
                    late=LATE, points={"correctness": 20.0, "perf": 0.0, "total": 18.0,
                                       "max": 30.0}),
                rec("pnovak", login="pnovak", roster="missing", status="missing"),
                rec("x,\"y", login='x,"y', roster="not-on-roster")]
        summary.write_grades(self.tmp, recs)
        rows = list(csv.reader(io.StringIO(util.read(os.path.join(self.tmp, "grades.csv")))))
        self.assertEqual(rows[0], summary.HEADER.split(",") + wfreport.COLUMNS)
        self.assertTrue(all(len(r) == 21 for r in rows), rows)
        akim = dict(zip(rows[0], rows[1]))
        self.assertEqual((akim["total_pts"], akim["points_before_late"], akim["late"],
                          akim["late_penalty_pct"], akim["commit"], akim["flags"],
                          akim["submitted_at"]),
                         ("18.0", "20.0", "late", "10", "c" * 40, "out-of-order;backdated",
                          "2025-03-15T10:00:00+01:00"))
        self.assertEqual(dict(zip(rows[0], rows[3]))["login"], 'x,"y')
        self.assertEqual(dict(zip(rows[0], rows[2]))["roster"], "missing")


class Report(util.TempCase):
    def test_top_of_the_report(self):
        sd = os.path.join(self.tmp, "students", "lab03-akim")
        os.makedirs(sd)
        util.put(os.path.join(sd, "results.json"), json.dumps(rec("lab03-akim", seed_x=1)))
        history.archive(self.tmp, "lab03-akim", seed=987654321, why="regraded")
        g = dict(GIT, ref="<b>main</b>")
        text = "\n".join(wfreport.top(sd, rec("lab03-akim", login="a|b", roster="matched",
                                              git=g, late=LATE)))
        self.assertIn("Commit graded: `%s`, dated 2025-03-15T10:00:00+01:00" % ("c" * 40), text)
        self.assertIn("(1 newer not graded)", text)
        self.assertIn("**20 points before the late penalty, 18 after.**", text)
        self.assertIn("Handed in: 2025-03-15T10:00:00+01:00 (from the commit's date)", text)
        self.assertIn("## Earlier gradings", text)
        self.assertNotIn("987654321", text)          # the seed is the instructor's
        self.assertNotIn("<b>", text)
        self.assertIn("a\\|b", text)
        for kind in ("out-of-order", "backdated"):
            self.assertIn(kind, text)
        self.assertEqual(wfreport.top(sd, rec("x")), [])

    def test_lateness_words(self):
        sd = os.path.join(self.tmp, "reference")
        on = dict(LATE, status="on-time", penalty_pct=0.0, points_after=20.0, reason="")
        self.assertIn("On time: handed in", "\n".join(wfreport.top(sd, rec("x", late=on))))
        none = dict(LATE, status="no-time", penalty_pct=0.0, submitted=None,
                    reason="no submission time known: no late policy applied")
        self.assertIn("Lateness: no submission time known",
                      "\n".join(wfreport.top(sd, rec("x", late=none))))
        gone = {"status": "no-commit", "reason": "no commit on HEAD is dated at or before x",
                "commit": None, "skipped": [], "flags": []}
        self.assertIn("No commit graded: no commit on HEAD",
                      "\n".join(wfreport.top(sd, rec("x", git=gone))))


class Summary(util.TempCase):
    def test_summary_lines(self):
        recs = [rec("a", login="a", roster="matched", git=GIT, late=LATE),
                rec("b", login="b", roster="missing", status="missing"),
                rec("c*d", login="cd", roster="not-on-roster",
                    late=dict(LATE, status="on-time"))]
        util.put(os.path.join(self.tmp, "similarity.md"), "# Similarity\n")
        text = "\n".join(wfreport.summary_lines(self.tmp, recs))
        self.assertIn("Roster: 1 students with a submission, 1 missing (0 points), 1 "
                      "submissions of nobody on the roster (graded): c\\*d.", text)
        self.assertIn("Lateness: 1 on time, 1 late.", text)
        self.assertIn("a (out-of-order, backdated)", text)
        self.assertIn("[similarity.md](similarity.md)", text)
        self.assertEqual(wfreport.summary_lines(os.path.join(self.tmp, "x"), [rec("a")]), [])


if __name__ == "__main__":
    util.unittest.main()
