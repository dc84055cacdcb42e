# Unit tests of kitmetrics.plot: how gnuplot is found and called (a fake gnuplot stands in).
import os
import shlex
import sys
import unittest

import metrics_support
from kitmetrics.failure import Failure
from kitmetrics.plot import plot

TSV = ("label\tkernel\tlaunch\tblock\tgrid\tlegacy\tmetric\tvalue\tunit\n"
       "v1\tk\t0\t-\t-\tgld_efficiency\tm\t50\t%\n")

# a fake gnuplot: reads in, out and pivot back from the -e setting as gnuplot would, records
# them, its arguments and the pivot folder's files, then writes OUT.png and OUT.pdf unless told
FAKE = """\
import os, re, sys
values = dict((k, v.replace("''", "'")) for k, v in re.findall(r"(\\w+)='((?:[^']|'')*)'", sys.argv[2]))
with open(%(log)r, "w") as log:
    log.write("\\n".join(sys.argv[1:] + [values["in"], values["out"]] + sorted(os.listdir(values["pivot"]))))
if os.environ.get("FAIL"):
    sys.exit(1)
if not os.environ.get("EMPTY"):
    for ext in ("png", "pdf"):
        with open(values["out"] + "." + ext, "w") as f:
            f.write(ext)
"""


class Plot(metrics_support.TempDir, unittest.TestCase):
    def setUp(self):
        metrics_support.TempDir.setUp(self)
        self.tsv = self.write("prof.tsv", TSV)
        self.gnuplot = self.write("gnuplot", "#!%s\n" % sys.executable + FAKE % {"log": self.path("log")})
        os.chmod(self.gnuplot, 0o755)
        self.env = {"PATH": "/usr/bin:/bin", "GNUPLOT": self.gnuplot, "TMPDIR": self.tmp}

    def log(self):
        with open(self.path("log")) as f:
            return f.read().split("\n")

    def test_pivots_then_calls_gnuplot_on_the_script(self):
        out = self.path("it's out")
        self.assertEqual(plot(self.tsv, out, self.env), [out + ".png", out + ".pdf"])
        log = self.log()
        self.assertEqual(log[0], "-e")
        self.assertTrue(log[1].startswith("in='%s'; out='%s'; pivot='" % (self.tsv, out.replace("'", "''"))))
        self.assertTrue(log[2].endswith("plot_metrics.gp"))
        self.assertEqual(log[3:], [self.tsv, out, "meta.gp", "pct.dat"])
        # the pivot folder is gone afterwards
        self.assertEqual(sorted(os.listdir(self.tmp)), ["gnuplot", "it's out.pdf", "it's out.png", "log", "prof.tsv"])

    def test_gnuplot_missing_is_exit_5_and_nothing_is_written(self):
        env = dict(self.env, GNUPLOT=self.path("none"))
        with self.assertRaises(Failure) as c:
            plot(self.tsv, self.path("o"), env)
        self.assertEqual(c.exception.code, 5)
        self.assertIn("gnuplot not found", c.exception.line)
        self.assertFalse(os.path.exists(self.path("o.png")))

    def test_gnuplot_failing_or_writing_nothing_is_exit_2(self):
        for flag in ("FAIL", "EMPTY"):
            gnuplot = metrics_support.write_program(
                self.tmp, "gp-" + flag, "%s=1 exec %s \"$@\"\n" % (flag, shlex.quote(self.gnuplot)))
            with self.assertRaises(Failure) as c:
                plot(self.tsv, self.path("o"), dict(self.env, GNUPLOT=gnuplot))
            self.assertEqual(c.exception.code, 2, flag)

    def test_input_that_cannot_be_plotted_is_exit_2(self):
        with self.assertRaises(Failure) as c:
            plot(self.path("nope.tsv"), self.path("o"), self.env)
        self.assertIn("no such file", c.exception.line)


if __name__ == "__main__":
    unittest.main()
