"""report.py and summary.py: reports made from results.json; nothing a student controls is
rendered as Markdown or HTML; grades.csv's columns and quoting."""
import csv
import os
import unittest

import util
from kitgrade.lab import rubric
from kitgrade.scoring import report, score, summary
from kitgrade.lab.names import Student
from kitgrade.runs.run import Outcome

EVIL = '<img src=x onerror=alert(1)> | [click](http://evil.example) `code` *b* _i_ # h'


def record(name, sid, reason_status="wrong"):
    r = rubric.parse("x", "points 1 10 5\ncase a all --x\nperf all --x\n")
    outs = [Outcome("a", "", 1, reason_status, EVIL), Outcome("perf1", "", 1, "pass")]
    outs[0].listing = "``` \n</code><script>x</script>\n"
    st = Student(name, sid, "/x")
    return score.result(r, st, "01", {"status": "ok", "reason": "", "ms": 1200,
                                      "warnings": ["fake.c:1: warning: <b>"]},
                        ["fake.c: used", "evil<b>.txt: ignored"], outs, {},
                        runs=[{"name": "t", "wall_ms": 5.0, "rc": 0, "cpu_ms": 4.0}])


class Escaping(unittest.TestCase):
    def test_md(self):
        s = report.md(EVIL)
        for bad in ("<img", "[click](", "`code`", "*b*", "_i_", "| [", "http://"):
            self.assertNotIn(bad, s)
        self.assertIn("&lt;img", s)
        self.assertEqual(report.md("a\nb\tc\x1b[31m"), "a b c \\[31m")
        self.assertEqual(report.md("‘ext_row’ \"q\" 'q'"), "‘ext\\_row’ \"q\" 'q'")

    def test_block_cannot_be_closed(self):
        b = report.block("a\n````\n```` x\n`\x07")
        fence = b.split(" ", 1)[0]
        self.assertEqual(fence, "`````")
        self.assertEqual(b.count(fence), 2)
        self.assertNotIn("\x07", b)

    def test_gp_string(self):
        self.assertEqual(report.gp_string("it's"), "'it''s'")


