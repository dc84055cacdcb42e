# Unit tests of kitmetrics.pivot: the long TSV reshaped into gnuplot's tables and meta.gp.
import os
import unittest

import metrics_support
from kitmetrics.failure import Failure
from kitmetrics.pivot import Pivot, panel_of, pivot

HEAD = "label\tkernel\tlaunch\tblock\tgrid\tlegacy\tmetric\tvalue\tunit\n"


def row(label, kernel, launch, legacy, value, unit, metric="m"):
    return "\t".join([label, kernel, launch, "-", "-", legacy, metric, value, unit]) + "\n"


class Panels(unittest.TestCase):
    def test_each_unit_to_its_panel(self):
        self.assertEqual(panel_of("g", "%", 5.0), ("pct", "g", 5.0))
        self.assertEqual(panel_of("g", "wavefront", 5.0), ("cnt", "g", 5.0))
        self.assertEqual(panel_of("g", "byte/s", 2e9), ("thr", "g", 2.0))
        self.assertEqual(panel_of("d", "ns", 1500.0), ("oth", "d [us]", 1.5))
        self.assertEqual(panel_of("r", "ratio", 4.0), ("oth", "r", 4.0))
        self.assertEqual(panel_of("w", "thread", 32.0), ("oth", "w [thread]", 32.0))
        self.assertEqual(panel_of("s", "byte/block", 24576.0), ("mem", "s", 24576.0))
        self.assertEqual(panel_of("r", "register/thread", 30.0), ("oth", "r [register/thread]", 30.0))

    def test_shared_memory_per_block_comes_before_the_rest(self):
        tsv = (HEAD + row("v1", "k", "0", "duration", "3000", "ns")
               + row("v1", "k", "0", "dynamic_shared_mem_per_block", "24576", "byte/block")
               + row("v2", "k", "0", "dynamic_shared_mem_per_block", "0", "byte/block"))
        p = Pivot(tsv, "t")
        self.assertEqual(p.panel_names(), ["mem", "oth"])
        self.assertEqual(p.data_file("mem")[0].split("\n")[1],
                         "dynamic_shared_mem_per_block\t24576\t0")


class Reshape(metrics_support.TempDir, unittest.TestCase):
    TSV = (HEAD
           + row("v1", "void a(int)", "0", "gld_efficiency", "50", "%")
           + row("v1", "void a(int)", "1", "gld_efficiency", "100", "%")
           + row("v2", "b(int)", "0", "gld_efficiency", "25", "%")
           + row("v2", "c(int)", "1", "duration", "3000", "ns")
           + row("v2", "c(int)", "1", "-", "n/a", "", metric="x")
           + row("v'3", "d", "0", "dram_read_throughput", "2500000000", "byte/s"))

    def test_means_series_and_columns(self):
        p = Pivot(self.TSV, "t")
        self.assertEqual(p.series, ["v1", "v2: b", "v2: c", "v'3"])
        self.assertEqual(p.panel_names(), ["pct", "thr", "oth"])
        text, largest, columns = p.data_file("pct")
        self.assertEqual(text, "metric\tv1\tv2: b\tv2: c\tv'3\ngld_efficiency\t75\t25\tNaN\tNaN\n")
        self.assertEqual((largest, columns), (75.0, "2 3"))
        self.assertEqual(p.data_file("oth")[0].split("\n")[1], "duration [us]\tNaN\tNaN\t3\tNaN")

    def test_files_written(self):
        pivot(self.TSV, "t", self.tmp)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["meta.gp", "oth.dat", "pct.dat", "thr.dat"])
        with open(self.path("meta.gp")) as f:
            meta = f.read().split("\n")
        self.assertIn('cols_thr = "5"', meta)
        self.assertIn("max_thr = 2.5", meta)
        self.assertIn('panels = "pct thr oth"', meta)
        self.assertIn("maxlen = 5", meta)
        self.assertIn("ser_4 = 'v''3'", meta)

    def test_without_labels_the_kernel_names_the_series(self):
        tsv = "kernel\tlegacy\tvalue\tunit\nvoid k(int)\tgld_efficiency\t5\t%\n"
        self.assertEqual(Pivot(tsv, "t").series, ["k"])

    def test_refusals(self):
        with self.assertRaises(Failure) as c:
            pivot(HEAD + row("v", "k", "0", "x", "NA", "%"), "t", self.tmp)
        self.assertIn("no numeric metric values", c.exception.line)
        with self.assertRaises(Failure) as c:
            pivot("a\tb\n", "t", self.tmp)
        self.assertIn("not a metrics TSV", c.exception.line)
        with self.assertRaises(Failure) as c:
            pivot(self.TSV, "t", self.path("nope"))
        self.assertIn("is not a folder", c.exception.line)


if __name__ == "__main__":
    unittest.main()
