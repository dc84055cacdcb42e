"""A property of every output: what a student or a roster controls reaches no terminal, no
spreadsheet and no report raw.

Folder names, roster cells and compiler messages hold every control character (C0, DEL, C1,
a bidirectional override) and begin with every formula prefix (= + - @, tab, carriage
return). A whole grading of the fake kit with a roster and the Canvas export, then the Moodle
export, runs over them; afterwards no text output (grades.csv, canvas.csv, moodle.csv, every
TSV, report.md, summary.md, results.json, build.log, grading.txt, the grader's standard error)
holds a control character but its own line ends and separators, and no CSV or TSV cell
begins like a formula unless it is a number. The runs' own logs (logs/, the program's bytes as
it wrote them) and the files handed in are evidence, kept as they are, and not read here.
"""
import csv
import io
import os
import re
import shutil
import tempfile
import unittest

import util
from test_e2e import grade

CONTROLS = "".join(chr(c) for c in range(1, 32)) + "\x7f" + \
    "".join(chr(c) for c in range(0x80, 0xa0)) + "\u202e"
PREFIXES = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def evil(prefix, word):
    """A name that begins with PREFIX and holds every control character inside."""
    return "%s%s%sx" % (prefix, word, CONTROLS.replace("\n", "").replace("/", ""))


def compile_error(name):
    """A fake.c whose compiler messages quote a file name and an error of the student's."""
    esc = "".join("\\x%02x" % ord(c) if ord(c) < 0x80 else c
                  for c in CONTROLS if c not in "\n\r")
    return ('#line 1 "=HYPERLINK(\\"http://evil.example/%s\\")%s"\n'
            '#pragma GCC error "%s=1+1"\nint x = ; /* %s */\n'
            % (name, esc, esc, CONTROLS.replace("\n", " ").replace("*/", "")))


def bad_chars(text, allowed="\n"):
    return sorted({"%r" % c for c in text if not c.isprintable() and c not in allowed})


class HostileText(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="kitgrade-hostile-")
        root = cls.tmp
        cls.kit = util.fake_kit(os.path.join(root, "kit"))
        subs = os.path.join(root, "subs")
        os.makedirs(subs)
        cls.names = [evil(p, "stu%d" % i) for i, p in enumerate(PREFIXES)]
        for i, name in enumerate(cls.names):
            d = os.path.join(subs, name)
            os.makedirs(d)
            src = compile_error(i) if PREFIXES[i] in "-\r" else \
                "// v1 correct\nint fake_variant(int v) { return v; }\n"
            util.put(os.path.join(d, "fake.c"), src)
        os.makedirs(os.path.join(subs, "." + evil("=", "hidden")))
        util.put(os.path.join(subs, evil("@", "plainfile")), "x")
        cls.roster = os.path.join(root, "roster.csv")
        with open(cls.roster, "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["login", "name", "id", "email", "section"])
            for i, name in enumerate(cls.names + [evil("=", "missing")]):
                w.writerow([name, evil(PREFIXES[i % 6], "=cmd|' /C calc'!A0 "),
                            evil("+", str(i)), evil("@", "mail%d@x" % i) + "@uni.example",
                            evil("-", "2+3")])
        cls.out = os.path.join(root, "out")
        common = ["--lab", "99", "--out", cls.out, "--kit", cls.kit, "--roster", cls.roster]
        cls.rc, cls.log = grade(common + ["--submissions", subs, "--sandbox", "none",
                                          "--timeout", "2", "--quick", "--export", "canvas",
                                          "--assignment", "=Lab 9"], quiet=False)
        cls.rc2, cls.log2 = grade(common + ["--export", "moodle", "--assignment", "@Lab 9"],
                                  quiet=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def outputs(self):
        for d, dirs, files in os.walk(self.out):
            rel = os.path.relpath(d, self.out).split(os.sep)
            if rel[0] == "pristine" or "logs" in rel or "submitted" in rel:
                dirs[:] = []
                continue
            for f in files:
                if f.endswith((".csv", ".tsv", ".md", ".json", ".txt", ".jsonl", ".log")):
                    yield os.path.join(d, f)

    def test_graded_and_exported(self):
        self.assertEqual(self.rc, 0, self.log)
        self.assertEqual(self.rc2, 0, self.log2)
        grades = util.read(os.path.join(self.out, "grades.csv"))
        self.assertIn("'=HYPERLINK(", grades)           # the compiler's message, defused
        self.assertIn('"\'=stu0', grades)
        perf = util.read(os.path.join(self.out, "plots", "perf.tsv"))
        self.assertIn("'+stu1", perf)                  # a results folder's name, defused
        self.assertTrue(os.path.isfile(os.path.join(self.out, "canvas.csv")))
        self.assertTrue(os.path.isfile(os.path.join(self.out, "moodle.csv")))

    def test_no_control_character_in_any_output(self):
        seen = 0
        for path in self.outputs():
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
            if path.endswith((os.sep + "canvas.csv", os.sep + "moodle.csv")):
                text = text.replace("\r\n", "\n")       # the platforms' own line ends
            # tabs: a TSV's separators, and a log's own (kept in the reports' fenced blocks)
            allowed = "\n\t" if path.endswith((".tsv", ".log", ".md")) else "\n"
            self.assertEqual(bad_chars(text, allowed), [], path)
            seen += 1
        self.assertGreater(seen, 20)
        for log in (self.log, self.log2):
            self.assertEqual(bad_chars(log), [], log)
        self.assertIn("not graded: .=hidden", self.log)

    def test_no_cell_is_a_formula(self):
        def check(path, rows):
            for row in rows:
                for c in row:
                    if c.lstrip(" ").startswith(PREFIXES) or c.startswith(PREFIXES):
                        self.assertRegex(c, NUMBER, "%s: %r" % (path, c))
        n = 0
        for path in self.outputs():
            text = util.read(path)
            if path.endswith(".csv"):
                check(path, csv.reader(io.StringIO(text, newline="")))
                n += 1
            elif path.endswith(".tsv"):
                check(path, (ln.split("\t") for ln in text.splitlines()))
                n += 1
        self.assertGreater(n, 10)


if __name__ == "__main__":
    unittest.main()