class Reports(util.TempCase):
    def test_student_files(self):
        sd = os.path.join(self.tmp, "s")
        os.makedirs(os.path.join(sd, "logs"))
        util.put(os.path.join(sd, "logs", "together.err"), "<script>alert(1)</script>\n")
        rec = record("Zoë <script>", "Zo_-1")
        report.write_views(sd, rec)
        report.write_report(sd, rec, {"sandbox": "none", "notes": ["memory"],
                                      "inputs": {"a": "--x"}, "timing_words": "Times: cpu."})
        report.write_results(sd, rec)
        md = util.read(os.path.join(sd, "report.md"))
        # outside code blocks (whose text renders as text), no tag comes through
        text, inside, fence = [], False, ""
        for ln in md.splitlines():
            if not inside and ln.startswith("```"):
                inside, fence = True, ln.split(" ")[0]
            elif inside and ln == fence:
                inside = False
            elif not inside:
                text.append(ln)
        self.assertFalse(inside)
        self.assertNotIn("<script>", "\n".join(text))
        self.assertNotIn("<img", md)
        self.assertIn("<script>alert(1)</script>", md)     # the log, as it is, in its block
        self.assertIn("# Lab 01: Zoë &lt;script&gt;", md)
        self.assertIn("## Hidden tests", md)
        self.assertIn("## Points per variant", md)
        self.assertIn("Sandbox: none. Not enforced here: memory.", md)
        self.assertEqual(report.load(sd)["student"], "Zoë <script>")
        self.assertEqual(util.read(os.path.join(sd, "tests.tsv")).split("\t")[:3],
                         ["1", "a", "wrong"])
        self.assertEqual(len(util.read(os.path.join(sd, "result.tsv")).split("\t")), 11)
        self.assertIn("evil<b>.txt: ignored", util.read(os.path.join(sd, "files.txt")))

    def test_class_files(self):
        out = self.tmp
        for name, sid in (("b,\"q\"\nx", "b-1"), ("alice", "alice"), ("Zoé", "Zo_-2")):
            sd = os.path.join(out, "students", sid)
            os.makedirs(sd)
            report.write_results(sd, record(name, sid, "pass" if name == "alice" else "wrong"))
        recs = summary.records(out)
        self.assertEqual([r["id"] for r in recs], ["Zo_-2", "alice", "b-1"])
        summary.write_grades(out, recs)
        text = util.read(os.path.join(out, "grades.csv"))
        lines = text.splitlines()
        self.assertEqual(lines[0], summary.HEADER)
        self.assertEqual(len(lines), 4)
        rows = list(csv.reader(lines))
        self.assertEqual(rows[3][0], 'b,"q" x')
        self.assertEqual(rows[3][11], "b-1")
        self.assertTrue(all(len(r) == 12 for r in rows))
        self.assertTrue(lines[2].startswith('"alice","01",ok,2,2,'))
        summary.write_summary(out, recs, {
            "lab": "01", "labname": "01_cpu_conv", "max_pts": 15, "grading_txt": "seed: 1\n",
            "notes": [], "skipped": [(".git", "a <b>hidden</b> folder")], "jobs": 2,
            "slots": ["0"], "seconds": 3, "plots": False})
        s = util.read(os.path.join(out, "summary.md"))
        self.assertIn("3 students; mean", s)
        self.assertIn("](students/alice/report.md)", s)
        self.assertNotIn("<b>", s)
        self.assertNotIn("<img", s)
        self.assertIn("Not graded:", s)

    def test_phase_lines(self):
        """Each phase's seconds added over the students that carry phases; an unfinished
        phase or a record without phases adds nothing; the GPU line's hold when there is one."""
        recs = [{"phases": {"build": [0.0, 2.0], "run": [2.5, 4.0], "wait": [4.0, 9.0],
                            "timed": [9.0, 10.25], "check": [10.25, 10.5]},
                 "run_parts": {"gate": 0.25, "runs": 1.0, "checks": 0.25}},
                {"phases": {"build": [1.0, 4.0], "run": [4.0, None]}},
                {"status": "compile-error"}]
        lines = summary.phase_lines(recs, (7.5, 3))
        self.assertEqual(len(lines), 1)
        s = lines[0]
        self.assertIn("added over 2 students", s)
        self.assertIn("building 5.0 s", s)
        self.assertIn("correctness runs 1.5 s", s)
        self.assertIn("waiting for a timed slot 5.0 s", s)
        self.assertIn("timed runs 1.2 s", s)
        self.assertIn("held a GPU alone 7.5 s in all, in 3 turns", s)
        self.assertIn("Of the correctness runs: waiting for the GPU 0.2 s, in the runs 1.0 s, "
                      "in the checker 0.2 s.", s)
        self.assertNotIn("held", summary.phase_lines(recs, None)[0])
        self.assertEqual(summary.phase_lines([{"status": "ok"}], (1.0, 1)), [])
        self.assertEqual(summary.phase_lines([{"phases": "x"}], None), [])

    def test_phase_lines_add_the_timed_runs_parts(self):
        """The timed runs' split_s of the records with phases, added part by part, with their
        count; a run without one, or a record without phases, adds nothing."""
        sp = {"start": 0.5, "gate": 1.0, "setup": 0.25, "key": 0.5, "content": 0.75, "variant": 0.125,
              "output": 1.5, "between": 0.25, "end": 0.125}
        recs = [{"phases": {"build": [0.0, 1.0]},
                 "runs": [{"name": "together"}, {"name": "time-student-p1", "split_s": sp},
                          {"name": "time-reference-after-p1", "split_s": sp}]},
                {"phases": {"build": [0.0, 1.0]}, "runs": "x"},
                {"runs": [{"name": "time-student-p1", "split_s": sp}]}]
        s = summary.phase_lines(recs, None)[0]
        self.assertIn("Of the 2 timed runs (the students' and the reference's): starting "
                      "(process, inputs, CUDA) 1.0 s, waiting at the gate 2.0 s, first set-up "
                      "and warm-up 0.5 s, waiting for each key (in lockstep, the other run) 1.0 s, making "
                      "each repetition's content 1.5 s, in the "
                      "variants 0.2 s, writing the outputs 3.0 s, between variants 0.5 s, "
                      "ending 0.2 s.", s)
        odd = [{"phases": {"build": [0.0, 1.0]},
                "runs": [{"name": "time-a", "split_s": {"start": 10 ** 400, "gate": float("inf"),
                                                         "setup": True, "key": "1"}},
                         {"name": "time-b", "split_s": {}}, {"name": "time-c", "split_s": sp}]}]
        s = summary.phase_lines(odd, None)[0]           # what is not a number of seconds: left out
        self.assertIn("Of the 1 timed runs", s)
        self.assertIn("starting (process, inputs, CUDA) 0.5 s, waiting at the gate 1.0 s", s)
        self.assertNotIn("timed runs (the", summary.phase_lines(
            [{"phases": {"build": [0.0, 1.0]}, "runs": [{"name": "together"}]}], None)[0])


if __name__ == "__main__":
    unittest.main()
