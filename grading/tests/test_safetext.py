"""safetext: control characters replaced, formulas defused, numbers kept, JSON escaped."""
import json
import time
import unittest

import util  # noqa: F401 (the package on the path)
from kitgrade.base import safetext as st


class SafeText(unittest.TestCase):
    def test_cell(self):
        for x in ("=1+1", "+1-555", "-x", "@SUM(A1)", "\t=x", "\r=x", " =x", "\x1b=x",
                  "=HYPERLINK(\"http://e\")"):
            c = st.cell(x)
            self.assertTrue(c.startswith("'"), repr(x))
            self.assertEqual([ch for ch in c if not ch.isprintable()], [], repr(x))
        for x in ("-3.5", "+2", "0", "1e-3", ".5", "12.", -3.5, 7):
            self.assertEqual(st.cell(x), str(x))
        self.assertEqual(st.cell("ok, fine"), "ok, fine")
        self.assertEqual(st.cell("a\x1b[2Jb"), "a [2Jb")
        self.assertEqual(st.cell("12\n"), "12 ")          # a number's look, then a newline
        self.assertEqual(st.cell(""), "")

    def test_term_keeps_lines(self):
        self.assertEqual(st.term("a\x1b]0;x\x07\nb\rc\x9b"), "a ]0;x \nb c ")

    def test_json_text(self):
        rec = {"name": "Zoë \x1b[2J\x9b\u202e\x7f", "n": [1, -3.5]}
        text = st.json_text(rec, indent=1)
        self.assertEqual(json.loads(text), rec)
        self.assertIn("Zoë", text)
        self.assertEqual([c for c in text if not c.isprintable() and c != "\n"], [])

    def test_one_line(self):
        self.assertEqual(st.one_line("a\n\tb\x1b  c", 600), "a b c")
        self.assertEqual(st.one_line("x" * 10, 8), "xxxxx...")

    def test_source_names(self):
        """A student's file in a message reads the same whichever build compiled it."""
        for path in ("/tmp/o/work/s001/src/", "/tmp/o/work/reference/src/",
                     "/kit/grading/build/pristine/03-ab/labs/03_global_mem/"):
            self.assertEqual(st.source_names(path + "conv.cu:240: precondition failed: x"),
                             "conv.cu:240: precondition failed: x")
        self.assertEqual(st.source_names('at "/w/reference/src/conv.cu:9": x (/w/s1/src/a.c:3)'),
                         'at "conv.cu:9": x (a.c:3)')
        for line in ("lab07: cannot write time/x-perf1/v3.r4.bin: No space left",
                     "./main.c:55: cudaMalloc: out of memory", "src/conv.cu has no line",
                     "x/w/src/conv.cu:9 is not where a path starts"):
            self.assertEqual(st.source_names(line), line)
        # whatever a student prints, the search stays linear: 1 MiB of /a/a/a... at once
        t0 = time.monotonic()
        for line in ("/a" * (1 << 19), "/a/src" * (1 << 17), " /a" * (1 << 18)):
            self.assertEqual(st.source_names(line), line)
        self.assertLess(time.monotonic() - t0, 5.0)

    def test_a_name_with_a_line_break_forges_no_line_of_the_graders(self):
        """say: a message's later lines (a folder named "x\ngrade: all graded") begin with
        "  | ", so no line but the first begins like one of the grader's."""
        import io
        import sys
        from kitgrade.base import tell
        err, sys.stderr = sys.stderr, io.StringIO()
        try:
            tell.say("not graded: x\ngrade: all 2 students graded, 0 failures\x1b[2J: why")
            out = sys.stderr.getvalue()
        finally:
            sys.stderr = err
        lines = out.splitlines()
        self.assertEqual(lines[0], "grade: not graded: x")
        self.assertEqual(lines[1], "  | grade: all 2 students graded, 0 failures [2J: why")
        self.assertEqual(sum(ln.startswith("grade:") for ln in lines), 1)


if __name__ == "__main__":
    unittest.main()
