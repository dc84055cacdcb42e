# Unit tests of how grading/metrics is built: every file of it under 600 lines, opening with a
# comment that names its one job, and written for Python 3.8 (the oldest the kit supports).
import ast
import glob
import os
import re
import unittest

import metrics_support

PACKAGE = os.path.join(metrics_support.GRADING, "kitmetrics")
TESTS = os.path.dirname(os.path.abspath(__file__))
# library calls newer than Python 3.8 that the syntax check cannot see
NEWER = (".removeprefix(", ".removesuffix(", "functools.cache(", "strict=", "list[", "dict[",
         "tuple[", "set[", "| None")


def sources():
    files = [metrics_support.ENTRY] + sorted(glob.glob(os.path.join(PACKAGE, "*.py")))
    files += sorted(glob.glob(os.path.join(TESTS, "test_metrics*.py")))
    return files + [os.path.join(TESTS, "metrics_support.py")]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Layout(unittest.TestCase):
    def test_every_part_is_there(self):
        names = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(PACKAGE, "*.py")))
        self.assertEqual(names, ["__init__", "cli", "failure", "helptext", "inputs", "mapping",
                                 "metricstsv", "ncucsv", "ncurun", "pivot", "plot", "table",
                                 "tsvrows", "units"])

    def test_no_file_past_600_lines(self):
        for path in sources():
            self.assertLessEqual(read(path).count("\n"), 600, path)

    def test_each_file_opens_with_a_comment_naming_its_job(self):
        for path in sources():
            lines = read(path).split("\n")
            first = lines[1] if lines[0].startswith("#!") else lines[0]
            name = os.path.basename(path)[:-3] if path.endswith(".py") else "grading/metrics"
            if name == "__init__":
                name = "kitmetrics"
            if name.startswith("test_metrics"):
                self.assertRegex(first, r"^# Unit tests of ", path)
            else:
                self.assertRegex(first, r"^# %s - \w" % re.escape(name), path)

    def test_python_3_8(self):
        for path in sources():
            text = read(path)
            ast.parse(text, filename=path, feature_version=(3, 8))
            if os.path.samefile(path, __file__):
                continue  # the list itself
            for newer in NEWER:
                self.assertFalse(newer in text, "%s uses %s" % (path, newer))


if __name__ == "__main__":
    unittest.main()
